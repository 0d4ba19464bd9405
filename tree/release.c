// SPDX-License-Identifier: MIT
#include "tree/release.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "tree/holders.h"

int tree_release_watch(struct tree_release *r, int in, int top_fd, struct iso_err *e)
{
	char at[64];

	*r = (struct tree_release){ .in = in, .wd = -1 };
	if (in < 0) {
		r->in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
		if (r->in < 0)
			return iso_err_set(e, errno, "watch the tree's release");
		r->own = true;
	}
	/* the magic link leads to the descriptor's own inode, whatever is at the path now */
	snprintf(at, sizeof(at), "/proc/self/fd/%d", top_fd);
	r->wd = inotify_add_watch(r->in, at, IN_DELETE_SELF | IN_ONLYDIR);
	if (r->wd < 0) {
		int err = iso_err_set(e, errno, "watch the tree's release through %s", at);
		tree_release_close(r);
		return err;
	}
	return 0;
}

void tree_release_close(struct tree_release *r)
{
	if (r->own && r->in >= 0)
		close(r->in);
	*r = (struct tree_release){ .in = -1, .wd = -1 };
}

int tree_release_wait(const struct tree_release *r, int ms)
{
	int in = r->in;
	char buf[sizeof(struct inotify_event) + 256]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	long long end = (long long)iso_now_ms() + ms;
	struct pollfd p = { .fd = in, .events = POLLIN };

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));

		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);
			/* IN_IGNORED alone: the inode went without a delete (never on a removal) */
			if (ev->wd == r->wd && (ev->mask & (IN_DELETE_SELF | IN_IGNORED)))
				return 1;
			off += (ssize_t)sizeof(*ev) + ev->len;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		if (n >= 0)
			continue;
		long long left = end - (long long)iso_now_ms();
		if (left <= 0)
			return 0;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return -errno;
	}
}

/* Whether a loop device's backing file, "PATH" or "PATH (deleted)", is in the tree. */
static bool backed_by(int sys, const char *dev, const char *tree)
{
	char at[NAME_MAX + 32], file[PATH_MAX];
	size_t tlen = strlen(tree);
	ssize_t n;
	int fd;

	snprintf(at, sizeof(at), "%s/loop/backing_file", dev);
	fd = openat(sys, at, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, file, sizeof(file) - 1);
	close(fd);
	if (n <= 0)
		return false;
	file[n] = '\0';
	file[strcspn(file, "\n")] = '\0';
	return !strncmp(file, tree, tlen) && file[tlen] == '/';
}

size_t tree_release_loops(const char *tree, char *buf, size_t len)
{
	int sys = open("/sys/block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t n = 0, used = 0;
	struct dirent *de;
	DIR *d;

	buf[0] = '\0';
	if (sys < 0)
		return 0;
	d = fdopendir(sys);
	if (!d) {
		close(sys);
		return 0;
	}
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "loop", 4) || !backed_by(sys, de->d_name, tree))
			continue;
		if (used < len) {
			int w = snprintf(buf + used, len - used, "%s%s", n ? ", " : "", de->d_name);
			used += w > 0 ? (size_t)w : 0;
		}
		n++;
	}
	closedir(d);
	return n;
}

void tree_release_unnamed(const char *tree, const char *kernel_said, struct iso_err *e)
{
	char loops[160], *why = iso_err_text(e);
	size_t len = sizeof(e->msg);

	if (tree_release_loops(tree, loops, sizeof(loops)) > 0)
		snprintf(why, len, "%s: loop device %s is backed by a file in it (losetup -d)",
			 kernel_said, loops);
	else
		snprintf(
			why, len,
			"%s, and no process isorun can read holds it: a loop device, a mount of "
			"part of it, a descriptor in flight in a unix socket, or a process outside "
			"isorun's reach could",
			kernel_said);
}

/* The holder of what is left of a removed tree, by a scan of the links' text. */
static void name_remaining(const char *tree, dev_t disk, pid_t exclude, struct iso_err *e)
{
	struct tree_holder_query q = { .tree = tree, .exclude = exclude, .gone_dev = disk };
	struct tree_holder *h = NULL;
	struct iso_err d = { 0 };
	int n = tree_find_holders(&q, &h, NULL);
	size_t held = n > 0 ? tree_holders_split_outside(h, (size_t)n) : 0;

	if (held > 0) {
		const struct tree_holder *first = tree_holder_first(h, held);
		_cleanup_free_ char *cmd = iso_proc_cmdline(first->pid, 80);

		tree_holder_describe(first, held - (size_t)(first - h), cmd, &d);
		iso_err_set(e, 0, "still held after its removal: %s", d.msg);
	} else {
		tree_release_unnamed(tree,
				     "the kernel says the removed tree is still held (its top "
				     "was not freed)",
				     e);
	}
	if (n > 0)
		tree_holders_free(h, (size_t)n);
}

/*
 * The first wait is for the references that a run's end lets go of a moment
 * later (a mount namespace's copies, put from a workqueue); the second, after
 * the scan, for those the scan outlasted.
 */
#define RELEASE_MS	200
#define RELEASE_LATE_MS 1000

int tree_release_prove(const struct tree_release *r, const char *tree, dev_t disk, pid_t exclude,
		       struct iso_err *e)
{
	int k = tree_release_wait(r, RELEASE_MS);

	if (k != 0)
		return k;
	name_remaining(tree, disk, exclude, e);
	/* held for a second more, or the watch lost: what was seen stands */
	return tree_release_wait(r, RELEASE_LATE_MS) > 0;
}
