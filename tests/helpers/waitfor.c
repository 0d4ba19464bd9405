// SPDX-License-Identifier: MIT
/*
 * waitfor [-t SECONDS] [-r READY] PATH
 *
 * Exits 0 as soon as PATH exists.  "Exists" means the name is there (lstat()):
 * a symlink counts even when its target does not exist, because what is
 * watched is the name in its directory.  No polling: an inotify watch on the
 * parent directory (IN_CREATE | IN_MOVED_TO) is added first and PATH checked
 * after that, so a creation between the two is never missed; the timeout is a
 * timerfd.  SECONDS (default 30) may have a fraction ("0.5"); 0 checks once.
 *
 * -r READY: READY is created once PATH is watched (and was not there): whoever
 * waits for READY knows this program runs, past any exec that led to it.
 *
 * Exits 1 with "waitfor: timed out waiting for 'PATH'" on timeout, and 1 with a
 * message when the parent directory does not exist or goes away.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#define PROG	    "waitfor"
#define USAGE	    PROG " [-t SECONDS] [-r READY] PATH"
#define MAX_SECONDS 31536000.0 /* a year */
#include "common.h"

static double parse_seconds(const char *s)
{
	char *end;
	double v;

	if (*s < '0' || *s > '9')
		usage();
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0 || v > MAX_SECONDS)
		usage();
	return v;
}

/* Exits 0 when PATH exists. */
static void check(const char *path)
{
	struct stat st;

	if (lstat(path, &st) == 0)
		exit(0);
	if (errno != ENOENT && errno != ENOTDIR)
		die("lstat", path);
}

int main(int argc, char **argv)
{
	double secs = 30;
	struct itimerspec its = { 0 };
	char *dcopy, *dir, evbuf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const char *path, *ready = NULL;
	struct pollfd pfd[2];
	int opt, ifd, tfd;

	while ((opt = getopt(argc, argv, "+t:r:")) != -1) {
		switch (opt) {
		case 't':
			secs = parse_seconds(optarg);
			break;
		case 'r':
			ready = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc - optind != 1 || argv[optind][0] == '\0')
		usage();
	path = argv[optind];

	dcopy = strdup(path);
	if (!dcopy)
		die("strdup", path);
	dir = dirname(dcopy);

	ifd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (ifd < 0)
		die("inotify_init1", path);
	if (inotify_add_watch(ifd, dir,
			      IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF |
				      IN_ONLYDIR) < 0)
		die("inotify_add_watch", dir);
	check(path);
	if (ready) {
		int fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0)
			die("create", ready);
		close(fd);
	}

	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (tfd < 0)
		die("timerfd_create", path);
	its.it_value.tv_sec = (time_t)secs;
	its.it_value.tv_nsec = (long)((secs - (double)its.it_value.tv_sec) * 1e9);
	if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1; /* an all-zero value would disarm the timer */
	if (timerfd_settime(tfd, 0, &its, NULL) < 0)
		die("timerfd_settime", path);

	pfd[0] = (struct pollfd){ .fd = ifd, .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll", path);
		}
		if (pfd[0].revents) {
			int gone = 0;

			for (;;) {
				ssize_t n = read(ifd, evbuf, sizeof(evbuf));

				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0 && errno == EAGAIN)
					break;
				if (n <= 0)
					die("read inotify events for", dir);
				for (char *p = evbuf; p < evbuf + n;) {
					const struct inotify_event *ev = (const void *)p;

					if (ev->mask & (IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF))
						gone = 1;
					p += sizeof(*ev) + ev->len;
				}
			}
			check(path);
			if (gone) {
				fprintf(stderr,
					PROG ": directory '%s' went away while waiting for '%s'\n",
					dir, path);
				return 1;
			}
		}
		if (pfd[1].revents) {
			check(path);
			fprintf(stderr, PROG ": timed out waiting for '%s'\n", path);
			return 1;
		}
	}
}
