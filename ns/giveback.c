// SPDX-License-Identifier: MIT
/*
 * --map-users' two ways back to a tree the caller can remove: init gives every
 * entry back to the caller (ns_idmap_give_back), and a process of the caller
 * outside any run maps its ranges again to act as their root
 * (ns_in_ranges).
 *
 * The walk holds one directory fd at a time and climbs back through "..",
 * checking each level's identity, as tree/rmtree.c does: the command picks the
 * depth, and neither the C stack nor RLIMIT_NOFILE may bound it.  A directory
 * is listed once; the directories in it are noted and entered one by one.
 */
#include "ns/ns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sched.h>
#include <unistd.h>

#include "common/cleanup.h"

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x2000
#endif

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

struct gb_note {
	size_t name_off; /* in gb->names */
	dev_t dev;
	ino_t ino;
};

struct gb_level {
	dev_t dev;
	ino_t ino;
	size_t noted_base; /* gb->nt[noted_base..] were noted in this directory */
};

struct gb {
	uid_t uid;
	gid_t gid;
	dev_t dev; /* the top's: another file system is a mount, not the tree's */
	int first; /* -errno of the first failure */
	struct gb_level *lv;
	size_t depth, lv_cap;
	struct gb_note *nt;
	size_t nnt, nt_cap;
	char *names;
	size_t nlen, ncap;
};

static void failed(struct gb *g, int err)
{
	if (!g->first)
		g->first = -err;
}

/* Room for element n of an array of `size`; NULL without memory (v stays valid). */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? 2 * *cap : 64;
	void *p;

	if (n < *cap)
		return v;
	p = reallocarray(v, c, size);
	if (p)
		*cap = c;
	return p;
}

static int note(struct gb *g, const char *name, const struct statx *st)
{
	size_t len = strlen(name) + 1;
	struct gb_note *nt = grow(g->nt, g->nnt, &g->nt_cap, sizeof(*nt));

	if (!nt)
		return -ENOMEM;
	g->nt = nt;
	while (g->nlen + len > g->ncap) {
		size_t cap = g->ncap ? 2 * g->ncap : 4096;
		char *b = realloc(g->names, cap);

		if (!b)
			return -ENOMEM;
		g->names = b;
		g->ncap = cap;
	}
	memcpy(g->names + g->nlen, name, len);
	g->nt[g->nnt++] = (struct gb_note){ g->nlen, makedev(st->stx_dev_major, st->stx_dev_minor),
					    st->stx_ino };
	g->nlen += len;
	return 0;
}

static int push(struct gb *g, dev_t dev, ino_t ino)
{
	struct gb_level *lv = grow(g->lv, g->depth, &g->lv_cap, sizeof(*lv));

	if (!lv)
		return -ENOMEM;
	g->lv = lv;
	lv[g->depth++] = (struct gb_level){ dev, ino, g->nnt };
	return 0;
}

/*
 * Each entry of the directory `fd` (just opened: its offset is 0) that is on
 * the tree's file system: given back, and a directory noted.  -ENOMEM stops.
 */
static int list(struct gb *g, int fd)
{
	int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *de;

	if (!d) {
		failed(g, errno);
		if (dfd >= 0)
			close(dfd);
		return 0;
	}
	while ((errno = 0, de = readdir(d))) {
		struct statx st;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		/*
		 * Cached attributes: a FUSE mount in the tree whose server still
		 * runs is not asked.  A mount is not the tree's: not changed, not
		 * entered (the removal says so).
		 */
		if (statx(fd, de->d_name,
			  AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC | AT_NO_AUTOMOUNT,
			  STATX_TYPE | STATX_UID | STATX_GID | STATX_INO, &st) < 0) {
			if (errno != ENOENT)
				failed(g, errno);
			continue;
		}
		if (makedev(st.stx_dev_major, st.stx_dev_minor) != g->dev ||
		    (st.stx_attributes_mask & st.stx_attributes & STATX_ATTR_MOUNT_ROOT))
			continue;
		if ((st.stx_uid != g->uid || st.stx_gid != g->gid) &&
		    fchownat(fd, de->d_name, g->uid, g->gid, AT_SYMLINK_NOFOLLOW) < 0 &&
		    errno != ENOENT)
			failed(g, errno);
		if (S_ISDIR(st.stx_mode) && note(g, de->d_name, &st) < 0) {
			closedir(d);
			return -ENOMEM;
		}
	}
	if (errno)
		failed(g, errno);
	closedir(d);
	return 0;
}

/* The last directory noted in `cur`, opened and checked: its fd, or -1 (skipped). */
static int enter(struct gb *g, int cur)
{
	const struct gb_note n = g->nt[--g->nnt];
	_cleanup_close_ int fd = openat(cur, g->names + n.name_off, DIR_FLAGS);
	struct stat st;

	/* the name is not needed past the open: the child's notes reuse the space */
	g->nlen = n.name_off;
	if (fd < 0) {
		if (errno != ENOENT)
			failed(g, errno);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		failed(g, errno);
		return -1;
	}
	/* replaced, or mounted on, since it was listed: not entered */
	if (st.st_dev != n.dev || st.st_ino != n.ino) {
		failed(g, ESTALE);
		return -1;
	}
	if (push(g, n.dev, n.ino) < 0) {
		failed(g, ENOMEM);
		return -1;
	}
	return TAKE_FD(fd);
}

/* The parent of `cur`, if it is the directory we came from; -1 stops the walk. */
static int leave(struct gb *g, int cur)
{
	const struct gb_level *up = &g->lv[g->depth - 2];
	_cleanup_close_ int fd = openat(cur, "..", DIR_FLAGS);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		failed(g, errno);
		return -1;
	}
	/* moved under us: what we would reach next is not the tree */
	if (st.st_dev != up->dev || st.st_ino != up->ino) {
		failed(g, ESTALE);
		return -1;
	}
	g->depth--;
	return TAKE_FD(fd);
}

static void walk(struct gb *g, int top)
{
	int cur = fcntl(top, F_DUPFD_CLOEXEC, 3), fd;
	struct stat st;

	if (cur < 0 || fstat(cur, &st) < 0) {
		failed(g, errno);
		if (cur >= 0)
			close(cur);
		return;
	}
	if (push(g, st.st_dev, st.st_ino) < 0)
		goto nomem;
	g->dev = st.st_dev;
	if (list(g, cur) < 0)
		goto nomem;
	for (;;) {
		if (g->nnt > g->lv[g->depth - 1].noted_base) {
			fd = enter(g, cur);
			if (fd < 0)
				continue;
			close(cur);
			cur = fd;
			if (list(g, cur) < 0)
				goto nomem;
			continue;
		}
		if (g->depth == 1)
			break;
		fd = leave(g, cur);
		if (fd < 0)
			break;
		close(cur);
		cur = fd;
	}
	close(cur);
	return;
nomem:
	failed(g, ENOMEM);
	close(cur);
}

static int give_back_fd(int dirfd, const char *display, uid_t uid, gid_t gid, struct iso_err *e)
{
	struct gb g = { .uid = uid, .gid = gid };

	walk(&g, dirfd);
	free(g.lv);
	free(g.nt);
	free(g.names);
	if (g.first < 0)
		return iso_err_set(e, -g.first, "give '%s' back to uid %u", display, (unsigned)uid);
	return 0;
}

int ns_idmap_give_back(const char *dir, uid_t uid, gid_t gid, struct iso_err *e)
{
	_cleanup_close_ int fd = open(dir, DIR_FLAGS);

	if (fd < 0)
		return iso_err_set(e, errno, "open '%s'", dir);
	return give_back_fd(fd, dir, uid, gid, e);
}

/* The child's side: in a user namespace of its own, mapped by the parent, then fn. */
static _Noreturn void in_ranges_child(int to_parent, int from_parent, pid_t parent,
				      int (*fn)(void *arg, struct iso_err *e), void *arg)
{
	struct iso_err e = { 0 };
	char go;
	unsigned char ready = 0;

	/* a gc killed meanwhile must not leave its child acting as the range's root */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	if (unshare(CLONE_NEWUSER) < 0)
		ready = (unsigned char)errno;
	if (write(to_parent, &ready, 1) != 1 || ready || read(from_parent, &go, 1) != 1)
		_exit(1);
	if (fn(arg, &e) < 0 && !e.msg[0])
		iso_err_set(&e, EIO, "act as the root of the id ranges");
	if (write(to_parent, &e, sizeof(e)) != (ssize_t)sizeof(e))
		_exit(1);
	_exit(e.msg[0] ? 1 : 0);
}

/* The child's end: its result into e.  0, or -errno. */
static int in_ranges_wait(pid_t pid, int from_child, struct iso_err *e)
{
	struct iso_err got = { 0 };
	ssize_t n;
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return iso_err_set(e, errno, "wait for the id ranges' process");
	n = read(from_child, &got, sizeof(got));
	if (n != (ssize_t)sizeof(got))
		return iso_err_set(e, 0, "the id ranges' process ended without an answer (%s %d)",
				   WIFSIGNALED(status) ? "signal" : "exit",
				   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	if (!got.msg[0])
		return 0;
	*e = got;
	return -(e->errnum ? e->errnum : EIO);
}

int ns_in_ranges(const struct ns_idmaps *m, int timeout_ms, int (*fn)(void *arg, struct iso_err *e),
		 void *arg, struct iso_err *e)
{
	_cleanup_close_ int up_rd = -1, up_wr = -1, down_rd = -1, down_wr = -1;
	int up[2], down[2], r;
	pid_t parent = getpid(), pid;
	unsigned char ready = 0;

	if (pipe2(up, O_CLOEXEC) < 0)
		return iso_err_set(e, errno, "create a pipe for the id ranges' process");
	up_rd = up[0];
	up_wr = up[1];
	if (pipe2(down, O_CLOEXEC) < 0)
		return iso_err_set(e, errno, "create a pipe for the id ranges' process");
	down_rd = down[0];
	down_wr = down[1];
	pid = fork();
	if (pid < 0)
		return iso_err_set(e, errno, "start the id ranges' process");
	if (pid == 0)
		in_ranges_child(up_wr, down_rd, parent, fn, arg);
	close(TAKE_FD(up_wr));
	close(TAKE_FD(down_rd));
	/* the child's own unshare, no program of anyone else's: it answers at once */
	if (read(up_rd, &ready, 1) != 1 || ready) {
		r = ready ? iso_err_set(e, ready, "create a user namespace for the id ranges")
			  : iso_err_set(e, EIO, "start the id ranges' process");
		goto kill_child;
	}
	r = ns_userns_write_ranges(pid, m, timeout_ms, e);
	if (r < 0)
		goto kill_child;
	if (write(down_wr, &ready, 1) != 1) {
		r = iso_err_set(e, errno, "start the id ranges' process");
		goto kill_child;
	}
	return in_ranges_wait(pid, up_rd, e);
kill_child:
	(void)kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return r;
}
