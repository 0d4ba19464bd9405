/* SPDX-License-Identifier: MIT */
/*
 * --pidns, the outer side: start the namespace's init (launcher/init.c) and
 * find its survivors from outside.  The messages: launcher/nsmsg.h.
 */
#ifndef ISO_PIDNS_H
#define ISO_PIDNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/opts.h"
#include "common/err.h"
#include "launcher/spawn.h"
#include "ns/ns.h"
#include "launcher/nsmsg.h"

/*
 * From GO to init's STARTED or FAILED: setup, the child's exec and its word.  None
 * of it waits on the command (it has not run), so this bound is for what no one
 * expects: past it init is killed and the run is a setup failure (125).
 */
#define SUP_START_DEADLINE_MS 30000

/* What the start gives the supervisor: init, its socket, and init's words on STARTED. */
struct sup_ns_started {
	pid_t init;	      /* still to be reaped when the exec failed */
	int sock;	      /* the outer's end of the control socket */
	int listener;	      /* the seccomp listener init passed, or -1 */
	bool guard_elsewhere; /* init's guard stands in another process (EBUSY on STARTED) */
	struct sup_exec_failure fail; /* the command could not be executed (126/127) */
};

/* Where a start's policy events go while init sets up (sup_pidns_start()). */
struct sup_ns_events {
	void (*fn)(const struct sup_ns_event_wire *w, void *arg);
	void *arg;
};

/*
 * Outer side (launcher/pidns.c): clone init into the new namespaces, write the
 * maps, send GO and wait for STARTED or FAILED.  0 with *st filled, or -errno with
 * e set (st->init then 0, st->sock and st->listener -1); st->fail is set when the
 * command itself could not be executed (126/127), st->init then still to be reaped.
 */
int sup_pidns_start(struct sup_ns_plan *p, const struct sup_ns_events *ev,
		    struct sup_ns_started *st, struct iso_err *e);

/*
 * For each inner[j], a pid in init's namespace, the pid in isorun's own namespace
 * (0: not found), in one pass over init's descendants (they are stopped).
 * Returns how many of them live, as isorun's /proc shows them (-1: unknown).
 */
int sup_pidns_outer_pids(pid_t init, const pid_t *inner, pid_t *outer, size_t n);

#endif
