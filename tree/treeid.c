// SPDX-License-Identifier: MIT
#include "tree/treeid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/nowait.h"

static int push(struct tree_treeid *t, const struct stat *st)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct iso_devino *nv;

		if (t->n >= TREE_TREEID_MAX)
			return -E2BIG;
		nv = realloc(t->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		t->v = nv;
		t->cap = cap;
	}
	t->v[t->n++] = (struct iso_devino){ st->st_dev, st->st_ino };
	return 0;
}

/*
 * Depth-first with one fd per level; `dfd` is consumed.  fstatat per entry and
 * not d_ino: d_ino is the covered inode at a mount point and may differ from
 * st_ino on overlayfs.  An entry that vanished meanwhile is simply not in the set.
 */
static bool skipped(const char *const *skip, const char *name)
{
	for (; skip && *skip; skip++)
		if (!strcmp(*skip, name))
			return true;
	return false;
}

static int walk(struct tree_treeid *t, int dfd, const char *const *skip)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int r = 0;

	if (!d) {
		r = -errno;
		close(dfd);
		return r;
	}
	for (;;) {
		struct stat st;

		errno = 0;
		e = r == 0 ? readdir(d) : NULL;
		if (!e) {
			/* a directory not read to its end: its entries are not all known */
			if (r == 0 && errno)
				t->partial = true;
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (iso_stat_cached(dirfd(d), e->d_name, AT_SYMLINK_NOFOLLOW, &st) < 0) {
			if (errno != ENOENT)
				t->partial = true;
			continue;
		}
		/* isorun's records are files: a directory of that name is the command's */
		if (!S_ISDIR(st.st_mode) && skipped(skip, e->d_name))
			continue;
		r = push(t, &st);
		if (r == 0 && S_ISDIR(st.st_mode)) {
			int sub = iso_open_dir_here(dirfd(d), e->d_name);

			/*
			 * a mount in the tree (its root is in the set) is not walked:
			 * its file system may be the command's to answer or not, and
			 * the tree is not removed from under a mount anyway
			 */
			if (sub >= 0)
				r = walk(t, sub, NULL);
			else if (errno != EXDEV)
				t->partial = true;
		}
	}
	closedir(d);
	return r;
}

static int cmp(const void *a, const void *b)
{
	const struct iso_devino *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

int tree_treeid_build(struct tree_treeid *t, const char *path, const char *const *skip)
{
	struct stat st;
	int fd, r;

	*t = (struct tree_treeid){ 0 };
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	t->root_dev = st.st_dev;
	t->root_ino = st.st_ino;
	r = push(t, &st);
	if (r == 0)
		r = walk(t, fd, skip);
	else
		close(fd);
	if (r < 0) {
		tree_treeid_free(t);
		return r;
	}
	qsort(t->v, t->n, sizeof(*t->v), cmp);
	return 0;
}

bool tree_treeid_on_dev(const struct tree_treeid *t, dev_t dev)
{
	return dev == t->root_dev || (t->alias_dev && dev == t->alias_dev);
}

bool tree_treeid_has(const struct tree_treeid *t, dev_t dev, ino_t ino)
{
	struct iso_devino k = { t->alias_dev && dev == t->alias_dev ? t->root_dev : dev, ino };

	return t->n && bsearch(&k, t->v, t->n, sizeof(*t->v), cmp);
}

void tree_treeid_free(struct tree_treeid *t)
{
	free(t->v);
	*t = (struct tree_treeid){ 0 };
}
