/* SPDX-License-Identifier: MIT */
/*
 * An orphaned run's processes through its cgroup (the tree's `cgroup` record):
 * `isorun ls` names them, `isorun gc` freezes, names and kills them before it
 * judges the tree.  Only a tree whose owner is proven gone is looked at, and
 * only a cgroup named after that very tree, on a cgroup2 file system.
 */
#ifndef ISO_ORPHAN_CG_H
#define ISO_ORPHAN_CG_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "tree/trees.h"

struct cli_cg_orphan {
	char path[PATH_MAX]; /* the run's cgroup, "" when none */
	pid_t *pids;	     /* the live processes in it */
	size_t n;
	char refused[400]; /* why the record was not believed, "" when it was (or is absent) */
};

/*
 * 1 when the orphaned tree's cgroup is still there (pids filled), 0 when not
 * (no record, or the cgroup is gone), -1 when the record is refused: a FIFO,
 * a link, too large, a cgroup not this tree's, not on the cgroup2 mount, or
 * holding our own line of processes (`refused` says which).
 */
int cli_cg_orphan_find(const struct tree_view *v, struct cli_cg_orphan *o);
/* ls: "  live: pid N `cmdline` (in the run's cgroup PATH)" per process. */
void cli_cg_orphan_print(const struct cli_cg_orphan *o, FILE *f);
/*
 * ls --json: "cgroup": PATH or null, "cgroup_refused": why (only when refused),
 * and {pid, cmd, found_by: "cgroup"} first in obj's "processes" array.
 */
void cli_cg_orphan_json(const struct cli_cg_orphan *o, json_t *obj);
/*
 * gc: freeze, name (on f), kill, wait until empty, remove the cgroup.  With
 * dry_run only names.  0, or -errno with a line on stderr.
 */
int cli_cg_orphan_stop(const struct cli_cg_orphan *o, bool dry_run, FILE *f);
void cli_cg_orphan_free(struct cli_cg_orphan *o);

#endif
