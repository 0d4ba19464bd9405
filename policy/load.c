/* SPDX-License-Identifier: MIT */
/*
 * struct pol -> the kernel, in the command's process between fork and exec.
 *
 * A shipped policy loaded by name has its BPF compiled at build time
 * (policy/gen_bpf.c writes it from this same libseccomp code), so the child
 * only copies it into seccomp(2): building it with libseccomp took ~0.4 ms of
 * every launch, on the path between fork and the command's exec.  Any other
 * policy (a file, even one that includes a shipped one) is built here.
 * tests/unit/test_policy_bpf.c checks that the two ways give the same bytes.
 */
#include "policy/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"

const struct pol_bpf *pol_filter_shipped(const struct pol *p, bool notify, bool log_only)
{
	if (!p->shipped)
		return NULL;
	for (size_t i = 0; i < pol_n_shipped_bpf; i++) {
		const struct pol_bpf *b = &pol_shipped_bpf[i];
		if (b->notify == notify && b->log_only == log_only &&
		    b->signals == p->contain_signals && b->scoped == p->signals_scoped &&
		    b->init == p->guard_init && !strcmp(b->policy, p->shipped))
			return b;
	}
	return NULL;
}

static int load(const struct pol *p, bool notify, bool log_only, struct iso_err *e)
{
	const struct pol_bpf *b = pol_filter_shipped(p, notify, log_only);
	_cleanup_free_ struct sock_filter *insns = NULL;
	size_t len;
	int r;

	if (b)
		return pol_filter_install(b->insns, b->len, notify, p->name, e);
	r = pol_filter_build(p, notify, log_only, &insns, &len, e);
	if (r < 0)
		return r;
	return pol_filter_install(insns, len, notify, p->name, e);
}

int pol_filter_load(const struct pol *p, bool notify, bool log_only, int *ret_listener,
		    struct iso_err *e)
{
	_cleanup_close_ int fd = -1;
	int r;

	if (ret_listener)
		*ret_listener = -1;
	if (!p || !ret_listener)
		return iso_err_set(e, EINVAL, "load the seccomp policy");

	r = load(p, notify, log_only, e);
	if (r == -EBUSY && notify) {
		/*
		 * A filter in our chain already has a listener (an enclosing
		 * isorun, LXD's syscall interception): the kernel allows one per
		 * chain.  Its owner sees our exec calls; we add the deny-list.
		 */
		if (e)
			*e = (struct iso_err){ 0 };
		r = load(p, false, log_only, e);
		return r < 0 ? r : 0;
	}
	if (r < 0)
		return r;
	if (!notify)
		return 0;
	fd = r;
	/* the kernel creates it O_CLOEXEC; a copy in the command would keep it alive */
	r = fcntl(fd, F_GETFD);
	if (r < 0 || fcntl(fd, F_SETFD, r | FD_CLOEXEC) < 0)
		return iso_err_set(e, errno, "set close-on-exec on the seccomp listener");
	*ret_listener = TAKE_FD(fd);
	return 0;
}
