// SPDX-License-Identifier: MIT
/* A tree's size for `isorun ls`, as du -x would count it, within bounds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/nowait.h"
#include "tree/trees.h"

/* a listing must not take as long as a removal */
#define SIZE_MAX_ENTRIES 200000UL
#define SIZE_MAX_DEPTH	 64

struct walk {
	dev_t dev;
	unsigned long entries;
	uint64_t bytes;
	bool partial;
};

/* Takes fd over. */
static void walk(struct walk *w, int fd, int depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;

	if (!d) {
		close(fd);
		w->partial = true;
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->entries > SIZE_MAX_ENTRIES) {
			w->partial = true;
			break;
		}
		if (iso_stat_cached(dirfd(d), de->d_name, AT_SYMLINK_NOFOLLOW, &st) < 0) {
			if (errno != ENOENT)
				w->partial = true;
			continue;
		}
		/* another mount is not the tree's to count (nor gc's to remove) */
		if (st.st_dev != w->dev)
			continue;
		w->bytes += (uint64_t)st.st_blocks * 512;
		if (!S_ISDIR(st.st_mode))
			continue;
		if (depth >= SIZE_MAX_DEPTH) {
			w->partial = true;
			continue;
		}
		sub = iso_open_dir_here(dirfd(d), de->d_name);
		if (sub < 0) {
			w->partial = true;
			continue;
		}
		walk(w, sub, depth + 1);
	}
	closedir(d);
}

uint64_t tree_size(int fd, bool *partial)
{
	struct walk w = { 0 };
	struct stat st;
	int dup_fd;

	*partial = true;
	if (fstat(fd, &st) < 0)
		return 0;
	w.dev = st.st_dev;
	w.bytes = (uint64_t)st.st_blocks * 512;
	/* a fresh description: readdir's position must not be shared with the caller's fd */
	dup_fd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (dup_fd < 0)
		return w.bytes;
	walk(&w, dup_fd, 1);
	*partial = w.partial;
	return w.bytes;
}
