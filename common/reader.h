/* SPDX-License-Identifier: MIT */
/*
 * Bounded reads of what the command controls.  Reading another process's
 * memory (process_vm_readv, /proc/PID/mem, /proc/PID/cmdline and environ) or
 * looking a path up in its mount namespace can wait in the kernel for as long
 * as the command likes: a page registered with userfaultfd, a file mapped from
 * a FUSE server that never answers.  Such a wait blocks every signal, so the
 * supervisor's loop, its timers and its cancel would stop with it.
 *
 * The reader is one thread that makes those calls; the caller waits for it at
 * most the deadline.  A call that overran is abandoned (its job belongs to the
 * thread, freed when it returns) and every later call fails at once with
 * -ETIMEDOUT until it has returned: a command that stalls one read would stall
 * the next.  The stuck thread's wait ends when the command lets go (the process
 * that registered the userfaultfd exits, the FUSE server is killed at teardown)
 * or, for a killable wait, with isorun's exit.
 */
#ifndef ISO_READER_H
#define ISO_READER_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common/err.h"

/* How long one read of the command's memory or files may take. */
#define ISO_READER_DEADLINE_MS 1000

struct iso_reader_core;

struct iso_reader {
	struct iso_reader_core *core; /* shared with the thread; left to it when stuck */
	pthread_t thread;
	bool running;
	bool stuck; /* a job overran: the thread is abandoned */
	unsigned deadline_ms;
};

/*
 * Started after the command's own start (no clone() follows it): every signal
 * stays blocked in the thread, as in the supervisor.
 */
int iso_reader_start(struct iso_reader *r, unsigned deadline_ms, struct iso_err *e);
void iso_reader_stop(struct iso_reader *r);

/*
 * fn(arg) on the reader, waited for at most the deadline.  0 when it ran (its
 * results are in arg); -ETIMEDOUT when it did not return in time or an earlier
 * job never did: arg then belongs to the reader, which calls free_fn(arg) once
 * fn returns, if ever (at once when fn never ran).  Without a running reader fn
 * runs here.
 */
int iso_reader_run(struct iso_reader *r, void (*fn)(void *), void *arg, void (*free_fn)(void *));

/*
 * fstatat() on the reader: a walk of a path in the command's mount namespace
 * (/proc/PID/root/...) looks every component up, and a lookup on a file
 * system the command serves (FUSE) waits for its answer.  0, -errno, or
 * -ETIMEDOUT past the deadline.
 */
int iso_reader_fstatat(struct iso_reader *r, int dirfd, const char *path, struct stat *st,
		       int flags);

/*
 * Signals 32 and 33 (glibc's own) that a reader's thread takes while glibc
 * starts it are passed on to the process's signalfd, not lost: call it once,
 * with every catchable signal blocked, before anything can send one.  0 or
 * -errno.
 */
int iso_reader_keep_reserved(void);

/* The reader iso_proc_read() of a process's cmdline and environ goes through (NULL: none). */
void iso_reader_set_proc(struct iso_reader *r);
struct iso_reader *iso_reader_proc(void);

#endif
