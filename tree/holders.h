/* SPDX-License-Identifier: MIT */
/*
 * Who still uses the tree: every process isorun can inspect whose cwd, root or an
 * open fd lies inside the tree, or that holds one of the relayed pipes.
 */
#ifndef ISO_HOLDERS_H
#define ISO_HOLDERS_H

#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

struct tree_holder {
	pid_t pid;
	char what[24];	/* "cwd", "root", "exe", "fd 5", "mapping", "mount", "not measurable",
			   "outside userns" */
	char *target;	/* the link's text; a pipe shows as "pipe:[ino]" */
	int pipe_index; /* which pipe of the query, or -1 */
};

/* pipe_index of a process whose fds could not be read: `target` is its comm */
#define TREE_HOLDER_UNREADABLE (-3)
/*
 * pipe_index of a process of the caller's uid that refused to be read because
 * it runs outside isorun's user namespace (not because it is not dumpable):
 * `target` is its comm.  Whether it can hold the tree is the caller's call.
 */
#define TREE_HOLDER_OUTSIDE (-4)
/*
 * pipe_index of a mount that might show part of the tree but whose path, in
 * the process's mount namespace, did not answer within the reader's deadline
 * (a lookup on a file system that stopped answering): `target` is the mount
 * point.  Not measurable, as an unreadable process is.
 */
#define TREE_HOLDER_STALLED (-5)

struct tree_treeid;

struct tree_holder_query {
	const char *tree; /* absolute, canonical; NULL: do not look for it */
	/*
	 * Where the tree's identities are read from, when not `tree`: a path to
	 * isorun's own descriptor of it ("/proc/self/fd/N/."), which a mount the
	 * command put over the tree's path cannot re-point.  `tree` still names it.
	 */
	const char *walk;
	/*
	 * Only the processes of these mount namespaces (by nsfs inode, as
	 * /proc/PID/ns/mnt shows them) are read for the tree: those that show it
	 * bare, when the shield's end proved every other one.  0: every process.
	 * Not with pipes, whose holders may run anywhere.
	 */
	const ino_t *only_mntns;
	size_t n_only_mntns;
	size_t *n_read; /* when not NULL: how many processes were read */
	/*
	 * When not NULL: the processes seen holding only the tree's top O_PATH,
	 * which is how isorun ls and gc look at a tree (not holders, but what a
	 * refused unmount may have met), up to max_lookers.
	 */
	pid_t *lookers;
	size_t *n_lookers, max_lookers;
	const ino_t *pipes;
	size_t n_pipes;
	pid_t exclude;		       /* isorun itself: it holds the lock and the read ends */
	dev_t alias_dev;	       /* the tree's shield: its files show this device too */
	const struct tree_treeid *ids; /* filled in by tree_find_holders from `tree` */
	/*
	 * The tree was removed, and this device (its file system's) still holds
	 * part of it (tree/release.h): what is left is matched by the link's text,
	 * "TREE/... (deleted)", on that device.  0: the tree is there.
	 */
	dev_t gone_dev;
	/*
	 * The top's inode on gone_dev, when known (a nested tree's tmpfs, whole
	 * on its own device): an O_PATH of it is ls or gc looking.  0: unknown.
	 */
	ino_t gone_ino;
};

/*
 * Holders of the tree are matched by identity (device and inode of everything in
 * it): an fd, cwd, root, exe, a file mapping, or a mount whose root is in it.
 * A process of the caller's own uid (not root) whose fds cannot be read is
 * returned as a holder with pipe_index TREE_HOLDER_UNREADABLE: not measurable;
 * or TREE_HOLDER_OUTSIDE when it runs outside isorun's user namespace; a mount
 * whose path could not be looked at in time is TREE_HOLDER_STALLED.
 * -E2BIG: the tree has more than TREE_TREEID_MAX entries.
 * Returns the number of holders found (*ret malloc'ed, free with tree_holders_free)
 * or -errno; *ret_unreadable counts processes whose fds could not be read.
 */
int tree_find_holders(const struct tree_holder_query *q, struct tree_holder **ret,
		      size_t *ret_unreadable);
/* The holder to name: the first that is not merely unreadable or outside. */
const struct tree_holder *tree_holder_first(const struct tree_holder *h, size_t n);
/*
 * Moves the TREE_HOLDER_OUTSIDE entries of h to its end, in order; returns how
 * many entries precede them.
 */
size_t tree_holders_split_outside(struct tree_holder *h, size_t n);
/* "pid N (comm), ..." of h[0..n), for a line saying what was not measured. */
void tree_holders_list(const struct tree_holder *h, size_t n, char *buf, size_t len);
/*
 * A tree holder in teardown's words; `cmd` is its command line, or NULL; `n`
 * counts the entries from h on (an unreadable or outside first one lists them
 * all, each kind in its own words).
 */
void tree_holder_describe(const struct tree_holder *h, size_t n, const char *cmd,
			  struct iso_err *e);
void tree_holders_free(struct tree_holder *h, size_t n);

/* Why tree_find_holders() failed with n (-errno), as the reason a tree is kept. */
void tree_holders_strerror(int n, struct iso_err *e);

#endif
