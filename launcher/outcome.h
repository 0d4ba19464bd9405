/* SPDX-License-Identifier: MIT */
/* Everything a run found out, for the stderr summary and the JSON report. */
#ifndef ISO_OUTCOME_H
#define ISO_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"
#include "launcher/cache.h"
#include "launcher/capsplan.h"
#include "launcher/invocation.h"
#include "launcher/leak.h"
#include "launcher/opts.h"
#include "launcher/relay.h"
#include "launcher/resources.h"
#include "launcher/vkinds.h"

enum sup_tree_state { SUP_TREE_NONE, SUP_TREE_REMOVED, SUP_TREE_KEPT, SUP_TREE_RETAINED };

struct sup_residue_entry {
	const char *dir;
	char *path;
	char *by; /* an ignored entry's rule (a .gitignore line, a glob's source); residue: NULL */
};

/* At most this many ignored entries are named; the rest are counted. */
#define SUP_IGNORED_MAX 1000
/* At most this many files the run wrote in its private home are named; the rest are counted. */
#define SUP_HOME_WRITES_MAX 1000

/* A --watch directory whose check could not run: no entries from it, and why. */
struct sup_residue_gap {
	const char *dir;
	char why[384];
};

struct sup_policy_event {
	pid_t pid;
	char call[24];
	char *detail;
	char *origin;
	bool refused;	    /* false: --policy-mode=log let it through */
	int64_t started_ms; /* the refused process's start after the run's; SUP_STARTED_UNKNOWN */
	struct sup_attrib at;
};

/* A process of the tree as it was when --timeout fired (or a cancel came). */
struct sup_hung {
	pid_t pid, ppid;
	char state; /* as /proc shows it: R S D T Z ... */
	struct sup_argv argv;
	uint64_t alive_ms;
	struct sup_attrib at;
};

/* At most this many processes are described when the timer fires; the rest are counted. */
#define SUP_HUNG_MAX 256

struct sup_hung_tree {
	bool taken;
	uint64_t after_ms; /* since the command started */
	int signal;	   /* what the tree was sent */
	uint64_t grace_ms; /* then SIGKILL */
	struct sup_hung *procs;
	size_t n_procs, n_more;
	struct sup_hung *survived; /* still alive when the grace ran out */
	size_t n_survived;
};

/*
 * A finding of a guard whose evidence needs no field of its own here: its kind (a
 * row of launcher/vkinds.h), whether it counts against the run, and the evidence
 * its words show (sup_found_add(), launcher/verdict.h).
 */
struct sup_found {
	enum sup_vkind kind;
	bool counts;
	char *what;
};

/* Where isorun's own time went, in microseconds; SUP_TIMING_NONE: the phase did not run. */
#define SUP_TIMING_NONE UINT64_MAX
struct sup_timing {
	uint64_t setup; /* from isorun's start to starting the command: policy, tree, pipes */
	uint64_t start; /* starting the child (or the namespace's init) until the command exec'd */
	uint64_t command; /* the command's run, the settle window and the leak gate, to the join */
	uint64_t scan;	  /* the holder scan before removal */
	uint64_t removal; /* removing the tree */
};

struct sup_outcome {
	char *const *argv;
	size_t argc;
	char *cwd;
	struct sup_invocation inv; /* which test invocation it was: the report's `invocation` */
	char run_id[64];	 /* the tree's name, made first: --report DIR/ names files by it */
	struct timespec started; /* CLOCK_REALTIME */
	uint64_t duration_ms;
	bool subreaper;
	char subreaper_why[160]; /* when not */
	bool pidns;		 /* the leak gate was the PID namespace's init */
	char pidns_why[320];	 /* --pidns=try fell back: why */

	bool started_cmd; /* exec succeeded */
	/* a step after the command's start failed: it was stopped and reaped, exit 125 */
	bool setup_failed;
	char setup_error[320];
	/* a setup step failed before the command ran: nothing ran, exit 125 */
	bool setup_before;
	/* either way, the failure itself, the command line's advice, and where in a file */
	struct iso_err setup_err;
	char setup_advice[256];
	char setup_file[256]; /* a policy file's mistake: file, line, column; else "" */
	int setup_line, setup_col;
	bool exec_failed;
	char exec_error[1024]; /* with the cause when a mount hides the command */
	char *home;	       /* --protect-home: the real home it covered */
	bool exited;	       /* the command's own status is known */
	int exit_code;	       /* when exited normally */
	int term_signal;       /* when killed by a signal */
	bool timed_out;
	int cancelled_by; /* signal caught by isorun, 0 if none */

	struct sup_rlimits rlimits; /* --rlimit-*, for the report */
	const char *policy_name;    /* NULL: off */
	bool policy_log;
	bool guard_elsewhere; /* an enclosing isorun holds the notifications */
	struct sup_policy_event *policy_events;
	size_t n_policy_events;

	struct sup_leak *leaks;
	size_t n_leaks;
	struct sup_hung_tree hung; /* --timeout or a cancel: the tree it stopped */
	uint64_t leak_alive_ms;
	/* --pidns: init ended without the outer's doing (the OOM killer, an administrator) */
	bool init_lost;
	int init_signal; /* it was killed by this signal, else 0 ... */
	int init_status; /* ... and it exited with this */
	/* the leak gate could not finish (init lost, a storm past the kill deadline): why */
	char gate_unmeasurable[200];

	struct sup_residue_entry *residue;
	size_t n_residue;
	struct sup_residue_gap *residue_gaps;
	size_t n_residue_gaps;
	/* new entries a .gitignore or a --watch-ignore glob kept out of the residue */
	struct sup_residue_entry *residue_ignored;
	size_t n_residue_ignored, n_residue_ignored_more;
	/* a watched directory whose .gitignore was not applied (git missing, failed), and why */
	struct sup_residue_gap *residue_notes;
	size_t n_residue_notes;

	/* what the run left in its private HOME outside the XDG cache (relative to it) */
	bool home_walked;
	char **home_writes;
	size_t n_home_writes, n_home_writes_more;
	char home_unmeasurable[256]; /* the walk stopped short: why; else "" */

	enum sup_tree_state tree_state;
	bool kept_on_failure; /* kept because the run failed (--keep=on-failure) */
	char tree_path[4096];
	char tree_reason[768];

	struct sup_stream *streams[2]; /* stdout, stderr; NULL when passed through */
	bool output_merged;	       /* stderr shares the stdout stream (`>log 2>&1`) */
	char **env;		       /* names are reported, never values */
	struct sup_cache_use caches[SUP_N_CACHES]; /* --cache: kept between runs */
	size_t n_caches;

	struct sup_timing timing;
	struct sup_caps_plan caps; /* what the command kept and lost, and why */

	struct sup_resources res; /* accounting and ceilings: the report's `resources` */

	/* the guards' findings with no field of their own, in the order they were found */
	struct sup_found *found;
	size_t n_found;
	bool found_lost; /* one that counts could not be recorded (ENOMEM): the run fails */

	int exit; /* the exec's failure (126, 127); at the end, isorun's exit code (verdict.c) */
};

#endif
