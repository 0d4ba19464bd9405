// SPDX-License-Identifier: MIT
#include "launcher/sigtable.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's sigset: the first 64 bits of glibc's 1024. */
#define KERNEL_NSIG 64

static const enum iso_sig_class table[KERNEL_NSIG + 1] = {
	[SIGHUP] = ISO_SIG_CANCEL,
	[SIGINT] = ISO_SIG_CANCEL,
	[SIGQUIT] = ISO_SIG_CANCEL,
	[SIGTERM] = ISO_SIG_CANCEL,
	/*
	 * Sent by kill(), a fault signal is a request to stop like any other; a real
	 * fault of isorun's own is forced through the mask by the kernel and still
	 * dumps core, which is the evidence a bug needs.
	 */
	[SIGILL] = ISO_SIG_ABORT,
	[SIGTRAP] = ISO_SIG_ABORT,
	[SIGABRT] = ISO_SIG_ABORT,
	[SIGBUS] = ISO_SIG_ABORT,
	[SIGFPE] = ISO_SIG_ABORT,
	[SIGSEGV] = ISO_SIG_ABORT,
	[SIGSYS] = ISO_SIG_ABORT,
	/* isorun's own CPU limit (ulimit -t): SIGKILL follows at the hard limit */
	[SIGXCPU] = ISO_SIG_ABORT,
	[SIGKILL] = ISO_SIG_UNCATCHABLE,
	[SIGSTOP] = ISO_SIG_UNCATCHABLE,
	[SIGCHLD] = ISO_SIG_REAP,
	[SIGCONT] = ISO_SIG_GROUP,
	[SIGTSTP] = ISO_SIG_GROUP,
	[SIGTTIN] = ISO_SIG_GROUP,
	[SIGUSR1] = ISO_SIG_FORWARD,
	[SIGUSR2] = ISO_SIG_FORWARD,
	[SIGALRM] = ISO_SIG_FORWARD,
	[SIGVTALRM] = ISO_SIG_FORWARD,
	[SIGPROF] = ISO_SIG_FORWARD,
	[SIGPWR] = ISO_SIG_FORWARD,
	[SIGIO] = ISO_SIG_FORWARD,
	[SIGSTKFLT] = ISO_SIG_FORWARD,
	[SIGWINCH] = ISO_SIG_FORWARD,
	[SIGURG] = ISO_SIG_FORWARD,
	/* the relay's write then fails with EPIPE / EFBIG: output lost, a finding */
	[SIGPIPE] = ISO_SIG_IGNORE,
	[SIGXFSZ] = ISO_SIG_IGNORE,
	/* isorun hands the terminal back from whatever group it is in */
	[SIGTTOU] = ISO_SIG_IGNORE,
};

enum iso_sig_class iso_sig_class(int sig)
{
	if (sig < 1 || sig > KERNEL_NSIG)
		return ISO_SIG_IGNORE;
	/* 32 and 33 (glibc's own) too: they are real-time signals to the kernel */
	if (sig >= 32)
		return ISO_SIG_FORWARD;
	return table[sig];
}

static void add_raw(sigset_t *mask, int sig)
{
	unsigned long *w = (unsigned long *)mask;
	unsigned bits = 8 * sizeof(*w);

	w[(sig - 1) / bits] |= 1UL << ((sig - 1) % bits);
}

void iso_sig_supervised(sigset_t *mask)
{
	sigemptyset(mask);
	for (int sig = 1; sig <= KERNEL_NSIG; sig++)
		if (iso_sig_class(sig) != ISO_SIG_UNCATCHABLE)
			add_raw(mask, sig);
}

int iso_sig_block(const sigset_t *mask)
{
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, mask, NULL, KERNEL_NSIG / 8) < 0)
		return -errno;
	return 0;
}
