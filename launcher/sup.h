/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's state and the functions its files share.  Files by role:
 * run.c (sup_run(): set up, supervise, finish), sinks.c (the output files), start.c (the
 * checks, the tree, the command's start), supervise.c (the event loop and the
 * phase table's actions), gate_subreaper.c and gate_pidns.c (the two leak gates,
 * launcher/gate.h), teardown.c (the shield, the holders, the removal), watch.c
 * (the residue, the private home's writes) and homeplan.c (--protect-home's
 * plan).  Private to launcher/.
 */
#ifndef ISO_SUP_H
#define ISO_SUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/fault.h"
#include "common/reader.h"
#include "launcher/attrib.h"
#include "launcher/ceiling.h"
#include "launcher/evloop.h"
#include "launcher/execlog.h"
#include "launcher/gate.h"
#include "launcher/hidden.h"
#include "launcher/outcome.h"
#include "launcher/sinks.h"
#include "launcher/phase.h"
#include "launcher/pidns.h"
#include "launcher/relay.h"
#include "launcher/gitignore.h"
#include "launcher/residue.h"
#include "launcher/spawn.h"
#include "policy/policy.h"
#include "tree/gate.h"
#include "tree/shield.h"
#include "tree/tree.h"

/* The supervisor's event sources, the tags of its epoll set. */
enum sup_source {
	SUP_SRC_SIGNAL,
	SUP_SRC_TIMER,
	SUP_SRC_STDOUT,
	SUP_SRC_STDERR,
	SUP_SRC_STDOUT_ROOM, /* our own output took bytes again */
	SUP_SRC_STDERR_ROOM,
	SUP_SRC_INIT,
	SUP_SRC_LISTENER,
	SUP_SRC_CGROUP,
};

/* The PID-namespace gate's state: init, its socket, its plan and what the plan points into. */
struct sup_ns {
	int sock; /* -1 until init runs */
	bool gone;
	bool killed;	 /* by the outer itself: the end of a cancel, not a loss */
	bool sweep_sent; /* init was told to end its settle (or does so itself) */
	bool counted; /* the gate's "not measurable" is the outer's count: init's own word wins */
	struct sup_ns_plan plan;
	char tree_tmp[PATH_MAX + 16], empty_dir[PATH_MAX + 16];
	char **keep; /* --protect-home: what stays writable, canonical */
	size_t n_keep;
	struct sock_filter *id_filter; /* the namespace's id filter (launcher/mapusers.h) */
};

/* Teardown's state: the tree's shield, what lowering it proved, the removal's deadline. */
struct sup_teardown {
	struct tree_shield shield;	/* as root, the tree's own mount (tree/shield.h) */
	struct tree_gate gate;		/* an ordinary user's under --pidns (tree/gate.h) */
	enum tree_shield_proof proof;	/* what lowering it proved */
	dev_t shield_dev;		/* its device, which a holder through it shows */
	struct tree_mntns_seen exposed; /* after EXPOSED: where the tree shows bare */
	/* the caller's processes the scan could not read: the release proof decides */
	char unread[400];
	/* of the processes it saw, those outside isorun's user namespace */
	size_t n_outside;
	/* isorun ls and gc, seen looking at the tree (tree/holders.h): waited for */
	pid_t lookers[16];
	size_t n_lookers;
	char proof_why[300];
	size_t n_read;		     /* processes the holder scan read */
	uint64_t remove_deadline_ms; /* monotonic; 0 while no removal runs */
	bool remove_overdue;
};

struct sup {
	const struct sup_opts *o;
	const struct sup_gate_ops *gate;
	struct iso_reader reader; /* reads of the command's memory and /proc files, bounded */
	bool slow_record;	  /* ISORUN_TEST_FAULT=slow-exec-record */
	struct sup_outcome *out;
	pid_t self;
	pid_t cmd; /* the command, or under --pidns the namespace's init */
	struct sup_evloop loop;
	enum sup_phase phase;
	struct sup_stream streams[2];
	bool relayed[2];
	bool tty_handed;
	int tty_fd;
	uint64_t cmd_exit_ms; /* monotonic, when the command's status came in */
	uint64_t started_ms;  /* monotonic, when the command started: --timeout counts from it */
	bool reap_more;	      /* the last reap hit its bound: more may wait without a new SIGCHLD */
	bool join_unproven;   /* the kill did not converge by its deadline */
	struct sup_ns ns;
	const struct pol *pol;
	int listener;	     /* seccomp notifications, -1 when none */
	struct pol_run prun; /* contain-signals: who is inside the run */

	/* what a run sets up and frees: every piece of state of sup_run() lives here */
	struct pol policy; /* loaded when --policy is not off; s->pol points at it */
	struct tree_tree tree;
	struct sup_teardown td;
	struct sup_ceilings ceil;   /* the run's cgroup, its ceilings and accounting */
	struct sup_snapshot *snaps; /* --watch, one per directory */
	struct sup_git_rules *git;  /* ... and its .gitignore rules as they were */
	char **env;
	char **shell_argv; /* `isorun shell`'s bash with its rc file, or NULL: o->argv */
	char *cmd_path;
	char *cmd_hidden;	  /* PATH's match the run's mounts hide (when none is seen) */
	struct sup_hidden hidden; /* what --private-tmp and --protect-home=hide hide */
	struct sup_sinks outputs; /* --report, --junit */
	sigset_t mask;
	struct sup_sig_inherited inherited; /* the caller's ignores and mask, the command's */
	struct termios saved_tty;
	struct sup_exec_failure fail;
	struct iso_err err; /* the setup failure, printed once */
	bool guard_elsewhere;
	uint64_t t_start, t_us; /* monotonic µs: the run's start, the last lap */
	/* who exec'd what, from the guard's notifications, and what findings are attributed from */
	struct sup_execlog execlog;
	struct sup_attrib_ctx actx;
};

enum sup_start { SUP_STARTED, SUP_EXEC_FAILED, SUP_FAILED_BEFORE, SUP_FAILED_AFTER };

/* common/clock.h's, by the supervisor's names */
static inline uint64_t sup_now_ms(void)
{
	return iso_now_ms();
}

static inline uint64_t sup_now_us(void)
{
	return iso_now_us();
}

/* The time since *mark, and *mark moved to now: consecutive phases leave no gap. */
static inline uint64_t sup_lap(uint64_t *mark)
{
	uint64_t now = sup_now_us(), d = now - *mark;

	*mark = now;
	return d;
}

/* supervise.c: the loop and the phase table's actions */
void sup_step(struct sup *s, enum sup_phase_event ev, int sig, bool from_terminal);
void sup_loop(struct sup *s);
enum sup_phase_event sup_join(struct sup *s);
uint64_t sup_settle_left(const struct sup *s);
void sup_record_status(struct sup *s, int status);
void sup_note_cancel(struct sup *s, int sig);
void sup_on_reaped(pid_t pid, int status, void *arg);
int sup_to_command(const struct sup *s, int sig);
void sup_add_policy_event(struct sup *s, pid_t pid, const char *call, const char *detail,
			  const char *origin, bool refused);
void sup_on_policy_event(const struct pol_event *ev, void *arg);
void sup_on_exec_seen(pid_t pid, char *const *argv, size_t argc, void *arg);
int sup_watch_stream(struct sup *s, int i);

/* start.c: before the command, and its start */
int sup_setup_signals(sigset_t *mask, struct sup_sig_inherited *in);
int sup_load_policy(struct sup *s);
int sup_prepare(struct sup *s, struct iso_err *e);
int sup_make_tree(struct sup *s, struct iso_err *e);
void sup_plan_caps(struct sup *s, struct sup_spawn *sp, bool pidns, bool userns);
void sup_record_start(struct sup *s, pid_t pid);
enum sup_start sup_start(struct sup *s, struct iso_err *e);
void sup_start_reader(struct sup *s);

/* homeplan.c: --protect-home */
int sup_plan_home(struct sup *s, struct sup_ns_plan *p, struct iso_err *e);

/* teardown.c */
void sup_raise_shield(struct sup *s);
void sup_lower_shield(struct sup *s, bool prove);
/* The tree back at its path from below its gate (tree/gate.h); nothing when it is there. */
void sup_open_gate(struct sup *s);
/* ISORUN_TEST_FAULT=late-shield: the window before the shield or the gate, held open. */
void sup_test_late_shield(int tree_fd);
void sup_teardown(struct sup *s);
void sup_remove_after_setup_failure(struct tree_tree *tree, struct sup_outcome *out);

/* watch.c: --watch's residue (the ignores applied), what the run wrote in its private home */
void sup_collect_residue(struct sup *s);
void sup_collect_home(struct sup *s);

#endif
