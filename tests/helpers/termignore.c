// SPDX-License-Identifier: MIT
/*
 * termignore [PIDFILE]
 *
 * A process that only SIGKILL can end: it sets SIG_IGN for SIGTERM, SIGINT,
 * SIGHUP and SIGQUIT and, so that no --stop-signal choice ends it early,
 * for every other signal whose default action is to terminate and that is
 * not raised by a fault (USR1, USR2, PIPE, ALRM, VTALRM, PROF, IO, PWR,
 * XCPU, XFSZ, STKFLT and the real-time signals).  Once it ignores them it
 * writes its pid to PIDFILE atomically (PIDFILE.tmp + rename), or without
 * PIDFILE prints "ready\n" on stdout, and then waits in pause() forever.
 * SIGSTOP still stops it; SIGKILL kills it.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#define PROG  "termignore"
#define USAGE PROG " [PIDFILE]"
#include "common.h"

static const int ignored[] = {
	SIGTERM,   SIGINT,  SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE,	  SIGALRM,
	SIGVTALRM, SIGPROF, SIGIO,  SIGPWR,  SIGXCPU, SIGXFSZ, SIGSTKFLT,
};

static void ignore(int sig)
{
	struct sigaction sa = { .sa_handler = SIG_IGN };
	char name[16];

	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) < 0) {
		snprintf(name, sizeof(name), "%d", sig);
		die("sigaction SIG_IGN", name);
	}
}

int main(int argc, char **argv)
{
	if (argc > 2 || (argc == 2 && (argv[1][0] == '\0' || argv[1][0] == '-')))
		usage();

	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		ignore(ignored[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		ignore(sig);

	if (argc == 2) {
		write_pidfile(AT_FDCWD, argv[1], die);
	} else {
		if (fputs("ready\n", stdout) == EOF || fflush(stdout) == EOF)
			die("write", "stdout");
	}

	for (;;)
		pause();
}
