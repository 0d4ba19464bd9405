/* SPDX-License-Identifier: MIT */
/*
 * struct pol -> one seccomp filter -> the kernel.
 *
 * libseccomp builds the filter (rule translation for every ABI the kernel runs
 * here), but the load is a raw seccomp(2) on the exported BPF.  Reasons:
 *
 *  - libseccomp 2.5.4 misreports the nested-listener refusal (the kernel says
 *    EBUSY; seccomp_load() says -ECANCELED or -EFAULT and seccomp_notify_fd()
 *    -14).  The raw call gives the kernel's errno as is.
 *  - libseccomp asks for a listener only while it holds no notify fd in this
 *    process, so a second load in one process silently gets a filter whose
 *    NOTIFY rules answer ENOSYS, and seccomp_notify_fd() hands back the first,
 *    possibly long closed, fd.  The raw call has no such process-wide state.
 *  - SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (5.19) is not reachable through
 *    2.5.4: once the supervisor has received a notification, non-fatal signals
 *    no longer abort and restart the call (Go's SIGURG preemption otherwise
 *    makes a notified call loop).
 *
 * Architectures: x86_64 plus x32 and i386 (on aarch64: plus arm), so that a
 * 32-bit test binary meets the same rules instead of the bad-arch action.  The
 * bad-arch action, reached only by an ABI this kernel cannot run anyway, is
 * ERRNO(ENOSYS): the call does not run (no bypass through another ABI) and the
 * process is not killed (libseccomp's default, KILL, would kill it).
 */
#include "policy/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"

#define BADARCH_ACTION SCMP_ACT_ERRNO(ENOSYS)
/* The kernel's MAX_ERRNO: larger ERRNO() data is clamped by the kernel. */
#define ERRNO_MAX 4095

static void release_ctx(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

static int add_arches(scmp_filter_ctx ctx, const struct pol *p, struct iso_err *e)
{
	uint32_t extra[2] = { 0, 0 };
	size_t n = 0;
	int r;

	switch (seccomp_arch_native()) {
	case SCMP_ARCH_X86_64:
		extra[n++] = SCMP_ARCH_X86;
		extra[n++] = SCMP_ARCH_X32;
		break;
	case SCMP_ARCH_AARCH64:
		extra[n++] = SCMP_ARCH_ARM;
		break;
	default:
		break;
	}
	for (size_t i = 0; i < n; i++) {
		r = seccomp_arch_add(ctx, extra[i]);
		if (r < 0 && r != -EEXIST)
			return iso_err_set(e, r, "add architecture %#x to the seccomp policy '%s'",
					   extra[i], p->name);
	}
	r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, BADARCH_ACTION);
	if (r < 0)
		return iso_err_set(e, r,
				   "set the bad-architecture action of the seccomp policy '%s'",
				   p->name);
	return 0;
}

/* A whole-call deny on `name` wins over notifying it and over a family's expansion. */
static bool denied_outright(const struct pol *p, const char *name)
{
	for (size_t i = 0; i < p->n_deny; i++)
		if (!p->deny[i].has_ioctl_req && !strcmp(p->deny[i].syscall, name))
			return true;
	return false;
}

static int add_rule(scmp_filter_ctx ctx, const struct pol_deny *d, const char *name,
		    uint32_t action, struct iso_err *e)
{
	int nr = seccomp_syscall_resolve_name(name);
	int r;

	if (nr == __NR_SCMP_ERROR)
		return iso_err_set(e, EINVAL,
				   strcmp(name, d->syscall)
					   ? "compile rule %s: libseccomp does not know '%s', a "
					     "spelling of '%s' (a newer libseccomp is needed)"
					   : "compile rule %s: unknown system call '%s'",
				   d->origin, name, d->syscall);
	if (d->has_ioctl_req) {
		if (nr != SCMP_SYS(ioctl))
			return iso_err_set(e, EINVAL,
					   "compile rule %s: a request applies to ioctl only",
					   d->origin);
		/* ioctl's request is an unsigned int: the kernel ignores the upper half */
		r = seccomp_rule_add(ctx, action, nr, 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
					     (scmp_datum_t)(d->ioctl_req & 0xffffffffu)));
	} else {
		r = seccomp_rule_add(ctx, action, nr, 0);
	}
	/*
	 * A call denied twice (an include repeating a rule, a family reached
	 * from two of its members) keeps the first rule: libseccomp 2.5.4
	 * ignores the repeat of a whole-call rule and says -EEXIST for a
	 * repeated condition; neither is an error here.  It skips the ABIs on
	 * which a call does not exist (kexec_file_load on i386, create_module
	 * on x32, stime everywhere but i386).
	 */
	if (r < 0 && r != -EEXIST)
		return iso_err_set(e, r, "compile rule %s (%s)", d->origin, name);
	return 0;
}

/*
 * The rule's call and, for a whole-call deny, every other spelling of it
 * (policy/families.c) that the policy does not deny by a rule of its own.
 */
static int add_deny(scmp_filter_ctx ctx, const struct pol *p, const struct pol_deny *d,
		    bool log_only, struct iso_err *e)
{
	const char *const *family = d->has_ioctl_req ? NULL : pol_family(d->syscall);
	uint32_t action;
	int r;

	if (d->errnum <= 0 || d->errnum > ERRNO_MAX)
		return iso_err_set(e, EINVAL, "compile rule %s: errno %d out of range", d->origin,
				   d->errnum);
	action = log_only ? SCMP_ACT_LOG : SCMP_ACT_ERRNO((uint32_t)d->errnum);
	r = add_rule(ctx, d, d->syscall, action, e);
	for (; r == 0 && family && *family; family++)
		if (strcmp(*family, d->syscall) && !denied_outright(p, *family))
			r = add_rule(ctx, d, *family, action, e);
	return r;
}

static int add_notify(scmp_filter_ctx ctx, const struct pol *p, const char *name, struct iso_err *e)
{
	int nr = seccomp_syscall_resolve_name(name);
	int r;

	if (denied_outright(p, name))
		return 0;
	/* connect on i386 also comes through socketcall(SYS_CONNECT): libseccomp adds both */
	r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	if (r < 0 && r != -EEXIST)
		return iso_err_set(e, r, "add user notification for %s to the seccomp policy '%s'",
				   name, p->name);
	return 0;
}

/*
 * contain-signals: each signal-sending call with a signal other than 0, by the
 * index of its signal argument.  kill(pid, 0) and the like only probe for a
 * process: they pass in the filter, unnotified (policy/signal.c says why).
 */
static const struct {
	const char *name;
	unsigned sig_arg;
} signal_calls[] = {
	{ "kill", 1 },
	{ "tkill", 1 },
	{ "tgkill", 2 },
	{ "rt_sigqueueinfo", 1 },
	{ "rt_tgsigqueueinfo", 2 },
	{ "pidfd_send_signal", 1 },
};

static int add_signal_notify(scmp_filter_ctx ctx, const struct pol *p, struct iso_err *e)
{
	for (size_t i = 0; i < ELEMENTSOF(signal_calls); i++) {
		int nr = seccomp_syscall_resolve_name(signal_calls[i].name);
		int r;

		if (nr == __NR_SCMP_ERROR)
			return iso_err_set(e, EINVAL, "compile rule %s: unknown system call '%s'",
					   p->signals_origin, signal_calls[i].name);
		if (denied_outright(p, signal_calls[i].name))
			continue;
		/*
		 * The whole register is compared: a 0 with garbage above it is
		 * notified too, and let through by the supervisor (the kernel reads
		 * an int).
		 */
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 1,
				     SCMP_CMP(signal_calls[i].sig_arg, SCMP_CMP_NE, 0));
		if (r < 0 && r != -EEXIST)
			return iso_err_set(e, r, "compile rule %s (%s)", p->signals_origin,
					   signal_calls[i].name);
	}
	return 0;
}

/*
 * contain-signals, the other ways to reach a process (policy/reach.c): only
 * these requests are notified, every other fcntl, ioctl or ptrace passes here.
 * A request compared as an unsigned int is masked (the kernel ignores the upper
 * half); an owner or group of 0 with garbage above it is notified and let
 * through by the supervisor.
 */
#define LOW32 0xffffffffu
static const struct {
	const char *name;
	unsigned n;
	struct scmp_arg_cmp cmp[2];
} reach_rules[] = {
	{ "fcntl", 2, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN), SCMP_A2(SCMP_CMP_NE, 0) } },
	{ "fcntl", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN_EX) } },
	{ "fcntl64", 2, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN), SCMP_A2(SCMP_CMP_NE, 0) } },
	{ "fcntl64", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN_EX) } },
	{ "ioctl", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, FIOSETOWN) } },
	{ "ioctl", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, SIOCSPGRP) } },
	{ "setpgid", 1, { SCMP_A1(SCMP_CMP_NE, 0) } },
	{ "ptrace", 1, { SCMP_A0(SCMP_CMP_EQ, PTRACE_ATTACH) } },
	{ "ptrace", 1, { SCMP_A0(SCMP_CMP_EQ, PTRACE_SEIZE) } },
	{ .name = "process_vm_writev" },
	{ .name = "pidfd_getfd" },
};

static int add_reach_notify(scmp_filter_ctx ctx, const struct pol *p, struct iso_err *e)
{
	for (size_t i = 0; i < ELEMENTSOF(reach_rules); i++) {
		int nr = seccomp_syscall_resolve_name(reach_rules[i].name);
		int r;

		if (nr == __NR_SCMP_ERROR)
			return iso_err_set(e, EINVAL, "compile rule %s: unknown system call '%s'",
					   p->signals_origin, reach_rules[i].name);
		if (denied_outright(p, reach_rules[i].name))
			continue;
		r = seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, reach_rules[i].n,
					   reach_rules[i].cmp);
		/* fcntl64 exists on i386 only: libseccomp places it there */
		if (r < 0 && r != -EEXIST)
			return iso_err_set(e, r, "compile rule %s (%s)", p->signals_origin,
					   reach_rules[i].name);
	}
	return 0;
}

static int build(const struct pol *p, bool notify, bool log_only, scmp_filter_ctx *ret,
		 struct iso_err *e)
{
	scmp_filter_ctx ctx __attribute__((cleanup(release_ctx))) = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return iso_err_set(e, ENOMEM, "initialise the seccomp policy '%s'", p->name);
	r = add_arches(ctx, p, e);
	if (r < 0)
		return r;
	for (size_t i = 0; i < p->n_deny; i++) {
		r = add_deny(ctx, p, &p->deny[i], log_only, e);
		if (r < 0)
			return r;
	}
	if (notify) {
		r = add_notify(ctx, p, "execve", e);
		if (r >= 0)
			r = add_notify(ctx, p, "execveat", e);
		if (r >= 0 && p->n_socket > 0)
			r = add_notify(ctx, p, "connect", e);
		if (r >= 0 && p->contain_signals)
			r = add_signal_notify(ctx, p, e);
		if (r >= 0 && p->contain_signals)
			r = add_reach_notify(ctx, p, e);
		if (r < 0)
			return r;
	}
	*ret = TAKE_PTR(ctx);
	return 0;
}

int pol_filter_build(const struct pol *p, bool notify, bool log_only, struct sock_filter **ret,
		     size_t *ret_len, struct iso_err *e)
{
	scmp_filter_ctx ctx __attribute__((cleanup(release_ctx))) = NULL;
	_cleanup_close_ int mfd = -1;
	_cleanup_free_ struct sock_filter *insns = NULL;
	struct stat st;
	ssize_t n;
	int r;

	*ret = NULL;
	*ret_len = 0;
	r = build(p, notify, log_only, &ctx, e);
	if (r < 0)
		return r;
	mfd = memfd_create("isorun-seccomp", MFD_CLOEXEC);
	if (mfd < 0)
		return iso_err_set(e, errno, "create a memfd for the seccomp policy '%s'", p->name);
	r = seccomp_export_bpf(ctx, mfd);
	if (r < 0)
		return iso_err_set(e, r, "export the seccomp policy '%s'", p->name);
	if (fstat(mfd, &st) < 0)
		return iso_err_set(e, errno, "export the seccomp policy '%s'", p->name);
	if (st.st_size <= 0 || st.st_size % (off_t)sizeof(struct sock_filter) ||
	    st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS)
		return iso_err_set(e, E2BIG, "export the seccomp policy '%s' (%lld bytes of BPF)",
				   p->name, (long long)st.st_size);
	insns = malloc((size_t)st.st_size);
	if (!insns)
		return iso_err_set(e, ENOMEM, "export the seccomp policy '%s'", p->name);
	n = pread(mfd, insns, (size_t)st.st_size, 0);
	if (n != st.st_size)
		return iso_err_set(e, n < 0 ? errno : EIO, "export the seccomp policy '%s'",
				   p->name);
	*ret_len = (size_t)st.st_size / sizeof(struct sock_filter);
	*ret = TAKE_PTR(insns);
	return 0;
}

/* Install BPF with seccomp(2): the listener fd (listener set), 0, or -errno as the kernel said. */
int pol_filter_install(const struct sock_filter *insns, size_t len, bool listener, const char *name,
		       struct iso_err *e)
{
	struct sock_fprog prog = { .len = (unsigned short)len,
				   .filter = (struct sock_filter *)(uintptr_t)insns };
	unsigned long flags = 0;
	long r;

	/* The caller set it already; without it only CAP_SYS_ADMIN may load. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return iso_err_set(e, errno, "set no_new_privs for the seccomp policy '%s'", name);
	if (listener)
		flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (r < 0 && errno == EINVAL && listener) {
		/* before 5.19: no WAIT_KILLABLE_RECV */
		flags &= ~(unsigned long)SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	}
	if (r < 0) /* EBUSY with a listener is no error to the caller: it retries */
		return iso_err_set(e, errno, "load the seccomp policy '%s'", name);
	return listener ? (int)r : 0;
}
