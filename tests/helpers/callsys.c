// SPDX-License-Identifier: MIT
/*
 * callsys NAME...: make host-mutating calls with arguments the kernel rejects
 * anyway, and print "NAME ERRNO" for each, so a broken filter shows up as
 * EINVAL/EFAULT/ENOENT instead of powering off the machine or moving its clock:
 *   reboot        reboot(2) with a wrong magic number          (EINVAL, EPERM unprivileged)
 *   init_module   init_module(NULL, 0, "")                     (EFAULT, EPERM unprivileged)
 *   clock_settime clock_settime(CLOCK_MONOTONIC, ...)          (EINVAL)
 *   swapoff       swapoff("/nonexistent/isorun")                (ENOENT, EPERM unprivileged)
 *   tiocsti       ioctl(0, TIOCSTI, "")                         (ENOTTY off a terminal)
 *   tioclinux     ioctl(/dev/null, TIOCLINUX, TIOCL_PASTESEL)   (ENOTTY: not a console)
 *   tioclinux-shift  the same with TIOCL_GETSHIFTSTATE, a harmless subcode
 *   kdskbsent     ioctl(/dev/null, KDSKBSENT, ...)              (ENOTTY)
 *   kdskbent      ioctl(/dev/null, KDSKBENT, ...)               (ENOTTY)
 *   kdsetkeycode  ioctl(/dev/null, KDSETKEYCODE, ...)           (ENOTTY)
 *   tiocgwinsz    ioctl(/dev/null, TIOCGWINSZ, ...)             (ENOTTY; never denied)
 *   quotactl      quotactl(type 255, NULL, ...)                 (EINVAL: no such type)
 *   quotactl_fd   quotactl_fd(-1, ...) by number 443            (EBADF)
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/tiocl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The console ioctls on /dev/null: the kernel says ENOTTY, a filter EPERM. */
static long console_ioctl(const char *n)
{
	char paste[1] = { TIOCL_PASTESEL }, shift[1] = { TIOCL_GETSHIFTSTATE };
	struct kbsentry kbs = { 0 };
	struct kbentry kbe = { 0 };
	struct kbkeycode kc = { 0 };
	struct winsize ws;
	const struct {
		const char *name;
		unsigned long req;
		void *arg;
	} calls[] = {
		{ "tioclinux", TIOCLINUX, paste },     { "tioclinux-shift", TIOCLINUX, shift },
		{ "kdskbsent", KDSKBSENT, &kbs },      { "kdskbent", KDSKBENT, &kbe },
		{ "kdsetkeycode", KDSETKEYCODE, &kc }, { "tiocgwinsz", TIOCGWINSZ, &ws },
	};
	long r;
	int fd;

	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (strcmp(calls[i].name, n) != 0)
			continue;
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -1;
		r = ioctl(fd, calls[i].req, calls[i].arg);
		close(fd);
		return r;
	}
	errno = EINVAL;
	return -1;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *n = argv[i];
		struct timespec ts = { 0 };
		long r;

		errno = 0;
		if (!strcmp(n, "reboot"))
			r = syscall(SYS_reboot, 0x12345678, 0x87654321, 0, NULL);
		else if (!strcmp(n, "init_module"))
			r = syscall(SYS_init_module, NULL, 0UL, "");
		else if (!strcmp(n, "clock_settime"))
			r = clock_settime(CLOCK_MONOTONIC, &ts);
		else if (!strcmp(n, "swapoff"))
			r = syscall(SYS_swapoff, "/nonexistent/isorun");
		else if (!strcmp(n, "tiocsti"))
			r = ioctl(0, TIOCSTI, "");
		else if (strncmp(n, "tioc", 4) == 0 || strncmp(n, "kd", 2) == 0)
			r = console_ioctl(n);
		else if (!strcmp(n, "quotactl"))
			r = syscall(SYS_quotactl, 0xff, NULL, 0, NULL);
		else if (!strcmp(n, "quotactl_fd"))
			r = syscall(443, -1, 0U, 0, NULL); /* __NR_quotactl_fd, also on i386 */
		else {
			fprintf(stderr,
				"usage: callsys "
				"reboot|init_module|clock_settime|swapoff|tiocsti|tioclinux|"
				"tioclinux-shift|kdskbsent|kdskbent|kdsetkeycode|"
				"tiocgwinsz|quotactl|quotactl_fd...\n");
			return 2;
		}
		printf("%s %s\n", n, r == 0 ? "OK" : strerrorname_np(errno));
	}
	return 0;
}
