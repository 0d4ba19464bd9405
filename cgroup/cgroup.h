/* SPDX-License-Identifier: MIT */
/*
 * cgroup v2: a cgroup of its own per run, where the caller may make one.
 *
 * The host side finds the cgroup2 mount and the caller's own cgroup, and says
 * whether a child may be made there (root, or a delegated subtree) and which
 * controllers a child gets.  The run side makes the child, moves the command in,
 * writes ceilings, reads accounting, freezes and kills what is left, and removes
 * it once empty.  Failures are causes (enum cg_cause) and messages; no option
 * is named here.
 */
#ifndef ISO_CGROUP_H
#define ISO_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

/* Why no cgroup, or no controller, can be had: the module's cause codes. */
enum cg_cause {
	CG_OK = 0,
	CG_NO_MOUNT = 40, /* no cgroup2 file system is mounted */
	CG_NOT_DELEGATED, /* the caller's cgroup is not the caller's to write */
	CG_NO_CONTROLLER, /* the controller is not enabled for the caller's children */
	CG_NO_OWN_CGROUP, /* /proc/self/cgroup has no cgroup2 line */
};

/* The kernel's cgroup v2 controllers (a ceiling names the one it needs). */
enum cg_ctrl {
	CG_MEMORY = 1u << 0,
	CG_PIDS = 1u << 1,
	CG_CPU = 1u << 2,
	CG_IO = 1u << 3,
	CG_CPUSET = 1u << 4,
	CG_HUGETLB = 1u << 5,
	CG_RDMA = 1u << 6,
	CG_MISC = 1u << 7,
};

/* The test-only override of the mount: a directory tree a test builds. */
#define CG_TEST_ROOT_ENV "ISORUN_TEST_CGROUP_ROOT"

struct cg_host {
	char mount[PATH_MAX]; /* where cgroup2 is mounted (or the test's tree) */
	char own[PATH_MAX];   /* the caller's cgroup, absolute: mount + the "0::" path */
	bool fake;	      /* the test's tree: interface files are made, not found */
	bool usable;	      /* a child cgroup can be made in `own` and processes moved */
	enum cg_cause cause;  /* when not usable */
	char why[300];	      /* when not usable: one clause */
	unsigned offered;     /* own/cgroup.controllers */
	char offered_text[128];
	unsigned enabled; /* own/cgroup.subtree_control: what a child gets */
};

struct cg_run {
	struct cg_host *host;
	char path[PATH_MAX]; /* the run's cgroup, absolute */
	int dirfd;	     /* the command is cloned into it (CLONE_INTO_CGROUP) */
	int procs_fd;	     /* cgroup.procs, O_WRONLY: where clone3 cannot, the child writes "0" */
	int events_fd;	     /* cgroup.events: POLLPRI at each change of populated and frozen */
};

#define CG_RUN_INIT                                                                                \
	{                                                                                          \
		.dirfd = -1, .procs_fd = -1, .events_fd = -1                                       \
	}

struct cg_stats {
	bool have_cpu;
	uint64_t cpu_usage_us, cpu_user_us, cpu_system_us;
	int64_t memory_peak; /* -1: not available */
	int64_t pids_peak;
	int64_t oom_kill; /* memory.events oom_kill, -1: not available */
};

const char *cg_ctrl_name(enum cg_ctrl c);

/* Look at the host; never fails, `h->usable` and `h->why` say what was found. */
void cg_host_probe(struct cg_host *h);

/*
 * Make sure `want` (CG_* bits) reach a child: enable them in own's
 * cgroup.subtree_control when offered.  -errno with e (cause CG_NO_CONTROLLER)
 * naming the first that cannot be had and why.
 */
int cg_host_enable(struct cg_host *h, unsigned want, struct iso_err *e);

/* Make `host->own/name`, open its cgroup.procs and watch its cgroup.events. */
int cg_run_create(struct cg_run *r, struct cg_host *h, const char *name, struct iso_err *e);
/*
 * An existing run cgroup at `path` (an orphaned run's, for ls and gc), named
 * by a record the command could rewrite: believed only when it is a directory
 * below the host's cgroup2 mount and on it (or below the test's tree), reached
 * without a symbolic link or "..", owned by our uid; opened (never blocking)
 * and watched.  -errno with e saying which check refused it.
 */
int cg_run_open(struct cg_run *r, struct cg_host *h, const char *path, struct iso_err *e);
/* Write `value` to the run's interface file `file` (memory.max, pids.max, cpu.max). */
int cg_run_write(struct cg_run *r, const char *file, const char *value, struct iso_err *e);
/* "key N" of a flat-keyed file of the run's (memory.events oom_kill); -1 when not there. */
int64_t cg_run_keyed(struct cg_run *r, const char *file, const char *key);
/* 1 populated, 0 empty, -errno. */
int cg_run_populated(struct cg_run *r);
/* The descriptor to wait on for POLLPRI (epoll: EPOLLPRI); -1 for a test's tree. */
int cg_run_watch_fd(const struct cg_run *r);
/* After the watch fired: clears its mark; returns cg_run_populated(). */
int cg_run_on_event(struct cg_run *r);
/*
 * Freeze the cgroup and wait (on the events watch, up to deadline_ms of
 * CLOCK_MONOTONIC) until the kernel says it is frozen.  0 frozen, -ETIME not by then.
 */
int cg_run_freeze(struct cg_run *r, uint64_t deadline_ms);
/* cgroup.kill: SIGKILL to every process in it, at once; then thaw. */
int cg_run_kill(struct cg_run *r);
/* Move pid out of the run's cgroup into the caller's (its parent): 0 or -errno. */
int cg_run_evict(struct cg_run *r, pid_t pid);
/* The pids in cgroup.procs (malloc'ed, *n of them); -EINVAL for a file that is not a pid list. */
int cg_run_pids(struct cg_run *r, pid_t **pids, size_t *n);
/* Wait until empty (on the watch) up to deadline_ms; 0 empty, -ETIME not by then. */
int cg_run_wait_empty(struct cg_run *r, uint64_t deadline_ms);
void cg_run_stats(struct cg_run *r, struct cg_stats *st);
/* rmdir once empty; -errno with e when it cannot be removed.  Closes the descriptors. */
int cg_run_remove(struct cg_run *r, struct iso_err *e);
void cg_run_close(struct cg_run *r);

#endif
