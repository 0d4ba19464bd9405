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

/*
 * Outer side (launcher/pidns.c): clone init into the new namespaces, write the
 * maps, send GO and wait for STARTED or FAILED.  On success ret_pid is init and
 * ret_sock the outer's end.  -errno with e set on failure; ret_fail set when the
 * command itself could not be executed (126/127), ret_pid then still to be reaped.
 */
int sup_pidns_start(struct sup_ns_plan *p, pid_t *ret_pid, int *ret_sock,
		    struct sup_exec_failure *ret_fail, int *ret_listener, bool *ret_guard_elsewhere,
		    void (*on_event)(const struct sup_ns_event_wire *w, void *arg), void *arg,
		    struct iso_err *e);

/*
 * For each inner[j], a pid in init's namespace, the pid in isorun's own namespace
 * (0: not found), in one pass over init's descendants (they are stopped).
 * Returns how many of them live, as isorun's /proc shows them (-1: unknown).
 */
int sup_pidns_outer_pids(pid_t init, const pid_t *inner, pid_t *outer, size_t n);

#endif
