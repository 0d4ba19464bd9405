// SPDX-License-Identifier: MIT
/*
 * sigsend CALL SIG PID [TID]
 *
 * Sends signal SIG (a number) with one of the signal calls and prints
 * "CALL OK" or "CALL ERRNONAME" (EPERM, ESRCH...):
 *   kill     kill(PID, SIG)            PID may be 0, -1 or -PGID
 *   tkill    tkill(PID, SIG)           PID is a thread id
 *   tgkill   tgkill(PID, TID, SIG)
 *   queue    rt_sigqueueinfo(PID, SIG, SI_QUEUE info with value 42)
 *   tgqueue  rt_tgsigqueueinfo(PID, TID, SIG, the same)
 *   pidfd    pidfd_send_signal(pidfd_open(PID), SIG, NULL, 0)
 *   pidfd-group  the same with PIDFD_SIGNAL_PROCESS_GROUP: PID's whole group
 *   procfd   pidfd_send_signal(open("/proc/PID"), SIG, NULL, 0)
 * With SIGSEND_NODUMP=1 in the environment it makes itself not dumpable first.
 * PID and TID "self" are this process (its tid for tkill).  SIGUSR1 and
 * SIGUSR2 are caught: "got N" is printed when one reached this process.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>

#define PROG  "sigsend"
#define USAGE PROG " kill|tkill|tgkill|queue|tgqueue|pidfd|pidfd-group|procfd SIG PID [TID]"
#include "common.h"

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

static long target(const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "self"))
		return getpid();
	v = strtol(s, &end, 10);
	if (*end || end == s)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	const char *call;
	siginfo_t info;
	long pid, tid = 0, r;
	int sig;

	if (argc < 4)
		usage();
	call = argv[1];
	sig = (int)target(argv[2]);
	pid = target(argv[3]);
	if (argc > 4)
		tid = !strcmp(argv[4], "self") ? syscall(SYS_gettid) : target(argv[4]);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	if (getenv("SIGSEND_NODUMP") && prctl(PR_SET_DUMPABLE, 0) < 0)
		die("make itself not dumpable", NULL);
	memset(&info, 0, sizeof(info));
	info.si_signo = sig;
	info.si_code = SI_QUEUE;
	info.si_pid = getpid();
	info.si_uid = getuid();
	info.si_value.sival_int = 42;
	if (!strcmp(call, "kill"))
		r = syscall(SYS_kill, pid, sig);
	else if (!strcmp(call, "tkill"))
		r = syscall(SYS_tkill, !strcmp(argv[3], "self") ? syscall(SYS_gettid) : pid, sig);
	else if (!strcmp(call, "tgkill"))
		r = syscall(SYS_tgkill, pid, tid, sig);
	else if (!strcmp(call, "queue"))
		r = syscall(SYS_rt_sigqueueinfo, pid, sig, &info);
	else if (!strcmp(call, "tgqueue"))
		r = syscall(SYS_rt_tgsigqueueinfo, pid, tid, sig, &info);
	else if (!strcmp(call, "pidfd") || !strcmp(call, "pidfd-group")) {
		long fd = syscall(SYS_pidfd_open, pid, 0);

		if (fd < 0)
			die("pidfd_open", NULL);
		/* PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9) */
		r = syscall(SYS_pidfd_send_signal, fd, sig, NULL, strcmp(call, "pidfd") ? 4 : 0);
	} else if (!strcmp(call, "procfd")) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/proc/%ld", pid);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			die("open", path);
		r = syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
	} else
		usage();
	printf("%s %s\n", call, r == 0 ? "OK" : strerrorname_np(errno));
	if (got)
		printf("got %d\n", (int)got);
	return 0;
}
