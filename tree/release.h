/* SPDX-License-Identifier: MIT */
/*
 * The tree's release: the kernel's word, after the removal, that nothing holds
 * any part of the tree, by any path.  Every reference to a file or directory
 * of the tree (a cwd, a root, an open or passed descriptor, a mapping, a loop
 * device's backing file, a bind or detached mount, a mount namespace's copy,
 * the shield's upper layer) pins its dentry, and each dentry pins its parent's,
 * up to the tree's top.  rmdir prunes the unused ones, so the top's inode is
 * freed (inotify's IN_DELETE_SELF) when its last name goes and no reference is
 * left, or later, when the last one goes.  No process is read and no mount is
 * needed: the same answer for root and for an ordinary user, through any mount
 * of the file system, including what entered the tree before its shield.
 *
 * It comes after the removal: it cannot keep a tree, only say that one was
 * still held when it went (the shield and the holder scan answer before).
 */
#ifndef ISO_RELEASE_H
#define ISO_RELEASE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

/*
 * A watch on the tree's top: on an inotify instance the caller already has
 * (closing one waits for the kernel's fsnotify grace period, several ms here:
 * a run does it once), or one of its own.
 */
struct tree_release {
	int in;	  /* the inotify instance */
	int wd;	  /* the watch on the tree's top */
	bool own; /* `in` is the watch's own, closed by tree_release_close() */
};

/*
 * Watch the tree's top directory, by its descriptor (never its path, which
 * the command can re-point), on `in` (-1: an instance of its own).  The watch
 * holds the inode, not the dentry: it delays nothing.  0, or -errno.
 */
int tree_release_watch(struct tree_release *r, int in, int top_fd, struct iso_err *e);
void tree_release_close(struct tree_release *r);

/*
 * After the top's last rmdir and the close of every descriptor of ours in the
 * tree: 1 when the top was freed within `ms` milliseconds, 0 when it was not
 * (something still holds the tree), -errno when the watch could not be read.
 * Other watches' events on the same instance are passed over.
 */
int tree_release_wait(const struct tree_release *r, int ms);

/*
 * The loop devices whose backing file lies in the tree at `tree` (absolute),
 * "loop0, loop3", into buf: a holder no process shows.  Returns how many.
 */
size_t tree_release_loops(const char *tree, char *buf, size_t len);

/*
 * The kernel saw a hold (`kernel_said`) and no process isorun can read is the
 * holder: into e, with what could be (a loop device is named: /sys shows it).
 */
void tree_release_unnamed(const char *tree, const char *kernel_said, struct iso_err *e);

/*
 * After the removal of the tree at `tree` (on device `disk`) and the close of
 * every descriptor of the caller's in it: whether the kernel freed its top.
 * Not at once, a scan of what is left names the holder (`exclude`: the
 * caller), and the kernel is asked again.  1 released, 0 still held (e says
 * by what), -errno when the watch could not be read.
 */
int tree_release_prove(const struct tree_release *r, const char *tree, dev_t disk, pid_t exclude,
		       struct iso_err *e);

#endif
