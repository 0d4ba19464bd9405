// SPDX-License-Identifier: MIT
#include "cli/like.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/conf.h"
#include "cli/keys.h"
#include "common/cleanup.h"
#include "common/io.h"
#include "common/text.h"
#include "launcher/ceiling.h"
#include "launcher/env.h"

/* a report is input anyone may have written: read at most this much of it */
#define LIKE_MAX_SIZE (16 * 1024 * 1024)

struct like {
	const char *arg;
	json_t *root, *settings;
	FILE *conf;	  /* the settings as isorun.conf lines */
	char notes[1200]; /* what is not replayed, "; " between */
	size_t n_notes;
};

static int refuse(struct iso_err *e, const struct like *l, const char *why)
{
	return iso_err_set(e, 0, "%s: %s", l->arg, why);
}

static __attribute__((format(printf, 2, 3))) void note(struct like *l, const char *fmt, ...)
{
	size_t used = strlen(l->notes);
	va_list ap;

	if (used + 8 >= sizeof(l->notes))
		return;
	if (used)
		used += (size_t)snprintf(l->notes + used, sizeof(l->notes) - used, "; ");
	va_start(ap, fmt);
	vsnprintf(l->notes + used, sizeof(l->notes) - used, fmt, ap);
	va_end(ap);
}

/* The whole file, bounded, and never a FIFO's writer waited on. */
static int load(struct like *l, struct iso_err *e)
{
	_cleanup_close_ int fd = open(l->arg, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	_cleanup_free_ char *buf = NULL;
	char why[300];
	struct stat st;
	json_error_t je;
	ssize_t n;

	if (fd < 0)
		return iso_err_set(e, errno, "%s", l->arg);
	if (fstat(fd, &st) < 0)
		return iso_err_set(e, errno, "%s", l->arg);
	if (!S_ISREG(st.st_mode))
		return refuse(e, l, "not a report (not a regular file)");
	buf = malloc(LIKE_MAX_SIZE + 1);
	if (!buf)
		return iso_err_set(e, ENOMEM, "%s", l->arg);
	n = iso_read_all(fd, buf, LIKE_MAX_SIZE + 1);
	if (n < 0)
		return iso_err_set(e, (int)-n, "%s", l->arg);
	if (n > LIKE_MAX_SIZE)
		return refuse(e, l, "not a report (larger than 16 MiB)");
	l->root = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, &je);
	if (!l->root) {
		snprintf(why, sizeof(why),
			 "not a complete report (truncated, or not JSON: %s at line %d)", je.text,
			 je.line);
		return refuse(e, l, why);
	}
	return 0;
}

/* What a finished report of schema 1 has; a provisional one is its run unfinished. */
static int judge(struct like *l, struct iso_err *e)
{
	json_t *schema = json_object_get(l->root, "schema");
	const char *verdict = json_string_value(json_object_get(l->root, "verdict"));

	if (!json_is_object(l->root) || !json_is_integer(schema) ||
	    json_integer_value(schema) != 1 || !verdict)
		return refuse(e, l, "not an isorun report of schema 1");
	if (strcmp(verdict, "unfinished") == 0)
		return refuse(e, l,
			      "a provisional report: its run did not finish, so it may not hold "
			      "what the run ended with; rerun a finished run's report");
	l->settings = json_object_get(l->root, "settings");
	if (!json_is_object(l->settings) || !json_is_array(json_object_get(l->root, "argv")))
		return refuse(e, l, "not a complete report (no settings or argv)");
	return 0;
}

/* Settings that belong to the run that wrote the report, not to this one. */
static bool not_replayed(enum sup_key k, bool shell)
{
	if (cli_key_output(k))
		return true;
	switch (k) {
	case SUP_K_ROOT:
	case SUP_K_KEEP:
	case SUP_K_CHDIR: /* where the command runs: place() decides it */
		return true;
	case SUP_K_TIMEOUT:
		return shell;
	default:
		return false;
	}
}

/* A value a line of isorun.conf reads back the same (libinih trims; '#' starts a comment). */
static bool line_safe(const char *v)
{
	size_t n = strlen(v);

	return !strpbrk(v, "\r\n#;") &&
	       (!n || (v[0] != ' ' && v[0] != '\t' && v[n - 1] != ' ' && v[n - 1] != '\t'));
}

/* One `name = value` line; a path that is not here is dropped from a list, else refused. */
static int line(struct like *l, const struct cli_key_info *k, const char *v, struct iso_err *e)
{
	struct stat st;
	char why[600];

	if (!line_safe(v)) {
		snprintf(why, sizeof(why), "settings.%s: a value an isorun.conf line cannot carry",
			 k->report);
		return refuse(e, l, why);
	}
	if (k->path && v[0] == '/' && stat(v, &st) < 0) {
		if (k->kind == CLI_KIND_LIST) {
			note(l, "%s %s (not here)", k->name, v);
			return 0;
		}
		snprintf(why, sizeof(why), "settings.%s: %s does not exist here", k->report, v);
		return refuse(e, l, why);
	}
	fprintf(l->conf, "%s = %s\n", k->name, v);
	return 0;
}

/* A ceiling's {value, try} as its option spells it. */
static int ceiling(struct like *l, const struct cli_key_info *k, json_t *v, struct iso_err *e)
{
	json_t *val = json_object_get(v, "value"), *try = json_object_get(v, "try");
	char buf[64], why[200];

	if (!json_is_integer(val) || !json_is_boolean(try) || k->arg < 0 ||
	    k->arg >= SUP_N_CEILINGS) {
		snprintf(why, sizeof(why), "settings.%s: not a ceiling", k->report);
		return refuse(e, l, why);
	}
	snprintf(buf, sizeof(buf), "%s%" JSON_INTEGER_FORMAT "%s", json_is_true(try) ? "try:" : "",
		 json_integer_value(val),
		 sup_ceiling_descs[k->arg].unit == SUP_CEIL_PERCENT ? "%" : "");
	return line(l, k, buf, e);
}

/* A list: a line each; a value of names (--cache): one line, comma-separated. */
static int list(struct like *l, const struct cli_key_info *k, json_t *v, struct iso_err *e)
{
	char joined[1024] = "", why[200];
	size_t i;
	json_t *it;

	json_array_foreach (v, i, it) {
		const char *s = json_string_value(it);

		if (!s) {
			snprintf(why, sizeof(why), "settings.%s: not a list of strings", k->report);
			return refuse(e, l, why);
		}
		if (k->kind == CLI_KIND_LIST && line(l, k, s, e) < 0)
			return -EINVAL;
		if (k->kind != CLI_KIND_LIST)
			snprintf(joined + strlen(joined), sizeof(joined) - strlen(joined), "%s%s",
				 i ? "," : "", s);
	}
	return k->kind == CLI_KIND_LIST || !joined[0] ? 0 : line(l, k, joined, e);
}

/* One key's report value as the line(s) an isorun.conf would give it. */
static int setting(struct like *l, const struct cli_key_info *k, json_t *v, struct iso_err *e)
{
	char buf[64], why[200];
	size_t n = strlen(k->report);

	if (json_is_boolean(v))
		return line(l, k, json_is_true(v) ? "true" : "false", e);
	if (json_is_integer(v)) {
		snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT "%s", json_integer_value(v),
			 n > 3 && strcmp(k->report + n - 3, "_ms") == 0 ? "ms" : "");
		return line(l, k, buf, e);
	}
	if (json_is_string(v))
		return line(l, k, json_string_value(v), e);
	if (json_is_array(v))
		return list(l, k, v, e);
	if (json_is_object(v))
		return ceiling(l, k, v, e);
	snprintf(why, sizeof(why), "settings.%s: not a value of this setting", k->report);
	return refuse(e, l, why);
}

/* The report's settings as isorun.conf text: what the command line's trust then judges. */
static int settings_text(struct like *l, bool shell, struct iso_err *e)
{
	const char *name;
	json_t *v;

	for (int i = 0; i < SUP_N_KEYS; i++) {
		const struct cli_key_info *k = &cli_keys[i];

		v = k->report ? json_object_get(l->settings, k->report) : NULL;
		if (!v || json_is_null(v) || (json_is_array(v) && !json_array_size(v)))
			continue;
		if (not_replayed((enum sup_key)i, shell))
			continue;
		if (k->cli_only) {
			note(l, "%s (the command line's alone)", k->name);
			continue;
		}
		if (setting(l, k, v, e) < 0)
			return -EINVAL;
	}
	/* keys of another isorun: said, never guessed at */
	json_object_foreach (l->settings, name, v) {
		bool known = strcmp(name, "config") == 0;

		for (int i = 0; i < SUP_N_KEYS && !known; i++)
			known = cli_keys[i].report && strcmp(cli_keys[i].report, name) == 0;
		if (!known)
			note(l, "settings.%s (not a setting of this isorun)", name);
	}
	return 0;
}

/* The report's settings under the command line, as isorun.conf's: the same trust. */
static int apply(struct like *l, struct sup_opts *o, struct iso_err *e)
{
	_cleanup_free_ char *text = NULL;
	char *path = realpath(l->arg, NULL), *msg;
	size_t len = 0, n;
	int r;

	l->conf = open_memstream(&text, &len);
	if (!path || !l->conf) {
		free(path);
		return iso_err_set(e, ENOMEM, "%s", l->arg);
	}
	fprintf(l->conf, "# the settings of %s\n", l->arg);
	r = settings_text(l, o->shell, e);
	if (fclose(l->conf) != 0 && r >= 0)
		r = iso_err_set(e, ENOMEM, "%s", l->arg);
	l->conf = NULL;
	if (r < 0 || o->no_config) {
		free(path);
		return r;
	}
	n = strlen(path);
	r = cli_conf_apply(o, path, text, e); /* takes path */
	/* "FILE:LINE: name = value: why": the line is of the text made here, not the file's */
	msg = r < 0 ? strstr(e->msg, ": ") : NULL;
	if (msg && (size_t)(msg - e->msg) > n && e->msg[n] == ':') {
		char again[sizeof(e->msg)];

		snprintf(again, sizeof(again), "%s: its settings: %s", l->arg, msg + 2);
		snprintf(e->msg, sizeof(e->msg), "%s", again);
	}
	return r;
}

/* A report keeps its command's variables by name: each one's value is this caller's. */
static void variables(struct like *l)
{
	json_t *env = json_object_get(l->root, "environment"), *it;
	char unset[200] = "";
	size_t i, n = 0;

	json_array_foreach (env, i, it) {
		const char *s = json_string_value(it);

		if (!s || getenv(s) || sup_env_run_sets(s) || strncmp(s, "ISORUN", 6) == 0)
			continue;
		if (n++ < 3)
			snprintf(unset + strlen(unset), sizeof(unset) - strlen(unset), "%s%s",
				 n > 1 ? ", " : "", s);
	}
	if (n)
		note(l, "the variables' values (a report keeps names only; %zu unset here: %s%s)",
		     n, unset, n > 3 ? ", ..." : "");
	else
		note(l, "the variables' values (a report keeps names only)");
}

/* The options a report does not record at all (--setenv, the mounts...): said, by the table. */
static void unrecorded(struct like *l)
{
	char names[400] = "";

	for (int i = 0; i < SUP_N_KEYS; i++) {
		size_t used = strlen(names);

		if (cli_keys[i].report || i == SUP_K_QUIET || i == SUP_K_VERBOSE ||
		    i == SUP_K_COLOR || i == SUP_K_PASS_FD)
			continue;
		snprintf(names + used, sizeof(names) - used, "%s--%s", used ? ", " : "",
			 cli_keys[i].name);
	}
	if (names[0])
		note(l, "what a report does not record (%s: give them again)", names);
}

/* A word redact() masked cannot be given back. */
static bool redacted(const char *s)
{
	return strstr(s, "***") != NULL;
}

/* rerun: the report's argv, unless a word of it was redacted. */
static int command(struct like *l, struct sup_opts *o, struct iso_err *e)
{
	json_t *argv = json_object_get(l->root, "argv"), *it;
	size_t n = json_array_size(argv), i;
	char **v, why[600];

	if (!n)
		return refuse(e, l, "it records no command; give one after --");
	v = calloc(n + 1, sizeof(*v));
	if (!v || !sup_opts_keep(o, (char *)v))
		return iso_err_set(e, ENOMEM, "%s", l->arg);
	json_array_foreach (argv, i, it) {
		const char *s = json_string_value(it);

		if (!s)
			return refuse(e, l, "not a report (argv holds a non-string)");
		if (redacted(s)) {
			snprintf(why, sizeof(why),
				 "its command was redacted (argv[%zu] is %.200s): it cannot be "
				 "replayed; give it after --: isorun rerun %.200s -- COMMAND",
				 i, s, l->arg);
			return refuse(e, l, why);
		}
		v[i] = sup_opts_keep(o, strdup(s));
		if (!v[i])
			return iso_err_set(e, ENOMEM, "%s", l->arg);
	}
	o->argv = v;
	o->argc = n;
	return 0;
}

/* Where the run's command started: the report's --chdir, else its cwd; it must be here. */
static int place(struct like *l, struct sup_opts *o, const char **where, struct iso_err *e)
{
	const char *cwd = json_string_value(json_object_get(l->settings, "chdir"));
	char why[700], *dir;
	struct stat st;

	if (!cwd)
		cwd = json_string_value(json_object_get(l->root, "cwd"));
	if (o->chdir) {
		*where = o->chdir;
		return 0;
	}
	if (!cwd || cwd[0] != '/' || redacted(cwd))
		return refuse(e, l,
			      "it records no working directory that can be replayed; give the "
			      "command after -- to run it here");
	if (stat(cwd, &st) < 0 || !S_ISDIR(st.st_mode)) {
		snprintf(why, sizeof(why),
			 "its working directory %.400s does not exist here (another machine's?); "
			 "give the command after -- to run it here",
			 cwd);
		return refuse(e, l, why);
	}
	dir = sup_opts_keep(o, strdup(cwd));
	if (!dir)
		return iso_err_set(e, ENOMEM, "%s", l->arg);
	*where = dir;
	return cli_opt_set(o, SUP_K_CHDIR, dir, SUP_FROM_CLI, e);
}

/* The one line said before anything runs: what, where, and what the report cannot give. */
static void announce(const struct like *l, const struct sup_opts *o, const char *where)
{
	char cmd[600] = "";

	for (size_t i = 0; i < o->argc && strlen(cmd) + 2 < sizeof(cmd); i++) {
		_cleanup_free_ char *q = iso_shell_quote(o->argv[i]);

		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%s%s", i ? " " : "",
			 q ? q : "?");
	}
	fprintf(stderr, "isorun: %s %s: %s in %s; not replayed: %s\n",
		o->rerun ? "rerun" : "shell --like", l->arg, cmd, where, l->notes);
}

int cli_like_load(struct sup_opts *o, struct iso_err *e)
{
	struct like l = { .arg = o->like_arg };
	_cleanup_free_ char *here = getcwd(NULL, 0);
	const char *where = here ? here : ".";
	bool given;
	int r;

	if (o->config_arg || o->tree_arg)
		return iso_err_set(e, 0,
				   "%s: %s %s cannot be combined: the report's settings are the "
				   "configuration (--no-config: the command line's alone)",
				   l.arg, o->config_arg ? "--config" : "--tree",
				   o->config_arg ? o->config_arg : o->tree_arg);
	r = load(&l, e);
	if (r >= 0)
		r = judge(&l, e);
	if (r >= 0)
		r = apply(&l, o, e);
	/* a command after --: the report gives the settings alone, here */
	given = o->argc > 0 && !o->shell_own;
	if (r >= 0 && !given && o->rerun)
		r = command(&l, o, e);
	if (r >= 0 && !given)
		r = place(&l, o, &where, e);
	if (r >= 0) {
		if (given)
			note(&l, "its command and working directory (the command line's)");
		variables(&l);
		unrecorded(&l);
		announce(&l, o, where);
	}
	json_decref(l.root);
	return r < 0 ? r : 0;
}
