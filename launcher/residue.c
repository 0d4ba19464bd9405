// SPDX-License-Identifier: MIT
#include "launcher/residue.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int iso_snapshot_take(const char *dir, struct iso_snapshot *s, struct iso_err *e)
{
	size_t cap = 0;
	int top, r = 0;

	*s = (struct iso_snapshot){ .dir = strdup(dir) };
	top = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0)
		return iso_err_set(e, errno, "--watch: open '%s'", dir);
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
		fd = openat(top, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue; /* unreadable or gone: its entries are simply not watched */
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
		return iso_err_set(e, -r, "--watch: read '%s'", dir);
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
