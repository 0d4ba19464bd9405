/* SPDX-License-Identifier: MIT */
/*
 * What the supervisor does with each signal number: every catchable signal is
 * blocked and read from the event loop's signalfd, so none takes its default
 * action (which for most is to end isorun on the spot, leaving the tree, the
 * report and in the default mode the command itself behind).  The table is
 * the signal table of docs/decisions/0001-the-first-decisions-signals-the-terminal-the.md;
 * tests/integration/signals.bats walks it.
 */
#ifndef ISO_SIGTABLE_H
#define ISO_SIGTABLE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

enum sup_sig_class {
	SUP_SIG_UNDECIDED,   /* a hole in the table: tests/unit/test_sigtable.c fails on it */
	SUP_SIG_UNCATCHABLE, /* KILL, STOP: the kernel's; gc recovers the tree */
	SUP_SIG_REAP,	     /* CHLD: the supervisor's own event */
	SUP_SIG_CANCEL,	     /* INT TERM HUP QUIT: cancel; the command's group gets the same */
	SUP_SIG_ABORT,	 /* XCPU, faults sent by kill(): cancel; the command gets --stop-signal */
	SUP_SIG_GROUP,	 /* TSTP TTIN CONT: job control, to the command's process group */
	SUP_SIG_FORWARD, /* USR1 USR2 ALRM ... and every real-time signal: to the command */
	SUP_SIG_IGNORE,	 /* PIPE XFSZ TTOU: a failed write is its own finding */
};

enum sup_sig_class sup_sig_class(int sig);

/* Whether a cancel by sig ends the run as cancelled (128+sig). */
static inline bool sup_sig_cancels(enum sup_sig_class c)
{
	return c == SUP_SIG_CANCEL || c == SUP_SIG_ABORT;
}

/*
 * What isorun was started with and execve(2) hands on: the ignored signals and
 * the blocked ones (bit sig - 1).  The command gets them back, as it would
 * bare (`nohup`, a background job's SIGINT); what isorun set for itself it
 * does not.
 */
struct sup_sig_inherited {
	uint64_t ignored, blocked;
};

/* Reads them; call it before isorun changes either.  -errno on failure. */
int sup_sig_inherited_read(struct sup_sig_inherited *in);

/*
 * Every signal the supervisor reads from its signalfd, including the two
 * real-time signals glibc reserves (32, 33): sigaddset() refuses them, yet
 * kill -33 would end the process.  A cancel the caller ignored is left out:
 * it stays ignored for isorun too, so `nohup isorun` outlives the hangup as
 * the bare command would.
 */
void sup_sig_supervised(sigset_t *mask, uint64_t ignored);

/* Whether sig (1..64) is in a set of sup_sig_inherited's. */
static inline bool sup_sig_in(uint64_t set, int sig)
{
	return sig >= 1 && sig <= 64 && (set >> (sig - 1) & 1);
}

/*
 * Block mask through the raw system call: glibc's sigprocmask() drops its
 * reserved signals from the set.  -errno on failure.
 */
int sup_sig_block(const sigset_t *mask);

#endif
