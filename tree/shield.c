// SPDX-License-Identifier: MIT
#include "tree/shield.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fault.h"
#include "common/nowait.h"
#include "common/text.h"
#include "tree/gate.h"
#include "tree/overlay.h"
#include "tree/mntns.h"
#include "tree/rmtree.h"

#define OVERLAYFS_MAGIC 0x794c7630
#define TMPFS_MAGIC	0x01021994

/*
 * How long an unmounted shield's superblock may take to end: a mount copy
 * dropped by a task in its exit is put from a workqueue a jiffy later.  Only a
 * run with a holder elsewhere waits this long.
 */
#define SHIELD_END_MS 200

/* ".<id>.w", ".<id>.l", or a gate's ".<id>.g" (tree/gate.h): each suffix is two characters */
static bool is_work(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' && n > 3 &&
	       (!strcmp(name + n - 2, TREE_SHIELD_WORK_SUFFIX) ||
		!strcmp(name + n - 2, TREE_SHIELD_LOWER_SUFFIX) ||
		!strcmp(name + n - 2, TREE_GATE_SUFFIX));
}

bool tree_shield_is_own(const char *name)
{
	return is_work(name) || !strcmp(name, TREE_SHIELD_LOWER);
}

static int layer_name(const char *id, const char *suffix, char *out, size_t len)
{
	if (snprintf(out, len, ".%s%s", id, suffix) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

static int work_name(const char *id, char *out, size_t len)
{
	return layer_name(id, TREE_SHIELD_WORK_SUFFIX, out, len);
}

static int fail(struct tree_shield *sh, int r, const char *what)
{
	snprintf(sh->why, sizeof(sh->why), "%s: %s", what, strerror(-r));
	return r;
}

/*
 * The shield's two directories beside the tree, made for this run (0700):
 * ".<id>.w", overlayfs's work directory, and ".<id>.l", the empty lower layer
 * (a layer may not lie inside the work directory: siblings, one mkdir more
 * than a work directory alone, 0.1 ms on ext4 here).  A lower layer shared by
 * the runs (the ".empty" of earlier versions) could be written by path by any
 * root command, and every run after saw what it wrote: one of the run's own
 * shows nothing of another run, and goes with it.  On the tree's filesystem,
 * overlayfs shows the tree's own inode numbers ("xino=on" keeps them where a
 * --root's layers could differ), so a holder found through the shield is
 * matched against the tree on disk; mount_overlay() checks it.
 */
static int open_layer(struct tree_shield *sh, int user_fd, const char *id, const char *suffix,
		      int *fd)
{
	char name[NAME_MAX + 1];

	if (layer_name(id, suffix, name, sizeof(name)) < 0)
		return fail(sh, -ENAMETOOLONG, "name a layer of the shield");
	if (mkdirat(user_fd, name, 0700) < 0)
		return fail(sh, -errno, "make a layer of the shield");
	sh->work = true;
	*fd = openat(user_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return *fd < 0 ? fail(sh, -errno, "open a layer of the shield") : 0;
}

/*
 * "volatile": no syncfs at the unmount (40 ms on ext4 here); the tree is
 * scratch, and its data is written back as any other.
 */
static int mount_overlay(struct tree_shield *sh, int lower, int work, int tree_fd, const char *path)
{
	char opts[200];
	struct stat st;

	snprintf(opts, sizeof(opts),
		 "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,workdir=/proc/self/fd/%d,"
		 "volatile,xino=on",
		 lower, tree_fd, work);
	if (mount("isorun", path, "overlay", 0, opts) < 0)
		return fail(sh, -errno, "mount an overlay of the tree on itself");
	if (stat(path, &st) < 0 || st.st_dev == sh->disk || st.st_ino != sh->ino) {
		int r = -errno;
		(void)umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
		return fail(sh, r ? r : -EXDEV,
			    "show the tree's own inode numbers through its shield");
	}
	sh->dev = st.st_dev;
	return 0;
}

static int lock_through(struct tree_shield *sh, const char *path, const char *owner)
{
	char at[PATH_MAX + NAME_MAX + 2];
	int fd;

	snprintf(at, sizeof(at), "%s/%s", path, owner);
	fd = open(at, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = -errno;
		if (fd >= 0)
			close(fd);
		return fail(sh, r, "lock the owner record through the shield");
	}
	sh->lock_fd = fd;
	return 0;
}

/* Before the command starts, nothing else is at the path: the watch is on our root. */
static int watch_root(struct tree_shield *sh, const char *path)
{
	struct stat st;

	sh->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (sh->watch < 0 ||
	    inotify_add_watch(sh->watch, path, IN_UNMOUNT | IN_ONLYDIR | IN_DONT_FOLLOW) < 0 ||
	    stat(path, &st) < 0)
		return fail(sh, -errno, "watch the shield");
	if (st.st_dev != sh->dev)
		return fail(sh, -EXDEV, "watch the shield: another mount at its path");
	return 0;
}

/* The nested tree's tmpfs, made by tree_nest_mount(): it is the tree, and its shield. */
static void raise_nested(struct tree_shield *sh, const struct stat *st, const struct stat *parent,
			 int *nest_watch)
{
	/* no lock through it: the tree's own lock is already on this inode */
	sh->tmpfs = sh->up = sh->work = true;
	sh->dev = st->st_dev;
	sh->disk = parent->st_dev;
	sh->ino = st->st_ino;
	sh->watch = *nest_watch;
	*nest_watch = -1;
}

int tree_shield_raise(struct tree_shield *sh, const struct tree_shield_at *place, int tree_fd,
		      const char *path, const char *owner, int *nest_watch)
{
	int user_fd = place->user_fd;
	const char *id = place->id;
	_cleanup_close_ int lower = -1, workdir = -1;
	struct stat st, parent;
	struct statfs sf;
	int r;

	*sh = (struct tree_shield){ .lock_fd = -1, .watch = -1 };
	/* first: at a full descriptor table, what asks the kernel nothing more still works */
	if (*nest_watch >= 0) {
		if (fstat(tree_fd, &st) < 0 || fstat(user_fd, &parent) < 0)
			return fail(sh, -errno, "stat the tree");
		raise_nested(sh, &st, &parent, nest_watch);
		return 0;
	}
	if (geteuid() != 0)
		return fail(sh, -EPERM, "not root: no mount in the caller's mount namespace");
	if (!tree_mntns_initial_userns())
		return fail(sh, -EPERM,
			    "not in the host's user namespace: its mount namespaces "
			    "cannot all be seen");
	if (fstat(tree_fd, &st) < 0 || fstatfs(tree_fd, &sf) < 0 || fstat(user_fd, &parent) < 0)
		return fail(sh, -errno, "stat the tree");
	/* a run inside another root's run: an overlay's upper layer cannot be an overlay */
	if (sf.f_type == OVERLAYFS_MAGIC)
		return fail(sh, -EXDEV,
			    "the tree is on an overlay (a container's root, or a run inside "
			    "another's shield), which cannot be an upper layer");
	sh->disk = st.st_dev;
	sh->ino = st.st_ino;
	r = open_layer(sh, user_fd, id, TREE_SHIELD_WORK_SUFFIX, &workdir);
	if (r == 0)
		r = open_layer(sh, user_fd, id, TREE_SHIELD_LOWER_SUFFIX, &lower);
	if (r == 0)
		r = mount_overlay(sh, lower, workdir, tree_fd, path);
	if (r < 0) {
		struct iso_err e = { 0 };
		if (tree_shield_remove_work(user_fd, id, "", &e) == 0)
			sh->work = false;
		return r;
	}
	sh->up = true;
	r = watch_root(sh, path);
	if (r == 0)
		r = lock_through(sh, path, owner);
	if (r < 0) {
		/* a shield ls and gc would find unlocked is worse than none */
		tree_shield_off(path);
		tree_shield_forget(sh);
		sh->up = false;
	}
	return r;
}

void tree_shield_forget(struct tree_shield *sh)
{
	if (sh->watch >= 0)
		close(sh->watch);
	sh->watch = -1;
}

void tree_shield_unlock(struct tree_shield *sh)
{
	if (sh->lock_fd >= 0)
		close(sh->lock_fd);
	sh->lock_fd = -1;
}

/*
 * The directory at `path` is an overlay mounted on the tree, or a nested
 * tree's own tmpfs (statfs, and a device of its own).  O_PATH: ls and gc look at a live run's tree
 * this way only, which its teardown's scan tells from a holder (an open directory would be named as
 * one).
 */
static bool is_shield(int user_fd, const char *id, struct stat *st)
{
	struct statfs sf;
	struct stat parent;
	_cleanup_close_ int fd = openat(user_fd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	return fd >= 0 && fstatfs(fd, &sf) == 0 &&
	       (sf.f_type == OVERLAYFS_MAGIC || sf.f_type == TMPFS_MAGIC) && fstat(fd, st) == 0 &&
	       fstat(user_fd, &parent) == 0 && st->st_dev != parent.st_dev;
}

bool tree_shield_nested(int user_fd, const char *id)
{
	_cleanup_close_ int fd = openat(user_fd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct statfs sf;

	return fd >= 0 && fstatfs(fd, &sf) == 0 && sf.f_type == TMPFS_MAGIC &&
	       tree_shield_present(user_fd, id);
}

bool tree_shield_present(int user_fd, const char *id)
{
	char name[NAME_MAX + 1];
	struct stat st;

	return work_name(id, name, sizeof(name)) == 0 &&
	       iso_stat_cached(user_fd, name, AT_SYMLINK_NOFOLLOW, &st) == 0 &&
	       S_ISDIR(st.st_mode) && is_shield(user_fd, id, &st);
}

void tree_shield_off(const char *path)
{
	(void)umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
}

void tree_shield_detach(int user_fd, const char *id, const char *path)
{
	if (tree_shield_present(user_fd, id))
		(void)umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
}

/* Is any mount namespace showing the on-disk tree bare?  1 (e says where), 0, or -errno. */
static int exposed(const struct tree_shield_at *at, dev_t disk, dev_t dev,
		   struct tree_mntns_seen *seen, struct iso_err *e)
{
	char rel[PATH_MAX], tree_rel[PATH_MAX + NAME_MAX + 2];
	struct tree_mntns_query q = { .disk = disk, .rel = tree_rel, .shield = dev, .seen = seen };
	int r = tree_mntns_fs_path(at->user_fd, at->user_path, rel, sizeof(rel));

	if (r < 0)
		return r;
	snprintf(tree_rel, sizeof(tree_rel), "%s/%s", strcmp(rel, "/") ? rel : "", at->id);
	return tree_mntns_exposed(&q, e);
}

/* What the proof hears through: the disk's device and the shield's, and its watch. */
struct heard {
	dev_t disk, dev;
	int watch;
	bool tmpfs; /* a nested tree's tmpfs: no disk below it */
};

/*
 * The proof's steps once the shield is known and watched on `h->watch` (its root,
 * by handle): the walk of the mount namespaces, then the unmount, by the user
 * directory's descriptor, never the path, which a mount over the trees'
 * directory re-points: whatever is on top at the tree's own place comes off;
 * it proves something only if it was the shield (the watch hears its end).
 */
static enum tree_shield_proof unmount_and_hear(const struct tree_shield_at *place,
					       const struct heard *h, struct tree_mntns_seen *seen,
					       struct iso_err *e)
{
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);
	char at[64 + NAME_MAX];
	/*
	 * before the unmount: a namespace's copy of the shield is what covers it.
	 * A nested tree's tmpfs has no disk below it: what a namespace shows
	 * without it is an empty directory of the outer run's.
	 */
	int ex = h->tmpfs ? 0 : exposed(place, h->disk, h->dev, seen, e);

	if (ex < 0)
		snprintf(why, len, "the mount namespaces cannot be read: %s", strerror(-ex));
	snprintf(at, sizeof(at), "/proc/self/fd/%d/%s", place->user_fd, place->id);
	if (umount2(at, UMOUNT_NOFOLLOW) < 0) {
		if (errno == EBUSY)
			return TREE_SHIELD_HELD;
		snprintf(why, len, "unmount the tree's shield: %s", strerror(errno));
		(void)umount2(at, MNT_DETACH | UMOUNT_NOFOLLOW);
		return TREE_SHIELD_NONE;
	}
	if (!tree_overlay_ended(h->watch, SHIELD_END_MS))
		return TREE_SHIELD_ELSEWHERE;
	return ex == 0 ? TREE_SHIELD_UNUSED : ex > 0 ? TREE_SHIELD_EXPOSED : TREE_SHIELD_NONE;
}

/*
 * A nested tree's tmpfs as the command left it (a root command shares the
 * mount namespace): what it mounted over the tree's place comes off first, its
 * own, 8 at most; then ours is unmounted and heard.  A mount of our own
 * superblock on top may be the command's bind of the tree over itself: each
 * one comes off unlazily (held, it says so) until the superblock ends or the
 * place is bare.  Taken off already, its end alone proves it.  Only the
 * watch's word counts: whatever came off, the tree ended only where its
 * superblock did.
 */
static enum tree_shield_proof prove_nested(const struct tree_shield_at *place,
					   const struct tree_shield *sh,
					   struct tree_mntns_seen *seen, struct iso_err *e)
{
	enum tree_shield_proof p = TREE_SHIELD_NONE;
	char at[64 + NAME_MAX];
	struct stat st, parent;

	if (fstat(place->user_fd, &parent) < 0)
		return iso_err_set(e, errno, "stat the trees' directory"), TREE_SHIELD_NONE;
	snprintf(at, sizeof(at), "/proc/self/fd/%d/%s", place->user_fd, place->id);
	for (int i = 0; i < 8; i++) {
		if (fstatat(place->user_fd, place->id, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st.st_dev == parent.st_dev)
			break;
		if (st.st_dev != sh->dev) {
			(void)umount2(at, MNT_DETACH | UMOUNT_NOFOLLOW);
			continue;
		}
		p = unmount_and_hear(place,
				     &(struct heard){ .disk = parent.st_dev,
						      .dev = sh->dev,
						      .watch = sh->watch,
						      .tmpfs = true },
				     seen, e);
		if (p != TREE_SHIELD_ELSEWHERE)
			return p;
	}
	if (p == TREE_SHIELD_ELSEWHERE)
		return p;
	if (tree_overlay_ended(sh->watch, SHIELD_END_MS))
		return TREE_SHIELD_UNUSED;
	snprintf(iso_err_text(e), sizeof(e->msg),
		 "the tree's tmpfs was taken off its path, and lives on");
	return TREE_SHIELD_ELSEWHERE;
}

bool tree_shield_ended(const struct tree_shield *sh, int ms)
{
	return sh->watch >= 0 && tree_overlay_ended(sh->watch, ms);
}

enum tree_shield_proof tree_shield_prove(const struct tree_shield_at *place,
					 const struct tree_shield *sh, dev_t *ovl_dev,
					 struct tree_mntns_seen *seen, struct iso_err *e)
{
	int user_fd = place->user_fd;
	const char *id = place->id;
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);
	struct stat st, parent;

	*ovl_dev = 0;
	if (sh->tmpfs) {
		*ovl_dev = sh->dev;
		return prove_nested(place, sh, seen, e);
	}
	if (!tree_shield_present(user_fd, id) || !is_shield(user_fd, id, &st) ||
	    fstat(user_fd, &parent) < 0) {
		snprintf(why, len, "the tree's shield is gone");
		return TREE_SHIELD_NONE;
	}
	/* an overlay the command mounted in its place proves nothing (and is not ours) */
	if (st.st_dev != sh->dev || sh->watch < 0) {
		snprintf(why, len, "the tree's shield was replaced by another mount");
		return TREE_SHIELD_NONE;
	}
	*ovl_dev = st.st_dev;
	/* our own superblock's end, heard on the watch added at its mount */
	return unmount_and_hear(
		place,
		&(struct heard){ .disk = parent.st_dev, .dev = st.st_dev, .watch = sh->watch },
		seen, e);
}

/* The inode number of `name`'s directory entry in dir_fd: the disk's, under any mount on it. */
static int entry_ino(int dir_fd, const char *name, ino_t *ino)
{
	_cleanup_close_ int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d)
		return -errno;
	fd = -1;
	while ((de = readdir(d)))
		if (!strcmp(de->d_name, name)) {
			*ino = de->d_ino;
			closedir(d);
			return 0;
		}
	closedir(d);
	return -ENOENT;
}

/*
 * The shield at `id`, opened (O_PATH), if it is one: an overlay, the whole of
 * it, mounted right on the user directory's mount, whose root shows the
 * tree's own inode number (the directory entry's, on disk).  A mount put over
 * the shield, or in its place, is none of these but by a root process's
 * design (known gap: an overlay of the bare tree mounted in the shield's
 * place, after it was moved away; the release proof after the removal).
 * The descriptor, or -errno with why.
 */
static int open_left(int user_fd, const char *id, struct stat *st, bool *tmpfs, char *why,
		     size_t len)
{
	int fd = openat(user_fd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct statfs sf;
	struct stat parent;
	ino_t disk = 0;
	int r = fd < 0 ? -errno : 0;

	if (r == 0 && (fstatfs(fd, &sf) < 0 || fstat(fd, st) < 0 || fstat(user_fd, &parent) < 0))
		r = -errno;
	if (r == 0 && ((sf.f_type != OVERLAYFS_MAGIC && sf.f_type != TMPFS_MAGIC) ||
		       st->st_dev == parent.st_dev))
		r = -ENOENT;
	/* a nested tree's tmpfs is the tree: no inode on disk for it to show */
	*tmpfs = r == 0 && sf.f_type == TMPFS_MAGIC;
	if (r == 0 && !*tmpfs)
		r = entry_ino(user_fd, id, &disk);
	if (r == 0 && !*tmpfs && disk != st->st_ino)
		r = -EXDEV;
	if (r == 0)
		r = tree_mntns_mounted_on(fd, user_fd);
	if (r > 0)
		return fd;
	if (fd >= 0)
		close(fd);
	snprintf(why, len, "%s",
		 r == -ENOENT ? "no shield on the tree"
		 : r >= 0 || r == -EXDEV
			 ? "what is mounted at the tree's path is not its shield (another mount "
			   "over it, or in its place)"
			 : strerror(-r));
	return r == 0 ? -EXDEV : r;
}

enum tree_shield_proof tree_shield_prove_left(const struct tree_shield_at *place, dev_t *dev,
					      bool *foreign, struct tree_mntns_seen *seen,
					      struct iso_err *e)
{
	int user_fd = place->user_fd;
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);
	_cleanup_close_ int in = -1;
	struct stat st, parent;
	bool tmpfs = false;
	char at[64];
	int fd;

	*dev = 0;
	*foreign = false;
	if (geteuid() != 0 || !tree_mntns_initial_userns()) {
		snprintf(why, len, "not root of the host: its mount namespaces cannot all be seen");
		return TREE_SHIELD_NONE;
	}
	fd = open_left(user_fd, place->id, &st, &tmpfs, why, len);
	*foreign = fd == -EXDEV;
	if (fd < 0)
		return TREE_SHIELD_NONE;
	/* the watch on the verified root, by its descriptor, which then goes: it holds the mount */
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in < 0 || inotify_add_watch(in, at, IN_UNMOUNT | IN_ONLYDIR) < 0 ||
	    fstat(user_fd, &parent) < 0) {
		snprintf(why, len, "watch the tree's shield: %s", strerror(errno));
		close(fd);
		return TREE_SHIELD_NONE;
	}
	close(fd);
	*dev = st.st_dev;
	return unmount_and_hear(
		place,
		&(struct heard){
			.disk = parent.st_dev, .dev = st.st_dev, .watch = in, .tmpfs = tmpfs },
		seen, e);
}

/* The mount id of the shield: mounted at `path`, of device `dev`; -1 when none. */
static long shield_mount_id(FILE *f, const char *path, dev_t dev)
{
	char line[2 * PATH_MAX], mp[PATH_MAX];
	unsigned int maj, min;
	long id, parent;

	rewind(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%ld %ld %u:%u %*s %4095s", &id, &parent, &maj, &min, mp) == 5 &&
		    makedev(maj, min) == dev && !strcmp(iso_unescape_octal(mp), path))
			return id;
	return -1;
}

/* A nested run's tree (tree/nest.h): a tmpfs whose source is "isorun". */
static bool nested_tree(const char *line)
{
	const char *sep = strstr(line, " - ");

	return sep && !strncmp(sep, " - tmpfs isorun ", strlen(" - tmpfs isorun "));
}

/* The mounts on mount `top`, each once; a nested run's tree's own below it, 4 deep at most. */
static int drop_below(long top, int depth)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[2 * PATH_MAX], mp[PATH_MAX];
	long id, parent;
	int n = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%ld %ld %*u:%*u %*s %4095s", &id, &parent, mp) != 3 ||
		    parent != top || id == top)
			continue;
		iso_unescape_octal(mp);
		/*
		 * A nested run's tree holds files its command made in this one: its
		 * own mounts go, then it comes off unlazily.  Held, it stays, and
		 * keeps this shield's unmount refused: the tree is held.
		 */
		if (nested_tree(line) && depth < 4) {
			(void)drop_below(id, depth + 1);
			if (umount2(mp, UMOUNT_NOFOLLOW) == 0)
				n++;
			continue;
		}
		/* its own mounts go with it */
		if (umount2(mp, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
			n++;
	}
	return n;
}

int tree_shield_drop_children(const char *path, dev_t dev)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	long shield;

	if (!f)
		return -errno;
	shield = shield_mount_id(f, path, dev);
	return shield < 0 ? 0 : drop_below(shield, 0);
}

static int remove_layer(int user_fd, const char *id, const char *suffix, const char *user_path,
			struct iso_err *e)
{
	char name[NAME_MAX + 1], display[PATH_MAX + NAME_MAX + 2];
	struct stat st;
	int r = layer_name(id, suffix, name, sizeof(name));

	if (r < 0 || iso_stat_cached(user_fd, name, AT_SYMLINK_NOFOLLOW, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode) && tree_overlay_remove_workdir(user_fd, name))
		return 0;
	snprintf(display, sizeof(display), "%s/%s", user_path, name);
	r = tree_rmtree(user_fd, name, display, NULL, e);
	return r == -ENOENT ? 0 : r;
}

int tree_shield_remove_work(int user_fd, const char *id, const char *user_path, struct iso_err *e)
{
	char gate[NAME_MAX + 1];
	int r = remove_layer(user_fd, id, TREE_SHIELD_WORK_SUFFIX, user_path, e);

	if (r == 0)
		r = remove_layer(user_fd, id, TREE_SHIELD_LOWER_SUFFIX, user_path, e);
	/* a gate an overlay still used when its tree came out of it */
	if (r == 0 && layer_name(id, TREE_GATE_SUFFIX, gate, sizeof(gate)) == 0)
		r = tree_gate_remove_left(user_fd, gate, user_path, e);
	return r;
}

int tree_shield_take_off(int user_fd, const char *user_path, const char *id, const char *path,
			 dev_t *dev, struct iso_err *e)
{
	struct stat st;

	*dev = 0;
	if (!tree_shield_present(user_fd, id))
		return 0;
	/* the command may have covered it with a file system of its own: not asked */
	if (iso_stat_cached(AT_FDCWD, path, 0, &st) < 0)
		return iso_err_set(e, errno, "stat '%s'", path);
	if (umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW) < 0)
		return iso_err_set(e, errno, "unmount the shield of '%s'", path);
	*dev = st.st_dev;
	return tree_shield_remove_work(user_fd, id, user_path, e) < 0 ? -EIO : 1;
}

/* ".<id>.w" or ".<id>.l" -> "<id>" */
static bool tree_of(const char *name, char *id, size_t len)
{
	size_t n = strlen(name) - strlen(TREE_SHIELD_WORK_SUFFIX) - 1;

	if (!is_work(name) || n == 0 || n >= len)
		return false;
	memcpy(id, name + 1, n);
	id[n] = '\0';
	return true;
}

/*
 * One work directory or lower layer whose tree is gone: removed, with its
 * sibling; an entry that only looks like one (a symlink, a file: isorun makes
 * directories) is not ours and stays.  1 removed, 2 already gone, 0 left
 * alone, -errno (e says why).
 */
static int sweep_one(int user_fd, const char *user_path, const char *name, struct iso_err *e)
{
	char id[NAME_MAX + 1];
	struct stat st;
	int r;

	if (!tree_of(name, id, sizeof(id)))
		return 0;
	if (iso_stat_cached(user_fd, id, AT_SYMLINK_NOFOLLOW, &st) == 0) {
		size_t n = strlen(name);
		/* a tree on its way out of its gate when its isorun was killed */
		return strcmp(name + n - 2, TREE_GATE_SUFFIX)
			       ? 0
			       : tree_gate_recover(user_fd, id, user_path, e);
	}
	if (errno != ENOENT)
		return 0;
	if (iso_stat_cached(user_fd, name, AT_SYMLINK_NOFOLLOW, &st) < 0)
		return errno == ENOENT ? 2 : 0; /* its sibling's removal took it */
	if (!S_ISDIR(st.st_mode))
		return 0;
	r = tree_shield_remove_work(user_fd, id, user_path, e);
	return r < 0 ? r : 1;
}

/*
 * The lower layer every root run shared before each had its own: whatever a
 * command wrote there showed in the trees of the runs after; it goes whole
 * once no shield is left (a run of an earlier version may still use it).
 */
static void sweep_shared_lower(int user_fd, const char *user_path)
{
	char display[PATH_MAX + NAME_MAX + 2];
	struct iso_err e = { 0 };

	if (unlinkat(user_fd, TREE_SHIELD_LOWER, AT_REMOVEDIR) == 0 || errno != ENOTEMPTY)
		return;
	snprintf(display, sizeof(display), "%s/%s", user_path, TREE_SHIELD_LOWER);
	(void)tree_rmtree(user_fd, TREE_SHIELD_LOWER, display, NULL, &e);
}

int tree_shield_sweep(int user_fd, const char *user_path, struct iso_err *e)
{
	int fd = openat(user_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct iso_err one = { 0 };
	char id[NAME_MAX + 1];
	struct dirent *de;
	int n = 0, r = 0, live = 0;
	DIR *d;

	if (fd < 0)
		return iso_err_set(e, errno, "open '%s'", user_path);
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return iso_err_set(e, errno, "list '%s'", user_path);
	}
	/* one that cannot be removed (a mount on it) stops none of the others */
	while ((de = readdir(d))) {
		int k;

		if (!tree_of(de->d_name, id, sizeof(id)))
			continue;
		live++;
		k = sweep_one(user_fd, user_path, de->d_name, &one);
		n += k == 1;
		live -= k > 0;
		if (k < 0 && r == 0) {
			r = k;
			*e = one;
		}
	}
	closedir(d);
	if (r == 0 && live == 0)
		sweep_shared_lower(user_fd, user_path);
	return r < 0 ? r : n;
}
