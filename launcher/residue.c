// SPDX-License-Identifier: MIT
#include "launcher/residue.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/nowait.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int push(struct sup_snapshot *s, size_t *cap, char *path)
{
	if (!path)
		return -ENOMEM;
	if (s->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		char **nv = realloc(s->paths, nc * sizeof(*nv));
		if (!nv) {
			free(path);
			return -ENOMEM;
		}
		s->paths = nv;
		*cap = nc;
	}
	s->paths[s->n++] = path;
	return 0;
}

/* Whether rel, a mount in dir, is isorun's own tree (its shield): not a gap, nor residue. */
static bool own_mount(const char *dir, const char *rel, const char *own)
{
	char canon[PATH_MAX], full[PATH_MAX * 2];
	size_t len;

	if (!own || !realpath(dir, canon))
		return false;
	snprintf(full, sizeof(full), "%s/%s", canon, rel);
	len = strlen(full);
	if (len && full[len - 1] == '/')
		full[len - 1] = '\0';
	return !strcmp(full, own);
}

/*
 * A directory of the walk, or -1 with what it means for the walk noted: gone
 * meanwhile is nothing to watch; unreadable, or another mount (its file system
 * may be one the command answers for: not entered), is a part not seen.
 */
static int open_part(int top, const char *dir, const char *rel, bool first, const char *own,
		     struct sup_snapshot *s)
{
	int fd = first ? openat(top, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
		       : iso_open_dir_here(top, rel);

	if (fd >= 0 || s->unmeasurable[0])
		return fd;
	if (errno == EXDEV) {
		if (!own_mount(dir, rel, own))
			snprintf(s->unmeasurable, sizeof(s->unmeasurable),
				 "'%s' is a mount point: not looked into", rel);
	} else if (errno != ENOENT && errno != ENOTDIR) {
		snprintf(s->unmeasurable, sizeof(s->unmeasurable), "'%s' could not be read: %s",
			 rel, strerror(errno));
	}
	return -1;
}

static int take(const char *dir, const char *own, struct sup_snapshot *s, struct iso_err *e)
{
	size_t cap = 0;
	int top, r = 0;
	struct stat st;

	*s = (struct sup_snapshot){ .dir = strdup(dir) };
	top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return iso_err_set(e, errno, "open '%s'", dir);
	if (fstat(top, &st) < 0) {
		r = -errno;
		close(top);
		return iso_err_set(e, -r, "stat '%s'", dir);
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	/* breadth-first over the list itself: entry i is a directory to expand if it is one */
	for (ssize_t i = -1; r == 0; i++) {
		const char *rel;
		int fd;
		DIR *d;
		struct dirent *de;

		if (i >= 0 && (size_t)i >= s->n)
			break;
		rel = i < 0 ? "." : s->paths[i];
		if (i >= 0 && rel[strlen(rel) - 1] != '/')
			continue;
		fd = open_part(top, dir, rel, i < 0, own, s);
		if (fd < 0)
			continue;
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			continue;
		}
		while ((de = readdir(d))) {
			char *p = NULL;
			bool isdir = de->d_type == DT_DIR;
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (i < 0 && !strcmp(de->d_name, ".git"))
				continue;
			if (s->n >= SUP_RESIDUE_MAX) {
				s->truncated = true;
				break;
			}
			/* directories end in '/', so "a/" sorts and compares apart from "a" */
			if (asprintf(&p, "%s%s%s", i < 0 ? "" : rel, de->d_name, isdir ? "/" : "") <
			    0)
				p = NULL;
			r = push(s, &cap, p);
			if (r < 0)
				break;
		}
		closedir(d);
	}
	close(top);
	if (r < 0)
		return iso_err_set(e, -r, "read '%s'", dir);
	if (s->truncated)
		snprintf(s->unmeasurable, sizeof(s->unmeasurable), "more than %d entries",
			 SUP_RESIDUE_MAX);
	if (s->n)
		qsort(s->paths, s->n, sizeof(char *), cmp_str);
	return 0;
}

static bool has(const struct sup_snapshot *s, const char *p)
{
	return s->n && bsearch(&p, s->paths, s->n, sizeof(char *), cmp_str) != NULL;
}

void sup_snapshot_free(struct sup_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->dir);
	*s = (struct sup_snapshot){ 0 };
}

int sup_snapshot_take(const char *dir, struct sup_snapshot *s, struct iso_err *e)
{
	return take(dir, NULL, s, e);
}

int sup_snapshot_compare(const struct sup_snapshot *before, struct sup_snapshot *after,
			 const char *own, const char ***ret, size_t *ret_n, struct iso_err *e)
{
	struct iso_err sub = { 0 };

	*ret = NULL;
	*ret_n = 0;
	/* the limit is the larger walk's: say it even when the other failed */
	if (before->unmeasurable[0])
		return iso_err_set(e, 0, "%s", before->unmeasurable);
	if (take(before->dir, own, after, &sub) < 0) {
		if (sub.errnum == ENOENT)
			return iso_err_set(e, 0, "the directory was removed during the run");
		/* strerror in the text: errno 0 read "Success" here before (no suffix dropped) */
		return iso_err_set(e, 0, "the directory could not be read after the run: %s",
				   strerror(sub.errnum));
	}
	if (after->dev != before->dev || after->ino != before->ino)
		return iso_err_set(e, 0, "the directory was replaced during the run");
	if (after->unmeasurable[0])
		return iso_err_set(e, 0, "%s", after->unmeasurable);
	if (sup_snapshot_added(before, after, ret, ret_n) < 0)
		return iso_err_set(e, 0, "out of memory comparing the walks");
	return 0;
}

int sup_snapshot_added(const struct sup_snapshot *before, const struct sup_snapshot *after,
		       const char ***ret, size_t *ret_n)
{
	const char **out = malloc((after->n ? after->n : 1) * sizeof(*out));
	size_t n = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < after->n; i++)
		if (!has(before, after->paths[i]))
			out[n++] = after->paths[i];
	*ret = out;
	*ret_n = n;
	return 0;
}

bool sup_glob_ignores(const char *glob, const char *path)
{
	char g[PATH_MAX], p[PATH_MAX];
	size_t gl, pl;
	bool dir_only, is_dir;
	const char *base;

	snprintf(g, sizeof(g), "%s", glob);
	snprintf(p, sizeof(p), "%s", path);
	gl = strlen(g);
	pl = strlen(p);
	dir_only = gl > 1 && g[gl - 1] == '/';
	is_dir = pl && p[pl - 1] == '/';
	if (dir_only)
		g[--gl] = '\0';
	if (is_dir)
		p[--pl] = '\0';
	if (dir_only && !is_dir)
		return false;
	if (strchr(g, '/'))
		return fnmatch(g[0] == '/' ? g + 1 : g, p, FNM_PATHNAME) == 0;
	base = strrchr(p, '/');
	return fnmatch(g, base ? base + 1 : p, 0) == 0;
}

/* The index of the new directory holding added[i], or SIZE_MAX: its parent was there before. */
static size_t parent_of(const char *const *added, size_t n, size_t i)
{
	char p[PATH_MAX];
	size_t l;
	const char *key = p;
	const char **hit;

	snprintf(p, sizeof(p), "%s", added[i]);
	l = strlen(p);
	if (l && p[l - 1] == '/')
		p[--l] = '\0';
	while (l && p[l - 1] != '/')
		p[--l] = '\0';
	if (!l)
		return SIZE_MAX;
	hit = bsearch(&key, added, n, sizeof(*added), cmp_str);
	return hit ? (size_t)(hit - added) : SIZE_MAX;
}

/* What sup_residue_sort() works out per entry. */
struct sort_state {
	size_t *parent; /* the new directory that holds it, or SIZE_MAX */
	bool *ignored;	/* by a rule of its own or of a new directory above it */
	bool *live;	/* residue itself, or a directory that holds some */
	bool *full;	/* a directory with entries */
};

static void sort_state_free(struct sort_state *st)
{
	free(st->parent);
	free(st->ignored);
	free(st->live);
	free(st->full);
}

int sup_residue_sort(const char *const *added, size_t n, const char *const *by, bool *residue,
		     bool *shown)
{
	size_t m = n ? n : 1;
	struct sort_state st = { .parent = malloc(m * sizeof(size_t)),
				 .ignored = calloc(m, sizeof(bool)),
				 .live = calloc(m, sizeof(bool)),
				 .full = calloc(m, sizeof(bool)) };

	if (!st.parent || !st.ignored || !st.live || !st.full) {
		sort_state_free(&st);
		return -ENOMEM;
	}
	/* sorted: a directory comes before its contents */
	for (size_t i = 0; i < n; i++) {
		size_t p = st.parent[i] = parent_of(added, n, i);

		shown[i] = by[i] && (p == SIZE_MAX || !st.ignored[p]);
		st.ignored[i] = by[i] || (p != SIZE_MAX && st.ignored[p]);
		if (p != SIZE_MAX)
			st.full[p] = true;
	}
	/* backwards: the contents before the directory that holds them */
	for (size_t i = n; i-- > 0;) {
		bool is_dir = added[i][strlen(added[i]) - 1] == '/';

		if (!st.ignored[i] && (!is_dir || !st.full[i]))
			st.live[i] = true;
		if (st.live[i] && st.parent[i] != SIZE_MAX)
			st.live[st.parent[i]] = true;
	}
	for (size_t i = 0; i < n; i++)
		residue[i] = st.live[i] && st.parent[i] == SIZE_MAX;
	sort_state_free(&st);
	return 0;
}
