/* SPDX-License-Identifier: MIT */
/*
 * What a run used and what bounded it: the report's `resources` key.  Filled by
 * the ceilings (launcher/ceiling.c); read by the report and the summary.
 */
#ifndef ISO_RESOURCES_H
#define ISO_RESOURCES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "cgroup/cgroup.h"
#include "launcher/opts.h"

struct sup_limit {
	bool asked;
	bool try_;
	uint64_t value;
	const char *enforced_by; /* "cgroup", "rlimit", or NULL: not enforced */
	char note[400];		 /* how it was enforced, or why it was not */
	int64_t hits;		 /* what its cgroup counted as refused or killed; -1: unknown */
};

struct sup_resources {
	bool have_rusage;
	uint64_t cpu_user_ms, cpu_system_ms, max_rss_kib;
	bool have_cgroup; /* the run had a cgroup of its own */
	char cgroup_path[PATH_MAX];
	struct cg_stats cg;
	struct sup_limit limits[SUP_N_CEILINGS];
	char ceiling_hit[320];	   /* an observed hit: "the memory ceiling ... was reached" */
	char ceiling_note[320];	   /* a failing run under an rlimit ceiling: what cannot be known */
	char cgroup_retained[480]; /* the cgroup could not be removed: path and reason */
};

#endif
