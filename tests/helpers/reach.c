// SPDX-License-Identifier: MIT
/*
 * reach CALL ARGS...
 *
 * The calls other than kill by which a process reaches another one (issue 27
 * item 5), each printing "CALL OK" or "CALL ERRNONAME":
 *   setown OWNER SIG      fcntl(pipe, F_SETOWN, OWNER) (-PGID for a group), then
 *                         F_SETSIG SIG (0: SIGIO), O_ASYNC and a write: the
 *                         kernel signals the owner
 *   setown-ex TYPE PID SIG  the same with F_SETOWN_EX {TYPE (tid|pid|pgrp), PID}
 *   fiosetown OWNER SIG   ioctl(socket, FIOSETOWN, &OWNER), O_ASYNC, a write
 *   siocspgrp OWNER SIG   the same with SIOCSPGRP
 *   setpgid PID PGID      setpgid(PID, PGID)
 *   ptrace PID            ptrace(PTRACE_SEIZE, PID) (detached again when it worked)
 *   attach PID            ptrace(PTRACE_ATTACH, PID), wait for its stop, detach
 *   vmwrite PID ADDR      process_vm_writev of 1 byte at ADDR (hex) in PID
 *   getfd PID             pidfd_getfd(pidfd_open(PID), 0)
 *   child-trace           fork a child, attach to it, detach, let it exit
 * The calls that change another process (issue 36 item 3):
 *   prlimit PID RES S:H   prlimit(PID, RLIMIT_RES (core|fsize|cpu|nofile), {S, H})
 *   nice PID|-PGID|uUID   setpriority(PRIO_PROCESS|PRIO_PGRP|PRIO_USER, ..., 19)
 *   ionice PID|-PGID|uUID ioprio_set(IOPRIO_WHO_PROCESS|PGRP|USER, ..., idle)
 *   affinity PID          sched_setaffinity(PID) to CPU 0 alone
 *   sched PID             sched_setscheduler(PID, SCHED_BATCH)
 *   setparam PID          sched_setparam(PID, priority 0)
 *   setattr PID           sched_setattr(PID, SCHED_OTHER, nice 19)
 *   migrate PID           migrate_pages(PID) from node 0 to node 0
 *   movepages PID         move_pages(PID) of no page
 *   madvise PID           process_madvise(pidfd of PID, MADV_COLD of one page)
 *   perf PID              perf_event_open(a software clock, PID)
 *   mem PID               open("/proc/PID/mem", O_RDWR)
 *   nice-i386 PID, nice-x32 PID, prlimit-i386 PID, prlimit-x32 PID
 *                         setpriority(PRIO_PROCESS, PID, 19) and prlimit64(PID,
 *                         RLIMIT_FSIZE, {0, 0}) through the i386 (int $0x80) and
 *                         x32 ABIs (ENOSYS where the kernel runs no x32)
 *   scope                 OK when the kernel has Landlock's signal scope (ABI 6)
 * OWNER and PID "self" are this process; "got N" is printed when signal N
 * (SIGIO or the F_SETSIG one) reached this process.
 */
#include <linux/perf_event.h>
#include <sched.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>

#define PROG "reach"
#define USAGE                                                                                      \
	PROG " setown|setown-ex|fiosetown|siocspgrp|setpgid|ptrace|attach|vmwrite|getfd|prlimit|"  \
	     "nice|ionice|affinity|sched|setparam|setattr|migrate|movepages|madvise|perf ARGS"
#include "common.h"

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

static long num(const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "self"))
		return getpid();
	if (!strcmp(s, "-self"))
		return -getpgrp();
	v = strtol(s, &end, 10);
	if (*end || end == s)
		usage();
	return v;
}

/* O_ASYNC (and F_SETSIG) on rfd, then a byte through wfd: the kernel signals the owner. */
static int fire(int rfd, int wfd, int sig)
{
	int fl = fcntl(rfd, F_GETFL);

	if (fl < 0 || fcntl(rfd, F_SETSIG, sig) < 0 || fcntl(rfd, F_SETFL, fl | O_ASYNC) < 0 ||
	    write(wfd, "x", 1) != 1)
		die("arm O_ASYNC", NULL);
	return 0;
}

static long owner_call(char **argv, int argc)
{
	int fds[2], sig;
	long r, owner;

	if (!strcmp(argv[1], "setown") || !strcmp(argv[1], "setown-ex")) {
		if (pipe2(fds, O_CLOEXEC) < 0)
			die("pipe", NULL);
	} else if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		die("socketpair", NULL);
	}
	if (!strcmp(argv[1], "setown-ex")) {
		struct f_owner_ex ex;

		if (argc != 5)
			usage();
		ex.type = !strcmp(argv[2], "tid")   ? F_OWNER_TID
			  : !strcmp(argv[2], "pid") ? F_OWNER_PID
						    : F_OWNER_PGRP;
		ex.pid = (pid_t)num(argv[3]);
		if (!strcmp(argv[3], "self") && ex.type == F_OWNER_TID)
			ex.pid = (pid_t)syscall(SYS_gettid);
		sig = (int)num(argv[4]);
		r = fcntl(fds[0], F_SETOWN_EX, &ex);
	} else {
		int o;

		if (argc != 4)
			usage();
		owner = num(argv[2]);
		sig = (int)num(argv[3]);
		o = (int)owner;
		if (!strcmp(argv[1], "setown"))
			r = fcntl(fds[0], F_SETOWN, o);
		else if (!strcmp(argv[1], "fiosetown"))
			r = ioctl(fds[0], FIOSETOWN, &o);
		else
			r = ioctl(fds[0], SIOCSPGRP, &o);
	}
	if (r == 0) {
		int e = errno;

		fire(fds[0], fds[1], sig);
		errno = e;
	}
	return r;
}

static long child_trace(void)
{
	int st;
	pid_t c = fork();

	if (c < 0)
		die("fork", NULL);
	if (c == 0) {
		pause();
		_exit(0);
	}
	if (ptrace(PTRACE_ATTACH, c, 0, 0) < 0) {
		int e = errno;

		kill(c, SIGKILL);
		errno = e;
		return -1;
	}
	if (waitpid(c, &st, 0) != c || !WIFSTOPPED(st))
		die("wait for the traced child's stop", NULL);
	if (ptrace(PTRACE_DETACH, c, 0, 0) < 0)
		die("detach", NULL);
	kill(c, SIGKILL);
	waitpid(c, &st, 0);
	return 0;
}

static int rlimit_of(const char *name)
{
	return !strcmp(name, "core")	 ? RLIMIT_CORE
	       : !strcmp(name, "fsize")	 ? RLIMIT_FSIZE
	       : !strcmp(name, "cpu")	 ? RLIMIT_CPU
	       : !strcmp(name, "nofile") ? RLIMIT_NOFILE
					 : (usage(), 0);
}

/* PID, -PGID or uUID: its which (process, group, user) and who. */
static int prio_target(const char *s, int *who)
{
	if (s[0] == 'u') {
		*who = (int)num(s + 1);
		return 2;
	}
	*who = (int)num(s);
	if (*who < 0) {
		*who = -*who;
		return 1;
	}
	return 0;
}

/* A system call through the i386 ABI from this 64-bit process: its result, or -1 and errno. */
static long sys_i386(long nr, long a, long b, long c, long d)
{
	long r;

	__asm__ volatile("int $0x80"
			 : "=a"(r)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d)
			 : "memory", "r8", "r9", "r10", "r11");
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

#define X32_BIT 0x40000000L

/* setpriority and prlimit64 on another ABI: "nice-i386", "prlimit-x32", ... */
static long abi_call(const char *call, pid_t pid)
{
	bool i386 = strstr(call, "-i386");
	/* a struct rlimit64 the 32-bit ABIs can point at: below 4 GiB */
	uint64_t *rl = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);

	if (rl == MAP_FAILED)
		die("mmap", NULL);
	rl[0] = rl[1] = 0;
	if (!strncmp(call, "nice-", 5))
		return i386 ? sys_i386(97, PRIO_PROCESS, pid, 19, 0)
			    : syscall(X32_BIT | 141, PRIO_PROCESS, pid, 19);
	return i386 ? sys_i386(340, pid, RLIMIT_FSIZE, (long)(uintptr_t)rl, 0)
		    : syscall(X32_BIT | 302, pid, RLIMIT_FSIZE, rl, NULL);
}

/* The calls that change another process: their result, or 1 when `call` is none of them. */
static long change_call(const char *call, char **argv, int argc)
{
	int who, which;
	pid_t pid = argc > 2 && strcmp(call, "nice") && strcmp(call, "ionice") ? (pid_t)num(argv[2])
									       : 0;

	if (!strcmp(call, "prlimit") && argc == 5) {
		struct rlimit rl;

		if (sscanf(argv[4], "%lu:%lu", &rl.rlim_cur, &rl.rlim_max) != 2)
			usage();
		return prlimit(pid, rlimit_of(argv[3]), &rl, NULL);
	}
	if (argc != 3)
		return 1;
	if (!strcmp(call, "nice-i386") || !strcmp(call, "nice-x32") ||
	    !strcmp(call, "prlimit-i386") || !strcmp(call, "prlimit-x32"))
		return abi_call(call, pid);
	if (!strcmp(call, "nice")) {
		which = prio_target(argv[2], &who);
		return setpriority(which, (id_t)who, 19);
	}
	if (!strcmp(call, "ionice")) {
		which = prio_target(argv[2], &who);
		return syscall(SYS_ioprio_set, which + 1, who, 3 << 13); /* IOPRIO_CLASS_IDLE */
	}
	if (!strcmp(call, "affinity")) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		return sched_setaffinity(pid, sizeof(set), &set);
	}
	if (!strcmp(call, "sched")) {
		struct sched_param sp = { 0 };

		return sched_setscheduler(pid, SCHED_BATCH, &sp);
	}
	if (!strcmp(call, "setparam")) {
		struct sched_param sp = { 0 };

		return sched_setparam(pid, &sp);
	}
	if (!strcmp(call, "setattr")) {
		uint32_t attr[14] = { sizeof(attr), SCHED_OTHER, 0, 0,
				      19 }; /* size, policy, flags, nice */

		return syscall(SYS_sched_setattr, pid, attr, 0);
	}
	if (!strcmp(call, "migrate")) {
		unsigned long nodes = 1;

		return syscall(SYS_migrate_pages, pid, 8 * sizeof(nodes), &nodes, &nodes) < 0 ? -1
											      : 0;
	}
	if (!strcmp(call, "movepages")) {
		return syscall(SYS_move_pages, pid, 0, NULL, NULL, NULL, 0);
	}
	if (!strcmp(call, "madvise")) {
		long fd = syscall(SYS_pidfd_open, pid, 0);
		struct iovec v = { (void *)0x10000, 4096 };

		if (fd < 0)
			die("pidfd_open", NULL);
		return syscall(SYS_process_madvise, fd, &v, 1, MADV_COLD, 0) < 0 ? -1 : 0;
	}
	if (!strcmp(call, "perf")) {
		struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE,
					     .size = sizeof(a),
					     .config = PERF_COUNT_SW_CPU_CLOCK,
					     .disabled = 1 };
		long fd = syscall(SYS_perf_event_open, &a, pid, -1, -1, 0);

		return fd < 0 ? -1 : 0;
	}
	return 1;
}

int main(int argc, char **argv)
{
	const char *call;
	long r;

	if (argc < 2)
		usage();
	call = argv[1];
	signal(SIGIO, on_signal);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	if (!strncmp(call, "setown", 6) || !strcmp(call, "fiosetown") ||
	    !strcmp(call, "siocspgrp")) {
		r = owner_call(argv, argc);
	} else if (!strcmp(call, "setpgid") && argc == 4) {
		r = setpgid((pid_t)num(argv[2]), (pid_t)num(argv[3]));
	} else if (!strcmp(call, "ptrace") && argc == 3) {
		pid_t pid = (pid_t)num(argv[2]);

		r = ptrace(PTRACE_SEIZE, pid, 0, 0);
		if (r == 0)
			ptrace(PTRACE_DETACH, pid, 0, 0);
	} else if (!strcmp(call, "attach") && argc == 3) {
		pid_t pid = (pid_t)num(argv[2]);

		r = ptrace(PTRACE_ATTACH, pid, 0, 0);
		if (r == 0) {
			waitpid(pid, NULL, __WALL);
			ptrace(PTRACE_DETACH, pid, 0, 0);
		}
	} else if (!strcmp(call, "vmwrite") && argc == 4) {
		char b = 0;
		struct iovec l = { &b, 1 }, rem = { (void *)strtoul(argv[3], NULL, 16), 1 };

		r = process_vm_writev((pid_t)num(argv[2]), &l, 1, &rem, 1, 0) < 0 ? -1 : 0;
	} else if (!strcmp(call, "getfd") && argc == 3) {
		long fd = syscall(SYS_pidfd_open, (pid_t)num(argv[2]), 0);

		if (fd < 0)
			die("pidfd_open", NULL);
		r = syscall(SYS_pidfd_getfd, fd, 0, 0) < 0 ? -1 : 0;
	} else if (!strcmp(call, "child-trace")) {
		r = child_trace();
	} else if (!strcmp(call, "mem") && argc == 3) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)num(argv[2]));
		r = open(path, O_RDWR | O_CLOEXEC) < 0 ? -1 : 0;
	} else if (!strcmp(call, "scope")) {
		/* landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION) */
		r = syscall(444, NULL, 0, 1UL);
		r = r >= 6 ? 0 : r < 0 ? -1 : (errno = EOPNOTSUPP, -1);
	} else if ((r = change_call(call, argv, argc)) == 1) {
		usage();
	}
	printf("%s %s\n", call, r == 0 ? "OK" : strerrorname_np(errno));
	if (got)
		printf("got %d\n", (int)got);
	return 0;
}
