// SPDX-License-Identifier: MIT
#include "launcher/args.h"

#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launcher/text.h"
#include "ns/ns.h"

enum {
	OPT_ROOT = 256,
	OPT_KEEP,
	OPT_ENV_DIR,
	OPT_CLEARENV,
	OPT_SETENV,
	OPT_UNSETENV,
	OPT_KEEP_ENV,
	OPT_CHDIR,
	OPT_PASS_FD,
	OPT_WATCH,
	OPT_RESIDUE,
	OPT_TIMEOUT,
	OPT_STOP_SIGNAL,
	OPT_GRACE,
	OPT_SETTLE,
	OPT_LEAKS,
	OPT_REPORT,
	OPT_FINDING_EXIT,
	OPT_NO_CONFIG,
	OPT_VERSION,
	OPT_PIDNS,
	OPT_MAP_ROOT,
	OPT_CAP_KEEP,
	OPT_NET,
	OPT_PRIVATE_TMP,
	OPT_PROTECT_HOME,
	OPT_POLICY,
	OPT_POLICY_MODE,
	OPT_LATER, /* in the contract, arriving with a later issue */
};

static const struct option long_opts[] = {
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "env-dir", required_argument, NULL, OPT_ENV_DIR },
	{ "clearenv", no_argument, NULL, OPT_CLEARENV },
	{ "setenv", required_argument, NULL, OPT_SETENV },
	{ "unsetenv", required_argument, NULL, OPT_UNSETENV },
	{ "keep-env", required_argument, NULL, OPT_KEEP_ENV },
	{ "chdir", required_argument, NULL, OPT_CHDIR },
	{ "pass-fd", required_argument, NULL, OPT_PASS_FD },
	{ "watch", required_argument, NULL, OPT_WATCH },
	{ "residue", required_argument, NULL, OPT_RESIDUE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "stop-signal", required_argument, NULL, OPT_STOP_SIGNAL },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "settle", required_argument, NULL, OPT_SETTLE },
	{ "leaks", required_argument, NULL, OPT_LEAKS },
	{ "report", required_argument, NULL, OPT_REPORT },
	{ "finding-exit-code", required_argument, NULL, OPT_FINDING_EXIT },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "pidns", optional_argument, NULL, OPT_PIDNS },
	{ "map-root", no_argument, NULL, OPT_MAP_ROOT },
	{ "cap-keep", required_argument, NULL, OPT_CAP_KEEP },
	{ "net", required_argument, NULL, OPT_NET },
	{ "private-tmp", no_argument, NULL, OPT_PRIVATE_TMP },
	{ "protect-home", required_argument, NULL, OPT_PROTECT_HOME },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "policy-mode", required_argument, NULL, OPT_POLICY_MODE },
	{ "config", required_argument, NULL, OPT_LATER },
	{ 0 },
};

void iso_usage(FILE *f)
{
	fputs("Usage: isorun [OPTION]... [--] COMMAND [ARG]...\n"
	      "       isorun shell [OPTION]... [-- COMMAND [ARG]...]\n"
	      "Run COMMAND with a private HOME/TMPDIR tree; fail if anything it started\n"
	      "outlives it; remove the tree only when nothing can still use it.\n"
	      "\n"
	      "  --root DIR             create trees in DIR/isorun-UID (default $ISORUN_ROOT,\n"
	      "                         $TMPDIR, /tmp)\n"
	      "  --keep                 keep the tree and print its path\n"
	      "  --env-dir VAR=SUB      point VAR at a fresh directory SUB in the tree\n"
	      "  --clearenv             start from an empty environment (see --keep-env)\n"
	      "  --keep-env VAR         with --clearenv, keep VAR\n"
	      "  --setenv VAR=VAL, --unsetenv VAR\n"
	      "  --chdir DIR            working directory of the command\n"
	      "  --pass-fd N            let fd N reach the command\n"
	      "  --watch DIR            report entries that appear in DIR during the run\n"
	      "  --residue=warn|fail    what such an entry does to the verdict (warn)\n"
	      "  --timeout DUR          stop the whole tree after DUR (exit 124)\n"
	      "  --stop-signal SIG      signal sent on timeout or cancel (SIGTERM)\n"
	      "  --grace DUR            then SIGKILL after DUR (5s)\n"
	      "  --settle DUR           time survivors get to exit on their own (3s)\n"
	      "  --leaks=fail|warn|ignore  what a leak does to the verdict (fail)\n"
	      "  --pidns[=try]          new PID + mount (+ user) namespace, isorun's init as\n"
	      "                         PID 1; =try falls back to the subreaper gate\n"
	      "  --map-root             inside the user namespace, be uid 0\n"
	      "  --cap-keep CAP,...     capabilities the command keeps\n"
	      "  --net=host|isolated    isolated: own network namespace, loopback up\n"
	      "  --private-tmp          the tree's tmp over /tmp and /var/tmp\n"
	      "  --protect-home=off|ro|hide  the real home read-only, or hidden\n"
	      "  --policy=default|strict|off|FILE  seccomp policy (default)\n"
	      "  --policy-mode=enforce|log  log: let refused calls through, report them\n"
	      "  --report FILE          write the JSON report\n"
	      "  --finding-exit-code N  exit code for a finding (122)\n"
	      "  -q, --quiet / -v, --verbose\n"
	      "  --help, --version\n"
	      "\n"
	      "Exit: the command's own code; 122 findings; 124 timeout; 125 isorun failed;\n"
	      "126/127 cannot execute / not found; 128+N killed by signal N.\n",
	      f);
}

void iso_opts_init(struct iso_opts *o)
{
	*o = (struct iso_opts){
		.residue = ISO_WARN,
		.leaks = ISO_FAIL,
		.grace_ms = 5000,
		.settle_ms = 3000,
		.stop_signal = SIGTERM,
		.finding_exit = 122,
		.policy = "default",
	};
}

void iso_opts_free(struct iso_opts *o)
{
	free(o->env_dirs.v);
	free(o->setenv.v);
	free(o->unsetenv.v);
	free(o->keep_env.v);
	free(o->watch.v);
	free(o->pass_fds);
}

static int strv_push(struct iso_strv *v, char *s)
{
	char **n = realloc(v->v, (v->n + 2) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	n[v->n++] = s;
	n[v->n] = NULL;
	v->v = n;
	return 0;
}

static bool valid_env_name(const char *s, size_t len)
{
	if (!len || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* A SUB of --env-dir: relative, no "..", no empty component. */
static bool valid_subdir(const char *s)
{
	const char *p = s;

	if (!*s || *s == '/')
		return false;
	while (*p) {
		size_t l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += l;
		if (*p == '/')
			p++;
	}
	return p[-1] != '/';
}

static int parse_mode(const char *opt, const char *val, bool allow_ignore,
		      enum iso_verdict_mode *ret, struct iso_err *e)
{
	if (strcmp(val, "fail") == 0)
		*ret = ISO_FAIL;
	else if (strcmp(val, "warn") == 0)
		*ret = ISO_WARN;
	else if (allow_ignore && strcmp(val, "ignore") == 0)
		*ret = ISO_IGNORE;
	else
		return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt,
				   allow_ignore ? "fail, warn or ignore" : "fail or warn", val);
	return 0;
}

static int parse_dur(const char *opt, const char *val, uint64_t *ret, struct iso_err *e)
{
	if (iso_parse_duration(val, ret) < 0)
		return iso_err_set(e, 0, "%s: invalid duration '%s' (examples: 90s, 5m, 1h30m)",
				   opt, val);
	return 0;
}

int iso_parse_args(int argc, char **argv, struct iso_opts *o, struct iso_err *e)
{
	int c, idx = 0, r = 0;

	/* `isorun shell [OPTION]... [-- COMMAND]`: the same options as a run */
	if (argc > 1 && strcmp(argv[1], "shell") == 0) {
		o->shell = true;
		o->keep = true;
		argc--;
		argv++;
	}
	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, so the command's own options stay its own */
	while ((c = getopt_long(argc, argv, "+:qvh", long_opts, &idx)) != -1) {
		const char *name = c >= 256 ? long_opts[idx].name : NULL;
		char opt[64];
		char *eq;
		long n;
		char *end;

		snprintf(opt, sizeof(opt), "--%s", name ? name : "");
		switch (c) {
		case OPT_ROOT:
			if (!*optarg)
				return iso_err_set(e, 0, "--root: empty path");
			o->root = optarg;
			break;
		case OPT_KEEP:
			o->keep = true;
			break;
		case OPT_ENV_DIR:
			eq = strchr(optarg, '=');
			if (!eq || !valid_env_name(optarg, (size_t)(eq - optarg)) ||
			    !valid_subdir(eq + 1))
				return iso_err_set(
					e, 0,
					"--env-dir: expected VAR=SUBDIR with a relative SUBDIR "
					"inside the tree, got '%s'",
					optarg);
			r = strv_push(&o->env_dirs, optarg);
			break;
		case OPT_CLEARENV:
			o->clearenv = true;
			break;
		case OPT_SETENV:
			eq = strchr(optarg, '=');
			if (!eq || !valid_env_name(optarg, (size_t)(eq - optarg)))
				return iso_err_set(e, 0, "--setenv: expected VAR=VALUE, got '%s'",
						   optarg);
			r = strv_push(&o->setenv, optarg);
			break;
		case OPT_UNSETENV:
		case OPT_KEEP_ENV:
			if (!valid_env_name(optarg, strlen(optarg)))
				return iso_err_set(e, 0, "%s: invalid variable name '%s'", opt,
						   optarg);
			r = strv_push(c == OPT_UNSETENV ? &o->unsetenv : &o->keep_env, optarg);
			break;
		case OPT_CHDIR:
			if (!*optarg)
				return iso_err_set(e, 0, "--chdir: empty path");
			o->chdir = optarg;
			break;
		case OPT_PASS_FD: {
			int *fds;
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || n < 3 || n > INT_MAX)
				return iso_err_set(e, 0,
						   "--pass-fd: expected a descriptor number >= 3, "
						   "got '%s'",
						   optarg);
			fds = realloc(o->pass_fds, (o->n_pass_fds + 1) * sizeof(*fds));
			if (!fds)
				return iso_err_set(e, ENOMEM, "--pass-fd");
			fds[o->n_pass_fds++] = (int)n;
			o->pass_fds = fds;
			break;
		}
		case OPT_WATCH:
			if (!*optarg)
				return iso_err_set(e, 0, "--watch: empty path");
			r = strv_push(&o->watch, optarg);
			break;
		case OPT_RESIDUE:
			r = parse_mode(opt, optarg, false, &o->residue, e);
			break;
		case OPT_LEAKS:
			r = parse_mode(opt, optarg, true, &o->leaks, e);
			break;
		case OPT_TIMEOUT:
			r = parse_dur(opt, optarg, &o->timeout_ms, e);
			if (!r && o->timeout_ms == 0)
				return iso_err_set(e, 0, "--timeout: must be more than 0, got '%s'",
						   optarg);
			break;
		case OPT_GRACE:
			r = parse_dur(opt, optarg, &o->grace_ms, e);
			break;
		case OPT_SETTLE:
			r = parse_dur(opt, optarg, &o->settle_ms, e);
			break;
		case OPT_STOP_SIGNAL:
			if (iso_parse_signal(optarg, &o->stop_signal) < 0)
				return iso_err_set(e, 0,
						   "--stop-signal: unknown signal '%s' (examples: "
						   "TERM, SIGINT, 9)",
						   optarg);
			break;
		case OPT_REPORT:
			if (!*optarg)
				return iso_err_set(e, 0, "--report: empty path");
			o->report = optarg;
			break;
		case OPT_FINDING_EXIT:
			errno = 0;
			n = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || n < 1 || n > 255)
				return iso_err_set(e, 0,
						   "--finding-exit-code: expected 1..255, got '%s'",
						   optarg);
			o->finding_exit = (int)n;
			break;
		case OPT_NO_CONFIG:
			/* no isorun.conf is read yet; accepted so scripts can say it now */
			break;
		case OPT_PIDNS:
			if (!optarg)
				o->pidns = ISO_PIDNS_ON;
			else if (strcmp(optarg, "try") == 0)
				o->pidns = ISO_PIDNS_TRY;
			else
				return iso_err_set(e, 0,
						   "--pidns: expected nothing or =try, got '%s'",
						   optarg);
			break;
		case OPT_MAP_ROOT:
			o->map_root = true;
			break;
		case OPT_CAP_KEEP:
			r = ns_caps_parse(optarg, &o->cap_keep, e);
			break;
		case OPT_NET:
			if (strcmp(optarg, "isolated") == 0)
				o->net_isolated = true;
			else if (strcmp(optarg, "host") == 0)
				o->net_isolated = false;
			else
				return iso_err_set(
					e, 0, "--net: expected host or isolated, got '%s'", optarg);
			break;
		case OPT_PRIVATE_TMP:
			o->private_tmp = true;
			break;
		case OPT_PROTECT_HOME:
			if (strcmp(optarg, "off") == 0)
				o->protect_home = NS_HOME_OFF;
			else if (strcmp(optarg, "ro") == 0)
				o->protect_home = NS_HOME_RO;
			else if (strcmp(optarg, "hide") == 0)
				o->protect_home = NS_HOME_HIDE;
			else
				return iso_err_set(
					e, 0, "--protect-home: expected off, ro or hide, got '%s'",
					optarg);
			break;
		case OPT_POLICY:
			if (!*optarg)
				return iso_err_set(
					e, 0, "--policy: expected default, strict, off or a file");
			o->policy = optarg;
			break;
		case OPT_POLICY_MODE:
			if (strcmp(optarg, "enforce") == 0)
				o->policy_log = false;
			else if (strcmp(optarg, "log") == 0)
				o->policy_log = true;
			else
				return iso_err_set(
					e, 0, "--policy-mode: expected enforce or log, got '%s'",
					optarg);
			break;
		case OPT_LATER:
			return iso_err_set(e, 0,
					   "%s: not available in this version of isorun "
					   "(see docs/design.md, \"Status\")",
					   opt);
		case 'q':
			o->verbosity = -1;
			break;
		case 'v':
			o->verbosity = 1;
			break;
		case 'h':
			return ISO_SHOW_HELP;
		case OPT_VERSION:
			return ISO_SHOW_VERSION;
		case ':':
			return iso_err_set(e, 0, "%s: missing argument", argv[optind - 1]);
		default:
			if (optopt && optopt < 256)
				return iso_err_set(e, 0, "-%c: unknown option", optopt);
			return iso_err_set(e, 0, "%s: unknown option", argv[optind - 1]);
		}
		if (r < 0) {
			if (!e->msg[0])
				iso_err_set(e, -r, "%s", opt);
			return r;
		}
	}
	if (optind >= argc && o->shell) {
		static char sh_path[PATH_MAX], dash_i[] = "-i";
		static char *shell_argv[3] = { sh_path, dash_i, NULL };
		const char *sh = getenv("SHELL");
		snprintf(sh_path, sizeof(sh_path), "%s", sh && *sh ? sh : "/bin/sh");
		o->argv = shell_argv;
		o->argc = 2;
		return ISO_RUN;
	}
	if (optind >= argc)
		return iso_err_set(e, 0, "no command given (usage: isorun [OPTION]... -- COMMAND)");
	o->argv = argv + optind;
	o->argc = (size_t)(argc - optind);
	return ISO_RUN;
}
