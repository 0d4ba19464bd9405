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
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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
		else {
			fprintf(stderr, "usage: callsys "
					"reboot|init_module|clock_settime|swapoff|tiocsti...\n");
			return 2;
		}
		printf("%s %s\n", n, r == 0 ? "OK" : strerrorname_np(errno));
	}
	return 0;
}
