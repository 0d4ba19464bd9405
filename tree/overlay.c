// SPDX-License-Identifier: MIT
/* What root's shield and an ordinary user's gate share: an overlay's end, its work directory. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "tree/overlay.h"

bool tree_overlay_ended(int in, int ms)
{
	struct pollfd p = { .fd = in, .events = POLLIN };
	char buf[sizeof(struct inotify_event) + NAME_MAX + 1]
		__attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);
			if (ev->mask & IN_UNMOUNT)
				return true;
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (n < 0 && poll(&p, 1, ms) <= 0)
			return false;
	}
}

/*
 * What overlayfs leaves in a volatile work directory, deepest first: removed by
 * name, without listing, before the general removal takes whatever else is there.
 */
static const char *const work_layout[] = { "work/incompat/volatile/dirty",
					   "work/incompat/volatile",
					   "work/incompat",
					   "work/work",
					   "work",
					   NULL };

/* One step of the layout below `name`, by path from dir_fd: no descriptor is needed. */
static int at(char *buf, size_t len, const char *name, const char *rel)
{
	return snprintf(buf, len, "%s/%s", name, rel) < (int)len ? 0 : -ENAMETOOLONG;
}

bool tree_overlay_real_dirs(int dir_fd, const char *path, bool last)
{
	char prefix[PATH_MAX];
	size_t len = strlen(path);
	struct stat st;

	if (len >= sizeof(prefix))
		return false;
	memcpy(prefix, path, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (prefix[i] != '/' && (prefix[i] != '\0' || !last))
			continue;
		prefix[i] = '\0';
		if (fstatat(dir_fd, prefix, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISDIR(st.st_mode))
			return false;
		prefix[i] = path[i];
	}
	return true;
}

static void remove_layout(int dir_fd, const char *name)
{
	char path[PATH_MAX];

	for (size_t i = 0; work_layout[i]; i++)
		if (at(path, sizeof(path), name, work_layout[i]) == 0 &&
		    tree_overlay_real_dirs(dir_fd, path, false))
			(void)unlinkat(dir_fd, path, i ? AT_REMOVEDIR : 0);
}

/*
 * By path from dir_fd, never a descriptor of its own: a run at its descriptor
 * limit still removes it.  A command of the user's can write the user
 * directory (and plant a link in a leftover it names like ours): every step of
 * every path is looked at first, and one that is not a real directory stops it.
 */
bool tree_overlay_remove_workdir(int dir_fd, const char *name)
{
	char path[PATH_MAX];

	remove_layout(dir_fd, name);
	if (unlinkat(dir_fd, name, AT_REMOVEDIR) == 0)
		return true;
	/*
	 * overlayfs makes its directories mode 0: root passes them, their owner
	 * opens them up first (an ordinary user's overlay, tree/gate.h), outside in.
	 */
	for (size_t i = ELEMENTSOF(work_layout) - 2; i > 0; i--) {
		struct stat st;

		if (at(path, sizeof(path), name, work_layout[i]) < 0)
			break;
		if (fstatat(dir_fd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT)
			continue;
		if (!tree_overlay_real_dirs(dir_fd, path, true) ||
		    fchmodat(dir_fd, path, 0700, 0) < 0)
			break;
	}
	remove_layout(dir_fd, name);
	return unlinkat(dir_fd, name, AT_REMOVEDIR) == 0;
}
