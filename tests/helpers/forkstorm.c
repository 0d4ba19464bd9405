// SPDX-License-Identifier: MIT
/*
 * forkstorm MARKER [CAP]
 *
 * A bounded fork bomb for the process-ceiling tests.  Forks children that wait
 * (each ends itself after 10 s with alarm()) until fork() fails or CAP children
 * (default 1000) exist, then says on stderr how many it made and why it
 * stopped, creates MARKER, and waits for its stdin to become readable (data or
 * EOF: the test has counted) or 10 s, whichever comes first.  Exits 1 when a
 * fork was refused, 0 when it reached CAP (no ceiling held it).
 */
#include <sys/wait.h>

#define PROG  "forkstorm"
#define USAGE PROG " MARKER [CAP]"
#include "common.h"

int main(int argc, char **argv)
{
	long cap = argc > 2 ? strtol(argv[2], NULL, 10) : 1000, n = 0;
	struct pollfd p = { .fd = 0, .events = POLLIN };
	int err = 0, fd;

	if (argc < 2 || cap < 1)
		usage();
	alarm(20);
	for (; n < cap; n++) {
		pid_t pid = fork();
		if (pid == 0) {
			alarm(10);
			pause();
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
	}
	if (err)
		fprintf(stderr, PROG ": fork refused after %ld children: %s\n", n, strerror(err));
	else
		fprintf(stderr, PROG ": made %ld children, no fork refused\n", n);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		die("create", argv[1]);
	close(fd);
	(void)poll(&p, 1, 10000);
	return err ? 1 : 0;
}
