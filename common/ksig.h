/* SPDX-License-Identifier: MIT */
/*
 * The kernel's sigaction, as rt_sigaction(2) takes it: the raw call reaches
 * glibc's reserved real-time signals (32, 33), which sigaction(3) refuses,
 * and an ignore or a handler on them survives as on any other.
 */
#ifndef ISO_KSIG_H
#define ISO_KSIG_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

/* the kernel's signals: 64, its sigset one word */
#define ISO_KERNEL_NSIG 64

struct iso_ksigaction {
	unsigned long handler, flags, restorer, mask;
};

/* rt_sigaction(2) itself: 0 or -errno; async-signal-safe (after fork, before exec) */
static inline int iso_rt_sigaction(int sig, const struct iso_ksigaction *act,
				   struct iso_ksigaction *old)
{
	return syscall(SYS_rt_sigaction, sig, act, old, ISO_KERNEL_NSIG / 8) < 0 ? -errno : 0;
}

#endif
