// SPDX-License-Identifier: MIT
#include "launcher/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/num.h"

/* A symlink that lives on /proc is a magic link: its target is an open file, not a name. */
static bool magic_link(const char *path)
{
	struct statfs sfs;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	int r;

	if (fd < 0)
		return true;
	r = fstatfs(fd, &sfs);
	close(fd);
	return r < 0 || sfs.f_type == PROC_SUPER_MAGIC;
}

bool sup_outfile_resolve(char *path, size_t len)
{
	for (int hops = 0; hops < 40; hops++) {
		char target[PATH_MAX], joined[PATH_MAX];
		const char *slash;
		struct stat st;
		ssize_t n;

		if (lstat(path, &st) < 0)
			return errno == ENOENT;
		if (!S_ISLNK(st.st_mode))
			return true;
		if (magic_link(path))
			return false;
		n = readlink(path, target, sizeof(target) - 1);
		if (n < 0)
			return false;
		target[n] = '\0';
		slash = strrchr(path, '/');
		if (target[0] == '/' || !slash)
			snprintf(joined, sizeof(joined), "%s", target);
		else if (snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - path), path,
				  target) >= (int)sizeof(joined))
			return false;
		if (snprintf(path, len, "%s", joined) >= (int)len)
			return false;
	}
	return false;
}

/* fd:N: a descriptor of the caller's, written through a close-on-exec duplicate of ours. */
static int open_fd(struct sup_outfile *f, struct iso_err *e)
{
	uint64_t n;

	f->how = SUP_OUT_STREAM;
	/* cli/args.c refused anything else already */
	if (iso_parse_u64(f->spec + 3, NULL, 0, INT_MAX, &n) < 0)
		return iso_err_set(e, 0, "%s: expected fd:N, got '%s'", f->opt, f->spec);
	f->fd = fcntl((int)n, F_DUPFD_CLOEXEC, 3);
	if (f->fd < 0)
		return iso_err_set(e, errno, "%s: descriptor %s", f->opt, f->spec + 3);
	return 0;
}

static int open_in_place(struct sup_outfile *f, enum sup_outfile_how how, struct iso_err *e)
{
	f->how = how;
	f->fd = open(f->spec, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (f->fd < 0)
		return iso_err_set(e, errno, "%s: open '%s'", f->opt, f->spec);
	return 0;
}

/* The directory the file is replaced in, and what of the file there the new one keeps. */
static int open_dir(struct sup_outfile *f, char *path, const struct stat *st)
{
	char *slash = strrchr(path, '/');
	const char *dir = slash == path ? "/" : slash ? path : ".";
	const char *base = slash ? slash + 1 : path;

	if (!base[0] || strlen(base) >= sizeof(f->name))
		return -ENAMETOOLONG;
	snprintf(f->name, sizeof(f->name), "%s", base);
	if (slash && slash != path)
		*slash = '\0';
	f->dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dir_fd < 0)
		return -errno;
	f->how = SUP_OUT_REPLACE;
	f->had_file = st != NULL;
	if (st) {
		/* no set-id or sticky bit: nothing runs a report */
		f->mode = st->st_mode & 0777;
		f->uid = st->st_uid;
		f->gid = st->st_gid;
	}
	return 0;
}

/*
 * ".NAME.isorun-XXXXXX" beside the file: on its file system, so the rename is one
 * step; hidden, and named for what left it should a SIGKILL come before the rename.
 */
static int make_temp(const struct sup_outfile *f, char *tmp, size_t len)
{
	static const char chars[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

	for (unsigned tries = 0; tries < 100; tries++) {
		char suffix[7];
		uint64_t x;
		int fd;

		if (getrandom(&x, sizeof(x), GRND_NONBLOCK) != (ssize_t)sizeof(x))
			x = ((uint64_t)getpid() << 32) ^ iso_now_us() ^ tries;
		for (size_t i = 0; i < 6; i++, x /= sizeof(chars) - 1)
			suffix[i] = chars[x % (sizeof(chars) - 1)];
		suffix[6] = '\0';
		snprintf(tmp, len, ".%.*s.isorun-%s", NAME_MAX - 15, f->name, suffix);
		fd = openat(f->dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			    f->had_file ? 0600 : 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * The file replaced keeps its mode, and its owner where we may give it (root may;
 * anyone else's replacement is theirs, as an editor's save would be).
 */
static int keep_owner(const struct sup_outfile *f, int fd)
{
	struct stat st;

	if (!f->had_file)
		return 0;
	if (fstat(fd, &st) < 0)
		return -errno;
	if ((st.st_uid != f->uid || st.st_gid != f->gid) && fchown(fd, f->uid, f->gid) < 0 &&
	    errno != EPERM)
		return -errno;
	if (fchmod(fd, f->mode) < 0)
		return -errno;
	return 0;
}

/*
 * The whole text, then a sync where the file has one: a report that is not on the
 * disk is no evidence, and ENOSPC, EDQUOT or EIO may surface only at the sync.
 */
int sup_write_synced(int fd, const char *text, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		done += (size_t)w;
	}
	/* a pipe or a device has nothing to sync */
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		return -errno;
	return 0;
}

/* The document, or -ENOMEM for one that could not be rendered (text NULL). */
static int put(int fd, const struct sup_text *t)
{
	return t->text ? sup_write_synced(fd, t->text, t->len) : -ENOMEM;
}

/* Write and sync a temporary file, then rename it over the file: all of it or none. */
static int replace(struct sup_outfile *f, const struct sup_text *t)
{
	char tmp[NAME_MAX + 1];
	int fd = make_temp(f, tmp, sizeof(tmp));
	int r;

	if (fd < 0)
		return fd;
	r = keep_owner(f, fd);
	if (r == 0)
		r = put(fd, t);
	if (close(fd) < 0 && r == 0 && errno != EINTR)
		r = -errno;
	if (r == 0 && renameat(f->dir_fd, tmp, f->dir_fd, f->name) < 0)
		r = -errno;
	if (r < 0) {
		/* ours, just made: nothing else may be done about a failure to remove it */
		(void)unlinkat(f->dir_fd, tmp, 0);
		return r;
	}
	/* the rename on the disk too: a crash after the exit must not bring the old file back */
	if (fsync(f->dir_fd) < 0 && errno != EINVAL && errno != EROFS)
		return -errno;
	return 0;
}

/* A file rewritten where it is: emptied first, and emptied again if the text failed. */
static int rewrite(struct sup_outfile *f, const struct sup_text *t)
{
	int r = 0;

	if (f->how == SUP_OUT_INPLACE && (ftruncate(f->fd, 0) < 0 || lseek(f->fd, 0, SEEK_SET) < 0))
		r = -errno;
	if (r == 0)
		r = put(f->fd, t);
	if (r < 0)
		(void)!ftruncate(f->fd, 0); /* a pipe or a device has nothing to cut */
	return r;
}

int sup_outfile_open(struct sup_outfile *f, const char *opt, const char *spec,
		     const struct sup_text *t, struct iso_err *e)
{
	char path[PATH_MAX];
	struct stat st;
	bool exists;

	*f = (struct sup_outfile)SUP_OUTFILE_INIT;
	f->opt = opt;
	f->spec = spec;
	if (strncmp(spec, "fd:", 3) == 0)
		return open_fd(f, e) < 0 ? -EINVAL : 0;
	if (snprintf(path, sizeof(path), "%s", spec) >= (int)sizeof(path) ||
	    !sup_outfile_resolve(path, sizeof(path)))
		return open_in_place(f, SUP_OUT_STREAM, e) < 0 ? -EINVAL : 0;
	exists = stat(path, &st) == 0;
	if ((!exists && errno != ENOENT) || (exists && !S_ISREG(st.st_mode)))
		return open_in_place(f, SUP_OUT_STREAM, e) < 0 ? -EINVAL : 0;
	if (open_dir(f, path, exists ? &st : NULL) == 0 && replace(f, t) == 0)
		return 0;
	sup_outfile_close(f);
	/* not a directory we may create in, or the disk refused the text: in place */
	if (open_in_place(f, SUP_OUT_INPLACE, e) < 0)
		return -EINVAL;
	(void)rewrite(f, t); /* emptied on failure; the end tries again */
	return 0;
}

bool sup_outfile_is_open(const struct sup_outfile *f)
{
	return f->fd >= 0 || f->dir_fd >= 0;
}

int sup_outfile_finish(struct sup_outfile *f, const struct sup_text *t)
{
	int r;

	if (f->how == SUP_OUT_REPLACE)
		r = replace(f, t);
	else
		r = rewrite(f, t);
	if (f->fd >= 0 && close(f->fd) < 0 && r == 0 && errno != EINTR)
		r = -errno;
	f->fd = -1;
	sup_outfile_close(f);
	return r;
}

void sup_outfile_close(struct sup_outfile *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->dir_fd >= 0)
		close(f->dir_fd);
	f->fd = -1;
	f->dir_fd = -1;
}
