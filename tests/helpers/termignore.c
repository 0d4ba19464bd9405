// SPDX-License-Identifier: MIT
/*
 * termignore [PIDFILE]
 *
 * A process that only SIGKILL can end: it sets SIG_IGN for SIGTERM, SIGINT,
 * SIGHUP and SIGQUIT and, so that no --stop-signal choice ends it early,
 * for every other signal whose default action is to terminate and that is
 * not raised by a fault (USR1, USR2, PIPE, ALRM, VTALRM, PROF, IO, PWR,
 * XCPU, XFSZ, STKFLT and the real-time signals).  Once it ignores them it
 * writes its pid to PIDFILE atomically (PIDFILE.tmp + rename), or without
 * PIDFILE prints "ready\n" on stdout, and then waits in pause() forever.
 * SIGSTOP still stops it; SIGKILL kills it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "termignore"

static const int ignored[] = {
	SIGTERM,   SIGINT,  SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE,	  SIGALRM,
	SIGVTALRM, SIGPROF, SIGIO,  SIGPWR,  SIGXCPU, SIGXFSZ, SIGSTKFLT,
};

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " [PIDFILE]\n");
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

static void ignore(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	char name[16];

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0) {
		snprintf(name, sizeof(name), "%d", sig);
		die("sigaction SIG_IGN", name);
	}
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

static void write_pidfile(const char *path)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	write_atomic(AT_FDCWD, path, buf);
}

int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && (argv[1][0] == '\0' || argv[1][0] == '-')))
		usage();

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		ignore(ignored[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		ignore(sig);

	if (argc == 2) {
		write_pidfile(argv[1]);
	} else {
		if (fputs("ready\n", stdout) == EOF || fflush(stdout) == EOF)
			die("write", "stdout");
	}

	for (;;)
		pause();
}
