/* SPDX-License-Identifier: MIT */
/*
 * The leak gate's hands: signal every descendant of isorun, and kill the whole
 * set without losing a race against a process that keeps forking.
 *
 * Every signal goes through a pidfd opened after the process was seen in /proc and
 * checked against its start time, so a pid that was reaped and reused is never hit.
 */
#ifndef ISO_LEAK_H
#define ISO_LEAK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/attrib.h"

/* started_ms when the start time is not known */
#define SUP_STARTED_UNKNOWN INT64_MIN

struct sup_leak {
	pid_t pid;
	pid_t inner_pid; /* in the PID namespace of --pidns, else 0 */
	pid_t sid;
	uint64_t start;
	char *cmdline;
	char *cwd;
	/* filled by sup_leak_describe() while it is stopped */
	pid_t ppid; /* its parent as /proc shows it when found (0: unknown) */
	struct sup_argv argv;
	char *exe;
	int64_t started_ms; /* after the run's start; SUP_STARTED_UNKNOWN */
	uint64_t alive_ms;  /* how long it had run when found */
	struct sup_attrib at;
};

/* The rest of a stopped leak's description: argv, exe, parent, times, attribution. */
void sup_leak_describe(struct sup_leak *l, const struct sup_attrib_ctx *c);

/* Called for every child isorun reaps, so the command's status is never lost. */
typedef void (*sup_reap_fn)(pid_t pid, int status, void *arg);

/* At most this many children are reaped per call: a storm must not starve the timers. */
#define SUP_REAP_BATCH 64
/* How long the freeze and kill may take before the gate gives up (not measurable). */
#define SUP_KILL_DEADLINE_MS 10000
/* The tree's removal: past it the rest stays, retained with its records, for gc. */
#define SUP_REMOVE_DEADLINE_MS 120000

/* Reap what has exited, at most SUP_REAP_BATCH, without blocking.  Returns how many. */
int sup_reap_ready(sup_reap_fn fn, void *arg);
/* True when isorun has no child left: then the tree below it is empty. */
bool sup_no_children(void);

/* Send sig to every living descendant outside process group `skip_pgrp` (0: none). */
int sup_signal_tree(pid_t self, int sig, pid_t skip_pgrp);

/*
 * SIGSTOP every descendant, and every process group led by one of them or equal to
 * cmd_pgid (a group signal reaches a child still inside fork(), so a running fork
 * chain cannot outpace it; a pgid cannot be reused while its group lives), again and again until a
 * pass finds none new (a stopped process cannot fork, so the set is then closed), describe the
 * stopped set into *found when it is given, SIGKILL it, and reap until isorun has no child left,
 * repeating for anything that slipped through.  Returns the number killed or -errno;
 * -ETIME when the tree was still changing, or not yet reaped, at `deadline` (CLOCK_MONOTONIC
 * ms): what was found by then is in *found, the rest may still run.  `attrib`
 * (NULL: none) is what each found process is attributed from, while it is stopped.
 */
/* The processes found and killed, described. */
struct sup_leak_list {
	struct sup_leak *v;
	size_t n;
};
/* What each reaped child is handed to. */
struct sup_reaper {
	sup_reap_fn fn;
	void *arg;
};
int sup_freeze_kill(pid_t self, pid_t cmd_pgid, struct sup_leak_list *found,
		    const struct sup_reaper *reap, uint64_t deadline,
		    const struct sup_attrib_ctx *attrib);
void sup_leaks_free(struct sup_leak *l, size_t n);

#endif
