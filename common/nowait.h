/* SPDX-License-Identifier: MIT */
/*
 * Looking at files the command can reach without asking the file system that
 * holds them.  A FUSE server (or a network file system) decides when a lookup,
 * a getattr or an opendir is answered; one the command serves and stops
 * answering would hold isorun in the kernel, every signal blocked.  These
 * calls only use what the kernel has cached and never cross into another mount
 * on their way: what they cannot say without asking, they refuse.
 */
#ifndef ISO_NOWAIT_H
#define ISO_NOWAIT_H

#include <sys/stat.h>

/*
 * fstatat(dirfd, name, st, flags) from the cached attributes (statx with
 * AT_STATX_DONT_SYNC, never an automount); flags: 0 or AT_SYMLINK_NOFOLLOW.
 * Fills dev, ino, mode, nlink, uid, size, blocks.  0, or -1 with errno set.
 */
int iso_stat_cached(int dirfd, const char *name, int flags, struct stat *st);

/*
 * The directory at path under dirfd, read-only, close-on-exec, refused with
 * EXDEV when a mount lies on the way or at its end (openat2's
 * RESOLVE_NO_XDEV: resolution stops before the other file system is asked)
 * and with ELOOP at a symlink.  An fd, or -1 with errno set.
 */
int iso_open_dir_here(int dirfd, const char *path);

/*
 * iso_stat_cached() of path under dirfd, a symlink not followed, refused
 * with EXDEV when a mount lies on the way (no lookup inside another file
 * system).  0, or -1 with errno set.
 */
int iso_stat_here(int dirfd, const char *path, struct stat *st);

#endif
