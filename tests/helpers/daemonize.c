// SPDX-License-Identifier: MIT
/*
 * daemonize [-n] PIDFILE [CMD ARG...]
 *
 * A classic double-forking daemon, for tests of what outlives a command:
 *
 *   original --fork--> intermediate --setsid, fork--> grandchild (the daemon)
 *
 * The intermediate child exits right after the second fork, so the daemon is
 * reparented to the nearest child subreaper (or PID 1) and lives in a session
 * of its own without being its leader (it can never reacquire a terminal).
 * The daemon writes its pid to PIDFILE atomically (PIDFILE.tmp + rename),
 * then execvp()s CMD, or with no CMD waits in pause() forever.  The working
 * directory is deliberately left alone (no chdir("/")): tests decide what the
 * daemon holds.
 *
 * -n: before it writes the pidfile the daemon points fds 0, 1 and 2 at
 * /dev/null and closes every other fd it inherited (bats, for one, leaves its
 * TAP pipe open on fd 3), so it holds none of the caller's pipes.  Without -n
 * it keeps them all, which is how a test makes a leaked process hold isorun's
 * output pipes.
 *
 * Readiness: the original process reads a CLOEXEC pipe until EOF.  The daemon
 * sends 'P' once the pidfile is in place; its write end then closes by
 * execvp() (or explicitly, with no CMD).  On failure the daemon sends a status
 * byte and the error text instead.  So the original process exits 0 only when
 * the pidfile exists and CMD has been executed; 1 when setting up failed; 126
 * or 127 when CMD could not be executed (the pidfile is then removed again).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG  "daemonize"
#define USAGE PROG " [-n] PIDFILE [CMD ARG...]"
#include "common.h"

/* Status bytes on the readiness pipe. */
#define ST_PIDFILE  'P' /* pidfile written */
#define ST_SETUP    'E' /* setting up failed; error text follows */
#define ST_NOTFOUND 'N' /* execvp: not found; error text follows */
#define ST_NOEXEC   'X' /* execvp: other failure; error text follows */

static int status_fd = -1;

/*
 * In the daemon: send status byte and "daemonize: WHAT 'OBJ': strerror" up the
 * readiness pipe (stderr may already be /dev/null), then exit.  die() is for
 * the original process, where stderr is still the caller's.
 */
static void __attribute__((noreturn))
fail(char status, int errnum, const char *what, const char *obj)
{
	char msg[PATH_MAX + 256];
	int n;

	if (obj)
		n = snprintf(msg, sizeof(msg), "%c" PROG ": %s '%s': %s\n", status, what, obj,
			     strerror(errnum));
	else
		n = snprintf(msg, sizeof(msg), "%c" PROG ": %s: %s\n", status, what,
			     strerror(errnum));
	if (n > 0)
		write_all(status_fd, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
	_exit(status == ST_NOTFOUND ? 127 : status == ST_NOEXEC ? 126 : 1);
}

/* Keep our own fds off 0, 1, 2 so that -n cannot overwrite them. */
static int above_stdio(int fd)
{
	int nfd;

	if (fd > STDERR_FILENO)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	if (nfd < 0)
		die("fcntl F_DUPFD_CLOEXEC", "pipe");
	close(fd);
	return nfd;
}

/* write_pidfile()'s failure handler in the daemon. */
static void __attribute__((noreturn)) fail_setup(const char *what, const char *obj)
{
	fail(ST_SETUP, errno, what, obj);
}

static void __attribute__((noreturn)) run_daemon(const char *pidfile, char **cmd, bool devnull)
{
	char st = ST_PIDFILE;

	if (devnull) {
		/* Not O_CLOEXEC: the point is for 0, 1, 2 to be inherited. */
		int fd = open("/dev/null", O_RDWR);

		if (fd < 0)
			fail(ST_SETUP, errno, "open", "/dev/null");
		for (int i = STDIN_FILENO; i <= STDERR_FILENO; i++)
			if (dup2(fd, i) < 0)
				fail(ST_SETUP, errno, "dup2", "/dev/null");
		if (fd > STDERR_FILENO)
			close(fd);
		/* Everything else inherited, except the readiness pipe. */
		if (status_fd > STDERR_FILENO + 1 &&
		    close_range(STDERR_FILENO + 1, (unsigned int)status_fd - 1, 0) < 0)
			fail(ST_SETUP, errno, "close_range", "inherited fds");
		if (close_range((unsigned int)status_fd + 1, ~0U, 0) < 0)
			fail(ST_SETUP, errno, "close_range", "inherited fds");
	}

	write_pidfile(AT_FDCWD, pidfile, fail_setup);
	write_all(status_fd, &st, 1);

	if (cmd[0]) {
		execvp(cmd[0], cmd);
		fail(errno == ENOENT ? ST_NOTFOUND : ST_NOEXEC, errno, "execvp", cmd[0]);
	}

	close(status_fd);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	bool devnull = false;
	char buf[PATH_MAX + 512];
	size_t len = 0;
	int p[2], opt, wstatus, code;
	const char *pidfile;
	pid_t child;

	while ((opt = getopt(argc, argv, "+n")) != -1) {
		switch (opt) {
		case 'n':
			devnull = true;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc)
		usage();
	pidfile = argv[optind];

	if (pipe2(p, O_CLOEXEC) < 0)
		die("pipe2", NULL);
	p[0] = above_stdio(p[0]);
	p[1] = above_stdio(p[1]);
	status_fd = p[1];

	fflush(NULL);
	child = fork();
	if (child < 0)
		die("fork", NULL);
	if (child == 0) {
		pid_t gc;

		close(p[0]);
		if (setsid() < 0)
			fail(ST_SETUP, errno, "setsid", NULL);
		gc = fork();
		if (gc < 0)
			fail(ST_SETUP, errno, "fork", NULL);
		if (gc > 0)
			_exit(0);
		run_daemon(pidfile, argv + optind + 1, devnull);
	}

	close(p[1]);
	for (;;) {
		ssize_t n = read(p[0], buf + len, sizeof(buf) - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("read", "readiness pipe");
		if (n == 0 || (len += (size_t)n) == sizeof(buf) - 1)
			break;
	}
	close(p[0]);
	buf[len] = '\0';

	while (waitpid(child, &wstatus, 0) < 0) {
		if (errno != EINTR)
			die("waitpid", "intermediate child");
	}

	if (len == 1 && buf[0] == ST_PIDFILE)
		return 0;
	if (len == 0) {
		fprintf(stderr, PROG ": the daemon exited before it wrote '%s'\n", pidfile);
		return 1;
	}

	/* Error: [P] STATUS message */
	{
		const char *m = buf;

		if (*m == ST_PIDFILE) {
			m++;
			unlink(pidfile); /* names a process that is gone */
		}
		code = *m == ST_NOTFOUND ? 127 : *m == ST_NOEXEC ? 126 : 1;
		if (*m)
			m++;
		fputs(m, stderr);
	}
	return code;
}
