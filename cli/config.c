// SPDX-License-Identifier: MIT
/*
 * isorun config [OPTION]... [-- COMMAND]: every effective setting of the run
 * those options would make, one per line, as `name = value    (source)`;
 * the source is `default`, `FILE:LINE` or `command line`.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/args.h"
#include "cli/keys.h"
#include "common/version.h"
#include "common/cleanup.h"
#include "cli/commands.h"
#include "cli/conf.h"
#include "cli/mounts.h"
#include "common/exit.h"
#include "common/text.h"
#include "tree/tree.h"
#include "ns/ns.h"

/* A value from a checkout's isorun.conf is its text: escaped as every such field is. */
static void print_line(const struct sup_opts *o, const char *name, const char *val,
		       const struct sup_setting *from)
{
	_cleanup_free_ char *shown = iso_escape(val);

	val = shown ? shown : "?";
	if (!from)
		printf("%s = %s    (default)\n", name, val);
	else if (from->line == SUP_FROM_CLI)
		printf("%s = %s    (command line)\n", name, val);
	else
		printf("%s = %s    (%s:%u)\n", name, val, o->config_path, from->line);
}

static void print_settings(const struct sup_opts *o)
{
	char buf[64];

	if (o->config_path)
		printf("config = %s    (%s)\n", o->config_path,
		       o->config_arg ? "command line" : "found");
	else
		printf("config = none    (%s)\n", o->no_config ? "--no-config" : "not found");
	for (int k = 0; k < SUP_N_KEYS; k++) {
		const char *name = cli_keys[k].name;
		bool any = false;

		if (cli_keys[k].kind != CLI_KIND_LIST) {
			print_line(o, name, cli_key_show(o, k, buf, sizeof(buf)),
				   cli_key_last(o, k));
			continue;
		}
		/* a list: each entry where it came from, the file's first */
		for (size_t i = 0; i < o->n_settings; i++) {
			const struct sup_setting *s = &o->settings[i];
			char *shown;
			if ((int)s->key != k)
				continue;
			any = true;
			shown = k == SUP_K_SETENV ? iso_redact(s->val) : NULL;
			print_line(o, name, shown ? shown : s->val, s);
			free(shown);
		}
		if (!any)
			print_line(o, name, "none", NULL);
	}
	if (o->argc) {
		char *cmd = iso_join_cmdline((const char *const *)o->argv, o->argc, 4096);
		printf("command = %s    (%s)\n", cmd ? cmd : "?",
		       o->shell ? "isorun shell" : "command line");
		free(cmd);
	}
}

/* "default", "command line" or "FILE:LINE", malloc'ed */
static char *source(const struct sup_opts *o, const struct sup_setting *from)
{
	char *r;

	if (!from)
		return strdup("default");
	if (from->line == SUP_FROM_CLI)
		return strdup("command line");
	return asprintf(&r, "%s:%u", o->config_path, from->line) < 0 ? NULL : r;
}

/* Standard base64 (RFC 4648, with padding) of the n bytes at s; malloc'ed. */
static char *base64(const unsigned char *s, size_t n)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *p = out;

	if (!out)
		return NULL;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) |
			     (i + 2 < n ? s[i + 2] : 0);

		*p++ = abc[v >> 18 & 63];
		*p++ = abc[v >> 12 & 63];
		*p++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
		*p++ = i + 2 < n ? abc[v & 63] : '=';
	}
	*p = '\0';
	return out;
}

/*
 * A string of the config output: JSON strings are UTF-8, and json_string()
 * refuses anything else, so a path or value that is not UTF-8 becomes
 * {"base64": "..."} of its bytes: lossless, and never a string a reader could
 * take for the value itself (docs/decisions/0016-isorun-conf.md, isorun config).
 */
static json_t *bytes_json(const char *s)
{
	_cleanup_free_ char *b = NULL;
	json_t *t = s ? json_string(s) : json_null();

	if (t)
		return t;
	b = base64((const unsigned char *)s, strlen(s));
	return b ? json_pack("{s:s}", "base64", b) : NULL;
}

static json_t *entry(const struct sup_opts *o, const char *val, const struct sup_setting *from)
{
	_cleanup_free_ char *src = source(o, from);

	/* the source holds the file's path, which may be no UTF-8 either */
	return json_pack("{s:o?, s:o?}", "value", bytes_json(val), "source",
			 bytes_json(src ? src : "?"));
}

/* isorun config --json: the same facts as the lines, as one object */
static json_t *settings_json(const struct sup_opts *o)
{
	json_t *root = json_object(), *set = json_object(), *cmd;
	char buf[64];

	if (!root || !set) {
		json_decref(root);
		json_decref(set);
		return NULL;
	}
	json_object_set_new(root, "config",
			    json_pack("{s:o, s:s}", "path",
				      o->config_path ? bytes_json(o->config_path) : json_null(),
				      "source",
				      o->config_path ? (o->config_arg ? "command line" : "found")
				      : o->no_config ? "--no-config"
						     : "not found"));
	for (int k = 0; k < SUP_N_KEYS; k++) {
		json_t *list;

		if (cli_keys[k].kind != CLI_KIND_LIST) {
			json_object_set_new(
				set, cli_keys[k].name,
				entry(o, cli_key_show(o, k, buf, sizeof(buf)), cli_key_last(o, k)));
			continue;
		}
		list = json_array();
		for (size_t i = 0; list && i < o->n_settings; i++) {
			const struct sup_setting *st = &o->settings[i];
			_cleanup_free_ char *shown = NULL;

			if ((int)st->key != k)
				continue;
			shown = k == SUP_K_SETENV ? iso_redact(st->val) : NULL;
			json_array_append_new(list, entry(o, shown ? shown : st->val, st));
		}
		json_object_set_new(set, cli_keys[k].name, list ? list : json_null());
	}
	json_object_set_new(root, "settings", set);
	cmd = o->argc ? json_array() : json_null();
	for (size_t i = 0; o->argc && cmd && i < o->argc; i++) {
		_cleanup_free_ char *red = iso_redact(o->argv[i]);
		json_array_append_new(cmd, bytes_json(red ? red : "?"));
	}
	json_object_set_new(root, "command", cmd);
	return root;
}

static int print_json(const struct sup_opts *o)
{
	json_t *j = settings_json(o);
	char *text = j ? json_dumps(j, JSON_INDENT(2)) : NULL;

	json_decref(j);
	if (!text) {
		fprintf(stderr, "isorun: config: out of memory\n");
		return ISO_EXIT_SETUP;
	}
	printf("%s\n", text);
	free(text);
	return 0;
}

/* True when the option `w` ("--name", no '=') takes the next word as its value. */
static bool takes_next(const char *w)
{
	int k;

	if (strncmp(w, "--", 2) != 0 || strchr(w, '='))
		return false;
	if (!strcmp(w, "--config"))
		return true;
	k = cli_key_lookup(w + 2);
	return k >= 0 && cli_keys[k].kind != CLI_KIND_FLAG && !cli_keys[k].bare;
}

/*
 * `--json` is config's own: taken out before the run's parser sees the options,
 * among the options only (a command's own --json stays its own).
 */
static bool take_json(int *argc, char **argv)
{
	for (int i = 2; i < *argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--json") != 0) {
			i += takes_next(argv[i]);
			continue;
		}
		memmove(&argv[i], &argv[i + 1], (size_t)(*argc - i) * sizeof(*argv));
		(*argc)--;
		return true;
	}
	return false;
}

int cli_config_main(int argc, char **argv)
{
	struct sup_opts o;
	struct iso_err e = { 0 };
	int action, r;
	bool json = take_json(&argc, argv);

	sup_opts_init(&o);
	/* argv[1] = "config" stands where the program name would */
	action = cli_parse_args_flags(argc - 1, argv + 1, CLI_ARGS_COMMAND_OPTIONAL, &o, &e);
	if (action < 0)
		return cli_args_refuse(&o, &e);
	if (action != CLI_RUN) {
		if (action == CLI_SHOW_HELP)
			cli_config_usage(stdout);
		else
			printf("isorun %s\n", ISO_VERSION);
		sup_opts_free(&o);
		return 0;
	}
	r = cli_conf_load(&o, &e);
	if (r < 0) {
		sup_opts_free(&o);
		return cli_conf_fail(&e, "bad configuration file");
	}
	if (cli_mounts_check(&o, &e) < 0)
		return cli_args_refuse(&o, &e);
	cli_plan_compile(&o);
	cli_warn_inert(&o);
	if (json) {
		r = print_json(&o);
		sup_opts_free(&o);
		if (r)
			return r;
	} else {
		print_settings(&o);
		sup_opts_free(&o);
	}
	if (fflush(stdout) != 0) {
		perror("isorun: config: write the settings");
		return ISO_EXIT_SETUP;
	}
	return 0;
}
