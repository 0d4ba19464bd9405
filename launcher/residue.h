/* SPDX-License-Identifier: MIT */
/* --watch DIR: what appeared in a directory (the checkout, say) during the run. */
#ifndef ISO_RESIDUE_H
#define ISO_RESIDUE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

/*
 * Entries are walked recursively, without following symlinks or entering .git,
 * nor another mount (its file system may be the command's, one that never
 * answers): a mount point found is a part not seen.
 */
#define SUP_RESIDUE_MAX 200000

struct sup_snapshot {
	char *dir;    /* as given */
	char **paths; /* relative, sorted */
	size_t n;
	dev_t dev; /* the directory walked, to tell it from one put at its path later */
	ino_t ino;
	bool truncated; /* more than SUP_RESIDUE_MAX entries: not measurable */
	/* why the walk does not cover the whole directory (too big, a part unreadable); "" */
	char unmeasurable[320];
};

int sup_snapshot_take(const char *dir, struct sup_snapshot *s, struct iso_err *e);
void sup_snapshot_free(struct sup_snapshot *s);
/*
 * The directory after the run, compared with `before`: the new entries in *ret
 * (as sup_snapshot_added, every one) and 0, or, when the two walks cannot be compared (either is
 * incomplete, the directory is gone or was replaced, no memory), none, < 0 and
 * the reason in e.  `after` is the caller's to free either way.  own (absolute, canonical,
 * or NULL): isorun's own tree, whose shield is a mount not counted as a gap.
 */
int sup_snapshot_compare(const struct sup_snapshot *before, struct sup_snapshot *after,
			 const char *own, const char ***ret, size_t *ret_n, struct iso_err *e);

/*
 * Every entry in `after` not in `before`, the contents of a new directory too
 * (pointers into after, sorted); *ret is malloc'ed.
 */
int sup_snapshot_added(const struct sup_snapshot *before, const struct sup_snapshot *after,
		       const char ***ret, size_t *ret_n);

/*
 * Whether the --watch-ignore glob matches the entry `path` (relative, a
 * directory ending in '/') itself, as a .gitignore line would: a glob without
 * '/' matches the last component at any depth, one with '/' the whole path from
 * the watched directory (a leading '/' only anchors it); a trailing '/' matches
 * directories only.  fnmatch(3) without flags beyond FNM_PATHNAME for the
 * anchored form: '*' matches a leading dot, as in git.
 */
bool sup_glob_ignores(const char *glob, const char *path);

/*
 * The new entries (sup_snapshot_added's, sorted) sorted into what is reported:
 * by[i] is what ignores entry i (a .gitignore line, a glob), or NULL.  An
 * entry under an ignored new directory is ignored with it; a new directory
 * whose every entry is ignored is not residue (git shows no such directory)
 * unless it is empty.  residue[i]: entry i is reported as residue (a new
 * directory once, not its contents); shown[i]: as ignored (the topmost).
 */
int sup_residue_sort(const char *const *added, size_t n, const char *const *by, bool *residue,
		     bool *shown);

#endif
