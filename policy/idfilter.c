/* SPDX-License-Identifier: MIT */
/*
 * The id filter: a user namespace that maps one uid and one gid answers a change
 * to any other id with EINVAL (the kernel cannot name the id), where the host
 * answers an unprivileged caller EPERM, which is what suites test for.  This
 * filter gives EPERM for an id that is neither the mapped one nor -1 ("leave it
 * as it is"), and lets everything else through to the kernel.
 *
 * Not a policy (it holds under --policy=off): it makes the namespace answer as
 * the host would.  Hand-written BPF, because the test is on the low 32 bits of
 * an argument (16 for the old calls), as the kernel reads a uid_t, and
 * libseccomp's rules cannot say "none of these two values" on a masked word.
 * libseccomp still names the numbers, on each ABI the policy filter covers.
 *
 * setfsuid/setfsgid need nothing: the kernel returns the old id for an id it
 * cannot map, as it does for one the caller may not take.  setgroups is refused
 * with EPERM already ("deny" in /proc/PID/setgroups).
 */
#include "policy/policy.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"

enum id_kind { ID_NONE, ID_UID, ID_GID };

/* A call and the kind of id each of its first four arguments is. */
struct id_call {
	const char *name;
	unsigned char arg[4];
};

#define U ID_UID
#define G ID_GID
static const struct id_call id_calls[] = {
	{ "setuid", { U } },	      { "setgid", { G } },
	{ "setreuid", { U, U } },     { "setregid", { G, G } },
	{ "setresuid", { U, U, U } }, { "setresgid", { G, G, G } },
	{ "chown", { 0, U, G } },     { "fchown", { 0, U, G } },
	{ "lchown", { 0, U, G } },    { "fchownat", { 0, 0, U, G } },
};
#undef U
#undef G

#define MAX_INSNS 1024

struct prog {
	struct sock_filter insn[MAX_INSNS];
	size_t n;
	bool full;
};

static void emit(struct prog *p, struct sock_filter f)
{
	if (p->n < MAX_INSNS)
		p->insn[p->n++] = f;
	else
		p->full = true;
}

/* The low word of argument i: where a 32-bit id lies, on either byte order. */
static uint32_t arg_low(int i)
{
	uint32_t off = (uint32_t)(offsetof(struct seccomp_data, args) + 8 * (size_t)i);

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	off += 4;
#endif
	return off;
}

/* One argument: the mapped id or -1 go on, anything else is EPERM. */
static void emit_arg(struct prog *p, int i, uint32_t id, bool old16)
{
	uint32_t minus1 = old16 ? 0xffffu : 0xffffffffu;

	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, arg_low(i)));
	if (old16) /* old_uid_t: the kernel reads the low 16 bits */
		emit(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xffffu));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, id, 2, 0));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, minus1, 1, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
}

/* Call number `nr`: its arguments checked, then allowed; another call jumps past. */
static void emit_call(struct prog *p, int nr, const struct id_call *c, uid_t uid, gid_t gid,
		      bool old16)
{
	size_t ja;

	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 1, 0));
	ja = p->n;
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
	for (int i = 0; i < 4; i++)
		if (c->arg[i] != ID_NONE)
			emit_arg(p, i, c->arg[i] == ID_UID ? (uint32_t)uid : (uint32_t)gid, old16);
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	if (ja < p->n)
		p->insn[ja].k = (uint32_t)(p->n - ja - 1);
	/* the next call compares the number again */
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, nr)));
}

/*
 * One ABI's calls.  Where "setuid32" exists (i386, arm), "setuid" is the old
 * call with 16-bit ids and the 32 one takes the full id.  x32 shares the audit
 * architecture of x86_64 and tells its calls apart by their numbers.
 */
static void emit_arch(struct prog *p, uint32_t scmp_arch, uint32_t audit_arch, uid_t uid, gid_t gid)
{
	size_t ja;

	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, arch)));
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, audit_arch, 1, 0));
	ja = p->n;
	emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0));
	emit(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
					     offsetof(struct seccomp_data, nr)));
	for (size_t i = 0; i < ELEMENTSOF(id_calls); i++) {
		const struct id_call *c = &id_calls[i];
		char wide[32];
		int nr = seccomp_syscall_resolve_name_arch(scmp_arch, c->name);
		int nr32;

		snprintf(wide, sizeof(wide), "%s32", c->name);
		nr32 = seccomp_syscall_resolve_name_arch(scmp_arch, wide);
		if (nr >= 0)
			emit_call(p, nr, c, uid, gid, nr32 >= 0);
		if (nr32 >= 0)
			emit_call(p, nr32, c, uid, gid, false);
	}
	if (ja < p->n)
		p->insn[ja].k = (uint32_t)(p->n - ja - 1);
}

/* The ABIs the policy filter covers (policy/compile.c) and their audit values. */
static size_t arches(uint32_t scmp[3], uint32_t audit[3])
{
	uint32_t native = seccomp_arch_native();
	size_t n = 0;

	scmp[n] = native;
	audit[n++] = native;
	if (native == SCMP_ARCH_X86_64) {
		scmp[n] = SCMP_ARCH_X32;
		audit[n++] = AUDIT_ARCH_X86_64;
		scmp[n] = SCMP_ARCH_X86;
		audit[n++] = AUDIT_ARCH_I386;
	} else if (native == SCMP_ARCH_AARCH64) {
		scmp[n] = SCMP_ARCH_ARM;
		audit[n++] = AUDIT_ARCH_ARM;
	}
	return n;
}

int pol_idfilter_build(uid_t uid, gid_t gid, struct sock_filter **ret, size_t *ret_len,
		       struct iso_err *e)
{
	_cleanup_free_ struct prog *p = calloc(1, sizeof(*p));
	uint32_t scmp[3], audit[3];
	size_t n = arches(scmp, audit);

	*ret = NULL;
	*ret_len = 0;
	if (!p)
		return iso_err_set(e, ENOMEM, "build the id filter");
	for (size_t i = 0; i < n; i++)
		emit_arch(p, scmp[i], audit[i], uid, gid);
	emit(p, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	if (p->full)
		return iso_err_set(e, E2BIG, "build the id filter (more than %d instructions)",
				   MAX_INSNS);
	*ret = malloc(p->n * sizeof(**ret));
	if (!*ret)
		return iso_err_set(e, ENOMEM, "build the id filter");
	memcpy(*ret, p->insn, p->n * sizeof(**ret));
	*ret_len = p->n;
	return 0;
}
