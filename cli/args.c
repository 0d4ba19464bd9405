// SPDX-License-Identifier: MIT
#include "cli/args.h"
#include "cli/keys.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "common/num.h"
#include "cli/suggest.h"
#include "common/text.h"
#include "tree/tree.h"
#include "ns/ns.h"
#include "policy/policy.h"

/* getopt's value for a key; the options that are not settings follow */
#define OPT_KEY(k) (256 + (k))
enum {
	OPT_CONFIG = OPT_KEY(ISO_N_KEYS),
	OPT_NO_CONFIG,
	OPT_VERSION,
};
/* the settings, config, no-config, help, version and the terminator */
#define ISO_N_LONG_OPTS (ISO_N_KEYS + 5)

/* The options that are not settings; the settings' options come from iso_keys[]. */
static const struct option other_opts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
};

/*
 * getopt's table, generated from the one key table.  Flags take an optional
 * =true/=false, so that the command line can turn off what isorun.conf turned
 * on; a bare --keep is --keep=true.
 */
static void fill_long_opts(struct option out[static ISO_N_LONG_OPTS])
{
	size_t n = 0;

	for (int k = 0; k < ISO_N_KEYS; k++) {
		bool optional = iso_keys[k].kind == ISO_KIND_FLAG || iso_keys[k].bare;

		out[n++] = (struct option){ iso_keys[k].name,
					    optional ? optional_argument : required_argument, NULL,
					    OPT_KEY(k) };
	}
	for (size_t i = 0; i < ELEMENTSOF(other_opts); i++)
		out[n++] = other_opts[i];
	out[n] = (struct option){ 0 };
}

void iso_usage(FILE *f)
{
	fputs("Usage: isorun [OPTION]... [--] COMMAND [ARG]...\n"
	      "       isorun shell [OPTION]... [-- COMMAND [ARG]...]\n"
	      "       isorun config [--json] [OPTION]... [-- COMMAND [ARG]...]\n"
	      "       isorun selftest [--json] [OPTION]...\n"
	      "       isorun ls [--json] [--root DIR]\n"
	      "       isorun gc [--dry-run] [--kept] [-v] [--root DIR]\n"
	      "       isorun policy show [NAME|FILE] | isorun policy check FILE\n"
	      "Run COMMAND with a private HOME/TMPDIR tree; fail if anything it started\n"
	      "outlives it; remove the tree only when nothing can still use it.\n"
	      "Options also come from the nearest isorun.conf (this directory or an\n"
	      "ancestor); the command line wins.  `isorun config` shows the result.\n"
	      "\n"
	      "  --root DIR             create trees in DIR/isorun-UID (default $ISORUN_ROOT,\n"
	      "                         $TMPDIR, /tmp)\n"
	      "  --keep[=on-failure]    keep the tree and print its path (on-failure: only\n"
	      "                         when the run fails; =never undoes isorun.conf's)\n"
	      "  --env-dir VAR=SUB      point VAR at a fresh directory SUB in the tree\n"
	      "  --clearenv             start from an empty environment (see --keep-env)\n"
	      "  --keep-env VAR         with --clearenv, keep VAR\n"
	      "  --setenv VAR=VAL, --unsetenv VAR\n"
	      "  --chdir DIR            working directory of the command\n"
	      "  --pass-fd N            let fd N reach the command\n"
	      "  --watch DIR            report entries that appear in DIR during the run\n"
	      "  --residue=warn|fail    what such an entry does to the verdict (warn)\n"
	      "  --timeout DUR          stop the whole tree after DUR (exit 124); 0: no limit\n"
	      "  --stop-signal SIG      signal sent on timeout or cancel (SIGTERM)\n"
	      "  --grace DUR            then SIGKILL after DUR (5s)\n"
	      "  --settle DUR           time survivors get to exit on their own (3s); said\n"
	      "                         at once, and Ctrl-C ends the wait\n"
	      "  --leaks=fail|warn|ignore  what a leak does to the verdict (fail)\n"
	      "  --pidns[=try]          new PID + mount (+ user) namespace, isorun's init as\n"
	      "                         PID 1; =try falls back to the subreaper gate\n"
	      "  --map-root             inside the user namespace, be uid 0\n"
	      "  --map-users=off|auto|require  also map your /etc/subuid and /etc/subgid\n"
	      "                         ranges (newuidmap); auto: else one id, and says so\n"
	      "  --cap-keep CAP,...|all capabilities the command keeps\n"
	      "  --net=host|isolated    isolated: own network namespace, loopback up\n"
	      "  --private-tmp          the tree's tmp over /tmp and /var/tmp\n"
	      "  --protect-home=off|ro|hide  the real home read-only (ro, read-only), or hidden\n"
	      "  --writable DIR         under --protect-home, DIR in the home stays as it is\n"
	      "  --policy=default|strict|off|FILE  seccomp policy (default)\n"
	      "  --policy-mode=enforce|log  log: let refused calls through, report them\n"
	      "  --rlimit-nofile N      the command's descriptor limit (soft and hard)\n"
	      "  --rlimit-core SIZE, --rlimit-fsize SIZE  its core dump and file size limits\n"
	      "                         (bytes, K/M/G/T suffixes, or unlimited)\n"
	      "  --memory-max SIZE      memory ceiling of the whole run (512M, 2G); cgroup v2\n"
	      "  --pids-max N           process ceiling (cgroup v2, or RLIMIT_NPROC in the\n"
	      "                         run's user namespace under --pidns)\n"
	      "  --cpu-max PERCENT      CPU share of the run (150 = 1.5 CPUs); cgroup v2\n"
	      "                         each ceiling as try:VALUE enforces what it can and goes "
	      "on\n"
	      "  --cgroup=auto|off      a cgroup of the run's own where one can be had (auto)\n"
	      "  --report FILE|fd:N     write the JSON report to FILE or descriptor N\n"
	      "  --junit FILE|fd:N      write JUnit XML, one test case per guard\n"
	      "  --finding-exit-code N  exit code for a finding (122)\n"
	      "  --config FILE          read the options from FILE, not the nearest isorun.conf\n"
	      "  --no-config            read no isorun.conf\n"
	      "  -q, --quiet / -v, --verbose\n"
	      "  --color=auto|always|never  colour isorun's lines (auto: stderr is a terminal\n"
	      "                         and NO_COLOR is unset)\n"
	      "  --FLAG=false           turn off a flag (--keep, --private-tmp, ...) that\n"
	      "                         isorun.conf turned on\n"
	      "  --help, --version\n"
	      "\n"
	      "Exit: the command's own code; 122 findings; 124 timeout; 125 isorun failed;\n"
	      "126/127 cannot execute / not found; 128+N killed by signal N.\n",
	      f);
}

void iso_shell_usage(FILE *f)
{
	fputs("Usage: isorun shell [OPTION]... [-- COMMAND [ARG]...]\n"
	      "Start an interactive $SHELL (or COMMAND) in a fresh isorun tree, with the\n"
	      "options and guards of a run (isorun --help lists them) and isorun.conf.\n"
	      "The tree is kept when the shell exits: isorun prints its path and the\n"
	      "command that removes it.  Leave with exit or Ctrl-D.\n",
	      f);
}

void iso_config_usage(FILE *f)
{
	fputs("Usage: isorun config [--json] [OPTION]... [-- COMMAND [ARG]...]\n"
	      "Print every setting that `isorun OPTION... -- COMMAND` would run with, one\n"
	      "per line as `name = value    (source)`: default, FILE:LINE of isorun.conf,\n"
	      "or command line.  The options are a run's (isorun --help lists them).\n"
	      "  --json   one JSON object: config, settings (name: {value, source}, a list\n"
	      "           for the repeatable ones), command\n",
	      f);
}

/*
 * The one place that decides what the options imply: which namespaces, which gate,
 * what init mounts, how the run is stopped, which sinks keep what.
 */
void iso_plan_compile(struct iso_opts *o)
{
	struct iso_run_plan *p = &o->plan;

	p->protections = o->net_isolated || o->private_tmp || o->protect_home != NS_HOME_OFF;
	p->namespaces = p->protections || o->pidns != ISO_PIDNS_OFF;
	p->init_gate = p->namespaces;
	p->init_fallback = o->pidns == ISO_PIDNS_TRY && !p->protections;
	p->hides = o->private_tmp || o->protect_home == NS_HOME_HIDE;
	p->keep_output = o->report != NULL;
	p->policy = strcmp(o->policy, "off") != 0;
	p->mounts = (struct iso_mount_plan){
		.net_isolated = o->net_isolated,
		.private_tmp = o->private_tmp,
		.home = o->protect_home,
	};
	p->stop = (struct iso_stop_plan){
		.signal = o->stop_signal,
		.grace_ms = o->grace_ms,
		.settle_ms = o->settle_ms,
		.timeout_ms = o->timeout_ms,
	};
}

/*
 * A setting that does nothing without another is a mistake the user cannot see:
 * one line each on stderr, naming the one it needs; -q silences them.
 */
void iso_warn_inert(const struct iso_opts *o)
{
	static const char *const fmt = "isorun: warning: %s has no effect without %s\n";

	if (o->verbosity < 0)
		return;
	if (o->map_root && o->pidns == ISO_PIDNS_OFF)
		fprintf(stderr, fmt, "--map-root", "--pidns");
	if (o->map_users != ISO_MAP_USERS_OFF && !o->plan.namespaces)
		fprintf(stderr, fmt, "--map-users", "--pidns");
	if (o->residue == ISO_FAIL && !o->watch.n)
		fprintf(stderr, fmt, "--residue=fail", "--watch");
	if (o->writable.n && o->protect_home == NS_HOME_OFF)
		fprintf(stderr, fmt, "--writable", "--protect-home=ro|hide");
	if (o->keep_env.n && !o->clearenv)
		fprintf(stderr, fmt, "--keep-env", "--clearenv");
	if (o->policy_log && !o->plan.policy)
		fputs("isorun: warning: --policy-mode=log has no effect with --policy=off\n",
		      stderr);
}

int iso_args_refuse(struct iso_opts *o, const struct iso_err *e)
{
	fprintf(stderr, "isorun: %s\n", e->msg);
	fprintf(stderr, "isorun: FAILED (exit %d): bad command line (see isorun --help)\n",
		ISO_EXIT_SETUP);
	iso_opts_free(o);
	return ISO_EXIT_SETUP;
}

/* A word after a bare --pidns or --color that was meant as its value */
static bool looks_like_bare_value(enum iso_key key, const char *w)
{
	if (iso_keys[key].words)
		return iso_word_value(&iso_keys[key], w) >= 0;
	return strcmp(w, "try") == 0 || iso_parse_bool(w) >= 0;
}

static int record(struct iso_opts *o, enum iso_key key, char *val, unsigned line)
{
	struct iso_setting *n = realloc(o->settings, (o->n_settings + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	n[o->n_settings++] = (struct iso_setting){ .key = key, .line = line, .val = val };
	o->settings = n;
	return 0;
}

int iso_opt_set(struct iso_opts *o, enum iso_key key, char *val, unsigned line, struct iso_err *e)
{
	const struct iso_key_info *k;
	char opt[64];
	int r;

	if ((unsigned)key >= ISO_N_KEYS)
		return iso_err_set(e, 0, "setting %d: out of range", (int)key);
	k = &iso_keys[key];
	snprintf(opt, sizeof(opt), "%s%s", line == ISO_FROM_CLI ? "--" : "", k->name);
	e->msg[0] = '\0';
	if (!val && !k->bare && k->kind != ISO_KIND_FLAG)
		r = iso_err_set(e, 0, "%s: missing argument", opt);
	else
		r = k->parse(o, k, opt, val, line == ISO_FROM_CLI, e);
	if (r >= 0)
		r = record(o, key, val, line);
	if (r < 0 && !e->msg[0])
		iso_err_set(e, -r, "%s", opt);
	return r < 0 ? r : 0;
}

/* "--tmieout: unknown option; did you mean --timeout?", or the candidates of "--p" */
static int unknown_long(const struct option *long_opts, const char *word, struct iso_err *e)
{
	const char *names[ISO_N_LONG_OPTS];
	size_t n = 0;

	for (; long_opts[n].name; n++)
		names[n] = long_opts[n].name;
	iso_unknown_option(word, names, n, e->msg, sizeof(e->msg));
	e->errnum = 0;
	e->hint[0] = '\0';
	return -EINVAL;
}

int iso_parse_args(int argc, char **argv, struct iso_opts *o, struct iso_err *e)
{
	return iso_parse_args_flags(argc, argv, 0, o, e);
}

static int bare_value_error(enum iso_key key, const char *word, struct iso_err *e)
{
	const char *name = iso_keys[key].name;

	return iso_err_set(e, 0,
			   "--%s %s: the value of --%s goes after '=': did you mean "
			   "--%s=%s? (a command named %s: --%s -- %s)",
			   name, word, name, name, word, word, name, word);
}

/* What follows the options: the command, or the shell's own for `isorun shell`. */
static int take_command(int argc, char **argv, unsigned flags, struct iso_opts *o,
			struct iso_err *e)
{
	if (o->shell)
		o->keep = ISO_KEEP_ALWAYS; /* the shell's tree outlives it, whatever --keep said */
	if (optind >= argc && o->shell) {
		const char *sh = getenv("SHELL");

		o->shell_argv[0] = iso_opts_keep(o, strdup(sh && *sh ? sh : "/bin/sh"));
		o->shell_argv[1] = iso_opts_keep(o, strdup("-i"));
		if (!o->shell_argv[0] || !o->shell_argv[1])
			return iso_err_set(e, ENOMEM, "isorun shell");
		o->argv = o->shell_argv;
		o->argc = 2;
		o->shell_own = true;
		return ISO_RUN;
	}
	if (optind >= argc && (flags & ISO_ARGS_COMMAND_OPTIONAL))
		return ISO_RUN;
	if (optind >= argc)
		return iso_err_set(e, 0, "no command given (usage: isorun [OPTION]... -- COMMAND)");
	o->argv = argv + optind;
	o->argc = (size_t)(argc - optind);
	return ISO_RUN;
}

int iso_parse_args_flags(int argc, char **argv, unsigned flags, struct iso_opts *o,
			 struct iso_err *e)
{
	struct option long_opts[ISO_N_LONG_OPTS];
	int c, idx = 0, r, bare_end = -1, at;
	enum iso_key bare_key = ISO_K_PIDNS;

	fill_long_opts(long_opts);
	/* `isorun shell [OPTION]... [-- COMMAND]`: the same options as a run */
	if (argc > 1 && strcmp(argv[1], "shell") == 0) {
		o->shell = true;
		o->keep = ISO_KEEP_ALWAYS;
		argc--;
		argv++;
	}
	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, so the command's own options stay its own */
	/* at: the word getopt is in, for a message ("-la" stays one word until its end) */
	while ((at = optind, c = getopt_long(argc, argv, "+:qvh", long_opts, &idx)) != -1) {
		char *val = optarg;

		switch (c) {
		case OPT_CONFIG:
			if (!*optarg)
				return iso_err_set(e, 0, "--config: empty path");
			/* only one file is read: the last --config or --no-config wins */
			o->config_arg = optarg;
			o->no_config = false;
			continue;
		case OPT_NO_CONFIG:
			o->config_arg = NULL;
			o->no_config = true;
			continue;
		case 'q':
		case 'v':
			/* getopt leaves optarg as it was for a short option */
			c = OPT_KEY(c == 'q' ? ISO_K_QUIET : ISO_K_VERBOSE);
			val = NULL;
			break;
		case 'h':
			return ISO_SHOW_HELP;
		case OPT_VERSION:
			return ISO_SHOW_VERSION;
		case ':':
			return iso_err_set(e, 0, "%s: missing argument", argv[optind - 1]);
		case '?':
			if (strncmp(argv[at], "--", 2) != 0)
				return iso_err_set(e, 0, "-%c: unknown option", optopt);
			return unknown_long(long_opts, argv[at], e);
		default:
			break;
		}
		if (c < OPT_KEY(0) || c >= OPT_KEY(ISO_N_KEYS))
			return iso_err_set(e, 0, "%s: unknown option", argv[optind - 1]);
		r = iso_opt_set(o, (enum iso_key)(c - OPT_KEY(0)), val, ISO_FROM_CLI, e);
		if (r < 0)
			return r;
		bare_key = (enum iso_key)(c - OPT_KEY(0));
		bare_end = iso_keys[bare_key].bare && !val ? optind : -1;
	}
	/* `--pidns try -- make`: getopt reads "try" as the command; no "--" came between */
	if (bare_end == optind && optind < argc && looks_like_bare_value(bare_key, argv[optind]))
		return bare_value_error(bare_key, argv[optind], e);
	return take_command(argc, argv, flags, o, e);
}
