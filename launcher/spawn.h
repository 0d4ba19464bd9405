/* SPDX-License-Identifier: MIT */
#ifndef ISO_SPAWN_H
#define ISO_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "launcher/hidden.h"
#include "launcher/opts.h"
#include "launcher/sigtable.h"

struct pol;
struct pol_event;
struct pol_run;
struct sock_filter;

struct sup_spawn {
	const char *path; /* from sup_resolve_command() */
	char *const *argv;
	char **envp;
	const char *cwd;    /* NULL: inherit */
	int out_fd, err_fd; /* -1: inherit isorun's own 1 / 2 */
	const int *pass_fds;
	size_t n_pass_fds;
	const char *pass_fd_word; /* how the command line names pass_fds */
	int tty_fd;		  /* >= 0: make the command's group the terminal's foreground */
	int caps_mode;		  /* enum ns_caps_mode, applied last before execve */
	uint64_t caps_keep;	  /* --cap-keep */
	uint64_t caps_drop;	  /* NS_CAPS_HOST_ROOT: dropped besides the host-wide ones */
	const struct pol *pol;	  /* NULL: --policy=off */
	bool pol_log;		  /* --policy-mode=log */
	/* the command's signals and ptrace confined to the run by the kernel (policy/scope.c) */
	bool scope_signals;
	const struct pol_run *pol_run;	    /* contain-signals: who is inside (policy/policy.h) */
	struct sup_rlimits rlimits;	    /* set before privileges are dropped */
	struct sup_sig_inherited inherited; /* the caller's ignores and mask, given back */
	/* a notified call decided while the command was still being started */
	void (*on_event)(const struct pol_event *ev, void *arg);
	/* every exec the guard read, for the exec record (launcher/execlog.h); NULL: none */
	void (*on_exec)(pid_t pid, char *const *argv, size_t argc, void *arg);
	void *event_arg;
	/*
	 * the run's cgroup: the command is cloned into it (clone3's CLONE_INTO_CGROUP
	 * on cg_dir_fd); where the kernel refuses that, the child writes "0" to
	 * cg_procs_fd before anything else
	 */
	bool in_cgroup;
	int cg_dir_fd;
	int cg_procs_fd;
	/* ceilings as rlimits (soft = hard), set in the child before exec */
	struct iso_rlimit {
		int resource;
		uint64_t value;
	} ceil_rlimits[SUP_N_CEILINGS];
	size_t n_ceil_rlimits;
	/* a user namespace of one uid and gid: its id filter (policy/idfilter.c), or NULL */
	const struct sock_filter *id_filter;
	size_t id_filter_len;
};

/*
 * Why the command did not start, when it did not.  Only SUP_STAGE_EXEC is the
 * command's own failure (126/127); every other stage is isorun's setup (125),
 * and `err` says which step on what, as the child saw it.
 */
struct sup_exec_failure {
	int errnum; /* 0: it started */
	int stage;  /* SUP_STAGE_* */
	struct iso_err err;
};
enum {
	SUP_STAGE_EXEC = 1,
	SUP_STAGE_CHDIR,
	SUP_STAGE_SETUP,
	SUP_STAGE_CAPS,
	SUP_STAGE_NS,
	SUP_STAGE_POLICY,   /* loading the seccomp policy failed */
	SUP_STAGE_LISTENER, /* not a failure: the listener fd rides along, or errnum EBUSY */
};

/*
 * Find argv[0] in the command's own PATH; -ENOENT when it is nowhere the command
 * sees.  ret_hidden: the first match that hidden (may be NULL) hides, else NULL;
 * the caller frees it, whatever the return.
 */
int sup_resolve_command(const char *name, char **envp, const struct sup_hidden *hidden,
			char **ret_path, char **ret_hidden);

/*
 * Start the command in a new process group.  Returns only after the command has
 * exec'd or failed to (EOF or a record on a close-on-exec socket tells which).
 * ret_pid is set even when exec failed, so the caller reaps the child.
 * With a policy, the child loads the filter last and sends the notification
 * listener over that socket; its own execve is already notified, so this
 * answers notifications while it waits.  *ret_listener is then the listener,
 * or -1 with *ret_guard_elsewhere set when an enclosing isorun holds it.
 */
int sup_spawn(const struct sup_spawn *s, pid_t *ret_pid, struct sup_exec_failure *ret_fail,
	      int *ret_listener, bool *ret_guard_elsewhere, struct iso_err *e);

#endif
