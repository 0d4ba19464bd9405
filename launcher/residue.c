// SPDX-License-Identifier: MIT
#include "launcher/residue.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

static int push(struct iso_snapshot *s, size_t *cap, char *path)
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
		     struct iso_snapshot *s)
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

static int take(const char *dir, const char *own, struct iso_snapshot *s, struct iso_err *e)
{
	size_t cap = 0;
	int top, r = 0;
	struct stat st;

	*s = (struct iso_snapshot){ .dir = strdup(dir) };
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
			if (s->n >= ISO_RESIDUE_MAX) {
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
			 ISO_RESIDUE_MAX);
	if (s->n)
		qsort(s->paths, s->n, sizeof(char *), cmp_str);
	return 0;
}

static bool has(const struct iso_snapshot *s, const char *p)
{
	return s->n && bsearch(&p, s->paths, s->n, sizeof(char *), cmp_str) != NULL;
}

int iso_snapshot_new(const struct iso_snapshot *before, const struct iso_snapshot *after,
		     const char ***ret, size_t *ret_n)
{
	const char **out = malloc((after->n ? after->n : 1) * sizeof(*out));
	const char *last_new_dir = NULL;
	size_t n = 0;

	if (!out)
		return -ENOMEM;
	for (size_t i = 0; i < after->n; i++) {
		const char *p = after->paths[i];
		/* sorted, so the contents of a new directory follow it directly */
		if (last_new_dir && !strncmp(p, last_new_dir, strlen(last_new_dir)))
			continue;
		if (has(before, p))
			continue;
		out[n++] = p;
		if (p[strlen(p) - 1] == '/')
			last_new_dir = p;
	}
	*ret = out;
	*ret_n = n;
	return 0;
}

void iso_snapshot_free(struct iso_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->paths[i]);
	free(s->paths);
	free(s->dir);
	*s = (struct iso_snapshot){ 0 };
}

int iso_snapshot_take(const char *dir, struct iso_snapshot *s, struct iso_err *e)
{
	return take(dir, NULL, s, e);
}

int iso_snapshot_compare(const struct iso_snapshot *before, struct iso_snapshot *after,
			 const char *own, const char ***ret, size_t *ret_n, char *why, size_t len)
{
	struct iso_err e = { 0 };

	*ret = NULL;
	*ret_n = 0;
	why[0] = '\0';
	/* the limit is the larger walk's: say it even when the other failed */
	if (before->unmeasurable[0]) {
		snprintf(why, len, "%s", before->unmeasurable);
		return 0;
	}
	if (take(before->dir, own, after, &e) < 0) {
		if (e.errnum == ENOENT)
			snprintf(why, len, "the directory was removed during the run");
		else
			snprintf(why, len, "the directory could not be read after the run: %s",
				 strerror(e.errnum));
		return 0;
	}
	if (after->dev != before->dev || after->ino != before->ino)
		snprintf(why, len, "the directory was replaced during the run");
	else if (after->unmeasurable[0])
		snprintf(why, len, "%s", after->unmeasurable);
	if (why[0])
		return 0;
	return iso_snapshot_new(before, after, ret, ret_n);
}
