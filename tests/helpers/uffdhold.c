// SPDX-License-Identifier: MIT
/*
 * uffdhold exec PROGRAM
 * uffdhold exec-file FILE PROGRAM
 * uffdhold connect
 * uffdhold sigqueue
 * uffdhold cmdline READY PAD
 *
 * Memory whose read waits until someone answers a userfaultfd that nobody
 * answers (root: unprivileged userfaultfd is off on most hosts).
 *
 * exec: execve(PROGRAM, [PROGRAM, S]) where S lies on a registered page never
 * filled, so a reader of the exec's argv (isorun's exec record) waits; prints
 * "execve: ERROR" and exits 3 when the exec is refused instead.
 *
 * exec-file: the same, S on the first page of FILE mapped (a file whose
 * read is never answered: fusestall --file); for any user.
 *
 * connect: connect() a Unix socket to an address on such a page (the service
 * guard reads it); prints "connect: ERROR" and exits 3.
 *
 * sigqueue: rt_sigqueueinfo(parent, SIGUSR1) with the siginfo on such a page
 * (contain-signals reads it); prints "sigqueue: ERROR" and exits 3.
 *
 * cmdline: the page of its own command line after the first (PAD, an argument
 * longer than a page, keeps the page wholly strings) is emptied and
 * registered; READY is created, then it waits for a signal: a read of
 * /proc/PID/cmdline or environ waits with it.
 *
 * Exits 77 when userfaultfd is not allowed.
 */
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#define PROG "uffdhold"
#define USAGE                                                                                      \
	PROG " exec PROGRAM | " PROG " exec-file FILE PROGRAM | " PROG " connect | " PROG          \
	     " sigqueue | " PROG " cmdline READY PAD"
#include "common.h"

static void register_missing(void *addr, size_t len)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = {
		.range = { .start = (unsigned long)addr, .len = len },
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC);

	if (fd < 0) {
		fprintf(stderr, PROG ": userfaultfd: %s\n", strerror(errno));
		exit(77);
	}
	if (ioctl(fd, UFFDIO_API, &api) < 0 || ioctl(fd, UFFDIO_REGISTER, &reg) < 0)
		die("register a page with userfaultfd", NULL);
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);

	if (argc == 3 && !strcmp(argv[1], "exec")) {
		char *area = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char *args[] = { argv[2], area, NULL };

		if (area == MAP_FAILED)
			die("mmap", NULL);
		register_missing(area, (size_t)page);
		execv(argv[2], args);
		printf("execve: %s\n", strerror(errno));
		return 3;
	}
	if (argc == 4 && !strcmp(argv[1], "exec-file")) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		char *area = fd < 0 ? MAP_FAILED
				    : mmap(NULL, (size_t)page, PROT_READ, MAP_PRIVATE, fd, 0);
		char *args[] = { argv[3], area, NULL };

		if (area == MAP_FAILED)
			die("open and map", argv[2]);
		execv(argv[3], args);
		printf("execve: %s\n", strerror(errno));
		return 3;
	}
	if (argc == 2 && !strcmp(argv[1], "connect")) {
		char *area = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (area == MAP_FAILED || fd < 0)
			die("mmap or socket", NULL);
		register_missing(area, (size_t)page);
		if (connect(fd, (struct sockaddr *)area, sizeof(struct sockaddr_un)) < 0)
			printf("connect: %s\n", strerror(errno));
		return 3;
	}
	if (argc == 2 && !strcmp(argv[1], "sigqueue")) {
		char *area = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (area == MAP_FAILED)
			die("mmap", NULL);
		register_missing(area, (size_t)page);
		if (syscall(SYS_rt_sigqueueinfo, getppid(), SIGUSR1, area) < 0)
			printf("sigqueue: %s\n", strerror(errno));
		return 3;
	}
	if (argc == 4 && !strcmp(argv[1], "cmdline") && strlen(argv[3]) > 2 * (size_t)page) {
		unsigned long second =
			((unsigned long)argv[3] + (unsigned long)page) & ~(page - 1UL);
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0)
			die("create", argv[2]);
		close(fd);
		/* from here on nothing of ours may touch that page: argv[3] is not read again */
		if (madvise((void *)second, (size_t)page, MADV_DONTNEED) < 0)
			die("madvise(MADV_DONTNEED)", NULL);
		register_missing((void *)second, (size_t)page);
		/* READY after the page is gone */
		fd = open(argv[2], O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (fd < 0 || write(fd, "1", 1) != 1)
			die("write", argv[2]);
		close(fd);
		pause();
		return 0;
	}
	usage();
}
