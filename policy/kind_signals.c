// SPDX-License-Identifier: MIT
/*
 * contain-signals: kill/tkill/tgkill/rt_(tg)sigqueueinfo/pidfd_send_signal
 * with a signal (not 0), and the other ways to reach a process (F_SETOWN,
 * setpgid, ptrace, ...), are notified and refused when they would reach a
 * process outside the run (policy/signal.c, policy/reach.c).  The launcher
 * clears it where a PID namespace contains the run already.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>

#include "common/cleanup.h"
#include "policy/kind.h"
#include "policy/reach.h"
#include "policy/signal.h"

static int signals_parse(const struct pol_stmt *st)
{
	int r;

	if (st->n > 1)
		return pol_fail(st, st->t[1].col, "contain-signals: takes no argument");
	if (st->pol->contain_signals)
		return 0; /* the same rule again */
	r = pol_origin_set(st, st->pol->signals_origin, sizeof(st->pol->signals_origin));
	if (r < 0)
		return r;
	st->pol->contain_signals = true;
	return 0;
}

static size_t signals_count(const struct pol *p)
{
	return p->contain_signals ? 1 : 0;
}

static const char *signals_origin(const struct pol *p, size_t i)
{
	return p->signals_origin;
}

static void signals_format(const struct pol *p, struct pol_fmt *x)
{
	if (p->contain_signals)
		fputs("contain-signals\n", pol_fmt_rule(x, p->signals_origin));
}

static void signals_free(struct pol *p)
{
	p->contain_signals = false;
	p->signals_origin[0] = '\0';
}

static void signals_summary(const struct pol *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s", p->contain_signals ? "signals kept inside the run" : "");
}

/*
 * Each signal-sending call with a signal other than 0, by the index of its
 * signal argument.  kill(pid, 0) and the like only probe for a process: they
 * pass in the filter, unnotified (policy/signal.c says why).
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

static int add_signal_notify(pol_scmp_ctx ctx, const struct pol *p, struct iso_err *e)
{
	for (size_t i = 0; i < ELEMENTSOF(signal_calls); i++) {
		int nr = seccomp_syscall_resolve_name(signal_calls[i].name);
		int r;

		if (nr == __NR_SCMP_ERROR)
			return iso_err_set(e, EINVAL, "compile rule %s: unknown system call '%s'",
					   p->signals_origin, signal_calls[i].name);
		if (pol_denied_outright(p, signal_calls[i].name))
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
 * The other ways to reach a process (policy/reach.c): only these requests are
 * notified, every other fcntl, ioctl or ptrace passes here.  A request compared
 * as an unsigned int is masked (the kernel ignores the upper half); an owner or
 * group of 0 with garbage above it is notified and let through by the supervisor.
 */
#define LOW32 0xffffffffu
static const struct {
	const char *name;
	unsigned n;
	struct scmp_arg_cmp cmp[2];
	bool ptrace; /* a ptrace access check: Landlock's domain answers it (scope.c) */
} reach_rules[] = {
	{ "fcntl", 2, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN), SCMP_A2(SCMP_CMP_NE, 0) } },
	{ "fcntl", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN_EX) } },
	{ "fcntl64", 2, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN), SCMP_A2(SCMP_CMP_NE, 0) } },
	{ "fcntl64", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, F_SETOWN_EX) } },
	{ "ioctl", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, FIOSETOWN) } },
	{ "ioctl", 1, { SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, SIOCSPGRP) } },
	{ "setpgid", 1, { SCMP_A1(SCMP_CMP_NE, 0) } },
	{ "ptrace", 1, { SCMP_A0(SCMP_CMP_EQ, PTRACE_ATTACH) }, true },
	{ "ptrace", 1, { SCMP_A0(SCMP_CMP_EQ, PTRACE_SEIZE) }, true },
	{ .name = "process_vm_writev", .ptrace = true },
	{ .name = "pidfd_getfd", .ptrace = true },
	/*
	 * The calls that change another process named by a pid (0: the caller
	 * itself, passes here), by a group or every process of a user (setpriority's
	 * PRIO_USER, ioprio_set's IOPRIO_WHO_USER: always notified), or by a pidfd.
	 * Landlock covers none of them: perf_event_open skips the ptrace check for
	 * CAP_PERFMON (root), and process_madvise of an outside process went
	 * through under the scope here.
	 */
	{ "prlimit64", 2, { SCMP_A0(SCMP_CMP_NE, 0), SCMP_A2(SCMP_CMP_NE, 0) } },
	{ "setpriority", 1, { SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, 2) } },
	{ "setpriority", 1, { SCMP_A1(SCMP_CMP_NE, 0) } },
	{ "ioprio_set", 1, { SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, 3) } },
	{ "ioprio_set", 1, { SCMP_A1(SCMP_CMP_NE, 0) } },
	{ "sched_setaffinity", 1, { SCMP_A0(SCMP_CMP_NE, 0) } },
	{ "sched_setscheduler", 1, { SCMP_A0(SCMP_CMP_NE, 0) } },
	{ "sched_setparam", 1, { SCMP_A0(SCMP_CMP_NE, 0) } },
	{ "sched_setattr", 1, { SCMP_A0(SCMP_CMP_NE, 0) } },
	{ "migrate_pages", 1, { SCMP_A0(SCMP_CMP_NE, 0) } },
	{ "move_pages", 1, { SCMP_A0(SCMP_CMP_NE, 0) } },
	{ .name = "process_madvise" },
	{ "perf_event_open", 1, { SCMP_A1(SCMP_CMP_NE, 0) } },
};

static int add_reach_notify(pol_scmp_ctx ctx, const struct pol *p, struct iso_err *e)
{
	for (size_t i = 0; i < ELEMENTSOF(reach_rules); i++) {
		int nr = seccomp_syscall_resolve_name(reach_rules[i].name);
		int r;

		if (nr == __NR_SCMP_ERROR)
			return iso_err_set(e, EINVAL, "compile rule %s: unknown system call '%s'",
					   p->signals_origin, reach_rules[i].name);
		if (pol_denied_outright(p, reach_rules[i].name) ||
		    (p->signals_scoped && reach_rules[i].ptrace))
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

/*
 * Under a PID namespace, pid 1 is isorun's init, and a root command may
 * change it like any process of its own: its limits (RLIMIT_CPU 0 kills it,
 * RLIMIT_NOFILE 3 breaks the run's teardown), its priority and scheduling,
 * its memory.  These fail with EPERM in the filter, unnotified; a pid 1 of a
 * PID namespace the command makes itself is refused the same (one ambiguity
 * BPF cannot resolve; docs/decisions/0010-one-membership-rule-for-every-call-that-names-a.md).
 * The pid is an int to the kernel: its
 * lower half is compared.  Tracing init is the kernel's (scope.c) where it
 * has Landlock; the rows for ptrace and process_vm_writev cover the rest.
 */
#define PID1 SCMP_CMP_MASKED_EQ, LOW32, 1
static const struct {
	const char *name;
	unsigned n;
	struct scmp_arg_cmp cmp[2];
} init_rules[] = {
	{ "prlimit64", 2, { SCMP_A0(PID1), SCMP_A2(SCMP_CMP_NE, 0) } },
	{ "setpriority", 2, { SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, 0), SCMP_A1(PID1) } },
	{ "setpriority", 2, { SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, 1), SCMP_A1(PID1) } },
	{ "ioprio_set", 2, { SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, 1), SCMP_A1(PID1) } },
	{ "ioprio_set", 2, { SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, 2), SCMP_A1(PID1) } },
	{ "sched_setaffinity", 1, { SCMP_A0(PID1) } },
	{ "sched_setscheduler", 1, { SCMP_A0(PID1) } },
	{ "sched_setparam", 1, { SCMP_A0(PID1) } },
	{ "sched_setattr", 1, { SCMP_A0(PID1) } },
	{ "migrate_pages", 1, { SCMP_A0(PID1) } },
	{ "move_pages", 1, { SCMP_A0(PID1) } },
	{ "perf_event_open", 1, { SCMP_A1(PID1) } },
	{ "ptrace", 2, { SCMP_A0(SCMP_CMP_EQ, PTRACE_ATTACH), SCMP_A1(PID1) } },
	{ "ptrace", 2, { SCMP_A0(SCMP_CMP_EQ, PTRACE_SEIZE), SCMP_A1(PID1) } },
	{ "process_vm_writev", 1, { SCMP_A0(PID1) } },
};

static int add_init_guard(pol_scmp_ctx ctx, const struct pol *p, struct iso_err *e)
{
	for (size_t i = 0; i < ELEMENTSOF(init_rules); i++) {
		int nr = seccomp_syscall_resolve_name(init_rules[i].name);
		int r;

		if (nr == __NR_SCMP_ERROR)
			return iso_err_set(e, EINVAL, "guard init: unknown system call '%s'",
					   init_rules[i].name);
		if (pol_denied_outright(p, init_rules[i].name))
			continue;
		r = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), nr, init_rules[i].n,
					   init_rules[i].cmp);
		if (r < 0 && r != -EEXIST)
			return iso_err_set(e, r, "guard init (%s)", init_rules[i].name);
	}
	return 0;
}

static int signals_filter(pol_scmp_ctx ctx, const struct pol *p, bool notify, bool log_only,
			  struct iso_err *e)
{
	int r;

	/* isorun's own init, under log mode too: not a policy, the run's integrity */
	if (p->guard_init && !p->contain_signals) {
		r = add_init_guard(ctx, p, e);
		if (r < 0)
			return r;
	}
	if (!notify || !p->contain_signals)
		return 0;
	/* the kernel's scope refuses an outside target itself: no round trip, no EINTR */
	r = p->signals_scoped ? 0 : add_signal_notify(ctx, p, e);
	return r < 0 ? r : add_reach_notify(ctx, p, e);
}

static int signals_handle(const struct pol_notif *n)
{
	int r = pol_signal_handle(n);

	return r == POL_NOTIF_NOT_MINE ? pol_reach_handle(n) : r;
}

const struct pol_kind pol_kind_signals = {
	.word = "contain-signals",
	.example = "contain-signals",
	.parse = signals_parse,
	.count = signals_count,
	.origin = signals_origin,
	.format = signals_format,
	.free = signals_free,
	.summary = signals_summary,
	.filter = signals_filter,
	.handle = signals_handle,
};

bool pol_signals_contained(const struct pol *p)
{
	return p->contain_signals;
}

void pol_set_signals_contained(struct pol *p, bool on)
{
	p->contain_signals = on;
}

void pol_set_signals_scoped(struct pol *p, bool on)
{
	p->signals_scoped = on;
}

void pol_set_init_guarded(struct pol *p, bool on)
{
	p->guard_init = on;
}
