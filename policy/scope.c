/* SPDX-License-Identifier: MIT */
/*
 * contain-signals in the kernel: Landlock's signal scope (ABI 6, Linux 6.12).
 *
 * A process in a Landlock domain may signal only processes of its own domain
 * or of one nested in it (kill, tkill, tgkill, rt_(tg)sigqueueinfo,
 * pidfd_send_signal, and the SIGIO of an F_SETOWN owner), and may ptrace only
 * such processes, whatever the ABI (so PTRACE_ATTACH/SEIZE, process_vm_readv
 * and _writev, /proc/PID/mem, pidfd_getfd, kcmp and the other ptrace access
 * checks).  The command's domain is made between fork and exec, so it is the
 * command and everything it starts: the run, and not isorun (the supervisor,
 * or init under a PID namespace).  The kernel answers these calls in place:
 * no notification, no round trip, so no EINTR from a signal that arrives
 * while the supervisor decides (issue 39 item 1).
 *
 * No file or network access is handled (handled_access_fs and _net 0), and
 * the abstract unix socket scope is not asked for: it would cut the command
 * off from an X server, a D-Bus bus or any abstract socket of the host, which
 * the policy does not refuse today (it says why:
 * docs/decisions/0010-one-membership-rule-for-every-call-that-names-a.md).
 *
 * Debian 12's <linux/landlock.h> predates `scoped`: the attribute is declared
 * here, as the kernel reads it (its size tells the kernel which fields exist).
 */
#include "policy/policy.h"

#include <errno.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cleanup.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_SCOPE_SIGNAL		  (1ULL << 1)
#define LL_ABI_SCOPES		  6

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

int pol_scope_abi(void)
{
	long r = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

	return r < 0 ? -errno : (int)r;
}

bool pol_scope_signals_available(void)
{
	return pol_scope_abi() >= LL_ABI_SCOPES;
}

int pol_scope_apply(struct iso_err *e)
{
	struct ll_ruleset_attr attr = { .scoped = LL_SCOPE_SIGNAL };
	_cleanup_close_ int fd = -1;

	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return iso_err_set(e, errno, "create the Landlock ruleset that scopes signals");
	/* the caller's filter needs it too; without it only CAP_SYS_ADMIN may restrict */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return iso_err_set(e, errno, "set no_new_privs for the Landlock scope");
	if (syscall(SYS_landlock_restrict_self, fd, 0) < 0)
		return iso_err_set(e, errno, "enter the Landlock domain that scopes signals");
	return 0;
}
