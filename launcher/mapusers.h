/* SPDX-License-Identifier: MIT */
/*
 * The ids of an ordinary user's namespace: --map-users' ranges where the host
 * gives them, else one uid and one gid and the id filter that makes the
 * namespace answer a change to any other id as the host does (EPERM).
 */
#ifndef ISO_MAPUSERS_H
#define ISO_MAPUSERS_H

#include "common/err.h"
#include "launcher/nsmsg.h"
#include "launcher/opts.h"

/* How long newuidmap or newgidmap may take before it is killed and the run fails. */
#define SUP_MAPPER_TIMEOUT_MS 10000

/*
 * For a plan with a user namespace: p->ranged and p->idmaps when --map-users
 * asked and the ranges and helpers are there, else p->spawn's id filter, which
 * *ret_filter owns (free() it after the run).  Under auto a missing piece is one
 * line on stderr (not under -q); under require it is -EINVAL with e set.
 */
int sup_map_users_plan(const struct sup_opts *o, struct sup_ns_plan *p,
		       struct sock_filter **ret_filter, struct iso_err *e);

/*
 * fn(arg, e) as the root of the caller's id ranges (ns_in_ranges), mapped with
 * `m`, or (m NULL) with the ranges and helpers a run would find now: what a run
 * gave to a subordinate id, at any depth, the caller can then chmod and remove
 * without the run.  0, or -errno with e set (e says why when there is no range).
 */
int sup_map_users_again(const struct ns_idmaps *m, int (*fn)(void *arg, struct iso_err *e),
			void *arg, struct iso_err *e);

#endif
