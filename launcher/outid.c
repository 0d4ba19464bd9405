// SPDX-License-Identifier: MIT
#include "launcher/outid.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/num.h"
#include "launcher/outfile.h"

struct out_id {
	int fd;	   /* fd:N, else -1 */
	bool file; /* dev and ino are known */
	dev_t dev;
	ino_t ino;
	char path[PATH_MAX]; /* canonical, for a file that does not exist yet; else "" */
};

/* The canonical path of a file to be made: its directory resolved, its name kept. */
static void new_file_path(const char *spec, struct out_id *id)
{
	char path[PATH_MAX], *slash, *base;
	_cleanup_free_ char *dir = NULL;

	if (snprintf(path, sizeof(path), "%s", spec) >= (int)sizeof(path) ||
	    !sup_outfile_resolve(path, sizeof(path)))
		return;
	slash = strrchr(path, '/');
	base = slash ? slash + 1 : path;
	if (slash == path)
		dir = realpath("/", NULL);
	else if (slash) {
		*slash = '\0';
		dir = realpath(path, NULL);
	} else
		dir = realpath(".", NULL);
	if (dir && snprintf(id->path, sizeof(id->path), "%s/%s", strcmp(dir, "/") ? dir : "",
			    base) >= (int)sizeof(id->path))
		id->path[0] = '\0';
}

static void identify(const char *spec, struct out_id *id)
{
	struct stat st;
	uint64_t n;

	*id = (struct out_id){ .fd = -1 };
	if (strncmp(spec, "fd:", 3) == 0) {
		if (iso_parse_u64(spec + 3, NULL, 0, INT_MAX, &n) < 0)
			return;
		id->fd = (int)n;
		if (fstat(id->fd, &st) < 0)
			return;
	} else if (stat(spec, &st) < 0) {
		if (errno == ENOENT)
			new_file_path(spec, id);
		return;
	}
	id->file = true;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
}

static bool same(const struct out_id *a, const struct out_id *b)
{
	if (a->fd >= 0 && a->fd == b->fd)
		return true;
	if (a->file && b->file)
		return a->dev == b->dev && a->ino == b->ino;
	return a->path[0] && strcmp(a->path, b->path) == 0;
}

int sup_outputs_distinct(const struct sup_output *outs, size_t n, struct iso_err *e)
{
	struct out_id *ids = calloc(n, sizeof(*ids));

	if (!ids)
		return iso_err_set(e, ENOMEM, "compare the outputs");
	for (size_t i = 0; i < n; i++)
		if (outs[i].spec)
			identify(outs[i].spec, &ids[i]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; outs[i].spec && j < n; j++)
			if (outs[j].spec && same(&ids[i], &ids[j])) {
				free(ids);
				return iso_err_set(e, 0,
						   "%s '%s' and %s '%s' are the same file: each "
						   "would overwrite the other; give them two files",
						   outs[i].opt, outs[i].spec, outs[j].opt,
						   outs[j].spec);
			}
	free(ids);
	return 0;
}
