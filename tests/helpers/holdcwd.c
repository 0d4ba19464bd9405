// SPDX-License-Identifier: MIT
/*
 * holdcwd DIR PIDFILE
 *
 * Holds a working directory inside a tree from outside: chdir(DIR), write the
 * pid to PIDFILE atomically (PIDFILE.tmp + rename; a relative PIDFILE is taken
 * relative to the directory holdcwd was started in, not to DIR), then block
 * until stdin reaches EOF or SIGTERM/SIGINT arrives (exit 0 either way).  With
 * stdin closed it waits for the signal alone.  While it waits it holds no fd
 * of its own, only the working directory (and the fds it inherited).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG "holdcwd"

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " DIR PIDFILE\n");
	exit(2);
}

static void __attribute__((noreturn)) die(const char *what, const char *obj)
{
	int errnum = errno;

	fprintf(stderr, PROG ": %s '%s': %s\n", what, obj, strerror(errnum));
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

static void on_stop(int sig)
{
	_exit(0);
}

static void set_signal(int sig, void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0)
		die("sigaction", strsignal(sig));
}

int main(int argc, char **argv)
{
	char buf[512];
	int startdir;

	if (argc != 3 || argv[1][0] == '\0' || argv[2][0] == '\0')
		usage();

	set_signal(SIGTERM, on_stop);
	set_signal(SIGINT, on_stop);

	startdir = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (startdir < 0)
		die("open", ".");
	if (chdir(argv[1]) < 0)
		die("chdir", argv[1]);
	snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	write_atomic(startdir, argv[2], buf);
	close(startdir);

	for (;;) {
		ssize_t r = read(STDIN_FILENO, buf, sizeof(buf));

		if (r == 0)
			return 0;
		if (r < 0 && errno == EBADF)
			break;
		if (r < 0 && errno != EINTR)
			die("read", "stdin");
	}
	for (;;)
		pause();
}
