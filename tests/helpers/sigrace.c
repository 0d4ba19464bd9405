// SPDX-License-Identifier: MIT
/*
 * sigrace SIG MICROSECONDS COMMAND [ARG...]
 *
 * Starts COMMAND and sends it signal SIG MICROSECONDS after the fork (0: at
 * once), then waits for it and prints how it ended: "exit N" or "signal N".
 * A shell cannot do this: between its fork and the exec its child runs the
 * shell's own traps (bats traps INT, TERM and HUP), which take a signal meant
 * for the command.  Here the child has default dispositions and an empty mask
 * from the fork to the exec, so an early signal ends it ("signal N") and a later
 * one reaches COMMAND.
 */
#include <signal.h>
#include <sys/wait.h>
#include <time.h>

#define PROG  "sigrace"
#define USAGE PROG " SIG MICROSECONDS COMMAND [ARG...]"
#include "common.h"

int main(int argc, char **argv)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	char *end;
	long sig, us;
	sigset_t none;
	pid_t pid;
	int st;

	if (argc < 4)
		usage();
	sig = strtol(argv[1], &end, 10);
	if (*end || sig <= 0 || sig >= 65)
		usage();
	us = strtol(argv[2], &end, 10);
	if (*end || us < 0 || us > 10000000)
		usage();
	for (int s = 1; s < 32; s++)
		if (s != SIGKILL && s != SIGSTOP)
			(void)sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		die("sigprocmask", NULL);
	pid = fork();
	if (pid < 0)
		die("fork", NULL);
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		die("exec", argv[3]);
	}
	if (us) {
		/* a spread of arrival points across the command's set-up, not a wait for it */
		struct timespec ts = { us / 1000000, us % 1000000 * 1000 };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
	if (kill(pid, (int)sig) < 0)
		die("kill", NULL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid", NULL);
	if (WIFSIGNALED(st))
		printf("signal %d\n", WTERMSIG(st));
	else
		printf("exit %d\n", WEXITSTATUS(st));
	return 0;
}
