// SPDX-License-Identifier: MIT
/*
 * spawnexit COMMAND [ARG...]
 *
 * posix_spawnp()s COMMAND in a session of its own and exits at once, 0: the
 * shape of a test binary that starts a helper and ends (Go's cmd.Start(),
 * Python's Popen, libuv).  posix_spawn uses CLONE_VFORK, so the parent is
 * still there while the child's execve is pending, and gone right after.
 */
#include <spawn.h>

#define PROG  "spawnexit"
#define USAGE PROG " COMMAND [ARG...]"
#include "common.h"

extern char **environ;

int main(int argc, char **argv)
{
	posix_spawnattr_t a;
	pid_t pid;
	int r;

	if (argc < 2)
		usage();
	if (posix_spawnattr_init(&a) != 0 || posix_spawnattr_setflags(&a, POSIX_SPAWN_SETSID) != 0)
		die("posix_spawnattr", NULL);
	r = posix_spawnp(&pid, argv[1], NULL, &a, argv + 1, environ);
	if (r != 0) {
		errno = r;
		die("posix_spawnp", argv[1]);
	}
	_exit(0);
}
