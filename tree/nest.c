// SPDX-License-Identifier: MIT
#include "tree/nest.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fault.h"
#include "tree/mntns.h"

#define OVERLAYFS_MAGIC 0x794c7630

static int mark_name(const char *id, char *out, size_t len)
{
	return snprintf(out, len, ".%s%s", id, TREE_NEST_MARK) >= (int)len ? -ENAMETOOLONG : 0;
}

static int mount_tmpfs(int user_fd, const char *id, mode_t mode)
{
	_cleanup_close_ int fs = -1, mnt = -1;
	char opt[16];

	snprintf(opt, sizeof(opt), "%04o", (unsigned)mode);
	fs = fsopen("tmpfs", FSOPEN_CLOEXEC);
	if (fs < 0 || fsconfig(fs, FSCONFIG_SET_STRING, "source", "isorun", 0) < 0 ||
	    fsconfig(fs, FSCONFIG_SET_STRING, "mode", opt, 0) < 0 ||
	    fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		return -errno;
	mnt = fsmount(fs, FSMOUNT_CLOEXEC, 0);
	if (mnt < 0 || move_mount(mnt, "", user_fd, id, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

/* Shared, watched by handle (the tree's descriptor, opened once), and marked. */
static int share_watch_mark(int user_fd, const char *id)
{
	struct mount_attr attr = { .propagation = MS_SHARED };
	_cleanup_close_ int root = -1;
	char name[NAME_MAX + 1], at[32];
	int in = -1, r;

	if (mount_setattr(user_fd, id, AT_SYMLINK_NOFOLLOW, &attr, sizeof(attr)) < 0)
		return -errno;
	root = openat(user_fd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	snprintf(at, sizeof(at), "/proc/self/fd/%d", root);
	r = mark_name(id, name, sizeof(name));
	if (r == 0 &&
	    (root < 0 || in < 0 || inotify_add_watch(in, at, IN_UNMOUNT | IN_ONLYDIR) < 0 ||
	     mkdirat(user_fd, name, 0700) < 0))
		r = -errno;
	if (r < 0 && in >= 0)
		close(in);
	return r < 0 ? r : in;
}

int tree_nest_mount(int user_fd, const char *id, mode_t mode, struct iso_err *e)
{
	struct statfs sf;
	char src[16];
	int r;

	/*
	 * On another run's shield only (its source is "isorun"): the overlay of a
	 * container's root is no run's, and its trees stay on its disk.
	 */
	if (geteuid() != 0 || !tree_mntns_initial_userns() || fstatfs(user_fd, &sf) < 0 ||
	    sf.f_type != OVERLAYFS_MAGIC || tree_mntns_source(user_fd, src, sizeof(src)) < 0 ||
	    strcmp(src, "isorun") != 0)
		return -ENOENT;
	if (iso_test_fault("no-nest") || iso_test_fault("no-shield")) {
		iso_err_set(e, 0, "no tmpfs of its own: turned off (ISORUN_TEST_FAULT)");
		return -ENOENT;
	}
	r = mount_tmpfs(user_fd, id, mode);
	if (r < 0)
		return iso_err_set(e, -r, "mount a tmpfs of its own on the tree '%s'", id);
	r = share_watch_mark(user_fd, id);
	if (r < 0) {
		tree_nest_off(user_fd, id);
		return iso_err_set(e, -r, "share, watch and mark the tmpfs of the tree '%s'", id);
	}
	return r;
}

void tree_nest_off(int user_fd, const char *id)
{
	char at[64 + NAME_MAX], name[NAME_MAX + 1];

	snprintf(at, sizeof(at), "/proc/self/fd/%d/%s", user_fd, id);
	(void)umount2(at, MNT_DETACH | UMOUNT_NOFOLLOW);
	if (mark_name(id, name, sizeof(name)) == 0)
		(void)unlinkat(user_fd, name, AT_REMOVEDIR);
}
