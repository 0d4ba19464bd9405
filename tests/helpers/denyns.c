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
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static const unsigned long ns_flags[] = { CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNS,
						  CLONE_NEWNET };
	scmp_filter_ctx ctx;
	int r = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: denyns CMD [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		fprintf(stderr, "denyns: prctl(PR_SET_NO_NEW_PRIVS): %s\n", strerror(errno));
		return 1;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, "denyns: seccomp_init failed\n");
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
	if (r < 0) {
		fprintf(stderr, "denyns: install the filter: %s\n", strerror(-r));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "denyns: execvp '%s': %s\n", argv[1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
