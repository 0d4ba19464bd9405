/* SPDX-License-Identifier: MIT */
/*
 * A tree inside another root run's shield lies on that run's overlay, and an
 * overlay's upper layer cannot be an overlay.  Below it is the disk: the outer
 * overlay's upper layer is the outer tree's own directory, under the overlay's
 * mount point.  A clone of the mount that point lies on, made without the
 * mounts on it (open_tree(OPEN_TREE_CLONE), detached: nothing else can reach
 * it), shows that directory bare, and from it the inner tree and its work
 * directory, each checked to be the inode the overlay shows.  Linux 6.15 and
 * later take a detached mount's directory as an overlay's upper layer
 * (clone_private_mount()), so the inner run's shield is an overlay of the disk,
 * raised on the path through the outer one.
 */
#ifndef ISO_UNDER_H
#define ISO_UNDER_H

#include <limits.h>
#include <sys/types.h>

#include "common/err.h"

struct tree_under {
	int clone;	    /* the detached mount: closed, it is no longer a mount a layer can be */
	int upper;	    /* the tree's directory on the disk, or -1 */
	int work;	    /* its work directory, beside it on the disk, or -1 */
	int lower;	    /* its empty lower layer, beside it: one level of stacking, not two */
	dev_t dev;	    /* the disk */
	char rel[PATH_MAX]; /* the tree's path from the disk's root */
};

/*
 * The tree (tree_fd, at the canonical `path`), its work directory and its lower
 * layer (`work`, `lower` in user_fd), on the outer overlay, opened on the disk
 * below it (below the lowest overlay, when runs nest deeper).  0, or
 * -errno with e saying why: not below an overlay mounted whole on a directory of a disk
 * (a container's own root), a step that is not the same inode, or a kernel
 * that refuses the clone.
 */
int tree_under_open(struct tree_under *u, int tree_fd, const char *path, int user_fd,
		    const char *work, const char *lower, struct iso_err *e);
void tree_under_close(struct tree_under *u);

#endif
