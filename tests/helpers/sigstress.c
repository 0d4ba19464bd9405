// SPDX-License-Identifier: MIT
/*
 * sigstress CALL N
 *
 * CPython's test_signal stress (issue 39 item 1): no-op handlers for SIGUSR1
 * and SIGALRM installed without SA_RESTART (as Python installs its own), an
 * interval timer every 100 us, then N signals to this process by CALL:
 *   kill       kill(getpid(), SIGUSR1)
 *   tgkill     tgkill(getpid(), gettid(), SIGUSR1)
 *   queue      rt_sigqueueinfo(getpid(), SIGUSR1, SI_QUEUE)
 *   pidfd      pidfd_send_signal(pidfd_open(getpid()), SIGUSR1)
 * Prints "CALL OK N" when every call succeeded, else "CALL ERRNONAME after K"
 * (exit 1).  The kernel never fails these with EINTR.
 */
#include <sys/syscall.h>
#include <sys/time.h>

#define PROG  "sigstress"
#define USAGE PROG " kill|tgkill|queue|pidfd N"
#include "common.h"

static void nothing(int sig)
{
	(void)sig;
}

static long one(const char *call, int pidfd)
{
	siginfo_t si = { .si_signo = SIGUSR1, .si_code = SI_QUEUE, .si_pid = getpid() };

	if (!strcmp(call, "kill"))
		return kill(getpid(), SIGUSR1);
	if (!strcmp(call, "tgkill"))
		return syscall(SYS_tgkill, getpid(), gettid(), SIGUSR1);
	if (!strcmp(call, "queue"))
		return syscall(SYS_rt_sigqueueinfo, getpid(), SIGUSR1, &si);
	return syscall(SYS_pidfd_send_signal, pidfd, SIGUSR1, NULL, 0);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = nothing }; /* no SA_RESTART */
	struct itimerval it = { { 0, 100 }, { 0, 100 } };
	char *end;
	long n, i;
	int pidfd = -1;

	if (argc != 3)
		usage();
	n = strtol(argv[2], &end, 10);
	if (*end || n <= 0 ||
	    (strcmp(argv[1], "kill") && strcmp(argv[1], "tgkill") && strcmp(argv[1], "queue") &&
	     strcmp(argv[1], "pidfd")))
		usage();
	if (!strcmp(argv[1], "pidfd") && (pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0)) < 0)
		die("pidfd_open", NULL);
	if (sigaction(SIGUSR1, &sa, NULL) < 0 || sigaction(SIGALRM, &sa, NULL) < 0)
		die("sigaction", NULL);
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		die("setitimer", NULL);
	for (i = 0; i < n; i++)
		if (one(argv[1], pidfd) < 0)
			break;
	if (i < n) {
		int err = errno;

		printf("%s %s after %ld\n", argv[1], strerrorname_np(err), i);
		return 1;
	}
	printf("%s OK %ld\n", argv[1], n);
	return 0;
}
