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
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/kind.h"

#define BADARCH_ACTION SCMP_ACT_ERRNO(ENOSYS)

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

int pol_filter_notify(pol_scmp_ctx ctx, const struct pol *p, const char *name, struct iso_err *e)
{
	int nr = seccomp_syscall_resolve_name(name);
	int r;

	if (pol_denied_outright(p, name))
		return 0;
	r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	if (r < 0 && r != -EEXIST)
		return iso_err_set(e, r, "add user notification for %s to the seccomp policy '%s'",
				   name, p->name);
	return 0;
}

/* Each kind's part, in the order of the table: the deny-list, then the notified calls. */
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
	for (size_t k = 0; k < pol_n_kinds; k++) {
		r = pol_kinds[k]->filter(ctx, p, notify, log_only, e);
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
