// SPDX-License-Identifier: MIT
#include "cli/args.h"

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

const struct iso_key_info iso_keys[ISO_N_KEYS] = {
	[ISO_K_ROOT] = { "root", ISO_KIND_VALUE, true },
	[ISO_K_KEEP] = { "keep", ISO_KIND_FLAG, false },
	[ISO_K_ENV_DIR] = { "env-dir", ISO_KIND_LIST, false },
	[ISO_K_CLEARENV] = { "clearenv", ISO_KIND_FLAG, false },
	[ISO_K_SETENV] = { "setenv", ISO_KIND_LIST, false },
	[ISO_K_UNSETENV] = { "unsetenv", ISO_KIND_LIST, false },
	[ISO_K_KEEP_ENV] = { "keep-env", ISO_KIND_LIST, false },
	[ISO_K_CHDIR] = { "chdir", ISO_KIND_VALUE, true },
	[ISO_K_PASS_FD] = { "pass-fd", ISO_KIND_LIST, false },
	[ISO_K_WATCH] = { "watch", ISO_KIND_LIST, true },
	[ISO_K_RESIDUE] = { "residue", ISO_KIND_VALUE, false },
	[ISO_K_TIMEOUT] = { "timeout", ISO_KIND_VALUE, false },
	[ISO_K_STOP_SIGNAL] = { "stop-signal", ISO_KIND_VALUE, false },
	[ISO_K_GRACE] = { "grace", ISO_KIND_VALUE, false },
	[ISO_K_SETTLE] = { "settle", ISO_KIND_VALUE, false },
	[ISO_K_LEAKS] = { "leaks", ISO_KIND_VALUE, false },
	[ISO_K_REPORT] = { "report", ISO_KIND_VALUE, true },
	[ISO_K_JUNIT] = { "junit", ISO_KIND_VALUE, true },
	[ISO_K_FINDING_EXIT] = { "finding-exit-code", ISO_KIND_VALUE, false },
	[ISO_K_PIDNS] = { "pidns", ISO_KIND_VALUE, false, true },
	[ISO_K_MAP_ROOT] = { "map-root", ISO_KIND_FLAG, false },
	[ISO_K_MAP_USERS] = { "map-users", ISO_KIND_VALUE, false },
	[ISO_K_CAP_KEEP] = { "cap-keep", ISO_KIND_VALUE, false },
	[ISO_K_NET] = { "net", ISO_KIND_VALUE, false },
	[ISO_K_PRIVATE_TMP] = { "private-tmp", ISO_KIND_FLAG, false },
	[ISO_K_PROTECT_HOME] = { "protect-home", ISO_KIND_VALUE, false },
	[ISO_K_WRITABLE] = { "writable", ISO_KIND_LIST, true },
	/* a FILE, not a shipped name: see iso_conf_resolve() */
	[ISO_K_POLICY] = { "policy", ISO_KIND_VALUE, true },
	[ISO_K_POLICY_MODE] = { "policy-mode", ISO_KIND_VALUE, false },
	[ISO_K_QUIET] = { "quiet", ISO_KIND_FLAG, false },
	[ISO_K_VERBOSE] = { "verbose", ISO_KIND_FLAG, false },
	/* a bare --color is always, as ls(1) and grep(1) read it */
	[ISO_K_COLOR] = { "color", ISO_KIND_VALUE, false, true },
	[ISO_K_RLIMIT_NOFILE] = { "rlimit-nofile", ISO_KIND_VALUE, false },
	[ISO_K_RLIMIT_CORE] = { "rlimit-core", ISO_KIND_VALUE, false },
	[ISO_K_RLIMIT_FSIZE] = { "rlimit-fsize", ISO_KIND_VALUE, false },
	[ISO_K_MEMORY_MAX] = { "memory-max", ISO_KIND_VALUE, false },
	[ISO_K_PIDS_MAX] = { "pids-max", ISO_KIND_VALUE, false },
	[ISO_K_CPU_MAX] = { "cpu-max", ISO_KIND_VALUE, false },
	[ISO_K_CGROUP] = { "cgroup", ISO_KIND_VALUE, false },
};

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

int iso_key_lookup(const char *name)
{
	for (int k = 0; k < ISO_N_KEYS; k++)
		if (strcmp(iso_keys[k].name, name) == 0)
			return k;
	return -1;
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
	      "  --keep                 keep the tree and print its path\n"
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
	      "  --settle DUR           time survivors get to exit on their own (3s)\n"
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
	if (o->map_users != ISO_MAP_USERS_OFF && o->pidns == ISO_PIDNS_OFF && !o->net_isolated &&
	    !o->private_tmp && !o->protect_home)
		fprintf(stderr, fmt, "--map-users", "--pidns");
	if (o->residue == ISO_FAIL && !o->watch.n)
		fprintf(stderr, fmt, "--residue=fail", "--watch");
	if (o->writable.n && o->protect_home == NS_HOME_OFF)
		fprintf(stderr, fmt, "--writable", "--protect-home=ro|hide");
	if (o->keep_env.n && !o->clearenv)
		fprintf(stderr, fmt, "--keep-env", "--clearenv");
	if (o->policy_log && strcmp(o->policy, "off") == 0)
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

/*
 * A number refused: one line naming the option, what it takes and the value.
 * Out of range (an overflow too) says so, so that a huge value is not read as a typo.
 */
static int bad_number(struct iso_err *e, int r, const char *opt, const char *want, const char *val)
{
	if (r == -ERANGE)
		return iso_err_set(e, 0, "%s: '%s' is out of range (expected %s)", opt, val, want);
	return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt, want, val);
}

static int add_pass_fd(struct iso_opts *o, const char *opt, const char *val, struct iso_err *e)
{
	uint64_t n;
	int *fds;

	if (iso_parse_u64(val, NULL, 3, INT_MAX, &n) < 0)
		return iso_err_set(e, 0, "%s: expected a descriptor number >= 3, got '%s'", opt,
				   val);
	/* the same descriptor twice is passed once */
	for (size_t i = 0; i < o->n_pass_fds; i++)
		if (o->pass_fds[i] == (int)n)
			return 0;
	if (o->n_pass_fds >= ISO_PASS_FD_MAX)
		return iso_err_set(e, 0, "%s: at most %d descriptors, got one more ('%s')", opt,
				   ISO_PASS_FD_MAX, val);
	fds = realloc(o->pass_fds, (o->n_pass_fds + 1) * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	fds[o->n_pass_fds++] = (int)n;
	o->pass_fds = fds;
	return 0;
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

/* "--stop-signal: unknown signal 'TREM'; did you mean TERM?" */
static int unknown_signal(const char *opt, const char *val, struct iso_err *e)
{
	const char *names[NSIG] = { 0 }, *near;
	bool sig = strncasecmp(val, "SIG", 3) == 0;

	for (int i = 1; i < NSIG; i++)
		names[i] = sigabbrev_np(i);
	near = iso_suggest(sig ? val + 3 : val, names, NSIG);
	if (near)
		return iso_err_set(e, 0, "%s: unknown signal '%s'; did you mean %s%s?", opt, val,
				   sig ? "SIG" : "", near);
	return iso_err_set(e, 0, "%s: unknown signal '%s' (examples: TERM, SIGINT, 9)", opt, val);
}

static int parse_dur(const char *opt, const char *val, uint64_t *ret, struct iso_err *e)
{
	int r = iso_parse_duration(val, ret);

	if (r == -ERANGE)
		return iso_err_set(e, 0, "%s: '%s' is out of range (a duration below 31000 years)",
				   opt, val);
	if (r < 0)
		return iso_err_set(e, 0, "%s: invalid duration '%s' (examples: 90s, 5m, 1h30m)",
				   opt, val);
	return 0;
}

/* true/false, yes/no, on/off, 1/0; -1 for anything else */
static int parse_bool(const char *val)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(val, yes[i]) == 0)
			return 1;
		if (strcasecmp(val, no[i]) == 0)
			return 0;
	}
	return -1;
}

/* A word after a bare --pidns that was meant as its value */
static bool looks_like_bare_value(enum iso_key key, const char *w)
{
	if (key == ISO_K_COLOR)
		return !strcmp(w, "auto") || !strcmp(w, "always") || !strcmp(w, "never");
	return strcmp(w, "try") == 0 || parse_bool(w) >= 0;
}

/*
 * `--policy=stric`: a bare name (no '/' or '.': isorun.conf resolves no path for
 * it) that is neither shipped nor a file here, near a shipped one.
 */
static const char *near_policy_name(const char *val)
{
	const char *names[9] = { "off" };
	struct stat st;
	size_t n = 1;

	if (strpbrk(val, "/.") || stat(val, &st) == 0 || errno != ENOENT)
		return NULL;
	for (; n < ELEMENTSOF(names) && pol_shipped_name(n - 1); n++)
		names[n] = pol_shipped_name(n - 1);
	for (size_t i = 0; i < n; i++)
		if (strcmp(val, names[i]) == 0)
			return NULL;
	return iso_suggest(val, names, n);
}

static int set_flag(struct iso_opts *o, enum iso_key key, bool on)
{
	switch (key) {
	case ISO_K_KEEP:
		o->keep = on;
		break;
	case ISO_K_CLEARENV:
		o->clearenv = on;
		break;
	case ISO_K_MAP_ROOT:
		o->map_root = on;
		break;
	case ISO_K_PRIVATE_TMP:
		o->private_tmp = on;
		break;
	/* one verbosity: "quiet = false" undoes a quiet, not a verbose */
	case ISO_K_QUIET:
		if (on)
			o->verbosity = -1;
		else if (o->verbosity < 0)
			o->verbosity = 0;
		break;
	case ISO_K_VERBOSE:
		if (on)
			o->verbosity = 1;
		else if (o->verbosity > 0)
			o->verbosity = 0;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

/* A byte count: digits, then K, M, G or T (powers of 1024, "KiB" and "KB" alike). */
#define SIZE_UNIT(u, shift)                                                                        \
	{ u, 1ULL << (shift) }, { u "B", 1ULL << (shift) },                                        \
	{                                                                                          \
		u "iB", 1ULL << (shift)                                                            \
	}
static const struct iso_num_unit size_units[] = {
	SIZE_UNIT("K", 10), SIZE_UNIT("M", 20), SIZE_UNIT("G", 30), SIZE_UNIT("T", 40), { 0 },
};

/* a byte count the report can hold (a JSON integer of 64 bits, signed) */
static int parse_size(const char *val, uint64_t min, uint64_t *ret)
{
	return iso_parse_u64(val, size_units, min, INT64_MAX, ret);
}

/*
 * --memory-max, --pids-max, --cpu-max: VALUE, try:VALUE, or none (undoes isorun.conf's).
 * The kernel's own bounds: pids.max takes at most PID_MAX_LIMIT (2^22), and a CPU
 * percentage of 10000 CPUs is 1000 s of quota per 100 ms period, far below cpu.max's.
 */
static int parse_ceiling(struct iso_opts *o, enum iso_key key, const char *opt, const char *val,
			 struct iso_err *e)
{
	static const char *const want[] = {
		"a size (512M, 2G), try:VALUE or none",
		"a number of processes from 1 to 4194304, try:VALUE or none",
		"a percentage of one CPU from 1 to 1000000 (50, 150%), try:VALUE or none",
	};
	static const struct iso_num_unit percent[] = { { "%", 1 }, { 0 } };
	struct iso_ceiling c = { .set = true };
	int kind = key == ISO_K_MEMORY_MAX ? ISO_CEIL_MEMORY
		   : key == ISO_K_PIDS_MAX ? ISO_CEIL_PIDS
					   : ISO_CEIL_CPU;
	const char *v = val;
	int r;

	if (strcmp(val, "none") == 0) {
		o->ceilings[kind] = (struct iso_ceiling){ 0 };
		return 0;
	}
	if (strncmp(v, "try:", 4) == 0) {
		c.try_ = true;
		v += 4;
	}
	if (kind == ISO_CEIL_MEMORY)
		r = parse_size(v, 1, &c.value);
	else if (kind == ISO_CEIL_PIDS)
		r = iso_parse_u64(v, NULL, 1, 4194304, &c.value);
	else
		r = iso_parse_u64(v, percent, 1, 1000000, &c.value);
	if (r < 0)
		return bad_number(e, r, opt, want[kind], val);
	o->ceilings[kind] = c;
	return 0;
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

/* --rlimit-nofile N; --rlimit-core, --rlimit-fsize SIZE or unlimited. */
static int apply_rlimit(struct iso_opts *o, enum iso_key key, const char *val, const char *opt,
			struct iso_err *e)
{
	int i = key == ISO_K_RLIMIT_NOFILE ? ISO_RLIM_NOFILE
		: key == ISO_K_RLIMIT_CORE ? ISO_RLIM_CORE
					   : ISO_RLIM_FSIZE;
	uint64_t n;
	int r;

	if (i != ISO_RLIM_NOFILE &&
	    (strcmp(val, "unlimited") == 0 || strcmp(val, "infinity") == 0)) {
		n = ISO_RLIM_UNLIMITED;
	} else if (i == ISO_RLIM_NOFILE) {
		/* the kernel's own ceiling (fs.nr_open) is at most 2^30 */
		r = iso_parse_u64(val, NULL, 0, INT_MAX, &n);
		if (r < 0)
			return bad_number(e, r, opt, "a number of descriptors", val);
	} else if ((r = parse_size(val, 0, &n)) < 0) {
		return bad_number(e, r, opt, "a size in bytes (K, M, G, T suffixes) or unlimited",
				  val);
	}
	o->rlimits.set[i] = true;
	o->rlimits.value[i] = n;
	return 0;
}

/*
 * --report and --junit: FILE or fd:N (a descriptor the caller opened, as bwrap's
 * --json-status-fd).  `-` is refused: stdout carries the command's own output, which a report would
 * corrupt, and stderr carries the command's errors and isorun's lines.
 */
static int set_output(struct iso_opts *o, enum iso_key key, const char *opt, const char *val,
		      struct iso_err *e)
{
	uint64_t n;
	int r;

	if (!*val)
		return iso_err_set(e, 0, "%s: empty path", opt);
	if (strcmp(val, "-") == 0)
		return iso_err_set(e, 0,
				   "%s -: stdout carries the command's output; give a file, or a "
				   "descriptor as fd:N (e.g. %s fd:3 3>&1 >out.log)",
				   opt, opt);
	if (strncmp(val, "fd:", 3) == 0 && (r = iso_parse_u64(val + 3, NULL, 0, INT_MAX, &n)) < 0)
		return bad_number(e, r, opt, "fd:N with a descriptor number", val);
	if (key == ISO_K_REPORT)
		o->report = val;
	else
		o->junit = val;
	return 0;
}

static int apply(struct iso_opts *o, enum iso_key key, char *val, bool cli, const char *opt,
		 struct iso_err *e)
{
	char *eq;
	int b;

	if (iso_keys[key].kind == ISO_KIND_FLAG) {
		b = val ? parse_bool(val) : 1;
		if (b < 0)
			return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt,
					   cli ? "nothing, =true or =false" : "true or false", val);
		return set_flag(o, key, b);
	}
	if (!val && !iso_keys[key].bare)
		return iso_err_set(e, 0, "%s: missing argument", opt);

	switch (key) {
	case ISO_K_REPORT:
	case ISO_K_JUNIT:
		return set_output(o, key, opt, val, e);
	case ISO_K_ROOT:
	case ISO_K_CHDIR:
		if (!*val)
			return iso_err_set(e, 0, "%s: empty path", opt);
		if (key == ISO_K_ROOT)
			o->root = val;
		else
			o->chdir = val;
		return 0;
	case ISO_K_ENV_DIR:
		eq = strchr(val, '=');
		if (!eq || !valid_env_name(val, (size_t)(eq - val)) || !valid_subdir(eq + 1))
			return iso_err_set(e, 0,
					   "%s: expected VAR=SUBDIR with a relative SUBDIR "
					   "inside the tree, got '%s'",
					   opt, val);
		if (iso_tree_reserved(eq + 1))
			return iso_err_set(e, 0,
					   "%s: '%s' would point %.*s at isorun's own '%s' in the "
					   "tree; choose another SUBDIR",
					   opt, val, (int)(eq - val), val,
					   iso_tree_reserved(eq + 1));
		return strv_push(&o->env_dirs, val);
	case ISO_K_SETENV:
		eq = strchr(val, '=');
		if (!eq || !valid_env_name(val, (size_t)(eq - val)))
			return iso_err_set(e, 0, "%s: expected VAR=VALUE, got '%s'", opt, val);
		return strv_push(&o->setenv, val);
	case ISO_K_UNSETENV:
	case ISO_K_KEEP_ENV:
		if (!valid_env_name(val, strlen(val)))
			return iso_err_set(e, 0, "%s: invalid variable name '%s'", opt, val);
		return strv_push(key == ISO_K_UNSETENV ? &o->unsetenv : &o->keep_env, val);
	case ISO_K_PASS_FD:
		return add_pass_fd(o, opt, val, e);
	case ISO_K_WATCH:
		if (!*val)
			return iso_err_set(e, 0, "%s: empty path", opt);
		return strv_push(&o->watch, val);
	case ISO_K_WRITABLE:
		if (!*val)
			return iso_err_set(e, 0, "%s: empty path", opt);
		return strv_push(&o->writable, val);
	case ISO_K_RESIDUE:
		return parse_mode(opt, val, false, &o->residue, e);
	case ISO_K_LEAKS:
		return parse_mode(opt, val, true, &o->leaks, e);
	case ISO_K_TIMEOUT: {
		uint64_t ms;
		if (parse_dur(opt, val, &ms, e) < 0)
			return -EINVAL;
		/* 0 is no limit, as timeout(1) reads it: a later 0 undoes isorun.conf's */
		o->timeout_ms = ms;
		return 0;
	}
	case ISO_K_GRACE:
		return parse_dur(opt, val, &o->grace_ms, e);
	case ISO_K_SETTLE:
		return parse_dur(opt, val, &o->settle_ms, e);
	case ISO_K_STOP_SIGNAL: {
		int r = iso_parse_signal(val, &o->stop_signal);
		if (r == -ERANGE)
			return iso_err_set(e, 0,
					   "%s: signal '%s' out of range: 1..%d (real-time: "
					   "SIGRTMIN..SIGRTMAX, %d..%d)",
					   opt, val, NSIG - 1, SIGRTMIN, SIGRTMAX);
		if (r < 0)
			return unknown_signal(opt, val, e);
		return 0;
	}
	case ISO_K_FINDING_EXIT: {
		uint64_t n;
		int r = iso_parse_u64(val, NULL, 1, 255, &n);

		if (r < 0)
			return bad_number(e, r, opt, "1..255", val);
		o->finding_exit = (int)n;
		return 0;
	}
	case ISO_K_MEMORY_MAX:
	case ISO_K_PIDS_MAX:
	case ISO_K_CPU_MAX:
		return parse_ceiling(o, key, opt, val, e);
	case ISO_K_MAP_USERS:
		if (strcmp(val, "off") == 0)
			o->map_users = ISO_MAP_USERS_OFF;
		else if (strcmp(val, "auto") == 0)
			o->map_users = ISO_MAP_USERS_AUTO;
		else if (strcmp(val, "require") == 0)
			o->map_users = ISO_MAP_USERS_REQUIRE;
		else
			return iso_err_set(e, 0, "%s: expected off, auto or require, got '%s'", opt,
					   val);
		return 0;
	case ISO_K_CGROUP:
		if (strcmp(val, "auto") && strcmp(val, "off"))
			return iso_err_set(e, 0, "%s: expected auto or off, got '%s'", opt, val);
		o->cgroup = strcmp(val, "off") == 0 ? ISO_CGROUP_OFF : ISO_CGROUP_AUTO;
		return 0;
	case ISO_K_PIDNS:
		b = !val ? 1 : strcmp(val, "try") == 0 ? 2 : parse_bool(val);
		if (b < 0)
			return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt,
					   cli ? "nothing or =try" : "true, false or try", val);
		o->pidns = b == 2 ? ISO_PIDNS_TRY : b ? ISO_PIDNS_ON : ISO_PIDNS_OFF;
		return 0;
	case ISO_K_CAP_KEEP: {
		struct iso_err ce = { 0 };
		uint64_t keep;

		/* ns_caps_parse() says which name is wrong; ours, which setting */
		if (ns_caps_parse(val, &keep, &ce) < 0) {
			iso_err_set(e, 0, "%s: %s", opt, ce.msg);
			iso_err_hint(e, ce.hint);
			return -EINVAL;
		}
		o->cap_keep = keep;
		return 0;
	}
	case ISO_K_NET:
		if (strcmp(val, "isolated") == 0)
			o->net_isolated = true;
		else if (strcmp(val, "host") == 0)
			o->net_isolated = false;
		else
			return iso_err_set(e, 0, "%s: expected host or isolated, got '%s'", opt,
					   val);
		return 0;
	case ISO_K_PROTECT_HOME:
		if (strcmp(val, "off") == 0)
			o->protect_home = NS_HOME_OFF;
		else if (strcmp(val, "ro") == 0 || strcmp(val, "read-only") == 0)
			o->protect_home =
				NS_HOME_RO; /* read-only: systemd's ProtectHome= spelling */
		else if (strcmp(val, "hide") == 0)
			o->protect_home = NS_HOME_HIDE;
		else
			return iso_err_set(e, 0,
					   "%s: expected off, ro (read-only) or hide, got '%s'",
					   opt, val);
		return 0;
	case ISO_K_POLICY:
		if (!*val)
			return iso_err_set(e, 0, "%s: expected default, strict, off or a file",
					   opt);
		if (near_policy_name(val))
			return iso_err_set(
				e, 0,
				"%s: '%s' is no shipped policy and no file; did you mean "
				"%s%s%s?",
				opt, val, cli ? opt : "", cli ? "=" : "", near_policy_name(val));
		o->policy = val;
		return 0;
	case ISO_K_COLOR:
		if (!val || strcmp(val, "always") == 0)
			o->color = ISO_COLOR_ALWAYS;
		else if (strcmp(val, "auto") == 0)
			o->color = ISO_COLOR_AUTO;
		else if (strcmp(val, "never") == 0)
			o->color = ISO_COLOR_NEVER;
		else
			return iso_err_set(e, 0, "%s: expected auto, always or never, got '%s'",
					   opt, val);
		return 0;
	case ISO_K_POLICY_MODE:
		if (strcmp(val, "enforce") == 0)
			o->policy_log = false;
		else if (strcmp(val, "log") == 0)
			o->policy_log = true;
		else
			return iso_err_set(e, 0, "%s: expected enforce or log, got '%s'", opt, val);
		return 0;
	case ISO_K_RLIMIT_NOFILE:
	case ISO_K_RLIMIT_CORE:
	case ISO_K_RLIMIT_FSIZE:
		return apply_rlimit(o, key, val, opt, e);
	default:
		return iso_err_set(e, 0, "%s: not a setting", opt);
	}
}

int iso_opt_set(struct iso_opts *o, enum iso_key key, char *val, unsigned line, struct iso_err *e)
{
	char opt[64];
	int r;

	if ((unsigned)key >= ISO_N_KEYS)
		return iso_err_set(e, 0, "setting %d: out of range", (int)key);
	snprintf(opt, sizeof(opt), "%s%s", line == ISO_FROM_CLI ? "--" : "", iso_keys[key].name);
	e->msg[0] = '\0';
	r = apply(o, key, val, line == ISO_FROM_CLI, opt, e);
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
		o->keep = true;
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
		return iso_err_set(e, 0,
				   "--%s %s: the value of --%s goes after '=': did you mean "
				   "--%s=%s? (a command named %s: --%s -- %s)",
				   iso_keys[bare_key].name, argv[optind], iso_keys[bare_key].name,
				   iso_keys[bare_key].name, argv[optind], argv[optind],
				   iso_keys[bare_key].name, argv[optind]);
	if (o->shell)
		o->keep = true; /* the shell's tree outlives it, whatever --keep said */
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
