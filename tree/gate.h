/* SPDX-License-Identifier: MIT */
/*
 * The tree's gate (issue 35): an ordinary user's run in a namespace of its own
 * gets the kernel's count that root's shield gives (tree/shield.h) without a
 * mount on the host.  While the run lives the tree lies one level down, in
 * `.t` below its own directory, which is made search-only (0100): a path into
 * the tree from the host (`$ISORUN_NAMESPACE/home/...`, given to a daemon that
 * escaped the run) leads nowhere.  Inside the run's mount namespace an overlay
 * of `.t` (upper: the tree, lower: an empty directory) is mounted on the tree's
 * path, so the command sees its tree where it always was.  A process outside
 * reaches the tree only through that overlay: /proc/PID/root, cwd or fd/N of a
 * process in the run, or a descriptor passed out of it, and each pins the
 * overlay.  When the run's namespace ends and nothing holds the overlay, its
 * superblock ends with it: inotify's IN_UNMOUNT on its root, no process read.
 *
 * A process of the user's that knows the layout can still walk into `.t` (or
 * pass the gate in a user namespace of its own, where it may pass any mode of
 * the user's), as root can: what it holds is the release proof's
 * (tree/release.h), which answers after the removal for every path at once.
 *
 * When the run ends the tree goes back to its path, whole, before anything
 * looks at it (tree_gate_open): a kept or retained tree opens where it was.
 */
#ifndef ISO_TREE_GATE_H
#define ISO_TREE_GATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

/* The tree's own directory while it lies below its gate; the overlay's layers beside it */
#define TREE_GATE_TREE	".t"
#define TREE_GATE_WORK	".w"
#define TREE_GATE_LOWER ".l"
/* The gate once the tree went back to its path, before it is removed: ".<id>.g" */
#define TREE_GATE_SUFFIX ".g"
/* The gate's mode: its owner finds the records by name; nobody lists or enters by path */
#define TREE_GATE_MODE 0100

struct tree_gate {
	bool closed;	/* the tree lies below its gate */
	bool up;	/* the overlay is over it in the run's namespace, watched */
	int fd;		/* the gate: the tree's directory while it lies below it */
	int in;		/* inotify: init watches the overlay's root on it */
	int release_wd; /* the release proof's watch on the tree, taken at the gate */
	dev_t dev;	/* the overlay's device, which a holder through it shows */
	char why[200];	/* why there is no gate, or no overlay over it */
	bool parked;	/* fd waits in flight in `park` while the run lives */
	int park;
};

void tree_gate_init(struct tree_gate *g);

/*
 * Put the tree `id` (open as tree_fd) below a gate of its own, at the same
 * path.  0, or -errno with e set and the tree where it was.
 */
int tree_gate_close(struct tree_gate *g, int user_fd, const char *id, int tree_fd,
		    struct iso_err *e);

/*
 * In the run's mount namespace, before anything of the command runs: the
 * overlay on `path` (the tree's path), its root watched on `in`.  Where an
 * overlay cannot be mounted (an upper layer that is itself an overlay: a
 * nested run), the tree is bound there instead and e says why.  0 with the
 * overlay, 1 with the bind, -errno when neither could be mounted (e says).
 */
int tree_gate_mount(int tree_fd, int in, const char *path, struct iso_err *e);

/* While the run lives, isorun's descriptor of the gate out of its table.  0, -errno. */
int tree_gate_park(struct tree_gate *g, struct iso_err *e);

/* After the command started: whether init's overlay is up (its watch, its device). */
void tree_gate_learn(struct tree_gate *g);

/*
 * After the run's namespace ended: 1 when the overlay's superblock ended within
 * `ms` milliseconds (nothing anywhere holds the tree through it), 0 when it did
 * not, -errno when the watch could not be read.
 */
int tree_gate_ended(const struct tree_gate *g, int ms);

/*
 * The tree back at its path, the gate removed (or left as ".<id>.g" for gc's
 * sweep when it cannot be).  0, or -errno with e set.
 */
int tree_gate_open(struct tree_gate *g, int user_fd, const char *id, const char *user_path,
		   struct iso_err *e);
void tree_gate_free(struct tree_gate *g);

/*
 * The tree `id`'s directory as `ls` and `gc` read it: `.t` below a gate, else
 * the directory itself.  dir_fd is the tree's directory (O_PATH will do).
 * Returns a new O_PATH descriptor, or -errno.
 */
int tree_gate_records(int dir_fd);

/* gc's half: a gate a killed run left on `id`, opened.  1 when there was one, 0, -errno. */
int tree_gate_undo(int user_fd, const char *id, const char *user_path, struct iso_err *e);

/*
 * An isorun killed between the two renames of the way out left the tree at
 * ".<id>.g" and the emptied gate at "<id>": the tree goes back to its path,
 * the gate is removed.  1 when it did, 0 when the names are not that, -errno.
 */
int tree_gate_recover(int user_fd, const char *id, const char *user_path, struct iso_err *e);

/* Remove a gate left as ".<id>.g" (its layers only: it holds no tree). */
int tree_gate_remove_left(int user_fd, const char *name, const char *user_path, struct iso_err *e);

#endif
