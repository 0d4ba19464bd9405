// SPDX-License-Identifier: MIT
/*
 * runner ROUNDS NAME CMD... [:: NAME CMD...]...
 *
 * Runs each command once per round, round-robin, so every command sees the same
 * machine weather, and prints the median wall time of each and its ratio to the
 * first.  fork/execvp/waitpid only: no shell in the measured path.  Output is
 * sent to /dev/null.
 *
 * RUNNER_PAIRS="A/B ..." (1-based command numbers) adds, for each pair, the
 * median of the per-round ratios A/B: A and B ran back to back in every round,
 * so the machine's weather divides out of each ratio.
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
	double med;
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

/* The median of the per-round ratios of each pair in $RUNNER_PAIRS, before sorting. */
static void pairs(struct cmd *cmds, int n, int rounds)
{
	const char *p = getenv("RUNNER_PAIRS");
	double *r = calloc((size_t)rounds, sizeof(double));
	int a, b, used;

	while (r && p && sscanf(p, " %d/%d%n", &a, &b, &used) == 2) {
		p += used;
		if (a < 1 || b < 1 || a > n || b > n)
			continue;
		for (int k = 0; k < rounds; k++)
			r[k] = cmds[a - 1].t[k] / cmds[b - 1].t[k];
		qsort(r, (size_t)rounds, sizeof(double), cmp_double);
		printf("pair  %s / %s: %.3f\n", cmds[a - 1].name, cmds[b - 1].name, r[rounds / 2]);
	}
	free(r);
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
	for (int k = 0; k < n; k++) {
		/* sorted copies: the pairs below need each round's own times */
		double *sorted = malloc((size_t)rounds * sizeof(double));
		if (!sorted) {
			perror("runner: malloc");
			return 1;
		}
		memcpy(sorted, cmds[k].t, (size_t)rounds * sizeof(double));
		qsort(sorted, (size_t)rounds, sizeof(double), cmp_double);
		cmds[k].med = sorted[rounds / 2];
		free(sorted);
	}
	printf("%-44s %10s %8s\n", "command", "median ms", "ratio");
	for (int k = 0; k < n; k++) {
		double med = cmds[k].med;
		printf("%-44s %10.3f %8.2f%s\n", cmds[k].name, med, med / cmds[0].med,
		       cmds[k].failures ? "  (some runs failed)" : "");
	}
	pairs(cmds, n, rounds);
	return 0;
}
