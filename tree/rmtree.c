/* SPDX-License-Identifier: MIT */
/*
 * Removal walks the tree holding one directory fd, the current one (and,
 * briefly, a dup of it for listing).  Recursion on the C stack or one fd per
 * level would let a command pick a depth that defeats removal (stack size,
 * RLIMIT_NOFILE); instead a heap stack remembers, per level, the name and
 * identity of each directory, and we climb back through ".." checking that
 * identity, so a tree moved under us is detected, never followed.
 *
 * A pass lists the current directory from the start, removes files and empty
 * directories, and notes the directories with contents; we enter those one
 * by one, and once they are dealt with, list the directory again.  It is
 * done when a pass from the start notes nothing: what was removed is no
 * longer listed, and what failed is skipped through a set of (dev, ino), so
 * every pass makes progress and none repeats a failure.  Noting, rather than
 * entering the first one found and listing again on return, keeps wide trees
 * linear: every new listing costs a full getdents buffer.
 */
#include "tree/rmtree.h"
#include "common/cleanup.h"
#include "common/nowait.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#ifndef STATX_ATTR_MOUNT_ROOT
#define STATX_ATTR_MOUNT_ROOT 0x2000
#endif

/* O_RDONLY, not O_PATH: we need getdents and fchmod on it. */
#define DIR_OPEN_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
/*
 * Never trigger an automount: it would put another file system in our way.
 * Cached attributes only: a mount point's other file system (one the command
 * serves through FUSE) is not asked, only recognised as a mount and refused.
 */
#define STATX_FLAGS (AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC)
/*
 * Directories noted per pass: bounds memory when every level of a deep tree
 * is also wide; a later pass finds the rest.
 */
#define PASS_MAX_NOTED 1024

enum {
	GONE = 1, /* removed by us, or by someone else meanwhile; not 0: enter() returns -GONE */
	FAILED,	  /* failure recorded, entry added to the failed set */
	DESCEND,  /* a directory that is not empty */
	FATAL,	  /* cannot continue safely */
};

/* NUL-terminated names packed in one buffer; stacks refer to them by offset. */
struct names {
	char *buf;
	size_t len, cap;
};

/* A directory on the path from the top to the current one. */
struct level {
	size_t name_off; /* in rm->names */
	dev_t dev;
	ino_t ino;
	ino_t d_ino;	   /* as listed in the parent, which is what passes compare */
	size_t noted_base; /* rm->noted[noted_base..] were noted in this directory */
};

/* A directory with contents that a pass noted, to be entered later. */
struct noted {
	size_t name_off; /* in rm->noted_names */
	dev_t dev;
	ino_t ino;
	ino_t d_ino;
};

struct id {
	dev_t dev;
	ino_t ino;
	bool used;
};

/* Open addressing: a directory may hold any number of undeletable entries. */
struct idset {
	struct id *v;
	size_t cap; /* 0 or a power of two */
	size_t n;
};

struct rm {
	const char *display;
	struct iso_err *e;
	int first; /* -errno of the first failure, or 0 */
	dev_t dev; /* the top's */
	struct level *lv;
	size_t depth, lv_cap;
	struct names names;
	struct noted *noted;
	size_t nnoted, noted_cap;
	struct names noted_names;
	struct idset failed;
	struct tree_rm_stats st;
	const struct tree_rm_stop *stop; /* may be NULL */
	unsigned long seen;		 /* entries looked at, to ask `stop` now and then */
};

/* Asking costs a system call: once per STOP_EVERY entries is prompt enough. */
#define STOP_EVERY 64

/* The current directory. */
struct cur {
	int fd;
	/* Its mode was already opened up during this visit; no second try. */
	bool chmodded;
};

static size_t id_hash(dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino ^ ((uint64_t)dev * 0x9e3779b97f4a7c15ULL);

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h;
}

static bool idset_has(const struct idset *s, dev_t dev, ino_t ino)
{
	size_t i;

	if (!s->n)
		return false;
	for (i = id_hash(dev, ino) & (s->cap - 1); s->v[i].used; i = (i + 1) & (s->cap - 1))
		if (s->v[i].dev == dev && s->v[i].ino == ino)
			return true;
	return false;
}

static void idset_put(struct idset *s, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = id_hash(dev, ino) & (s->cap - 1); s->v[i].used; i = (i + 1) & (s->cap - 1))
		if (s->v[i].dev == dev && s->v[i].ino == ino)
			return;
	s->v[i] = (struct id){ .dev = dev, .ino = ino, .used = true };
	s->n++;
}

static int idset_add(struct idset *s, dev_t dev, ino_t ino)
{
	if (2 * (s->n + 1) > s->cap) {
		struct idset g = { .cap = s->cap ? 2 * s->cap : 16 };
		size_t i;

		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.v)
			return -ENOMEM;
		for (i = 0; i < s->cap; i++)
			if (s->v[i].used)
				idset_put(&g, s->v[i].dev, s->v[i].ino);
		free(s->v);
		*s = g;
	}
	idset_put(s, dev, ino);
	return 0;
}

static int names_add(struct names *n, const char *name, size_t *ret_off)
{
	size_t len = strlen(name) + 1;

	if (n->len + len > n->cap) {
		size_t cap = n->cap ? n->cap : 1024;
		char *buf;

		while (cap < n->len + len)
			cap *= 2;
		buf = realloc(n->buf, cap);
		if (!buf)
			return -ENOMEM;
		n->buf = buf;
		n->cap = cap;
	}
	memcpy(n->buf + n->len, name, len);
	*ret_off = n->len;
	n->len += len;
	return 0;
}

/* Room for element n of an array; NULL without memory (v still valid). */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	size_t c;
	void *p;

	if (n < *cap)
		return v;
	c = *cap ? 2 * *cap : 64;
	p = reallocarray(v, c, size);
	if (p)
		*cap = c;
	return p;
}

static bool denied(int err)
{
	return err == EACCES || err == EPERM;
}

static dev_t stx_dev(const struct statx *stx)
{
	return makedev(stx->stx_dev_major, stx->stx_dev_minor);
}

/*
 * The attribute catches bind mounts of the same file system; the device
 * number catches kernels or file systems that do not report the attribute.
 */
static bool is_mount(dev_t dev, const struct statx *stx)
{
	if (stx->stx_attributes_mask & stx->stx_attributes & STATX_ATTR_MOUNT_ROOT)
		return true;
	return stx_dev(stx) != dev;
}

/* display + the names of levels 1..nlevels-1 + leaf, or NULL without memory. */
static char *build_path(const struct rm *rm, size_t nlevels, const char *leaf)
{
	size_t len = strlen(rm->display) + 1, i;
	char *p, *q;

	for (i = 1; i < nlevels; i++)
		len += 1 + strlen(rm->names.buf + rm->lv[i].name_off);
	if (leaf)
		len += 1 + strlen(leaf);
	p = malloc(len);
	if (!p)
		return NULL;
	q = stpcpy(p, rm->display);
	for (i = 1; i < nlevels; i++) {
		*q++ = '/';
		q = stpcpy(q, rm->names.buf + rm->lv[i].name_off);
	}
	if (leaf) {
		*q++ = '/';
		stpcpy(q, leaf);
	}
	return p;
}

/*
 * Deep trees have paths far longer than e->msg; keep the start (which tree)
 * and the end (which entry), which is what a reader needs.
 */
static void set_msg(struct iso_err *e, int err, const char *verb, const char *path, const char *why)
{
	size_t len = strlen(path);
	size_t room = sizeof(e->msg) - 1 - strlen(verb) - 3 - strlen(why);
	size_t head, tail;
	const char *t, *slash;

	if (len <= room) {
		iso_err_set(e, err, "%s '%s'%s", verb, path, why);
		return;
	}
	head = room / 3;
	tail = room - head - 3;
	t = path + len - tail;
	slash = memchr(t, '/', tail / 2);
	if (slash)
		t = slash;
	iso_err_set(e, err, "%s '%.*s...%s'%s", verb, (int)head, path, t, why);
}

/*
 * Record a failure on `leaf` in the directory at level nlevels-1 (leaf NULL:
 * that directory itself).  With `why`, the reason is in the message and no
 * strerror is appended.  Only the first failure is kept.
 */
static void fail(struct rm *rm, int err, const char *verb, size_t nlevels, const char *leaf,
		 const char *why)
{
	_cleanup_free_ char *path = NULL;

	if (rm->first)
		return;
	rm->first = err > 0 ? -err : -EIO;
	if (!rm->e)
		return;
	path = build_path(rm, nlevels, leaf);
	if (path)
		set_msg(rm->e, err, verb, path, why ? why : "");
	else
		iso_err_set(rm->e, err, "%s '%s/.../%s'%s", verb, rm->display, leaf ? leaf : "",
			    why ? why : "");
	if (why)
		rm->e->errnum = 0;
}

static int fatal_nomem(struct rm *rm)
{
	fail(rm, ENOMEM, "remove", 1, NULL, NULL);
	return FATAL;
}

/* A failure on an entry of the current directory: later passes skip it. */
static int entry_failed(struct rm *rm, int err, const char *verb, const char *name, ino_t d_ino,
			const char *why)
{
	fail(rm, err, verb, rm->depth, name, why);
	if (idset_add(&rm->failed, rm->dev, d_ino) < 0)
		return fatal_nomem(rm);
	return FAILED;
}

/*
 * An operation relative to the current directory was refused: the directory
 * denies its owner write or search.  We own it (or are root), so open it up,
 * once per visit; the caller retries once.
 */
static bool open_up_cur(struct rm *rm, struct cur *c)
{
	if (c->chmodded)
		return false;
	c->chmodded = true;
	if (fchmod(c->fd, S_IRWXU) < 0) {
		fail(rm, errno, "chmod", rm->depth, NULL, NULL);
		return false;
	}
	return true;
}

static int push_level(struct rm *rm, const char *name, dev_t dev, ino_t ino, ino_t d_ino)
{
	struct level *lv = grow(rm->lv, rm->depth, &rm->lv_cap, sizeof(*lv));
	size_t off;

	if (!lv)
		return -ENOMEM;
	rm->lv = lv;
	if (names_add(&rm->names, name, &off) < 0)
		return -ENOMEM;
	lv[rm->depth++] = (struct level){
		.name_off = off, .dev = dev, .ino = ino, .d_ino = d_ino, .noted_base = rm->nnoted
	};
	return 0;
}

static void pop_level(struct rm *rm)
{
	rm->depth--;
	rm->names.len = rm->lv[rm->depth].name_off;
}

static int note(struct rm *rm, const char *name, ino_t d_ino, const struct statx *stx)
{
	struct noted *v = grow(rm->noted, rm->nnoted, &rm->noted_cap, sizeof(*v));
	size_t off;

	if (!v)
		return -ENOMEM;
	rm->noted = v;
	if (names_add(&rm->noted_names, name, &off) < 0)
		return -ENOMEM;
	v[rm->nnoted++] = (struct noted){
		.name_off = off, .dev = stx_dev(stx), .ino = stx->stx_ino, .d_ino = d_ino
	};
	return 0;
}

/*
 * Remove one entry of the current directory, or report that it is a directory
 * with contents (its statx in *ret_stx).  d_type spares a stat per file; only
 * directories, and entries of unknown type, are stat'ed.
 */
static int remove_entry(struct rm *rm, struct cur *c, const char *name, ino_t d_ino,
			unsigned char type, struct statx *ret_stx)
{
	bool statted = false;
	int err;

	if (type != DT_DIR && type != DT_UNKNOWN)
		goto do_unlink;
do_stat:
	statted = true;
	if (statx(c->fd, name, STATX_FLAGS, STATX_TYPE | STATX_INO, ret_stx) < 0) {
		err = errno;
		if (err == ENOENT)
			return GONE;
		if (denied(err) && open_up_cur(rm, c))
			goto do_stat;
		return entry_failed(rm, err, "stat", name, d_ino, NULL);
	}
	if (!S_ISDIR(ret_stx->stx_mode))
		goto do_unlink;
	if (is_mount(rm->dev, ret_stx))
		return entry_failed(rm, EBUSY, "enter", name, d_ino, ": is a mount point");
do_rmdir:
	/* Empty directories (most leaves) need no open, listing and climb. */
	if (unlinkat(c->fd, name, AT_REMOVEDIR) == 0) {
		rm->st.dirs++;
		return GONE;
	}
	err = errno;
	if (err == ENOTEMPTY || err == EEXIST)
		return DESCEND;
	if (err == ENOENT)
		return GONE;
	if (denied(err) && open_up_cur(rm, c))
		goto do_rmdir;
	return entry_failed(rm, err, "rmdir", name, d_ino, NULL);
do_unlink:
	if (unlinkat(c->fd, name, 0) == 0) {
		rm->st.files++;
		return GONE;
	}
	err = errno;
	if (err == ENOENT)
		return GONE;
	/* Replaced by a directory since it was listed. */
	if (err == EISDIR && !statted)
		goto do_stat;
	if (denied(err) && open_up_cur(rm, c))
		goto do_unlink;
	return entry_failed(rm, err, "unlink", name, d_ino, NULL);
}

/*
 * List the current directory from the start, removing what can be removed
 * and noting directories with contents.  Returns how many were noted (0:
 * nothing is left here but failures), or -FATAL.
 */
static bool stop_asked(struct rm *rm)
{
	if (!rm->stop || !rm->stop->fn || ++rm->seen % STOP_EVERY || !rm->stop->fn(rm->stop->arg))
		return false;
	rm->first = 0; /* the stop is what the caller must hear about */
	fail(rm, ECANCELED, "remove", rm->depth, NULL, ": stopped");
	return true;
}

static int pass(struct rm *rm, struct cur *c)
{
	struct dirent *de;
	struct statx stx;
	int fd, noted = 0, r;
	DIR *d;

	/* The listing shares the file offset with c->fd, left at the end last time. */
	if (lseek(c->fd, 0, SEEK_SET) < 0) {
		fail(rm, errno, "read", rm->depth, NULL, NULL);
		return 0;
	}
	/* A dup, so that closedir() leaves c->fd open for the *at() calls. */
	fd = fcntl(c->fd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0) {
		fail(rm, errno, "open", rm->depth, NULL, NULL);
		return 0;
	}
	d = fdopendir(fd);
	if (!d) {
		fail(rm, errno, "open", rm->depth, NULL, NULL);
		close(fd);
		return 0;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				fail(rm, errno, "read", rm->depth, NULL, NULL);
			break;
		}
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (idset_has(&rm->failed, rm->dev, de->d_ino))
			continue;
		if (stop_asked(rm)) {
			noted = -FATAL;
			break;
		}
		r = remove_entry(rm, c, de->d_name, de->d_ino, de->d_type, &stx);
		if (r == FATAL) {
			noted = -FATAL;
			break;
		}
		if (r != DESCEND)
			continue;
		if (note(rm, de->d_name, de->d_ino, &stx) < 0) {
			noted = -fatal_nomem(rm);
			break;
		}
		if (++noted == PASS_MAX_NOTED)
			break;
	}
	closedir(d);
	return noted;
}

/*
 * Take the last directory noted in the current one, open it, check it is
 * still what was stat'ed (not a mount, not swapped) and make it the current
 * directory.  Returns its fd, or -GONE / -FAILED / -FATAL.
 */
static int enter_noted(struct rm *rm, struct cur *c)
{
	const struct noted n = rm->noted[--rm->nnoted];
	char name[sizeof(((struct dirent *)NULL)->d_name)];
	_cleanup_close_ int fd = -1;
	bool chmodded = false;
	struct statx stx;
	int err;

	/* Copied out: the child's own notes reuse the space. */
	snprintf(name, sizeof(name), "%s", rm->noted_names.buf + n.name_off);
	rm->noted_names.len = n.name_off;
	for (;;) {
		fd = openat(c->fd, name, DIR_OPEN_FLAGS);
		if (fd >= 0)
			break;
		err = errno;
		if (err == ENOENT)
			return -GONE;
		if (!denied(err) || chmodded)
			return -entry_failed(rm, err, "open", name, n.d_ino, NULL);
		/*
		 * The directory denies its owner read or search.  No
		 * following: a link swapped in must not get its target
		 * chmod'ed.
		 */
		chmodded = true;
		if (fchmodat(c->fd, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) < 0)
			return -entry_failed(rm, errno, "chmod", name, n.d_ino, NULL);
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO, &stx) < 0)
		return -entry_failed(rm, errno, "stat", name, n.d_ino, NULL);
	/* Mounted on since it was noted. */
	if (is_mount(rm->dev, &stx))
		return -entry_failed(rm, EBUSY, "enter", name, n.d_ino, ": is a mount point");
	if (stx_dev(&stx) != n.dev || stx.stx_ino != n.ino)
		return -entry_failed(rm, ESTALE, "enter", name, n.d_ino, ": moved during removal");
	if (push_level(rm, name, n.dev, n.ino, n.d_ino) < 0) {
		fail(rm, ENOMEM, "enter", rm->depth, name, NULL);
		return -FATAL;
	}
	return TAKE_FD(fd);
}

/*
 * Back to the parent of the current directory, and remove the current one.
 * If ".." is not the directory we came from, the tree was moved: whatever we
 * would remove next is not ours to remove, so we stop (-FATAL).
 */
static int leave(struct rm *rm, struct cur *c)
{
	const struct level *up = &rm->lv[rm->depth - 2], *lv = &rm->lv[rm->depth - 1];
	_cleanup_close_ int fd = -1;
	const char *name;
	struct stat st;
	ino_t d_ino;
	int err;

	for (;;) {
		fd = openat(c->fd, "..", DIR_OPEN_FLAGS);
		if (fd >= 0)
			break;
		err = errno;
		if (denied(err) && open_up_cur(rm, c))
			continue;
		fail(rm, err, "open", rm->depth - 1, NULL, NULL);
		return -FATAL;
	}
	if (fstat(fd, &st) < 0) {
		fail(rm, errno, "stat", rm->depth - 1, NULL, NULL);
		return -FATAL;
	}
	if (st.st_dev != up->dev || st.st_ino != up->ino) {
		fail(rm, ESTALE, "enter", rm->depth - 1, NULL, ": moved during removal");
		return -FATAL;
	}
	close(c->fd);
	*c = (struct cur){ .fd = TAKE_FD(fd) };
	/* The name stays readable in rm->names until the next push. */
	name = rm->names.buf + lv->name_off;
	d_ino = lv->d_ino;
	pop_level(rm);
	for (;;) {
		if (unlinkat(c->fd, name, AT_REMOVEDIR) == 0) {
			rm->st.dirs++;
			return 0;
		}
		err = errno;
		if (err == ENOENT)
			return 0;
		if (!denied(err) || !open_up_cur(rm, c))
			break;
	}
	/* ENOTEMPTY after a failure below: the first failure stays the one reported. */
	return entry_failed(rm, err, "rmdir", name, d_ino, NULL) == FATAL ? -FATAL : 0;
}

/* Open the top, checking what tree_rmtree() promises about it.  -1: done. */
static int open_top(struct rm *rm, int dirfd, const char *name)
{
	_cleanup_close_ int fd = -1;
	struct statx stx, parent, got;
	bool chmodded = false;

	if (statx(dirfd, name, STATX_FLAGS, STATX_TYPE | STATX_INO, &stx) < 0) {
		fail(rm, errno, "stat", 1, NULL, NULL);
		return -1;
	}
	if (!S_ISDIR(stx.stx_mode)) {
		fail(rm, ENOTDIR, "open", 1, NULL, NULL);
		return -1;
	}
	if (statx(dirfd, "", AT_EMPTY_PATH, STATX_INO, &parent) < 0) {
		fail(rm, errno, "stat", 1, "..", NULL);
		return -1;
	}
	if (is_mount(stx_dev(&parent), &stx)) {
		fail(rm, EBUSY, "enter", 1, NULL, ": is a mount point");
		return -1;
	}
	rm->dev = stx_dev(&stx);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0) {
		rm->st.dirs++;
		return -1;
	}
	if (errno != ENOTEMPTY && errno != EEXIST) {
		fail(rm, errno, "rmdir", 1, NULL, NULL);
		return -1;
	}
	for (;;) {
		fd = openat(dirfd, name, DIR_OPEN_FLAGS);
		if (fd >= 0)
			break;
		if (!denied(errno) || chmodded) {
			fail(rm, errno, "open", 1, NULL, NULL);
			return -1;
		}
		/* Not following links, as in enter_noted(). */
		chmodded = true;
		if (fchmodat(dirfd, name, S_IRWXU, AT_SYMLINK_NOFOLLOW) < 0) {
			fail(rm, errno, "chmod", 1, NULL, NULL);
			return -1;
		}
	}
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO, &got) < 0) {
		fail(rm, errno, "stat", 1, NULL, NULL);
		return -1;
	}
	if (is_mount(stx_dev(&parent), &got)) {
		fail(rm, EBUSY, "enter", 1, NULL, ": is a mount point");
		return -1;
	}
	if (stx_dev(&got) != rm->dev || got.stx_ino != stx.stx_ino) {
		fail(rm, ESTALE, "enter", 1, NULL, ": moved during removal");
		return -1;
	}
	if (push_level(rm, name, rm->dev, got.stx_ino, 0) < 0) {
		fatal_nomem(rm);
		return -1;
	}
	return TAKE_FD(fd);
}

static void run(struct rm *rm, int dirfd, const char *name)
{
	struct cur c = { .fd = open_top(rm, dirfd, name) };
	bool listed = false; /* since the notes of c were last used up */
	int r;

	if (c.fd < 0)
		return;
	for (;;) {
		if (!listed) {
			r = pass(rm, &c);
			if (r < 0)
				goto stop;
			listed = true;
			if (r == 0) {
				/* Nothing left in c but failures. */
				if (rm->depth == 1)
					break;
				if (leave(rm, &c) < 0)
					goto stop;
				continue;
			}
		}
		if (rm->nnoted > rm->lv[rm->depth - 1].noted_base) {
			r = enter_noted(rm, &c);
			if (r == -FATAL)
				goto stop;
			if (r >= 0) {
				close(c.fd);
				c = (struct cur){ .fd = r };
				listed = false;
			}
			continue;
		}
		/* All it noted is dealt with; list it again for what is left. */
		listed = false;
	}
	close(c.fd);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0)
		rm->st.dirs++;
	else
		fail(rm, errno, "rmdir", 1, NULL, NULL);
	return;
stop:
	close(c.fd);
}

static int rmtree_stoppable(int dirfd, const char *name, const char *display,
			    struct tree_rm_stats *ret_stats, const struct tree_rm_stop *stop,
			    struct iso_err *e)
{
	struct rm rm = { .display = display ? display : name, .e = e, .stop = stop };

	if (ret_stats)
		*ret_stats = (struct tree_rm_stats){ 0 };
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return iso_err_set(e, EINVAL, "remove '%s': not a single path component",
				   rm.display ? rm.display : "(null)");
	run(&rm, dirfd, name);
	free(rm.lv);
	free(rm.names.buf);
	free(rm.noted);
	free(rm.noted_names.buf);
	free(rm.failed.v);
	if (ret_stats)
		*ret_stats = rm.st;
	return rm.first;
}

int tree_rmtree(int dirfd, const char *name, const char *display, struct tree_rm_stats *ret_stats,
		struct iso_err *e)
{
	return rmtree_stoppable(dirfd, name, display, ret_stats, NULL, e);
}

/* Remove one entry of the top directory: a directory through tree_rmtree, else unlink. */
static int remove_top_entry(int top_fd, const char *name, const char *display,
			    const struct tree_rm_stop *stop, struct iso_err *e)
{
	char path[PATH_MAX + 256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", display, name);
	if (iso_stat_cached(top_fd, name, AT_SYMLINK_NOFOLLOW, &st) < 0)
		return errno == ENOENT ? 0 : iso_err_set(e, errno, "stat '%s'", path);
	if (S_ISDIR(st.st_mode))
		return rmtree_stoppable(top_fd, name, path, NULL, stop, e);
	if (unlinkat(top_fd, name, 0) < 0 && errno != ENOENT)
		return iso_err_set(e, errno, "unlink '%s'", path);
	return 0;
}

/* isorun's records are files: a directory of a record's name is the command's, removed first */
static bool is_last(int top_fd, const struct dirent *d, const char *const *last)
{
	struct stat st;

	for (; *last; last++)
		if (!strcmp(d->d_name, *last))
			break;
	if (!*last || d->d_type == DT_DIR)
		return false;
	if (d->d_type != DT_UNKNOWN)
		return true;
	return iso_stat_cached(top_fd, d->d_name, AT_SYMLINK_NOFOLLOW, &st) < 0 ||
	       !S_ISDIR(st.st_mode);
}

/* Every entry of top_fd except `last`; keeps going, returns the first failure. */
static int remove_all_but(int top_fd, const char *const *last, const char *display,
			  const struct tree_rm_stop *stop, struct iso_err *e)
{
	struct iso_err mine = { 0 };
	struct dirent *d;
	DIR *dir;
	int fd, first = 0;

	fd = openat(top_fd, ".", DIR_OPEN_FLAGS);
	if (fd < 0)
		return iso_err_set(e, errno, "open '%s'", display);
	dir = fdopendir(fd);
	if (!dir) {
		int r = iso_err_set(e, errno, "open '%s'", display);
		close(fd);
		return r;
	}
	/* the command is gone and nothing holds the tree: nobody adds entries meanwhile */
	while ((errno = 0, d = readdir(dir))) {
		int r;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, "..") || is_last(top_fd, d, last))
			continue;
		r = remove_top_entry(top_fd, d->d_name, display, stop, first ? &mine : e);
		if (r == -ECANCELED || (stop && stop->fn && stop->fn(stop->arg))) {
			if (r != -ECANCELED)
				r = iso_err_set(e, ECANCELED, "remove '%s': stopped", display);
			else if (first)
				*e = mine;
			e->errnum = 0;
			first = -ECANCELED;
			break;
		}
		if (r < 0 && !first)
			first = r;
	}
	if (errno && !first)
		first = iso_err_set(e, errno, "read '%s'", display);
	closedir(dir);
	return first;
}

int tree_rmtree_last(int dirfd, const char *name, int top_fd, const char *const *last,
		     const char *display, const struct tree_rm_stop *stop, struct iso_err *e)
{
	int r;

	/* ours: the command may have taken away our own write or search permission */
	if (fchmod(top_fd, 0700) < 0)
		return iso_err_set(e, errno, "chmod '%s'", display);
	r = remove_all_but(top_fd, last, display, stop, e);
	if (r < 0)
		return r; /* the records stay: the tree can be judged and collected later */
	for (; *last; last++)
		if (unlinkat(top_fd, *last, 0) < 0 && errno != ENOENT)
			return iso_err_set(e, errno, "unlink '%s/%s'", display, *last);
	if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		return iso_err_set(e, errno, "rmdir '%s'", display);
	return 0;
}
