// SPDX-License-Identifier: MIT
/*
 * runner ROUNDS NAME CMD... [:: NAME CMD...]...
 *
 * Runs each command once per round, round-robin, so every command sees the same
 * machine weather, and prints the median wall time of each and its ratio to the
 * first.  fork/execvp/waitpid only: no shell in the measured path.  Output is
 * sent to /dev/null.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cmd {
	const char *name;
	char **argv;
	double *t;
	int failures;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double once(struct cmd *c, int devnull)
{
	double t0 = now_ms();
	int status;
	pid_t pid = fork();

	if (pid < 0) {
		perror("runner: fork");
		exit(1);
	}
	if (pid == 0) {
		dup2(devnull, 1);
		dup2(devnull, 2);
		execvp(c->argv[0], c->argv);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		c->failures++;
	return now_ms() - t0;
}

int main(int argc, char **argv)
{
	struct cmd cmds[16];
	int n = 0, rounds, devnull;

	if (argc < 4) {
		fprintf(stderr, "usage: runner ROUNDS NAME CMD... [:: NAME CMD...]...\n");
		return 2;
	}
	rounds = atoi(argv[1]);
	for (int i = 2; i < argc && n < 16;) {
		int j = i + 1;
		while (j < argc && strcmp(argv[j], "::") != 0)
			j++;
		argv[j < argc ? j : argc] = NULL;
		cmds[n] = (struct cmd){ .name = argv[i],
					.argv = &argv[i + 1],
					.t = calloc((size_t)rounds, sizeof(double)) };
		n++;
		i = j + 1;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	for (int k = 0; k < n; k++) /* warm the page cache */
		once(&cmds[k], devnull);
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < n; k++)
			cmds[k].t[r] = once(&cmds[k], devnull);
	for (int k = 0; k < n; k++)
		qsort(cmds[k].t, (size_t)rounds, sizeof(double), cmp_double);
	printf("%-44s %10s %8s\n", "command", "median ms", "ratio");
	for (int k = 0; k < n; k++) {
		double med = cmds[k].t[rounds / 2];
		printf("%-44s %10.3f %8.2f%s\n", cmds[k].name, med, med / cmds[0].t[rounds / 2],
		       cmds[k].failures ? "  (some runs failed)" : "");
	}
	return 0;
}
