// SPDX-License-Identifier: MIT
#include "common/nowait.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int iso_stat_cached(int dirfd, const char *name, int flags, struct stat *st)
{
	struct statx sx;

	if (statx(dirfd, name, flags | AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT,
		  STATX_TYPE | STATX_MODE | STATX_INO | STATX_NLINK | STATX_UID | STATX_SIZE |
			  STATX_BLOCKS,
		  &sx) < 0)
		return -1;
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	st->st_ino = sx.stx_ino;
	st->st_mode = sx.stx_mode;
	st->st_nlink = sx.stx_nlink;
	st->st_uid = sx.stx_uid;
	st->st_size = (off_t)sx.stx_size;
	st->st_blocks = (blkcnt_t)sx.stx_blocks;
	return 0;
}

static int open_here(int dirfd, const char *path, uint64_t flags)
{
	struct open_how how = {
		.flags = flags | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int fd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	/* before Linux 5.6: unbounded, as every open was */
	if (fd < 0 && errno == ENOSYS)
		fd = openat(dirfd, path, (int)how.flags);
	return fd;
}

int iso_stat_here(int dirfd, const char *path, struct stat *st)
{
	int fd = open_here(dirfd, path, O_PATH);
	int r, err;

	if (fd < 0)
		return -1;
	r = iso_stat_cached(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, st);
	err = errno;
	close(fd);
	errno = err;
	return r;
}

int iso_open_dir_here(int dirfd, const char *path)
{
	return open_here(dirfd, path, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
}
