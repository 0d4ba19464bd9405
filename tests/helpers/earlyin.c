// SPDX-License-Identifier: MIT
/*
 * earlyin [-f] DIR PIDFILE
 *
 * An outside process that walks into a tree as soon as it exists, before its
 * shield: it watches DIR (a user directory of trees) for a new directory,
 * chdir()s into it and creates ".early" there (what isorun's "late-shield"
 * fault waits for), writes its pid to PIDFILE (relative to where it started),
 * then holds that cwd until stdin reaches EOF or SIGTERM/SIGINT arrives.
 * PIDFILE.watching appears once DIR is watched.  With -f it holds ".early"
 * open instead, its cwd back where it started.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include <sys/inotify.h>
#include <unistd.h>

#define PROG  "earlyin"
#define USAGE PROG " [-f] DIR PIDFILE"
#include "common.h"

/* The first directory made in `in`'s watched directory whose name does not start with '.'. */
static void enter_first_new(int in, int dirfd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n <= 0)
			die("read", "inotify");
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *ev = (const void *)(buf + off);
			off += (ssize_t)sizeof(*ev) + ev->len;
			if (!(ev->mask & IN_ISDIR) || !ev->len || ev->name[0] == '.')
				continue;
			if (fchdir(dirfd) < 0 || chdir(ev->name) < 0)
				die("chdir", ev->name);
			return;
		}
	}
}

int main(int argc, char **argv)
{
	int startdir, dirfd, in, fd;
	bool hold_fd = argc == 4 && !strcmp(argv[1], "-f");

	argv += hold_fd;
	argc -= hold_fd;
	if (argc != 3 || argv[1][0] == '\0' || argv[2][0] == '\0')
		usage();
	exit_on_stop_signals();
	startdir = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	dirfd = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	in = inotify_init1(IN_CLOEXEC);
	if (startdir < 0 || dirfd < 0 || in < 0)
		die("open", argv[1]);
	if (inotify_add_watch(in, argv[1], IN_CREATE | IN_ONLYDIR) < 0)
		die("inotify_add_watch", argv[1]);
	{
		char ready[4096];
		snprintf(ready, sizeof(ready), "%s.watching", argv[2]);
		write_pidfile(startdir, ready, die);
	}
	enter_first_new(in, dirfd);
	close(in);
	close(dirfd);
	fd = open(".early", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		die("create", ".early");
	if (!hold_fd)
		close(fd);
	else if (fchdir(startdir) < 0)
		die("fchdir", "back");
	write_pidfile(startdir, argv[2], die);
	close(startdir);
	wait_stdin_eof(true);
}
