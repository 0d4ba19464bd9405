/* SPDX-License-Identifier: MIT */
/*
 * Plumbing shared by the test helpers.  Each helper is built from its one .c
 * file (no library to link), so everything here is static; the ones a helper
 * does not use are marked unused rather than warned about.
 *
 * Before including this, a helper defines
 *
 *	PROG	its name, the prefix of every message ("PROG: ...")
 *	USAGE	its usage line(s) without "usage: " and the final newline
 */
#ifndef HELPERS_COMMON_H
#define HELPERS_COMMON_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef PROG
#error "define PROG before including common.h"
#endif
#ifndef USAGE
#error "define USAGE before including common.h"
#endif

/* Exit status 2 for a bad command line, apart from 1 for a failure. */
static void __attribute__((unused, noreturn)) usage(void)
{
	fputs("usage: " USAGE "\n", stderr);
	exit(2);
}

/* "PROG: WHAT 'OBJ': strerror(ERRNUM)" on stderr, or "PROG: WHAT: ..." without OBJ. */
static void __attribute__((unused)) print_error(int errnum, const char *what, const char *obj)
{
	if (obj)
		fprintf(stderr, PROG ": %s '%s': %s\n", what, obj, strerror(errnum));
	else
		fprintf(stderr, PROG ": %s: %s\n", what, strerror(errnum));
}

/* For errors that come with their own number instead of errno (libseccomp). */
static void __attribute__((unused, noreturn))
die_errnum(int errnum, const char *what, const char *obj)
{
	print_error(errnum, what, obj);
	exit(1);
}

static void __attribute__((unused, noreturn)) die(const char *what, const char *obj)
{
	die_errnum(errno, what, obj);
}

/*
 * A failure handler for the writers below: called with errno set, it reports
 * "WHAT 'OBJ'" and does not return.  die() is one; a helper whose stderr may
 * be gone by then (daemonize) passes its own.
 */
typedef void fail_fn(const char *what, const char *obj);

/*
 * Returns 0, or -1 with errno set.  Short writes and EINTR are retried; so is
 * EAGAIN, after poll(), since a test may hand over a non-blocking pipe.
 */
static int __attribute__((unused)) write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = fd, .events = POLLOUT };

			if (poll(&pfd, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Write DATA to PATH (relative to DIRFD) through PATH.tmp + rename(), so that
 * a test waiting for PATH to appear never reads it empty or half-written.  On
 * failure PATH.tmp is removed and FAIL called.
 */
static void __attribute__((unused))
write_atomic(int dirfd, const char *path, const char *data, fail_fn *fail)
{
	char tmp[PATH_MAX];
	const char *what;
	int fd, n, e;

	n = snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		fail("open", path);
		return;
	}
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		fail("open", tmp);
		return;
	}
	what = "write";
	if (write_all(fd, data, strlen(data)) < 0)
		goto err;
	what = "close";
	n = close(fd);
	fd = -1;
	if (n < 0)
		goto err;
	what = "rename";
	if (renameat(dirfd, tmp, dirfd, path) < 0)
		goto err;
	return;
err:
	e = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(dirfd, tmp, 0);
	errno = e;
	fail(what, tmp);
}

/* "PID\n", the readiness signal of most helpers. */
static void __attribute__((unused)) write_pidfile(int dirfd, const char *path, fail_fn *fail)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	write_atomic(dirfd, path, buf, fail);
}

/* A decimal number in [MIN, MAX], digits only (no sign, no space), or usage(). */
static unsigned long __attribute__((unused))
parse_ulong(const char *s, unsigned long min, unsigned long max)
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

static void __attribute__((unused)) set_signal(int sig, void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0)
		die("sigaction", strsignal(sig));
}

static void __attribute__((unused)) on_stop(int sig)
{
	_exit(0);
}

/* A holder's stop signals end it with status 0, like EOF on its stdin. */
static void __attribute__((unused)) exit_on_stop_signals(void)
{
	set_signal(SIGTERM, on_stop);
	set_signal(SIGINT, on_stop);
}

/*
 * Exit 0 once stdin reaches EOF: a test ends a holder by closing the pipe.
 * Without a readable stdin wait for a stop signal alone: STDIN_OPEN is false
 * when the caller found fd 0 closed (and may have put /dev/null there since,
 * which would read as EOF at once); a closed fd 0 also reads as EBADF.
 */
static void __attribute__((unused, noreturn)) wait_stdin_eof(bool stdin_open)
{
	while (stdin_open) {
		char buf[512];
		ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));

		if (r == 0)
			exit(0);
		if (r < 0 && errno == EBADF)
			break;
		if (r < 0 && errno != EINTR)
			die("read", "stdin");
	}
	for (;;)
		pause();
}

#endif /* HELPERS_COMMON_H */
