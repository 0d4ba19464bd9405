// SPDX-License-Identifier: MIT
/*
 * The commands the live controls run under a child isorun: `isorun selftest
 * --internal-MODE [ARG]`.  They live in this binary because an installed isorun
 * has no test helpers.  Each one prints what it observed on stdout, one fact a
 * line, for the control to judge; none of them judges itself.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "selftest/selftest.h"
#include "common/io.h"

/* Leaves nothing behind: the clean run. */
static int mode_clean(char **args)
{
	return 0;
}

/*
 * A setsid daemon that never exits on its own, detached from every descriptor
 * the run gave it (so no pipe tells on it): only the leak gate can find it.
 * The parent returns once the daemon has its own session.
 */
static int mode_daemon(char **args)
{
	int ready[2], devnull;
	pid_t pid;
	char c;

	if (pipe2(ready, O_CLOEXEC) < 0) {
		perror("selftest daemon: pipe");
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("selftest daemon: fork");
		return 1;
	}
	if (pid == 0) {
		close(ready[0]);
		if (setsid() < 0)
			_exit(1);
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
		    dup2(devnull, 2) < 0)
			_exit(1);
		close(ready[1]); /* the parent's EOF: detached */
		for (;;)
			pause();
	}
	close(ready[1]);
	/* the child's close of its end (or its death): EOF */
	(void)iso_read_all(ready[0], &c, 1);
	close(ready[0]);
	printf("daemon %d\n", (int)pid);
	return 0;
}

/* Tells the control where its tree is, then waits for the control to hold it. */
static int mode_hold(char **args)
{
	const char *home = getenv("HOME");
	ssize_t n;
	char c;

	printf("%s\n", home ? home : "");
	if (fflush(stdout) != 0) {
		perror("selftest hold: write HOME");
		return 1;
	}
	n = iso_read_all(0, &c, 1);
	return n == 1 ? 0 : 1;
}

/* A new file in the operator's real home: "created", or why it was refused. */
static int mode_create(char **args)
{
	int fd;

	if (!args[0])
		return 2;
	fd = open(args[0], O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		printf("refused: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("created\n");
	return 0;
}

/* One `systemctl VERB selftest-unit` through PATH, as a test would start it. */
static void run_systemctl(const char *verb)
{
	int status, report[2], err = 0;
	pid_t pid;

	if (pipe2(report, O_CLOEXEC) < 0) {
		printf("%s: pipe: %s\n", verb, strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("%s: fork: %s\n", verb, strerror(errno));
		close(report[0]);
		close(report[1]);
		return;
	}
	if (pid == 0) {
		close(report[0]);
		execlp("systemctl", "systemctl", verb, "selftest-unit", (char *)NULL);
		err = errno;
		(void)!write(report[1], &err, sizeof(err));
		_exit(127);
	}
	close(report[1]);
	if (iso_read_all(report[0], &err, sizeof(err)) != (ssize_t)sizeof(err))
		err = 0;
	close(report[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err)
		printf("%s: exec refused: %s\n", verb, strerror(err));
	else if (WIFEXITED(status))
		printf("%s: exit %d\n", verb, WEXITSTATUS(status));
	else
		printf("%s: signal %d\n", verb, WTERMSIG(status));
}

static int mode_service(char **args)
{
	run_systemctl("restart");
	run_systemctl("is-active");
	return 0;
}

/*
 * Calls the default policy denies, each with an argument the kernel rejects
 * before doing anything: a NULL pointer (EFAULT) or fd -1 (EBADF).  So a call
 * the filter let through fails harmlessly with the kernel's errno, and a
 * refused one with the policy's.
 */
const char *const st_deny_calls[ST_N_DENY_CALLS] = {
	"adjtimex",
	"clock_settime",
	"clock_adjtime",
	"ioctl TIOCSTI",
};

int st_deny_call(int i)
{
	long r = -1;

	switch (i) {
	case 0:
		r = syscall(SYS_adjtimex, NULL);
		break;
	case 1:
		r = syscall(SYS_clock_settime, CLOCK_REALTIME, NULL);
		break;
	case 2:
		r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, NULL);
		break;
	case 3:
		r = syscall(SYS_ioctl, -1, TIOCSTI, NULL);
		break;
	default:
		errno = EINVAL;
	}
	return r < 0 ? errno : 0;
}

static int mode_syscalls(char **args)
{
	for (int i = 0; i < ST_N_DENY_CALLS; i++) {
		int err = st_deny_call(i);

		printf("%s: %s\n", st_deny_calls[i],
		       err ? (strerrorname_np(err) ? strerrorname_np(err) : "?") : "succeeded");
	}
	return 0;
}

/* connect() to the control's listener on the host's 127.0.0.1. */
static int mode_connect(char **args)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	long port;
	char *end;
	int fd, r;

	if (!args[0])
		return 2;
	port = strtol(args[0], &end, 10);
	if (*end || port <= 0 || port > 65535)
		return 2;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		printf("socket: %s\n", strerror(errno));
		return 1;
	}
	do
		r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	while (r < 0 && errno == EINTR);
	if (r < 0)
		printf("refused: %s (%s)\n", strerror(errno), strerrorname_np(errno));
	else
		printf("connected\n");
	close(fd);
	return r < 0 ? 1 : 0;
}

int st_internal_main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(char **args);
	} modes[] = {
		{ "clean", mode_clean },     { "daemon", mode_daemon },
		{ "hold", mode_hold },	     { "create", mode_create },
		{ "service", mode_service }, { "syscalls", mode_syscalls },
		{ "connect", mode_connect }, { "forkstorm", st_mode_forkstorm },
		{ "alloc", st_mode_alloc },  { "signal", st_mode_signal },
	};
	const char *mode = argv[2] + strlen(ST_INTERNAL);
	int r;

	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (strcmp(mode, modes[i].name) != 0)
			continue;
		r = modes[i].fn(argv + 3);
		if (fflush(stdout) != 0)
			return 1;
		return r;
	}
	fprintf(stderr, "isorun: selftest: %s: unknown option\n", argv[2]);
	return ST_EXIT_USAGE;
}
