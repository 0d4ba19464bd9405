// SPDX-License-Identifier: MIT
/*
 * nosubreaper [--] CMD [ARG...]
 *
 * Simulates a kernel that refuses the child subreaper: sets no_new_privs,
 * loads a seccomp filter under which prctl(PR_SET_CHILD_SUBREAPER, ...) fails
 * with EINVAL, and execvp()s CMD.  Everything else is allowed, including
 * PR_GET_CHILD_SUBREAPER.  The filter covers the native architecture; calls
 * from any other architecture are allowed (libseccomp would kill them by
 * default).  It is inherited by every descendant of CMD, and no_new_privs
 * means setuid programs under it do not gain privileges.
 *
 * Exit status: CMD's, or 127 (CMD not found) / 126 (CMD not executable) /
 * 1 (the filter could not be set up).
 */
#include <errno.h>
#include <seccomp.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define PROG  "nosubreaper"
#define USAGE PROG " [--] CMD [ARG...]"
#include "common.h"

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int rc;

	if (argc < 2 || argv[1][0] == '\0')
		usage();
	if (!strcmp(argv[1], "--")) {
		if (argc < 3)
			usage();
		argv++;
	}

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("prctl", "PR_SET_NO_NEW_PRIVS");

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		die_errnum(ENOMEM, "seccomp_init", "allow");
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ALLOW);
	if (rc < 0)
		die_errnum(-rc, "seccomp_attr_set", "SCMP_FLTATR_ACT_BADARCH");
	/* The kernel reads option as an int: compare the low 32 bits only. */
	rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
			      SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, PR_SET_CHILD_SUBREAPER));
	if (rc < 0)
		die_errnum(-rc, "seccomp_rule_add", "prctl PR_SET_CHILD_SUBREAPER");
	rc = seccomp_load(ctx);
	if (rc < 0)
		die_errnum(-rc, "seccomp_load", "prctl PR_SET_CHILD_SUBREAPER");
	seccomp_release(ctx);

	execvp(argv[1], argv + 1);
	rc = errno;
	print_error(rc, "execvp", argv[1]);
	return rc == ENOENT ? 127 : 126;
}
