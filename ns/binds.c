// SPDX-License-Identifier: MIT
/*
 * The mounts the caller asks for (a bind, a read-only bind, a tmpfs), made in
 * order after the run's own ones.  A bind is a detached copy of the source's
 * mounts (open_tree), changed while detached and then attached (move_mount):
 * a read-only bind is never writable, not even for a moment, and neither is a
 * mount below it.  What may be asked was judged before the namespace existed.
 */
#include "ns/ns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

#define H_OLD_KERNEL "a read-only bind of every mount below the source needs Linux 5.12"

_Static_assert(sizeof(H_OLD_KERNEL) <= sizeof(((struct iso_err *)0)->hint), "hint too long");

/* mkdir -p of dest's parents, then dest itself: a directory, or an empty file. */
static int make_point(const struct ns_mount *m, struct iso_err *e)
{
	char path[PATH_MAX];
	size_t len = strlen(m->dest);
	int fd;

	if (len >= sizeof(path))
		return iso_err_set(e, ENAMETOOLONG, "make the mount point '%s'", m->dest);
	memcpy(path, m->dest, len + 1);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return iso_err_set(e, errno, "make the directory '%s' for '%s'", path,
					   m->dest);
		*p = '/';
	}
	if (!m->file) {
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return iso_err_set(e, errno, "make the mount point '%s'", path);
		return 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
	if (fd < 0)
		return iso_err_set(e, errno, "make the mount point '%s'", path);
	close(fd);
	return 0;
}

static int bind_one(const struct ns_mount *m, struct iso_err *e)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	_cleanup_close_ int fd = -1;
	int r;

	/* AT_RECURSIVE: the mounts below come along (a userns may not split them off) */
	fd = (int)open_tree(AT_FDCWD, m->src, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (fd < 0)
		return iso_err_set(e, errno, "copy the mounts at '%s' (open_tree)", m->src);
	if (m->kind == NS_MOUNT_RO_BIND &&
	    mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0) {
		r = iso_err_set(e, errno, "make the copy of '%s' read-only (mount_setattr)",
				m->src);
		if (r == -ENOSYS)
			iso_err_hint(e, H_OLD_KERNEL);
		return r;
	}
	if (move_mount(fd, "", AT_FDCWD, m->dest, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return iso_err_set(e, errno, "bind-mount '%s' on '%s' (move_mount)", m->src,
				   m->dest);
	return 0;
}

int ns_mounts_apply(const struct ns_mount *m, size_t n, struct iso_err *e)
{
	for (size_t i = 0; i < n; i++) {
		int r = m[i].make ? make_point(&m[i], e) : 0;

		if (r < 0)
			return r;
		if (m[i].kind != NS_MOUNT_TMPFS)
			r = bind_one(&m[i], e);
		else if (mount("tmpfs", m[i].dest, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0)
			r = iso_err_set(e, errno, "mount a tmpfs on '%s'", m[i].dest);
		if (r < 0)
			return r;
	}
	return 0;
}
