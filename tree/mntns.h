/* SPDX-License-Identifier: MIT */
/*
 * Which mount namespaces could reach a directory without going through the
 * shield over it: the host's mount namespaces are walked with nsfs's
 * NS_MNT_GET_NEXT (Linux 6.11; every one for root) and each one's mounts are
 * read with listmount()/statmount() (6.8): O(namespaces x mounts), never a
 * process.
 */
#ifndef ISO_MNTNS_H
#define ISO_MNTNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

/*
 * The mount namespaces that show the directory bare, by nsfs inode (what
 * /proc/PID/ns/mnt shows): a holder of the bare tree runs in one of them, or
 * got a descriptor from one (the release proof's part, tree/release.h).
 * `all`: more than fit, or our own namespace: every process is a candidate.
 */
#define TREE_MNTNS_SEEN_MAX 64
struct tree_mntns_seen {
	ino_t ns[TREE_MNTNS_SEEN_MAX];
	size_t n;
	bool all;
};

struct tree_mntns_query {
	dev_t disk;	 /* the directory's filesystem */
	const char *rel; /* its path from that filesystem's root ("/tmp/isorun-0/ID") */
	dev_t shield;	 /* the overlay over it */
	struct tree_mntns_seen *seen; /* filled in when not NULL: every one, not the first */
};

/* One mount of a namespace, as statmount() tells it. */
struct tree_mntns_row {
	uint64_t id, parent;
	dev_t dev;
	char *root;  /* what of its file system it shows */
	char *point; /* where, from the namespace's root */
};

/*
 * Whether one namespace's mounts show the directory bare: 1 when a mount of a
 * part of it is somewhere, or a mount that contains it shows it at a path where
 * the mount on top is not a copy of the shield (`where` says which path); 0
 * when every path leads into the shield.  A mount put over the directory's
 * parent (a tmpfs over /tmp) hides it by path only: it counts as bare.
 */
int tree_mntns_judge(const struct tree_mntns_query *q, const struct tree_mntns_row *rows, size_t n,
		     char *where, size_t len);

/*
 * 0 when every mount namespace but ours either shows no part of the directory
 * from `disk` or also has a mount of the shield; 1 when one shows it bare
 * (e->msg names it); -errno when the namespaces cannot be walked here.
 */
int tree_mntns_exposed(const struct tree_mntns_query *q, struct iso_err *e);

/*
 * The path of `fd`'s directory from its filesystem's root, through the mount it
 * is on in our namespace: `path` is the canonical path of fd.  -errno otherwise.
 */
int tree_mntns_fs_path(int fd, const char *path, char *out, size_t len);

/* The propagation flags (MS_SHARED, ...) of the mount `fd` is on, or -errno. */
int tree_mntns_propagation(int fd, uint64_t *prop);

/*
 * Whether the mount `fd` is on shows a whole file system (its root "/") and is
 * mounted on the mount `parent_fd` is on: 1, 0, or -errno.
 */
int tree_mntns_mounted_on(int fd, int parent_fd);

/* Root of the host's user namespace: only there are all mount namespaces seen. */
bool tree_mntns_initial_userns(void);
/* The source of the file system fd lies on ("isorun" for a shield): 0, or -errno. */
int tree_mntns_source(int fd, char *out, size_t len);

/*
 * Root's trees' directory (`name` in `root_fd`) made a shared mount, so that a
 * shield raised in it propagates into the mount namespaces copied from the
 * host since: isorun's own make theirs a slave of the host's (ns/mounts.c),
 * and then show the shield, not the bare tree, and cost the proof none of
 * their processes.  Nothing is done where its mount is shared already (a host
 * whose `/` is, as systemd's is); otherwise the directory is bound on itself.
 * Best effort, never waited on: 0 when its mount is shared now, or -errno.
 */
int tree_mntns_share(int root_fd, const char *name);

/*
 * The bind tree_mntns_share() made on `dir` taken off again, unless its parent is a
 * system's temporary directory (sticky and writable by all: /tmp), where it
 * stays for the boot so that namespaces made between runs receive the shields.
 * Anywhere else the directory may be removed after the run, and a mount on it
 * would refuse that.  Refused while in use (EBUSY): the last user takes it off.
 */
int tree_mntns_unshare(const char *dir);

#endif
