// SPDX-License-Identifier: MIT
/*
 * pairs ROUNDS NAME_A CMD_A... :: NAME_B CMD_B...
 *
 * A B, B A, A B, ...: each round runs both commands back to back (the order
 * alternating, so neither always runs second on a warmer cache) and keeps the
 * ratio B/A of that pair.  Prints the median of each and the median of the
 * per-pair ratios: on a noisy machine a pair shares its weather, so the ratio
 * is steadier than the ratio of two medians.  Output goes to /dev/null.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double run(char **argv)
{
	double t = now_ms();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		exit(1);
	/* a failed run is not a launch: its pair is dropped, and counted */
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return now_ms() - t;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 0, sep = 0, n = 0, failed = 0;
	double *a, *b, *r;

	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], "::"))
			sep = i;
	if (rounds < 1 || sep < 4 || sep + 2 >= argc) {
		fprintf(stderr, "usage: pairs ROUNDS NAME_A CMD_A... :: NAME_B CMD_B...\n");
		return 2;
	}
	argv[sep] = NULL;
	a = calloc((size_t)rounds, sizeof(*a));
	b = calloc((size_t)rounds, sizeof(*b));
	r = calloc((size_t)rounds, sizeof(*r));
	if (!a || !b || !r)
		return 1;
	for (int i = 0; i < rounds; i++) {
		double x, y;
		if (i % 2) {
			y = run(argv + sep + 2);
			x = run(argv + 3);
		} else {
			x = run(argv + 3);
			y = run(argv + sep + 2);
		}
		if (x < 0 || y < 0) {
			failed++;
			continue;
		}
		a[n] = x;
		b[n] = y;
		r[n++] = y / x;
	}
	if (!n)
		return 1;
	printf("%-36s %8.3f ms\n%-36s %8.3f ms\n  %s / %s, median of %d per-pair ratios: %.3fx"
	       " (%d pairs dropped: a run failed)\n",
	       argv[2], median(a, n), argv[sep + 1], median(b, n), argv[sep + 1], argv[2], n,
	       median(r, n), failed);
	return 0;
}
