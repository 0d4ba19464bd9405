// SPDX-License-Identifier: MIT
/*
 * idle N      N idle processes beside the runs being timed (issue 25)
 *
 * Each child holds 32 open descriptors and 8 file mappings (of this program),
 * as an idle daemon of a workstation does, and sleeps in pause() until the
 * parent dies (PR_SET_PDEATHSIG).  Once all N are in place the parent writes
 * READY (rename: a reader never sees it half-made) and waits until its stdin
 * closes or it is signalled; the children then go with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define FDS  32
#define MAPS 8

static void child(int ready, pid_t parent)
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent || fd < 0)
		_exit(1);
	for (int i = 0; i < MAPS; i++)
		if (mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			_exit(1);
	for (int i = 1; i < FDS; i++)
		if (dup(fd) < 0)
			_exit(1);
	/* one byte: this child is in place */
	if (write(ready, "", 1) != 1)
		_exit(1);
	close(ready);
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	char buf[512];
	pid_t parent = getpid();
	long n, got = 0;
	int p[2];

	if (argc != 2 || (n = strtol(argv[1], NULL, 10)) < 0) {
		fprintf(stderr, "usage: idle N\n");
		return 125;
	}
	if (pipe2(p, O_CLOEXEC) < 0)
		return 1;
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			fprintf(stderr, "idle: fork (%ld of %ld): %s\n", i, n, strerror(errno));
			return 1;
		}
		if (pid == 0) {
			close(p[0]);
			child(p[1], parent);
		}
	}
	close(p[1]);
	while (got < n) {
		ssize_t r = read(p[0], buf, sizeof(buf));
		if (r <= 0) {
			fprintf(stderr, "idle: %ld of %ld children started\n", got, n);
			return 1;
		}
		got += r;
	}
	if (printf("ready\n") < 0 || fflush(stdout) == EOF)
		return 1;
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
