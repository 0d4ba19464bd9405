/* SPDX-License-Identifier: MIT */
/*
 * The identity of everything in a tree: the (st_dev, st_ino) of each entry, so
 * that a holder is recognised whatever path reached the object (a bind mount,
 * a symlink, /proc/PID/cwd), not by the spelling of a readlink.
 */
#ifndef ISO_TREEID_H
#define ISO_TREEID_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Beyond this many entries the set is not built: holders are then not measurable. */
#define TREE_TREEID_MAX (1u << 20)

struct tree_treeid {
	struct iso_devino {
		dev_t dev;
		ino_t ino;
	} * v;
	size_t n, cap;
	dev_t root_dev; /* the tree's own device: cheap prefilter for mounts */
	ino_t root_ino;
	bool partial; /* a subdirectory could not be read: its entries are not in v */
	/*
	 * Another device that shows the same inodes: the tree's shield (an overlay
	 * of the tree on one filesystem keeps its inode numbers), through which a
	 * holder's descriptor, cwd or mount shows its own st_dev.  0: none.
	 */
	dev_t alias_dev;
};

/*
 * Walk `path` (not following symlinks) into *t; 0, -E2BIG past the bound, or
 * -errno.  The top-level entries named in `skip` (NULL-terminated, or NULL) are
 * left out: isorun's own records, which ls and gc open beside a live run.
 */
int tree_treeid_build(struct tree_treeid *t, const char *path, const char *const *skip);
bool tree_treeid_has(const struct tree_treeid *t, dev_t dev, ino_t ino);
/* Whether dev is the tree's own device, or its alias. */
bool tree_treeid_on_dev(const struct tree_treeid *t, dev_t dev);
void tree_treeid_free(struct tree_treeid *t);

#endif
