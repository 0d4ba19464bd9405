// SPDX-License-Identifier: MIT
#include "launcher/sigtable.h"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/ksig.h"

/* The kernel's sigset: the first 64 bits of glibc's 1024. */
#define KERNEL_NSIG 64

static const enum sup_sig_class table[KERNEL_NSIG + 1] = {
	[SIGHUP] = SUP_SIG_CANCEL,
	[SIGINT] = SUP_SIG_CANCEL,
	[SIGQUIT] = SUP_SIG_CANCEL,
	[SIGTERM] = SUP_SIG_CANCEL,
	/*
	 * Sent by kill(), a fault signal is a request to stop like any other; a real
	 * fault of isorun's own is forced through the mask by the kernel and still
	 * dumps core, which is the evidence a bug needs.
	 */
	[SIGILL] = SUP_SIG_ABORT,
	[SIGTRAP] = SUP_SIG_ABORT,
	[SIGABRT] = SUP_SIG_ABORT,
	[SIGBUS] = SUP_SIG_ABORT,
	[SIGFPE] = SUP_SIG_ABORT,
	[SIGSEGV] = SUP_SIG_ABORT,
	[SIGSYS] = SUP_SIG_ABORT,
	/* isorun's own CPU limit (ulimit -t): SIGKILL follows at the hard limit */
	[SIGXCPU] = SUP_SIG_ABORT,
	[SIGKILL] = SUP_SIG_UNCATCHABLE,
	[SIGSTOP] = SUP_SIG_UNCATCHABLE,
	[SIGCHLD] = SUP_SIG_REAP,
	[SIGCONT] = SUP_SIG_GROUP,
	[SIGTSTP] = SUP_SIG_GROUP,
	[SIGTTIN] = SUP_SIG_GROUP,
	[SIGUSR1] = SUP_SIG_FORWARD,
	[SIGUSR2] = SUP_SIG_FORWARD,
	[SIGALRM] = SUP_SIG_FORWARD,
	[SIGVTALRM] = SUP_SIG_FORWARD,
	[SIGPROF] = SUP_SIG_FORWARD,
	[SIGPWR] = SUP_SIG_FORWARD,
	[SIGIO] = SUP_SIG_FORWARD,
	[SIGSTKFLT] = SUP_SIG_FORWARD,
	[SIGWINCH] = SUP_SIG_FORWARD,
	[SIGURG] = SUP_SIG_FORWARD,
	/* the relay's write then fails with EPIPE / EFBIG: output lost, a finding */
	[SIGPIPE] = SUP_SIG_IGNORE,
	[SIGXFSZ] = SUP_SIG_IGNORE,
	/* isorun hands the terminal back from whatever group it is in */
	[SIGTTOU] = SUP_SIG_IGNORE,
};

enum sup_sig_class sup_sig_class(int sig)
{
	if (sig < 1 || sig > KERNEL_NSIG)
		return SUP_SIG_IGNORE;
	/* 32 and 33 (glibc's own) too: they are real-time signals to the kernel */
	if (sig >= 32)
		return SUP_SIG_FORWARD;
	return table[sig];
}

static void add_raw(sigset_t *mask, int sig)
{
	unsigned long *w = (unsigned long *)mask;
	unsigned bits = 8 * sizeof(*w);

	w[(sig - 1) / bits] |= 1UL << ((sig - 1) % bits);
}

int sup_sig_inherited_read(struct sup_sig_inherited *in)
{
	uint64_t blocked;

	*in = (struct sup_sig_inherited){ 0 };
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &blocked, KERNEL_NSIG / 8) < 0)
		return -errno;
	in->blocked = blocked;
	for (int sig = 1; sig <= KERNEL_NSIG; sig++) {
		struct iso_ksigaction old;
		int err;

		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		if ((err = iso_rt_sigaction(sig, NULL, &old)) < 0)
			return err;
		if (old.handler == (unsigned long)SIG_IGN)
			in->ignored |= 1ULL << (sig - 1);
	}
	return 0;
}

void sup_sig_supervised(sigset_t *mask, uint64_t ignored)
{
	sigemptyset(mask);
	for (int sig = 1; sig <= KERNEL_NSIG; sig++) {
		enum sup_sig_class c = sup_sig_class(sig);

		if (c != SUP_SIG_UNCATCHABLE && !(sup_sig_cancels(c) && sup_sig_in(ignored, sig)))
			add_raw(mask, sig);
	}
}

int sup_sig_block(const sigset_t *mask)
{
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, mask, NULL, KERNEL_NSIG / 8) < 0)
		return -errno;
	return 0;
}
