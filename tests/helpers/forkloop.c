// SPDX-License-Identifier: MIT
/*
 * forkloop [-s] [-t SECONDS] [-n CHAINS] [-w WIDTH] PIDFILE [MAX]
 *
 * A process that keeps moving, for tests that must catch a target whose pid
 * changes under them.  The first process writes its pid to PIDFILE atomically
 * (PIDFILE.tmp + rename) and then runs the loop
 *
 *	for (gen = 0; gen < MAX; gen++) { fork WIDTH children; parent exits; }
 *
 * and the processes of the last generation wait in pause() forever.  With the
 * default WIDTH 1 this is a running chain: at any instant there is usually one
 * live process, each generation a fresh pid, MAX (default 1000000)
 * generations long.  All generations share the first process's process group
 * and session, so `kill -KILL -- -PGID` stops every one of them at once.  If
 * fork() fails the process reports it and exits 1, which ends its lineage.
 *
 * -w WIDTH (1..64) makes a small tree instead: every process of a generation
 * forks WIDTH children and exits.  Bound (it can never fork-bomb the machine):
 * with WIDTH > 1 the depth is capped at the largest d with WIDTH^d <= 64
 * (MAX_LEAVES), and MAX if that is smaller, so the leaves, at most 64, pause;
 * fewer than 2 * 64 processes are ever alive at once and fewer than 128 forks
 * are made in all (WIDTH 2: 2 + 4 + ... + 64 = 126, leaving 64 leaves;
 * WIDTH 3: 3 + 9 + 27, 27 leaves; WIDTH 64: 64 leaves).  WIDTH 1 is the chain
 * above: one live process at a time, MAX generations.
 *
 * -s: every new process calls setsid() first, so each step is a session and
 * process group of its own (a fork-and-exit chain no group signal can catch).
 * -t SECONDS: the lineage ends (exit 0, no pause) once SECONDS have passed
 * since the start, so a chain that nothing stops still ends by itself.
 * -n CHAINS (1..64): the first process starts CHAINS lineages at once (a
 * storm), each one the loop above.
 */
#include <fcntl.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>

#define PROG	   "forkloop"
#define USAGE	   PROG " [-s] [-t SECONDS] [-n CHAINS] [-w WIDTH] PIDFILE [MAX]"
#define MAX_LEAVES 64
#include "common.h"

int main(int argc, char **argv)
{
	unsigned long width = 1, max = 1000000, gen, seconds = 0, chains = 1;
	bool new_session = false;
	struct timespec now, end = { 0 };
	int opt;

	while ((opt = getopt(argc, argv, "n:st:w:")) != -1) {
		switch (opt) {
		case 'n':
			chains = parse_ulong(optarg, 1, MAX_LEAVES);
			break;
		case 's':
			new_session = true;
			break;
		case 't':
			seconds = parse_ulong(optarg, 1, 86400);
			break;
		case 'w':
			width = parse_ulong(optarg, 1, MAX_LEAVES);
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || argc - optind > 2)
		usage();
	if (argc - optind == 2)
		max = parse_ulong(argv[optind + 1], 0, ULONG_MAX);

	if (width > 1) {
		unsigned long depth = 0, leaves = 1;

		while (leaves * width <= MAX_LEAVES) {
			leaves *= width;
			depth++;
		}
		if (depth < max)
			max = depth;
	}

	write_pidfile(AT_FDCWD, argv[optind], die);
	if (seconds) {
		clock_gettime(CLOCK_MONOTONIC, &end);
		end.tv_sec += (time_t)seconds;
	}
	/* the first process starts the other lineages and then runs one itself */
	for (unsigned long c = 1; c < chains; c++) {
		pid_t pid = fork();

		if (pid < 0)
			die("fork", NULL);
		if (pid == 0)
			break;
	}

	for (gen = 0; gen < max; gen++) {
		if (seconds) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec >= end.tv_sec)
				_exit(0);
		}
		for (unsigned long i = 0; i < width; i++) {
			pid_t pid = fork();

			if (pid < 0)
				die("fork", NULL);
			if (pid == 0)
				goto next; /* the child carries on */
		}
		_exit(0);
next:
		if (new_session && setsid() < 0)
			die("setsid", NULL);
	}

	if (seconds)
		_exit(0);
	for (;;)
		pause();
}
