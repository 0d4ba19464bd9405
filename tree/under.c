// SPDX-License-Identifier: MIT
#include "tree/under.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/err.h"
#include "common/nowait.h"
#include "tree/mntns.h"

void tree_under_close(struct tree_under *u)
{
	if (u->upper >= 0)
		close(u->upper);
	if (u->work >= 0)
		close(u->work);
	if (u->lower >= 0)
		close(u->lower);
	if (u->clone >= 0)
		close(u->clone);
	u->upper = u->work = u->lower = u->clone = -1;
}

static bool same_inode(int a, const struct stat *b)
{
	struct stat st;

	return fstat(a, &st) == 0 && st.st_ino == b->st_ino;
}

#define OVERLAYFS_MAGIC 0x794c7630

/*
 * The parent directory of the overlay mounted at `point`, opened (O_PATH) with
 * the mount it is on checked to be the overlay's parent mount; *is_ovl: that
 * mount is an overlay too (a run inside a run inside another's shield).
 */
static int below_point(char *point, uint64_t parent, bool *is_ovl)
{
	char *slash = strrchr(point, '/');
	uint64_t up_id, up_parent;
	char up_point[PATH_MAX];
	struct statfs sf;
	int up;

	if (!slash)
		return -EXDEV;
	*slash = '\0';
	up = open(point[0] ? point : "/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	*slash = '/';
	if (up < 0)
		return -errno;
	if (tree_mntns_mount_of(up, &up_id, &up_parent, up_point, sizeof(up_point)) < 0 ||
	    up_id != parent || fstatfs(up, &sf) < 0) {
		close(up);
		return -EXDEV;
	}
	*is_ovl = sf.f_type == OVERLAYFS_MAGIC;
	return up;
}

/*
 * The lowest of the overlays on the tree's way (each one's upper layer is the
 * directory below its mount point): its mount point, and a detached clone of
 * the mount below it, rooted at the point's parent directory, whose path from
 * its disk's root is fs_parent.
 */
static int clone_below(int tree_fd, char *point, size_t len, uint64_t *low, int *clone,
		       char *fs_parent, struct iso_err *e)
{
	_cleanup_close_ int up = -1;
	uint64_t id, parent;
	bool is_ovl = true;
	int fd = tree_fd, r = 0;

	for (int depth = 0; is_ovl && depth < 8; depth++) {
		r = tree_mntns_mount_of(fd, &id, &parent, point, len);
		if (r <= 0 || !strcmp(point, "/")) {
			return iso_err_set(
				e, r < 0 ? -r : 0,
				"the overlay it lies on is not a whole one on a directory");
		}
		*low = id;
		if (up >= 0)
			close(up);
		fd = up = below_point(point, parent, &is_ovl);
		if (up < 0) {
			return iso_err_set(
				e, -up, "the mount below the overlay it lies on cannot be found");
		}
	}
	if (!is_ovl) {
		char *slash = strrchr(point, '/');

		*slash = '\0';
		r = tree_mntns_fs_path(up, point[0] ? point : "/", fs_parent, PATH_MAX);
		*slash = '/';
	}
	r = is_ovl ? -ELOOP : r;
	if (r < 0)
		return iso_err_set(e, -r, "the disk below the overlays it lies on cannot be named");
	*clone = open_tree(up, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (*clone < 0)
		return iso_err_set(e, errno, "clone the mount below the overlay it lies on");
	return 0;
}

/* The root of the lowest overlay, at `point`, still the mount `low`. */
static bool lowest_root(const char *point, uint64_t low, struct stat *st)
{
	_cleanup_close_ int fd = open(point, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	uint64_t id, parent;
	char at[PATH_MAX];

	return fd >= 0 && tree_mntns_mount_of(fd, &id, &parent, at, sizeof(at)) == 1 && id == low &&
	       fstat(fd, st) == 0;
}

/*
 * `name` in the user directory (user_fd), opened on the disk: `dir` is the user
 * directory's path from `top` ("" when it is top).  The fd, or -1.
 */
static int open_beside(int top, const char *dir, int user_fd, const char *name)
{
	char rel[PATH_MAX + NAME_MAX + 2];
	struct stat want;
	int fd;

	if (fstatat(user_fd, name, &want, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	snprintf(rel, sizeof(rel), "%s%s%s", dir, dir[0] ? "/" : "", name);
	fd = iso_open_dir_here(top, rel);
	if (fd >= 0 && !same_inode(fd, &want)) {
		close(fd);
		return -1;
	}
	return fd;
}

int tree_under_open(struct tree_under *u, int tree_fd, const char *path, int user_fd,
		    const char *work, const char *lower, struct iso_err *e)
{
	char point[PATH_MAX], dir[PATH_MAX], fs_parent[PATH_MAX];
	_cleanup_close_ int top = -1;
	struct stat tree, low_root;
	const char *name, *rel, *slash = strrchr(path, '/');
	uint64_t low = 0;
	size_t plen;
	int r;

	*u = (struct tree_under){ .upper = -1, .work = -1, .lower = -1, .clone = -1 };
	r = clone_below(tree_fd, point, sizeof(point), &low, &u->clone, fs_parent, e);
	if (r < 0)
		return r;
	name = strrchr(point, '/') + 1;
	plen = strlen(point);
	if (strncmp(path, point, plen) || path[plen] != '/' || fstat(tree_fd, &tree) < 0 ||
	    !lowest_root(point, low, &low_root)) {
		tree_under_close(u);
		return iso_err_set(e, 0,
				   "the tree's path does not lead through the overlay it lies on");
	}
	rel = path + plen + 1;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash > rel ? slash - rel : 0), rel);
	top = iso_open_dir_here(u->clone, name);
	if (top >= 0 && same_inode(top, &low_root)) {
		u->upper = iso_open_dir_here(top, rel);
		u->work = open_beside(top, dir, user_fd, work);
		u->lower = open_beside(top, dir, user_fd, lower);
	}
	if (u->upper < 0 || u->work < 0 || u->lower < 0 || !same_inode(u->upper, &tree)) {
		tree_under_close(u);
		return iso_err_set(e, 0,
				   "the disk below the overlay it lies on shows another tree");
	}
	u->dev = fstat(u->upper, &tree) == 0 ? tree.st_dev : 0;
	if (snprintf(u->rel, sizeof(u->rel), "%s/%s/%s", strcmp(fs_parent, "/") ? fs_parent : "",
		     name, rel) >= (int)sizeof(u->rel) ||
	    !u->dev) {
		tree_under_close(u);
		return iso_err_set(e, ENAMETOOLONG, "name the tree on the disk below the overlay");
	}
	return 0;
}
