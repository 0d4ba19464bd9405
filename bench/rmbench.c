// SPDX-License-Identifier: MIT
/*
 * rmbench DIR [FILES]: teardown rate of isorun's remover against rm -rf, on a
 * flat tree of FILES (default 100000) empty files, each built fresh and untimed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/err.h"
#include "tree/rmtree.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void build(int dirfd, long files)
{
	int fd;
	char name[32];

	if (mkdirat(dirfd, "t", 0700) < 0 && errno != EEXIST) {
		perror("rmbench: mkdir");
		exit(1);
	}
	fd = openat(dirfd, "t", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (long i = 0; i < files; i++) {
		snprintf(name, sizeof(name), "f%ld", i);
		int f = openat(fd, name, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		if (f < 0) {
			perror("rmbench: create");
			exit(1);
		}
		close(f);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	long files = argc > 2 ? atol(argv[2]) : 100000;
	struct iso_err e = { 0 };
	double t0, iso_s, rm_s;
	char path[4096];
	int dirfd, status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: rmbench DIR [FILES]\n");
		return 2;
	}
	dirfd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		perror("rmbench: open");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/t", argv[1]);

	build(dirfd, files);
	sync();
	t0 = now_s();
	if (tree_rmtree(dirfd, "t", path, NULL, &e) < 0) {
		fprintf(stderr, "rmbench: iso_rmtree: %s\n", e.msg);
		return 1;
	}
	iso_s = now_s() - t0;

	build(dirfd, files);
	sync();
	t0 = now_s();
	pid = fork();
	if (pid == 0) {
		execlp("rm", "rm", "-rf", path, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	rm_s = now_s() - t0;

	printf("teardown of %ld files: isorun %.0f files/s, rm -rf %.0f files/s, ratio %.2f\n",
	       files, (double)files / iso_s, (double)files / rm_s, rm_s / iso_s);
	return 0;
}
