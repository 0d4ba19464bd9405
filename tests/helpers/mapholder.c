// SPDX-License-Identifier: MIT
/*
 * mapholder [-n] FILE PIDFILE
 *
 * Holds FILE through a MAP_SHARED mapping alone, the way ld.so holds a library:
 * open FILE (created with one page if missing or empty), mmap it, close the fd,
 * then write the pid to PIDFILE atomically and block until stdin reaches EOF or
 * SIGTERM/SIGINT arrives (exit 0).  The cwd is moved to "/" first, so that only
 * the mapping points into the tree.  -n: make itself non-dumpable first
 * (prctl(PR_SET_DUMPABLE, 0), as ssh-agent does): its /proc/PID/fd and maps can
 * then be read by no one of its own uid.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG  "mapholder"
#define USAGE PROG " [-n] FILE PIDFILE"
#include "common.h"

int main(int argc, char **argv)
{
	bool nodump = argc == 4 && !strcmp(argv[1], "-n");
	const char *file = argv[nodump ? 2 : 1], *pidfile = argv[nodump ? 3 : 2];
	struct stat st;
	int fd, startdir;

	if (argc != (nodump ? 4 : 3) || !file[0] || !pidfile[0])
		usage();
	exit_on_stop_signals();
	if (nodump && prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die("prctl", "PR_SET_DUMPABLE");
	fd = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || fstat(fd, &st) < 0)
		die("open", file);
	if (st.st_size == 0 && ftruncate(fd, 4096) < 0)
		die("ftruncate", file);
	if (mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED)
		die("mmap", file);
	close(fd);
	startdir = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (startdir < 0)
		die("open", ".");
	if (chdir("/") < 0)
		die("chdir", "/");
	write_pidfile(startdir, pidfile, die);
	close(startdir);
	wait_stdin_eof(true);
}
