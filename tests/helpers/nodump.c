// SPDX-License-Identifier: MIT
/*
 * nodump READY
 *
 * Makes itself not dumpable (PR_SET_DUMPABLE 0: its /proc/PID/environ is then
 * unreadable to other processes of the same user), creates READY, and waits
 * for a signal.  For the tests of what `isorun ls`/`gc` say about processes
 * whose environment they cannot read.
 */
#define PROG  "nodump"
#define USAGE PROG " READY"
#include "common.h"

#include <sys/prctl.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2)
		usage();
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die("prctl(PR_SET_DUMPABLE, 0)", NULL);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		die("create", argv[1]);
	close(fd);
	/* until killed: the test's teardown does that */
	for (;;)
		pause();
}
