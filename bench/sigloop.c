// SPDX-License-Identifier: MIT
/*
 * sigloop probe|self|child N: N signal calls in a loop, the cost contain-signals
 * adds to each (bench/launch.sh times it under isorun with and without the policy).
 *   probe  kill(getpid(), 0): a probe, let through in the filter
 *   self   kill(getpid(), SIGUSR1), caught: notified, answered CONTINUE
 *   child  kill(child, SIGUSR1), the child ignores it: sent by the supervisor
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_usr1(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0;
	pid_t target = getpid(), child = -1;
	int sig = SIGUSR1;

	if (argc < 3 || n < 1) {
		fprintf(stderr, "usage: sigloop probe|self|child N\n");
		return 2;
	}
	signal(SIGUSR1, on_usr1);
	if (!strcmp(argv[1], "probe")) {
		sig = 0;
	} else if (!strcmp(argv[1], "child")) {
		child = fork();
		if (child < 0)
			return 1;
		if (child == 0) {
			signal(SIGUSR1, SIG_IGN);
			for (;;)
				pause();
		}
		target = child;
	} else if (strcmp(argv[1], "self")) {
		return 2;
	}
	for (long i = 0; i < n; i++)
		if (kill(target, sig) < 0) {
			perror("sigloop: kill");
			return 1;
		}
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return 0;
}
