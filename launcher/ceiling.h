/* SPDX-License-Identifier: MIT */
/*
 * Ceilings and accounting: the run's own cgroup where one can be had
 * (--cgroup=auto), --memory-max, --pids-max and --cpu-max written to it or
 * mapped to rlimits, and what the run used, for the report.
 */
#ifndef ISO_CEILING_H
#define ISO_CEILING_H

#include <stdbool.h>
#include <stdio.h>

#include "cgroup/cgroup.h"
#include "launcher/opts.h"
#include "launcher/resources.h"
#include "launcher/spawn.h"

/* how long the cgroup gets to empty after cgroup.kill */
#define ISO_CEILING_KILL_MS 10000

struct iso_ceilings {
	struct cg_host host;
	struct cg_run run;
	bool want_cgroup; /* the plan: make the run's cgroup */
	bool have_cgroup; /* made */
	unsigned ctrls;	  /* the controllers the ceilings need */
	struct iso_rlimit rl[ISO_N_CEILINGS];
	size_t n_rl;
	bool nproc_userns;	/* RLIMIT_NPROC planned on the run's own user namespace */
	int tree_fd;		/* where the `cgroup` record is, while the cgroup exists */
	bool stranger;		/* a process not the run's sits in its cgroup: no cgroup.kill */
	const char *const *say; /* the options' words (launcher/say.h) */
};

#define ISO_CEILINGS_INIT                                                                          \
	{                                                                                          \
		.run = CG_RUN_INIT, .tree_fd = -1                                                  \
	}

/*
 * Before anything exists: decide how each ceiling is enforced.  A ceiling
 * asked strictly that cannot be is -EOPNOTSUPP with e saying which part is
 * missing and why; asked as try, res->limits[] says what was done instead.
 * `userns`: the command will run in a user namespace of the run's own.
 */
int iso_ceilings_plan(struct iso_ceilings *c, const struct iso_opts *o, bool userns,
		      struct iso_resources *res, struct iso_err *e);
/* After the tree: the run's cgroup named after it, its ceilings written. */
/* The tree's `cgroup` record names it, so that ls and gc find an orphaned run's processes. */
int iso_ceilings_create(struct iso_ceilings *c, const struct iso_opts *o, const char *tree_id,
			int tree_fd, struct iso_resources *res, struct iso_err *e);
/* The command's share: the cgroup to enter and the rlimits to set. */
void iso_ceilings_spawn(const struct iso_ceilings *c, struct iso_spawn *sp);
/* --pidns=try fell back: an RLIMIT_NPROC planned on a user namespace would count the host. */
void iso_ceilings_no_userns(struct iso_ceilings *c, struct iso_resources *res);
/* The cgroup's events watch, or -1. */
int iso_ceilings_watch_fd(const struct iso_ceilings *c);
/* Freeze, so what is listed next cannot fork; false without a cgroup. */
bool iso_ceilings_freeze(struct iso_ceilings *c, uint64_t deadline_ms);
/* After the names are taken: cgroup.kill, and wait for it to empty. */
void iso_ceilings_kill(struct iso_ceilings *c, uint64_t deadline_ms);
/* After the join: accounting, the hits, and the cgroup removed once empty. */
void iso_ceilings_finish(struct iso_ceilings *c, const struct iso_opts *o, bool failed,
			 struct iso_resources *res);
/* The summary's lines: a hit ceiling, a note, a retained cgroup. */
void iso_resources_say(const struct iso_opts *o, const struct iso_resources *res, FILE *f);
/* -v: what the command used, one line. */
void iso_resources_say_usage(const struct iso_opts *o, const struct iso_resources *res, FILE *f);
/* A finding of the ceilings' own: an observed hit, or a cgroup that stayed. */
bool iso_resources_finding(const struct iso_resources *res);
void iso_ceilings_close(struct iso_ceilings *c);

/* The report's `resources` object (docs/design.md, "Report"). */
struct json_t;
struct json_t *iso_resources_json(const struct iso_resources *res);

#endif
