/* SPDX-License-Identifier: MIT */
/* --watch DIR: what appeared in a directory (the checkout, say) during the run. */
#ifndef ISO_RESIDUE_H
#define ISO_RESIDUE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* Entries are walked recursively, without following symlinks or entering .git. */
#define ISO_RESIDUE_MAX 200000

struct iso_snapshot {
	char *dir;    /* as given */
	char **paths; /* relative, sorted */
	size_t n;
	bool truncated; /* more than ISO_RESIDUE_MAX entries: not measurable */
};

int iso_snapshot_take(const char *dir, struct iso_snapshot *s, struct iso_err *e);
/*
 * Entries in `after` that are not in `before`; a new directory is reported once,
 * not its contents.  *ret (pointers into after) is malloc'ed.
 */
int iso_snapshot_new(const struct iso_snapshot *before, const struct iso_snapshot *after,
		     const char ***ret, size_t *ret_n);
void iso_snapshot_free(struct iso_snapshot *s);

#endif
