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

struct sup_strv {
	char **v;
	size_t n;
};

enum sup_verdict_mode { SUP_FAIL, SUP_WARN, SUP_IGNORE };

/* --pass-fd: distinct descriptors the command may get (the child sorts them on its stack) */
#define SUP_PASS_FD_MAX 64
enum { SUP_PIDNS_OFF, SUP_PIDNS_ON, SUP_PIDNS_TRY };
/* --color: auto is a terminal on stderr and no NO_COLOR */
enum { SUP_COLOR_AUTO, SUP_COLOR_ALWAYS, SUP_COLOR_NEVER };

/*
 * --rlimit-nofile, --rlimit-core, --rlimit-fsize: set as both the soft and the hard
 * limit of the command (as prlimit(1) with one value, firejail and nsjail do), so
 * the command cannot raise them back; inherited by everything it starts.
 */
enum { SUP_RLIM_NOFILE, SUP_RLIM_CORE, SUP_RLIM_FSIZE, SUP_N_RLIMS };
#define SUP_RLIM_UNLIMITED UINT64_MAX
struct sup_rlimits {
	bool set[SUP_N_RLIMS];
	uint64_t value[SUP_N_RLIMS]; /* SUP_RLIM_UNLIMITED: RLIM_INFINITY */
};

/* "nofile", "core", "fsize": the report's name of an SUP_RLIM_* */
static inline const char *sup_rlimit_name(int i)
{
	return i == SUP_RLIM_NOFILE ? "nofile" : i == SUP_RLIM_CORE ? "core" : "fsize";
}

/*
 * The ceilings, each a row of launcher/ceiling_kinds.c (its option, cgroup file,
 * fallback and hit): memory-max (bytes), pids-max (processes), cpu-max (percent of
 * one CPU).  Their keys follow SUP_K_CEILING in this order.
 */
enum sup_ceiling_kind { SUP_CEIL_MEMORY, SUP_CEIL_PIDS, SUP_CEIL_CPU, SUP_N_CEILINGS };

/* The settings of a run, by their long option name: the keys of isorun.conf too. */
enum sup_key {
	SUP_K_ROOT,
	SUP_K_KEEP,
	SUP_K_ENV_DIR,
	SUP_K_CLEARENV,
	SUP_K_SETENV,
	SUP_K_UNSETENV,
	SUP_K_KEEP_ENV,
	SUP_K_CHDIR,
	SUP_K_PASS_FD,
	SUP_K_WATCH,
	SUP_K_RESIDUE,
	SUP_K_WATCH_IGNORE,
	SUP_K_WATCH_HOME,
	SUP_K_TIMEOUT,
	SUP_K_STOP_SIGNAL,
	SUP_K_GRACE,
	SUP_K_SETTLE,
	SUP_K_LEAKS,
/* the output files, one key each, in the sinks table's order: SUP_K_REPORT, SUP_K_JUNIT */
#define SUP_K_SINK_(ID, ...) SUP_K_##ID,
	// clang-format off
	SUP_SINK_ROWS(SUP_K_SINK_)
	SUP_K_FINDING_EXIT,
// clang-format on
#undef SUP_K_SINK_
	SUP_K_PIDNS,
	SUP_K_MAP_ROOT,
	SUP_K_MAP_USERS,
	SUP_K_CAP_KEEP,
	SUP_K_NET,
	SUP_K_PRIVATE_TMP,
	SUP_K_PROTECT_HOME,
	SUP_K_WRITABLE,
	SUP_K_POLICY,
	SUP_K_POLICY_MODE,
	SUP_K_QUIET,
	SUP_K_VERBOSE,
	SUP_K_COLOR,
	SUP_K_RLIMIT_NOFILE,
	SUP_K_RLIMIT_CORE,
	SUP_K_RLIMIT_FSIZE,
	SUP_K_CEILING, /* the first ceiling's; one key each, by enum sup_ceiling_kind */
	SUP_K_CGROUP = SUP_K_CEILING + SUP_N_CEILINGS,
	SUP_K_CACHE,
	SUP_K_BIND,
	SUP_K_RO_BIND,
	SUP_K_TMPFS,
	SUP_N_KEYS,
};

struct sup_ceiling {
	bool set;
	bool try_; /* "try:VALUE": enforce what can be, say what could not, go on */
	uint64_t value;
};
/* --cgroup: a cgroup of the run's own where one can be had, or none */
enum { SUP_CGROUP_AUTO, SUP_CGROUP_OFF };
/* --keep: never (removed when it can be), always, or only when the run fails */
enum { SUP_KEEP_NEVER, SUP_KEEP_ALWAYS, SUP_KEEP_ON_FAILURE };
/* --map-users: one id each; the subordinate ranges where there are (else one line); or 125 */
enum { SUP_MAP_USERS_OFF, SUP_MAP_USERS_AUTO, SUP_MAP_USERS_REQUIRE };

/* Where a setting came from: the command line, or a line of opts->config_path. */
#define SUP_FROM_CLI 0

/* One setting as it was applied, in order; val is NULL for a bare flag. */
struct sup_setting {
	enum sup_key key;
	unsigned line; /* SUP_FROM_CLI or the line in config_path */
	char *val;
};

/*
 * One of the report's settings as cli/ words it (its key table says how):
 * launcher/report.c only prints it, so that no option's words live below cli/.
 */
enum sup_report_kind {
	SUP_REPORT_NULL,
	SUP_REPORT_BOOL,
	SUP_REPORT_INT,
	SUP_REPORT_STRING,
	SUP_REPORT_PATH,    /* made absolute against isorun's directory; NULL: null */
	SUP_REPORT_PATHS,   /* a list of them */
	SUP_REPORT_CEILING, /* {value, try} */
	SUP_REPORT_STRINGS, /* a list of strings: paths->v as they are */
};
struct sup_report_setting {
	const char *key;
	enum sup_report_kind kind;
	const char *str; /* STRING, PATH */
	const struct sup_strv *paths;
	int64_t num;  /* INT; CEILING's value */
	bool flag;    /* BOOL; CEILING's try */
	char buf[32]; /* a STRING cli/ formatted: str points here */
};
/* the report's settings: the keys that have one, and the file they came from */
#define SUP_REPORT_SETTINGS_MAX (SUP_N_KEYS + 1)

struct ns_mount;
/* The mounts init makes in the run's mount namespace (launcher/init.c). */
struct sup_mount_plan {
	bool net_isolated; /* a network namespace of its own: lo up, its own /sys */
	bool private_tmp;
	int home; /* enum ns_home_mode: --protect-home */
	/* --bind, --ro-bind, --tmpfs in order, after the rest (ns_mounts_apply()) */
	const struct ns_mount *binds;
	size_t n_binds;
};

/* How the run is stopped: --stop-signal, --grace, --settle, --timeout (0: none). */
struct sup_stop_plan {
	int signal;
	uint64_t grace_ms;
	uint64_t settle_ms;
	uint64_t timeout_ms;
};

/*
 * What the options imply, decided once by cli/ (cli_plan_compile()) when they are
 * final: launcher/ reads these, not the options they come from, and init gets only
 * `mounts` and `stop`.
 */
struct sup_run_plan {
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
	struct sup_mount_plan mounts;
	struct sup_stop_plan stop;
	/* --cache: the caches kept between runs, 1 << enum sup_cache_name (launcher/cache.h) */
	unsigned caches;
	/* what a leak and a residue entry do to the verdict: --leaks, --residue */
	enum sup_verdict_mode leaks, residue;
	/* --watch: directories are compared before and after (the residue guard runs) */
	bool watches;
	/* --cap-keep's capabilities (bit n: capability n), --map-root */
	uint64_t cap_keep;
	bool map_root;
	/* the ceilings asked; how each is enforced needs the host, probed at the run's start
	 * (launcher/ceiling.c) */
	struct sup_ceiling ceilings[SUP_N_CEILINGS];
	bool cgroup; /* --cgroup=auto: a cgroup of the run's own where one can be had */
	/* how the command line spells each ceiling's option, for the messages that name it */
	char ceiling_opt[SUP_N_CEILINGS][32];
};

struct sup_opts;
/* Fills out[] in the report's order and returns how many (cli/keys.c). */
typedef size_t sup_report_settings_fn(const struct sup_opts *o,
				      struct sup_report_setting out[SUP_REPORT_SETTINGS_MAX]);

/*
 * How a run was asked for.  Filled by cli_parse_args() from the command line and
 * then by cli_conf_load() (cli/conf.h) from isorun.conf.  Strings point into
 * argv or into `pool`, which lives as long as the opts.
 */
struct sup_opts {
	/* the command line's advice for a module's cause code (an option to use), or NULL */
	void (*advise)(const struct sup_opts *o, int cause, char *buf, size_t len);
	/* the command line's words that name an option, by enum sup_say (launcher/say.h) */
	const char *const *say;
	/*
	 * When the command failed on its own: the command line's one line on an
	 * isorun option among the command's arguments (`pytest -q --keep`), true
	 * when there is one; NULL: none
	 */
	bool (*misplaced)(const struct sup_opts *o, char *buf, size_t len);
	/* the command line's words for the report's settings, or NULL: none */
	sup_report_settings_fn *report_settings;
	struct sup_run_plan plan;
	const char *root;
	int keep; /* SUP_KEEP_* */
	bool clearenv;
	struct sup_strv env_dirs; /* "VAR=SUB" */
	struct sup_strv setenv;	  /* "VAR=VAL" */
	struct sup_strv unsetenv; /* "VAR" */
	struct sup_strv keep_env; /* "VAR" */
	struct sup_strv watch;	  /* directories */
	/* --watch-ignore globs, and each one's source as the command line words it */
	struct sup_strv watch_ignore, watch_ignore_by;
	bool watch_home;	  /* what the run wrote in its private home, on stderr too */
	struct sup_strv writable; /* kept as they are under --protect-home */
	int *pass_fds;
	size_t n_pass_fds;
	const char *chdir;
	enum sup_verdict_mode residue; /* SUP_FAIL or SUP_WARN */
	enum sup_verdict_mode leaks;
	uint64_t timeout_ms; /* 0: none */
	uint64_t grace_ms;
	uint64_t settle_ms;
	int stop_signal;
	const char *outputs[SUP_N_SINKS]; /* FILE, or fd:N, or NULL: by the sinks table's row */
	int finding_exit;
	int verbosity;	    /* -1 quiet, 0 normal, 1 verbose */
	int color;	    /* SUP_COLOR_* */
	bool shell;	    /* `isorun shell`: interactive, tree kept */
	bool shell_own;	    /* ... running $SHELL -i, no command given */
	const char *policy; /* default|strict|off|FILE */
	bool policy_log;    /* --policy-mode=log */
	int pidns;	    /* SUP_PIDNS_* */
	bool map_root;
	/* SUP_MAP_USERS_* */
	int map_users;
	uint64_t cap_keep; /* bit n: capability n */
	bool net_isolated;
	bool private_tmp;
	int protect_home; /* enum ns_home_mode */
	struct sup_rlimits rlimits;
	struct sup_ceiling ceilings[SUP_N_CEILINGS];
	/* --bind, --ro-bind, --tmpfs in command-line order; canonical once cli/mounts.c
	 * judged them */
	struct ns_mount *binds;
	size_t n_binds;
	int cgroup;	     /* SUP_CGROUP_* */
	char **argv;	     /* the command, NULL-terminated */
	char *shell_argv[3]; /* `isorun shell`: $SHELL -i, in the pool; argv points here */
	/*
	 * `isorun shell --tree`: the kept tree to re-enter, by its name below the
	 * per-user directory of `root` (checked by cli/reenter.c), or NULL: a new tree.
	 */
	const char *tree_arg; /* as given on the command line */
	/* `isorun rerun REPORT`, `isorun shell --like REPORT`: cli/like.c reads it */
	const char *like_arg;
	bool rerun;
	const char *reenter;
	/* a new tree's `settings` record: isorun.conf text for a later --tree, or NULL */
	const char *settings_text;
	size_t argc;

	/* --cache: the names, each once, in the order first given */
	struct sup_strv caches;

	/* isorun.conf: --config FILE (argv), --no-config, the file read (malloc'ed) */
	const char *config_arg;
	bool no_config;
	char *config_path;
	/* every setting applied, in order: the command line's are replayed over the file */
	struct sup_setting *settings;
	size_t n_settings;
	char **pool; /* strings owned by the opts */
	size_t n_pool;
};

void sup_opts_init(struct sup_opts *o);
void sup_opts_free(struct sup_opts *o);
/* Keep `s` (malloc'ed) until sup_opts_free(); returns s, or NULL (and frees it) on ENOMEM. */
char *sup_opts_keep(struct sup_opts *o, char *s);

#endif
