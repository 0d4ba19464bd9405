/* SPDX-License-Identifier: MIT */
/*
 * Removal of a per-invocation scratch tree.  The tree was handed to a command
 * we do not trust, so removal must not be steered out of it: it works only
 * relative to directory fds, never follows a symbolic link, never enters
 * another mount, and copes with trees deeper than PATH_MAX and with
 * directories the command made unreadable or unwritable.
 */
#ifndef ISO_RMTREE_H
#define ISO_RMTREE_H

#include <stdbool.h>

#include "common/err.h"

struct tree_rm_stats {
	unsigned long files;
	unsigned long dirs;
};

/*
 * Remove the directory `name` (relative to dirfd; a single path component) and
 * everything below it. `display` is the absolute path of `name`, used only in
 * messages. Returns 0 when everything was removed, otherwise -errno of the FIRST
 * failure, with e->msg = "<verb> '<full path of the failing entry>'" (e.g.
 * "unlink '/tmp/isorun-0/x/home/a'" or "enter '/tmp/.../mnt': is a mount point");
 * it keeps going after a failure, removing everything else it can.
 *
 * Verbs: stat, open, read, unlink, rmdir, chmod, enter.  Paths longer than
 * e->msg allows are shortened in the middle with "...".
 *
 * Failures that are not a system call's error carry the reason in the message
 * and leave e->errnum at 0 (so iso_err_format() adds no strerror):
 *   -EBUSY   "enter '<path>': is a mount point"  (not entered, nothing below
 *            it touched, so it and its parents stay)
 *   -ESTALE  "enter '<path>': moved during removal"  (a directory was renamed
 *            or replaced under us; removal stops at once rather than delete in
 *            the wrong place)
 *
 * The top itself must be a directory on the same mount as dirfd (-ENOTDIR,
 * -EBUSY otherwise; nothing is removed).  Directories that deny the owner
 * read, write or search are chmod'ed to 0700 and the operation retried once.
 * Files and directories that vanish concurrently are not failures.
 * ret_stats (may be NULL) counts what this call removed, also on failure:
 * `dirs` includes the top.
 */
int tree_rmtree(int dirfd, const char *name, const char *display, struct tree_rm_stats *ret_stats,
		struct iso_err *e);

/*
 * Asked between entries (every few dozen) during removal: true stops it at once,
 * leaving the rest in place; the removal then fails with -ECANCELED and the
 * message "remove '<dir>': stopped".
 */
struct tree_rm_stop {
	bool (*fn)(void *arg);
	void *arg;
};

/*
 * Remove the directory `name` (relative to dirfd), already open as top_fd, with
 * the NULL-terminated names `last` removed last: when anything else fails, they
 * are all still there (isorun's own records: a tree that stays can then still
 * be judged and collected).  `stop` may be NULL.  Same conventions as
 * tree_rmtree otherwise.
 */
int tree_rmtree_last(int dirfd, const char *name, int top_fd, const char *const *last,
		     const char *display, const struct tree_rm_stop *stop, struct iso_err *e);

#endif
