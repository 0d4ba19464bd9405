/* SPDX-License-Identifier: MIT */
/*
 * The tree's shield (issue 25): where isorun may mount in the caller's mount
 * namespace (root), the tree is covered by an overlay of itself (upper: the
 * tree, lower: an empty directory) from before the
 * command starts until teardown.  Every way into the tree then goes through that overlay's
 * superblock: a file, cwd, root, exe or mapping, a bind mount of any part,
 * a copy in a mount namespace made since, a descriptor passed anywhere.  When
 * our unmount ends the superblock (inotify's IN_UNMOUNT), nothing on the host
 * holds the tree, whatever the host runs: the kernel counted, no process was read.
 *
 * The on-disk tree stays at its path throughout: unmounting the shield shows
 * the same directory, so a kept or retained tree is where it always was.
 */
#ifndef ISO_SHIELD_H
#define ISO_SHIELD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"
#include "tree/mntns.h"
#include "tree/nest.h"

/*
 * The lower layer every run shared before each had its own (in its work
 * directory): gc removes it, whatever a command wrote there.
 */
#define TREE_SHIELD_LOWER ".empty"
/* A run's work directory in the user directory: ".<id>.w"; its lower layer ".<id>.l" */
#define TREE_SHIELD_WORK_SUFFIX	 TREE_NEST_MARK /* a nested tree's mark too */
#define TREE_SHIELD_LOWER_SUFFIX ".l"

enum tree_shield_proof {
	TREE_SHIELD_UNUSED,    /* the superblock ended with our unmount: no holder anywhere */
	TREE_SHIELD_HELD,      /* the unmount was refused: something holds it through this mount;
				* the shield stays until tree_shield_detach() */
	TREE_SHIELD_ELSEWHERE, /* unmounted, but the superblock lives on: another mount or copy */
	TREE_SHIELD_EXPOSED,   /* a mount namespace shows the on-disk tree without the shield */
	TREE_SHIELD_NONE,      /* no shield to prove with (gone, or never made) */
};

/*
 * Where a tree is, for its proofs: its name `id` in the user directory, open as
 * user_fd, whose canonical path is user_path.
 */
struct tree_shield_at {
	int user_fd;
	const char *user_path;
	const char *id;
};

struct tree_shield {
	bool up;
	bool work;  /* its work directory exists (tree_shield_remove_work() takes it) */
	bool tmpfs; /* a nested tree's own tmpfs (tree/nest.h), not an overlay */
	dev_t dev;  /* the overlay's st_dev: what a holder through it shows */
	dev_t disk; /* the tree directory's own st_dev */
	ino_t ino;  /* and inode, which the shield must show as its root's */
	/*
	 * The owner record opened through the shield, and flocked: a lock is an
	 * inode's, and `ls` and `gc` reach the record through the shield, whose
	 * inode is not the one on disk.  Closed before the unmount.  -1: none.
	 */
	int lock_fd;
	/*
	 * An inotify watch on the shield's root, added the moment it was mounted:
	 * the proof hears the end of this superblock, whatever the command later
	 * puts at the path (a decoy, the same shield moved away and back).  -1: none.
	 */
	int watch;
	char why[200]; /* why there is no shield, or what the proof found */
};

/*
 * Mount the shield on `path` (the tree at `place`, open as tree_fd; the user
 * directory's path is not needed here).  Not being able to is not an error of the run: the holder
 * scan then proves the tree unused the slow way.  A nested tree's tmpfs
 * (*nest_watch, from tree_nest_mount(), taken over) is the shield as it is.
 * 0, or -errno with sh->why.
 */
int tree_shield_raise(struct tree_shield *sh, const struct tree_shield_at *place, int tree_fd,
		      const char *path, const char *owner, int *nest_watch);
/* Let go of the lock taken through the shield (before it comes off). */
void tree_shield_unlock(struct tree_shield *sh);
/* Close the shield's watch (once it is off). */
void tree_shield_forget(struct tree_shield *sh);

/*
 * Unmount the shield and say what the kernel knows.  Afterwards `path` shows
 * the on-disk tree, except after HELD: a holder scan names the holders
 * through the shield first, then tree_shield_detach() takes it off, with
 * whatever the command mounted inside the tree (lazily: what such a mount
 * shows is never reached by the removal).
 * `place` says where the tree is; `sh` the shield as it was
 * raised: its device (another overlay at the path proves nothing) and its
 * watch, which hears its own superblock end, never what is at the path.
 * *ovl_dev gets the overlay's device (0 when there was none), for a holder scan;
 * after EXPOSED, *seen (when not NULL) the namespaces that show the tree bare.
 */
enum tree_shield_proof tree_shield_prove(const struct tree_shield_at *place,
					 const struct tree_shield *sh, dev_t *ovl_dev,
					 struct tree_mntns_seen *seen, struct iso_err *e);

/* Whether a nested tree's tmpfs ended since its proof, or does within ms (its watch hears it). */
bool tree_shield_ended(const struct tree_shield *sh, int ms);

/*
 * gc's proof for the shield a run killed before its teardown left on the tree at `place`:
 * the same steps as tree_shield_prove(), on a shield isorun did not raise here.
 * It is known by handle as far as it can be: opened once, an overlay, the whole
 * of it, mounted right on the user directory's mount, showing the tree's own
 * inode number (its directory entry's on disk); its root is watched through
 * that descriptor, which is closed before the unmount.  A mount put over it or
 * at its path proves nothing (NONE, *foreign set: not the shield; ELSEWHERE:
 * the watch did not hear the end of what came off).  *dev gets the shield's
 * device (0: none).
 */
enum tree_shield_proof tree_shield_prove_left(const struct tree_shield_at *place, dev_t *dev,
					      bool *foreign, struct tree_mntns_seen *seen,
					      struct iso_err *e);

/*
 * Detach what the command mounted inside the shield at `path` (device `dev`),
 * lazily: such a mount keeps the shield's unmount refused without holding the
 * tree, and what it shows is never the removal's.  A nested run's tree
 * (tree/nest.h) is the exception: its files are this tree's command's, and
 * it is unmounted unlazily; held, it stays.  Returns how many, or -errno.
 */
int tree_shield_drop_children(const char *path, dev_t dev);

/* Detach the shield without a proof (a kept tree), if `path` is one. */
void tree_shield_detach(int user_fd, const char *id, const char *path);
/* Detach the shield raised at `path` by this process (no descriptor needed). */
void tree_shield_off(const char *path);

/* Whether the tree `id` still wears a shield (a run killed before its teardown). */
bool tree_shield_present(int user_fd, const char *id);
/* Whether that shield is a nested tree's tmpfs: the tree itself, gone with its unmount. */
bool tree_shield_nested(int user_fd, const char *id);

/* Remove the run's work directory; a missing one is not an error. */
int tree_shield_remove_work(int user_fd, const char *id, const char *user_path, struct iso_err *e);

/* Whether `name` in the user directory is the shield's (its lower layer, a work directory). */
bool tree_shield_is_own(const char *name);

/*
 * gc's half: take off the shield a killed run left on tree `id` (detached; its
 * device in *dev), and its work directory.  1 when there was one, 0, -errno.
 */
int tree_shield_take_off(int user_fd, const char *user_path, const char *id, const char *path,
			 dev_t *dev, struct iso_err *e);

/*
 * Remove the work directories whose tree is gone (a run killed between the two
 * removals), and the old shared lower layer when no shield is left; one that
 * cannot be removed stops none of the others, and a name that only looks like
 * one (not a directory) is left alone.  Returns how many, or the first -errno.
 */
int tree_shield_sweep(int user_fd, const char *user_path, struct iso_err *e);

#endif
