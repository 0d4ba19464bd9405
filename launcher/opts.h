/* SPDX-License-Identifier: MIT */
/*
 * How a run was asked for: the type the supervisor runs from.  The command line
 * (args.c) and isorun.conf (conf.c) fill it; nothing below the command line
 * parses anything.
 */
#ifndef ISO_OPTS_H
#define ISO_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "launcher/sinktab.h"

struct iso_strv {
	char **v;
	size_t n;
};

enum iso_verdict_mode { ISO_FAIL, ISO_WARN, ISO_IGNORE };

/* --pass-fd: distinct descriptors the command may get (the child sorts them on its stack) */
#define ISO_PASS_FD_MAX 64
enum { ISO_PIDNS_OFF, ISO_PIDNS_ON, ISO_PIDNS_TRY };
/* --color: auto is a terminal on stderr and no NO_COLOR */
enum { ISO_COLOR_AUTO, ISO_COLOR_ALWAYS, ISO_COLOR_NEVER };

/*
 * --rlimit-nofile, --rlimit-core, --rlimit-fsize: set as both the soft and the hard
 * limit of the command (as prlimit(1) with one value, firejail and nsjail do), so
 * the command cannot raise them back; inherited by everything it starts.
 */
enum { ISO_RLIM_NOFILE, ISO_RLIM_CORE, ISO_RLIM_FSIZE, ISO_N_RLIMS };
#define ISO_RLIM_UNLIMITED UINT64_MAX
struct iso_rlimits {
	bool set[ISO_N_RLIMS];
	uint64_t value[ISO_N_RLIMS]; /* ISO_RLIM_UNLIMITED: RLIM_INFINITY */
};

/* "nofile", "core", "fsize": the report's name of an ISO_RLIM_* */
static inline const char *iso_rlimit_name(int i)
{
	return i == ISO_RLIM_NOFILE ? "nofile" : i == ISO_RLIM_CORE ? "core" : "fsize";
}

/*
 * The ceilings, each a row of launcher/ceiling_kinds.c (its option, cgroup file,
 * fallback and hit): memory-max (bytes), pids-max (processes), cpu-max (percent of
 * one CPU).  Their keys follow ISO_K_CEILING in this order.
 */
enum iso_ceiling_kind { ISO_CEIL_MEMORY, ISO_CEIL_PIDS, ISO_CEIL_CPU, ISO_N_CEILINGS };

/* The settings of a run, by their long option name: the keys of isorun.conf too. */
enum iso_key {
	ISO_K_ROOT,
	ISO_K_KEEP,
	ISO_K_ENV_DIR,
	ISO_K_CLEARENV,
	ISO_K_SETENV,
	ISO_K_UNSETENV,
	ISO_K_KEEP_ENV,
	ISO_K_CHDIR,
	ISO_K_PASS_FD,
	ISO_K_WATCH,
	ISO_K_RESIDUE,
	ISO_K_WATCH_IGNORE,
	ISO_K_WATCH_HOME,
	ISO_K_TIMEOUT,
	ISO_K_STOP_SIGNAL,
	ISO_K_GRACE,
	ISO_K_SETTLE,
	ISO_K_LEAKS,
/* the output files, one key each, in the sinks table's order: ISO_K_REPORT, ISO_K_JUNIT */
#define ISO_K_SINK_(ID, ...) ISO_K_##ID,
	// clang-format off
	ISO_SINK_ROWS(ISO_K_SINK_)
	ISO_K_FINDING_EXIT,
// clang-format on
#undef ISO_K_SINK_
	ISO_K_PIDNS,
	ISO_K_MAP_ROOT,
	ISO_K_MAP_USERS,
	ISO_K_CAP_KEEP,
	ISO_K_NET,
	ISO_K_PRIVATE_TMP,
	ISO_K_PROTECT_HOME,
	ISO_K_WRITABLE,
	ISO_K_POLICY,
	ISO_K_POLICY_MODE,
	ISO_K_QUIET,
	ISO_K_VERBOSE,
	ISO_K_COLOR,
	ISO_K_RLIMIT_NOFILE,
	ISO_K_RLIMIT_CORE,
	ISO_K_RLIMIT_FSIZE,
	ISO_K_CEILING, /* the first ceiling's; one key each, by enum iso_ceiling_kind */
	ISO_K_CGROUP = ISO_K_CEILING + ISO_N_CEILINGS,
	ISO_K_CACHE,
	ISO_K_BIND,
	ISO_K_RO_BIND,
	ISO_K_TMPFS,
	ISO_N_KEYS,
};

struct iso_ceiling {
	bool set;
	bool try_; /* "try:VALUE": enforce what can be, say what could not, go on */
	uint64_t value;
};
/* --cgroup: a cgroup of the run's own where one can be had, or none */
enum { ISO_CGROUP_AUTO, ISO_CGROUP_OFF };
/* --keep: never (removed when it can be), always, or only when the run fails */
enum { ISO_KEEP_NEVER, ISO_KEEP_ALWAYS, ISO_KEEP_ON_FAILURE };
/* --map-users: one id each; the subordinate ranges where there are (else one line); or 125 */
enum { ISO_MAP_USERS_OFF, ISO_MAP_USERS_AUTO, ISO_MAP_USERS_REQUIRE };

/* Where a setting came from: the command line, or a line of opts->config_path. */
#define ISO_FROM_CLI 0

/* One setting as it was applied, in order; val is NULL for a bare flag. */
struct iso_setting {
	enum iso_key key;
	unsigned line; /* ISO_FROM_CLI or the line in config_path */
	char *val;
};

/*
 * One of the report's settings as cli/ words it (its key table says how):
 * launcher/report.c only prints it, so that no option's words live below cli/.
 */
enum iso_report_kind {
	ISO_REPORT_NULL,
	ISO_REPORT_BOOL,
	ISO_REPORT_INT,
	ISO_REPORT_STRING,
	ISO_REPORT_PATH,    /* made absolute against isorun's directory; NULL: null */
	ISO_REPORT_PATHS,   /* a list of them */
	ISO_REPORT_CEILING, /* {value, try} */
	ISO_REPORT_STRINGS, /* a list of strings: paths->v as they are */
};
struct iso_report_setting {
	const char *key;
	enum iso_report_kind kind;
	const char *str; /* STRING, PATH */
	const struct iso_strv *paths;
	int64_t num;  /* INT; CEILING's value */
	bool flag;    /* BOOL; CEILING's try */
	char buf[32]; /* a STRING cli/ formatted: str points here */
};
/* the report's settings: the keys that have one, and the file they came from */
#define ISO_REPORT_SETTINGS_MAX (ISO_N_KEYS + 1)

struct ns_mount;
/* The mounts init makes in the run's mount namespace (launcher/init.c). */
struct iso_mount_plan {
	bool net_isolated; /* a network namespace of its own: lo up, its own /sys */
	bool private_tmp;
	int home; /* enum ns_home_mode: --protect-home */
	/* --bind, --ro-bind, --tmpfs in order, after the rest (ns_mounts_apply()) */
	const struct ns_mount *binds;
	size_t n_binds;
};

/* How the run is stopped: --stop-signal, --grace, --settle, --timeout (0: none). */
struct iso_stop_plan {
	int signal;
	uint64_t grace_ms;
	uint64_t settle_ms;
	uint64_t timeout_ms;
};

/*
 * What the options imply, decided once by cli/ (iso_plan_compile()) when they are
 * final: launcher/ reads these, not the options they come from, and init gets only
 * `mounts` and `stop`.
 */
struct iso_run_plan {
	/* --net=isolated, --private-tmp or --protect-home: the command runs under init in
	 * namespaces of its own (a mount namespace; a network one for --net=isolated),
	 * with --pidns or without */
	bool protections;
	/* protections or --pidns: a user namespace of the run's own where isorun is not root */
	bool namespaces;
	/* the command starts under init in a PID namespace: --pidns (on or try) or protections */
	bool init_gate;
	/* --pidns=try without protections: when the namespace cannot be had, the
	 * subreaper gate instead (a protection is never dropped) */
	bool init_fallback;
	/* --private-tmp or --protect-home=hide: host paths the command cannot see
	 * (launcher/hidden.c names them when an exec is not found) */
	bool hides;
	/* --report: the tail of the command's output is kept for it */
	bool keep_output;
	/* a seccomp policy is loaded: --policy other than off */
	bool policy;
	struct iso_mount_plan mounts;
	struct iso_stop_plan stop;
	/* --cache: the caches kept between runs, 1 << enum iso_cache_name (launcher/cache.h) */
	unsigned caches;
	/* what a leak and a residue entry do to the verdict: --leaks, --residue */
	enum iso_verdict_mode leaks, residue;
	/* --watch: directories are compared before and after (the residue guard runs) */
	bool watches;
	/* --cap-keep's capabilities (bit n: capability n), --map-root */
	uint64_t cap_keep;
	bool map_root;
	/* the ceilings asked; how each is enforced needs the host, probed at the run's start
	 * (launcher/ceiling.c) */
	struct iso_ceiling ceilings[ISO_N_CEILINGS];
	bool cgroup; /* --cgroup=auto: a cgroup of the run's own where one can be had */
	/* how the command line spells each ceiling's option, for the messages that name it */
	char ceiling_opt[ISO_N_CEILINGS][32];
};

struct iso_opts;
/* Fills out[] in the report's order and returns how many (cli/keys.c). */
typedef size_t iso_report_settings_fn(const struct iso_opts *o,
				      struct iso_report_setting out[ISO_REPORT_SETTINGS_MAX]);

/*
 * How a run was asked for.  Filled by iso_parse_args() from the command line and
 * then by iso_conf_load() (cli/conf.h) from isorun.conf.  Strings point into
 * argv or into `pool`, which lives as long as the opts.
 */
struct iso_opts {
	/* the command line's advice for a module's cause code (an option to use), or NULL */
	void (*advise)(const struct iso_opts *o, int cause, char *buf, size_t len);
	/* the command line's words that name an option, by enum iso_say (launcher/say.h) */
	const char *const *say;
	/* the command line's words for the report's settings, or NULL: none */
	iso_report_settings_fn *report_settings;
	struct iso_run_plan plan;
	const char *root;
	int keep; /* ISO_KEEP_* */
	bool clearenv;
	struct iso_strv env_dirs; /* "VAR=SUB" */
	struct iso_strv setenv;	  /* "VAR=VAL" */
	struct iso_strv unsetenv; /* "VAR" */
	struct iso_strv keep_env; /* "VAR" */
	struct iso_strv watch;	  /* directories */
	/* --watch-ignore globs, and each one's source as the command line words it */
	struct iso_strv watch_ignore, watch_ignore_by;
	bool watch_home;	  /* what the run wrote in its private home, on stderr too */
	struct iso_strv writable; /* kept as they are under --protect-home */
	int *pass_fds;
	size_t n_pass_fds;
	const char *chdir;
	enum iso_verdict_mode residue; /* ISO_FAIL or ISO_WARN */
	enum iso_verdict_mode leaks;
	uint64_t timeout_ms; /* 0: none */
	uint64_t grace_ms;
	uint64_t settle_ms;
	int stop_signal;
	const char *outputs[ISO_N_SINKS]; /* FILE, or fd:N, or NULL: by the sinks table's row */
	int finding_exit;
	int verbosity;	    /* -1 quiet, 0 normal, 1 verbose */
	int color;	    /* ISO_COLOR_* */
	bool shell;	    /* `isorun shell`: interactive, tree kept */
	bool shell_own;	    /* ... running $SHELL -i, no command given */
	const char *policy; /* default|strict|off|FILE */
	bool policy_log;    /* --policy-mode=log */
	int pidns;	    /* ISO_PIDNS_* */
	bool map_root;
	/* ISO_MAP_USERS_* */
	int map_users;
	uint64_t cap_keep; /* bit n: capability n */
	bool net_isolated;
	bool private_tmp;
	int protect_home; /* enum ns_home_mode */
	struct iso_rlimits rlimits;
	struct iso_ceiling ceilings[ISO_N_CEILINGS];
	/* --bind, --ro-bind, --tmpfs in command-line order; canonical once cli/mounts.c
	 * judged them */
	struct ns_mount *binds;
	size_t n_binds;
	int cgroup;	     /* ISO_CGROUP_* */
	char **argv;	     /* the command, NULL-terminated */
	char *shell_argv[3]; /* `isorun shell`: $SHELL -i, in the pool; argv points here */
	/*
	 * `isorun shell --tree`: the kept tree to re-enter, by its name below the
	 * per-user directory of `root` (checked by cli/reenter.c), or NULL: a new tree.
	 */
	const char *tree_arg; /* as given on the command line */
	const char *reenter;
	/* a new tree's `settings` record: isorun.conf text for a later --tree, or NULL */
	const char *settings_text;
	size_t argc;

	/* --cache: the names, each once, in the order first given */
	struct iso_strv caches;

	/* isorun.conf: --config FILE (argv), --no-config, the file read (malloc'ed) */
	const char *config_arg;
	bool no_config;
	char *config_path;
	/* every setting applied, in order: the command line's are replayed over the file */
	struct iso_setting *settings;
	size_t n_settings;
	char **pool; /* strings owned by the opts */
	size_t n_pool;
};

void iso_opts_init(struct iso_opts *o);
void iso_opts_free(struct iso_opts *o);
/* Keep `s` (malloc'ed) until iso_opts_free(); returns s, or NULL (and frees it) on ENOMEM. */
char *iso_opts_keep(struct iso_opts *o, char *s);

#endif
