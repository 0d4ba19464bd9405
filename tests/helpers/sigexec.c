// SPDX-License-Identifier: MIT
/*
 * sigexec [-i SIG]... [-b SIG]... COMMAND [ARG...]
 *
 * Execs COMMAND with each -i SIG ignored and each -b SIG blocked (numbers, 32
 * and 33 included) and every other signal at its default, unblocked: the
 * state a caller (nohup, a CI agent, a background job) hands on through
 * execve(2).  A shell cannot block a signal, nor ignore 32 or 33.
 */
#include <stdint.h>
#include <sys/syscall.h>

#define PROG  "sigexec"
#define USAGE PROG " [-i SIG]... [-b SIG]... COMMAND [ARG...]"
#include "common.h"

struct ksigaction {
	unsigned long handler, flags, restorer, mask;
};

static int signum(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || end == s || v < 1 || v > 64 || v == SIGKILL || v == SIGSTOP)
		usage();
	return (int)v;
}

int main(int argc, char **argv)
{
	uint64_t ign = 0, blk = 0;
	int opt;

	while ((opt = getopt(argc, argv, "+i:b:")) != -1) {
		if (opt == 'i')
			ign |= 1ULL << (signum(optarg) - 1);
		else if (opt == 'b')
			blk |= 1ULL << (signum(optarg) - 1);
		else
			usage();
	}
	if (optind >= argc)
		usage();
	for (int sig = 1; sig <= 64; sig++) {
		struct ksigaction act = { .handler = (ign >> (sig - 1) & 1)
							     ? (unsigned long)SIG_IGN
							     : (unsigned long)SIG_DFL };

		if (sig != SIGKILL && sig != SIGSTOP &&
		    syscall(SYS_rt_sigaction, sig, &act, NULL, sizeof(act.mask)) < 0)
			die("rt_sigaction", NULL);
	}
	if (syscall(SYS_rt_sigprocmask, SIG_SETMASK, &blk, NULL, sizeof(blk)) < 0)
		die("rt_sigprocmask", NULL);
	execvp(argv[optind], argv + optind);
	die("exec", argv[optind]);
}
