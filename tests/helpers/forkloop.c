// SPDX-License-Identifier: MIT
/*
 * forkloop [-w WIDTH] PIDFILE [MAX]
 *
 * A process that keeps moving, for tests that must catch a target whose pid
 * changes under them.  The first process writes its pid to PIDFILE atomically
 * (PIDFILE.tmp + rename) and then runs the loop
 *
 *	for (gen = 0; gen < MAX; gen++) { fork WIDTH children; parent exits; }
 *
 * and the processes of the last generation wait in pause() forever.  With the
 * default WIDTH 1 this is a running chain: at any instant there is usually one
 * live process, each generation a fresh pid, MAX (default 1000000)
 * generations long.  All generations share the first process's process group
 * and session, so `kill -KILL -- -PGID` stops every one of them at once.  If
 * fork() fails the process reports it and exits 1, which ends its lineage.
 *
 * -w WIDTH (1..64) makes a small tree instead: every process of a generation
 * forks WIDTH children and exits.  Bound (it can never fork-bomb the machine):
 * with WIDTH > 1 the depth is capped at the largest d with WIDTH^d <= 64
 * (MAX_LEAVES), and MAX if that is smaller, so the leaves, at most 64, pause;
 * fewer than 2 * 64 processes are ever alive at once and fewer than 128 forks
 * are made in all (WIDTH 2: 2 + 4 + ... + 64 = 126, leaving 64 leaves;
 * WIDTH 3: 3 + 9 + 27, 27 leaves; WIDTH 64: 64 leaves).  WIDTH 1 is the chain
 * above: one live process at a time, MAX generations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG	   "forkloop"
#define MAX_LEAVES 64

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [-w WIDTH] PIDFILE [MAX]\n");
	exit(2);
}

static void __attribute__((noreturn)) die(const char *what, const char *obj)
{
	int errnum = errno;

	if (obj)
		fprintf(stderr, PROG ": %s '%s': %s\n", what, obj, strerror(errnum));
	else
		fprintf(stderr, PROG ": %s: %s\n", what, strerror(errnum));
	exit(1);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Write DATA to PATH (relative to DIRFD) through PATH.tmp + rename(). */
static void write_atomic(int dirfd, const char *path, const char *data)
{
	char tmp[PATH_MAX];
	const char *what;
	int fd, n, e;

	n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		die("open", path);
	}
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		die("open", tmp);
	what = "write";
	if (write_all(fd, data, strlen(data)) < 0)
		goto fail;
	what = "close";
	n = close(fd);
	fd = -1;
	if (n < 0)
		goto fail;
	what = "rename";
	if (renameat(dirfd, tmp, dirfd, path) < 0)
		goto fail;
	return;
fail:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
	errno = e;
	die(what, tmp);
}

static unsigned long parse_ulong(const char *s, unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		usage();
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	unsigned long width = 1, max = 1000000, gen;
	char buf[32];
	int opt;

	while ((opt = getopt(argc, argv, "w:")) != -1) {
		switch (opt) {
		case 'w':
			width = parse_ulong(optarg, 1, MAX_LEAVES);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || argc - optind > 2)
		usage();
	if (argc - optind == 2)
		max = parse_ulong(argv[optind + 1], 0, ULONG_MAX);

	if (width > 1) {
		unsigned long depth = 0, leaves = 1;

		while (leaves * width <= MAX_LEAVES) {
			leaves *= width;
			depth++;
		}
		if (depth < max)
			max = depth;
	}

	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	write_atomic(AT_FDCWD, argv[optind], buf);

	for (gen = 0; gen < max; gen++) {
		for (unsigned long i = 0; i < width; i++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork", NULL);
			if (pid == 0)
				goto next; /* the child carries on */
		}
		_exit(0);
next:;
	}

	for (;;)
		pause();
}
