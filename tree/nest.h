/* SPDX-License-Identifier: MIT */
/*
 * A root run inside another root run's shield (issue 35 item 2, decision
 * 0064).  Its tree would lie on the outer run's overlay, which cannot be an
 * upper layer, so no overlay shield: every process on the host was read.
 * Instead, before anything is made in it, the new tree gets a tmpfs of its
 * own.  Its superblock is the tree: no disk below shows its files, and every
 * way in (a path in any mount namespace, a cwd, a descriptor, one in flight, a
 * mapping, a loop device, a detached copy) pins it.  Its end, heard on an
 * inotify watch added at its mount, after an unmount that the kernel refuses
 * while a copy in a namespace receiving its propagation is in use, proves
 * what the overlay shield proves (tree/shield.h takes it as the shield).
 *
 * The tmpfs is shared: namespaces made later hold slave copies, whose holders
 * refuse its unmount.  It is marked by the shield's work directory's name,
 * which ls and gc look for.
 */
#ifndef ISO_NEST_H
#define ISO_NEST_H

#include <sys/types.h>

#include "common/err.h"

/* The mark beside the tree: the shield's work directory's name (".<id>.w", tree/shield.h). */
#define TREE_NEST_MARK ".w"

/*
 * Mount the tmpfs on the empty directory `id` of the user directory user_fd,
 * when that directory lies on an overlay and the caller is root of the host.
 * Returns the watch on its root, -ENOENT when none is needed or it was turned
 * off (e says so then), or another -errno with e: nothing is left mounted.
 */
int tree_nest_mount(int user_fd, const char *id, mode_t mode, struct iso_err *e);

/* Take the tmpfs off `id` (lazily: a failed setup's) and its mark. */
void tree_nest_off(int user_fd, const char *id);

#endif
