/* SPDX-License-Identifier: MIT */
/*
 * The settle is never silent (issue 29): when the command has exited and
 * processes of the run remain, one line says who and for how long isorun waits.
 * The walk reads only the run's own processes (the children files below the
 * gate's root), never every process of the host, and stops at SUP_STILL_MAX.
 */
#ifndef ISO_WAITLINE_H
#define ISO_WAITLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define SUP_STILL_NAMED 3    /* processes named on the line, then "..." */
#define SUP_STILL_MAX	4096 /* processes walked at most; past it the count is "more than" */

struct sup_still {
	size_t n;  /* living processes found (zombies are not counted: they are done) */
	bool more; /* the walk stopped at SUP_STILL_MAX, or a children file was cut */
	pid_t pid[SUP_STILL_NAMED];
	char comm[SUP_STILL_NAMED][17];
};

/* The living processes below root (root excluded): 0, or -errno when root's list fails. */
int sup_still_running(pid_t root, struct sup_still *ret);

/* What the line says, besides the processes: how the command ended, the wait, its words. */
struct sup_still_wait {
	const char *how;   /* "exited 0", "killed by SIGTERM" */
	uint64_t wait_ms;  /* how long the survivors get */
	const char *words; /* the option(s) that set the wait: "--settle" */
	bool ctrl_c;	   /* a terminal is there: say that Ctrl-C ends the wait */
};

/*
 * "isorun: command exited 0; 2 processes still running (pid 5 `sleep`, ...);
 * waiting up to 3s (--settle)".  Nothing when no process is found.
 */
void sup_still_line(FILE *f, const struct sup_still *st, const struct sup_still_wait *w);

#endif
