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
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#define PROG  "holdcwd"
#define USAGE PROG " DIR PIDFILE"
#include "common.h"

int main(int argc, char **argv)
{
	int startdir;

	if (argc != 3 || argv[1][0] == '\0' || argv[2][0] == '\0')
		usage();

	exit_on_stop_signals();

	startdir = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (startdir < 0)
		die("open", ".");
	if (chdir(argv[1]) < 0)
		die("chdir", argv[1]);
	write_pidfile(startdir, argv[2], die);
	close(startdir);

	/* A closed stdin reads EBADF: then only the stop signals end it. */
	wait_stdin_eof(true);
}
