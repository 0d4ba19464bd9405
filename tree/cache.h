/* SPDX-License-Identifier: MIT */
/*
 * The caches a run keeps on purpose (--cache): per-user directories outside
 * every tree, $XDG_CACHE_HOME/isorun/NAME, which isorun makes and checks as it
 * checks the per-user directory of the trees, and never removes.
 */
#ifndef ISO_TREE_CACHE_H
#define ISO_TREE_CACHE_H

#include <stddef.h>

#include "common/err.h"

/* The directory below the base that holds every cache: base/isorun/NAME. */
#define TREE_CACHE_SUBDIR "isorun"

/*
 * Where the caller's caches go, as the XDG base-directory spec says: an absolute
 * $XDG_CACHE_HOME, else $HOME/.cache, else the passwd entry's home's .cache.
 * Not made; into buf.  -ENOENT when there is no home at all.
 */
int tree_cache_base(char *buf, size_t len, struct iso_err *e);

/*
 * Make (0700, with base's missing parents) and check base/isorun and
 * base/isorun/NAME and each of subs (NULL-ended) below it: each is the
 * caller's, a real directory (not a symlink), and private (no access for group
 * or others).  The canonical path of NAME goes to path.
 */
int tree_cache_open(const char *base, const char *name, const char *const *subs, char *path,
		    size_t len, struct iso_err *e);

#endif
