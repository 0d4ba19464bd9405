// SPDX-License-Identifier: MIT
/*
 * denyns CMD ARG...: run CMD under a seccomp filter like a container runtime's
 * default profile: unshare() and clone() asking for a new user, PID, mount or
 * network namespace fail with EPERM; clone3 (whose flags a filter cannot read)
 * fails with ENOSYS, so callers fall back to clone.  Everything else is allowed.
 */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#define PROG  "denyns"
#define USAGE PROG " CMD [ARG...]"
#include "common.h"

int main(int argc, char **argv)
{
	static const unsigned long ns_flags[] = { CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNS,
						  CLONE_NEWNET };
	scmp_filter_ctx ctx;
	int r = 0;

	if (argc < 2)
		usage();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)", NULL);
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, PROG ": seccomp_init failed\n");
		return 1;
	}
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
	for (size_t i = 0; r == 0 && i < sizeof(ns_flags) / sizeof(ns_flags[0]); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0)
		die_errnum(-r, "install the filter", NULL);
	execvp(argv[1], argv + 1);
	r = errno;
	print_error(r, "execvp", argv[1]);
	return r == ENOENT ? 127 : 126;
}
