// SPDX-License-Identifier: MIT
/*
 * denycall CALL[,CALL...] CMD ARG...: run CMD under a seccomp filter that makes
 * each named system call fail with EPERM, as a container runtime's profile or a
 * hardened service manager does.  isorun's own start path must then name the
 * stage that failed instead of blaming the command.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define PROG  "denycall"
#define USAGE PROG " CALL[,CALL...] CMD [ARG...]"
#include "common.h"

static int deny_list(scmp_filter_ctx ctx, char *list)
{
	for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		int nr = seccomp_syscall_resolve_name(name);
		int r;

		if (nr == __NR_SCMP_ERROR) {
			fprintf(stderr, PROG ": unknown system call '%s'\n", name);
			exit(2);
		}
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
		if (r < 0)
			die_errnum(-r, "add a rule for", name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int r;

	if (argc < 3)
		usage();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("prctl(PR_SET_NO_NEW_PRIVS)", NULL);
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		fprintf(stderr, PROG ": seccomp_init failed\n");
		return 1;
	}
	deny_list(ctx, argv[1]);
	r = seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0)
		die_errnum(-r, "install the filter", NULL);
	execvp(argv[2], argv + 2);
	r = errno;
	print_error(r, "execvp", argv[2]);
	return r == ENOENT ? 127 : 126;
}
