// SPDX-License-Identifier: MIT
/*
 * outlive MARKER: forks a child that outlives this process by a moment and then
 * exits by itself.  The child waits on a pidfd of its parent (an event, not a
 * timer), so it is alive when the parent exits and gone right after: a survivor
 * that leaves inside isorun's settle window.  MARKER only tags the command line.
 */
#include <errno.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROG  "outlive"
#define USAGE PROG " MARKER"
#include "common.h"

int main(int argc, char **argv)
{
	int ready[2];
	char c;
	pid_t pid;

	if (argc != 2)
		usage();
	if (pipe(ready) < 0)
		die("pipe", NULL);
	pid = fork();
	if (pid < 0)
		die("fork", NULL);
	if (pid == 0) {
		int pfd = (int)syscall(SYS_pidfd_open, getppid(), 0);
		struct pollfd p = { .fd = pfd, .events = POLLIN };

		if (pfd < 0)
			_exit(1);
		(void)!write(ready[1], "r", 1);
		/* stdio stays open on purpose: the settle window must not count pipe holders */
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) != 1)
		return 1;
	return 0;
}
