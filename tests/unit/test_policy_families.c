// SPDX-License-Identifier: MIT
/*
 * The deny-list on every architecture the filter covers, read from the BPF
 * itself: a small interpreter runs each filter on a made-up seccomp_data for
 * every spelling of every denied call (policy/families.c), with the call's
 * number on x86_64, i386 and x32 as libseccomp resolves it.  No 32-bit
 * toolchain and no kernel are needed, so the i386-only calls (stime,
 * clock_settime64) are checked on any x86_64 build host.
 */
#include "tests/unit/unit.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/kd.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>

#include "common/cleanup.h"
#include "policy/policy.h"

#define X32_BIT 0x40000000u

/* The architectures the filter covers, as libseccomp and as the kernel name them. */
static const struct arch {
	const char *name;
	uint32_t scmp;	/* for seccomp_syscall_resolve_name_arch() */
	uint32_t audit; /* seccomp_data.arch: x32 is x86_64 with X32_BIT in the number */
} arches[] = {
	{ "x86_64", SCMP_ARCH_X86_64, AUDIT_ARCH_X86_64 },
	{ "i386", SCMP_ARCH_X86, AUDIT_ARCH_I386 },
	{ "x32", SCMP_ARCH_X32, AUDIT_ARCH_X86_64 },
};

/* Classic BPF as the kernel runs a seccomp filter; 0 = the program is bad. */
static uint32_t run_bpf(const struct sock_filter *f, size_t len, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *i = &f[pc];
		uint32_t src = BPF_SRC(i->code) == BPF_X ? x : i->k;
		bool jump;

		switch (BPF_CLASS(i->code)) {
		case BPF_LD:
			if (i->code == (BPF_LD | BPF_W | BPF_ABS) && i->k % 4 == 0 &&
			    i->k + 4 <= sizeof(*d))
				memcpy(&a, (const char *)d + i->k, 4);
			else if (i->code == (BPF_LD | BPF_IMM))
				a = i->k;
			else if (i->code == (BPF_LD | BPF_MEM) && i->k < BPF_MEMWORDS)
				a = mem[i->k];
			else
				return 0;
			break;
		case BPF_LDX:
			if (i->code == (BPF_LDX | BPF_IMM))
				x = i->k;
			else if (i->code == (BPF_LDX | BPF_MEM) && i->k < BPF_MEMWORDS)
				x = mem[i->k];
			else
				return 0;
			break;
		case BPF_ST:
		case BPF_STX:
			if (i->k >= BPF_MEMWORDS)
				return 0;
			mem[i->k] = BPF_CLASS(i->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			if (BPF_OP(i->code) == BPF_AND)
				a &= src;
			else if (BPF_OP(i->code) == BPF_OR)
				a |= src;
			else
				return 0;
			break;
		case BPF_JMP:
			if (BPF_OP(i->code) == BPF_JA) {
				pc += i->k;
				break;
			}
			switch (BPF_OP(i->code)) {
			case BPF_JEQ:
				jump = a == src;
				break;
			case BPF_JGT:
				jump = a > src;
				break;
			case BPF_JGE:
				jump = a >= src;
				break;
			case BPF_JSET:
				jump = (a & src) != 0;
				break;
			default:
				return 0;
			}
			pc += jump ? i->jt : i->jf;
			break;
		case BPF_RET:
			return BPF_RVAL(i->code) == BPF_A ? a : i->k;
		case BPF_MISC:
			if (BPF_MISCOP(i->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default:
			return 0;
		}
	}
	return 0;
}

static uint32_t verdict(const struct sock_filter *f, size_t len, const struct arch *ar, int nr,
			unsigned long arg1)
{
	struct seccomp_data d = { .nr = nr, .arch = ar->audit };

	d.args[1] = arg1;
	return run_bpf(f, len, &d);
}

static bool in_family(const char *rule, const char *call)
{
	const char *const *fam = pol_family(rule);

	if (!strcmp(rule, call))
		return true;
	for (; fam && *fam; fam++)
		if (!strcmp(*fam, call))
			return true;
	return false;
}

/* What the filter must say to `call`: the errno of its own rule, else of its family's first. */
static uint32_t want_for(const struct pol *p, const char *call, bool log_only)
{
	const struct pol_deny *by = NULL;

	for (size_t i = 0; i < pol_denies(p)->n; i++) {
		const struct pol_deny *d = &pol_denies(p)->v[i];

		if (d->has_ioctl_req || !in_family(d->syscall, call))
			continue;
		if (!strcmp(d->syscall, call)) {
			by = d;
			break;
		}
		if (!by)
			by = d;
	}
	assert_non_null(by);
	return log_only ? SECCOMP_RET_LOG : SECCOMP_RET_ERRNO | (uint32_t)by->errnum;
}

/* Every whole-call deny of `p`, each of its family's members, on every architecture. */
static void check_families(const struct pol *p, const struct sock_filter *f, size_t len,
			   bool log_only)
{
	for (size_t i = 0; i < pol_denies(p)->n; i++) {
		const struct pol_deny *d = &pol_denies(p)->v[i];
		const char *const self[] = { d->syscall, NULL };
		const char *const *fam = pol_family(d->syscall);

		if (d->has_ioctl_req)
			continue;
		for (const char *const *m = fam ? fam : self; *m; m++) {
			int on = 0;

			for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
				int nr = seccomp_syscall_resolve_name_arch(arches[a].scmp, *m);
				uint32_t got, want = want_for(p, *m, log_only);

				if (nr < 0) /* not a call of this ABI: the kernel has no number */
					continue;
				on++;
				got = verdict(f, len, &arches[a], nr, 0);
				if (got != want)
					fail_msg("%s (denied as %s, %s) on %s (nr %d): filter says "
						 "%#x, want %#x",
						 *m, d->syscall, d->origin, arches[a].name, nr, got,
						 want);
			}
			if (!on)
				fail_msg("%s (family of %s) exists on no covered architecture", *m,
					 d->syscall);
		}
	}
}

/* The shipped filters, as installed: the deny-list's every spelling is EPERM, or LOG. */
static void test_shipped_filters_deny_every_spelling(void **state)
{
	size_t checked = 0;

	for (size_t i = 0; i < pol_n_shipped_bpf; i++) {
		const struct pol_bpf *b = &pol_shipped_bpf[i];
		struct pol p = { 0 };
		struct pol_error perr = { 0 };

		assert_int_equal(pol_load(b->policy, &p, &perr), 0);
		check_families(&p, b->insns, b->len, b->log_only);
		pol_free(&p);
		checked++;
	}
	assert_true(checked >= 4);
}

static void build(const char *text, struct pol *p, struct sock_filter **f, size_t *len)
{
	struct pol_error perr = { 0 };
	struct iso_err e = { 0 };

	if (pol_parse(text, strlen(text), "t.policy", p, &perr) < 0)
		fail_msg("parse: %s", perr.e.msg);
	if (pol_filter_build(p, false, false, f, len, &e) < 0)
		fail_msg("build: %s", e.msg);
}

/* The call named in issue 26 and the i386 time64 spellings, by number. */
static void test_default_named_spellings(void **state)
{
	static const struct {
		const char *arch;
		int nr;
	} calls[] = {
		{ "x86_64", 443 }, /* quotactl_fd */
		{ "i386", 443 },   /* quotactl_fd */
		{ "i386", 25 },	   /* stime */
		{ "i386", 404 },   /* clock_settime64 */
		{ "i386", 405 },   /* clock_adjtime64 */
		{ "x32", (int)(X32_BIT | 443) },
	};
	struct pol p = { 0 };
	struct sock_filter *f = NULL;
	size_t len = 0;

	build("include default\n", &p, &f, &len);
	for (size_t i = 0; i < ELEMENTSOF(calls); i++)
		for (size_t a = 0; a < ELEMENTSOF(arches); a++)
			if (!strcmp(arches[a].name, calls[i].arch))
				assert_int_equal(verdict(f, len, &arches[a], calls[i].nr, 0),
						 SECCOMP_RET_ERRNO | EPERM);
	/* controls: getpid on each architecture runs */
	for (size_t a = 0; a < ELEMENTSOF(arches); a++)
		assert_int_equal(
			verdict(f, len, &arches[a],
				seccomp_syscall_resolve_name_arch(arches[a].scmp, "getpid"), 0),
			SECCOMP_RET_ALLOW);
	free(f);
	pol_free(&p);
}

/* Any member names the family; a member's own rule keeps its own errno. */
static void test_any_member_names_the_family(void **state)
{
	struct pol p = { 0 };
	struct sock_filter *f = NULL;
	size_t len = 0;

	build("deny clock_settime64\ndeny finit_module errno=EACCES\ndeny init_module\n"
	      "deny umount2\n",
	      &p, &f, &len);
	check_families(&p, f, len, false);
	/* the spellings the rules did not name, by number */
	assert_int_equal(verdict(f, len, &arches[1], 403 /* i386 clock_gettime64 */, 0),
			 SECCOMP_RET_ALLOW);
	assert_int_equal(verdict(f, len, &arches[1], 264 /* i386 clock_settime */, 0),
			 SECCOMP_RET_ERRNO | EPERM);
	assert_int_equal(verdict(f, len, &arches[0], 313 /* finit_module */, 0),
			 SECCOMP_RET_ERRNO | EACCES);
	assert_int_equal(verdict(f, len, &arches[0], 175 /* init_module */, 0),
			 SECCOMP_RET_ERRNO | EPERM);
	assert_int_equal(verdict(f, len, &arches[1], 22 /* i386 umount */, 0),
			 SECCOMP_RET_ERRNO | EPERM);
	free(f);
	pol_free(&p);

	/* two rules in one family: the spellings neither names follow the first */
	memset(&p, 0, sizeof(p));
	build("deny settimeofday errno=EACCES\ndeny clock_settime\n", &p, &f, &len);
	check_families(&p, f, len, false);
	assert_int_equal(verdict(f, len, &arches[1], 404 /* i386 clock_settime64 */, 0),
			 SECCOMP_RET_ERRNO | EACCES);
	free(f);
	pol_free(&p);
}

/* The family table: every name is a call libseccomp knows, and in one family only. */
static void test_family_table(void **state)
{
	for (size_t i = 0; pol_family_at(i); i++)
		for (const char *const *m = pol_family_at(i); *m; m++) {
			assert_int_not_equal(seccomp_syscall_resolve_name(*m), __NR_SCMP_ERROR);
			assert_ptr_equal(pol_family(*m), pol_family_at(i));
		}
	assert_null(pol_family("getpid"));
	assert_null(pol_family("ioctl"));
}

/* ioctl requests are denied on each ABI, whatever its ioctl number, and nothing else. */
static void test_ioctl_requests_every_arch(void **state)
{
	static const unsigned long denied[] = { TIOCSTI, TIOCLINUX, KDSKBENT, KDSKBSENT,
						KDSETKEYCODE };
	struct pol p = { 0 };
	struct sock_filter *f = NULL;
	size_t len = 0;

	build("include default\n", &p, &f, &len);
	for (size_t a = 0; a < ELEMENTSOF(arches); a++) {
		int nr = seccomp_syscall_resolve_name_arch(arches[a].scmp, "ioctl");

		for (size_t i = 0; i < ELEMENTSOF(denied); i++)
			assert_int_equal(verdict(f, len, &arches[a], nr, denied[i]),
					 SECCOMP_RET_ERRNO | EPERM);
		assert_int_equal(verdict(f, len, &arches[a], nr, TIOCGWINSZ), SECCOMP_RET_ALLOW);
	}
	free(f);
	pol_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family_table),
		cmocka_unit_test(test_shipped_filters_deny_every_spelling),
		cmocka_unit_test(test_default_named_spellings),
		cmocka_unit_test(test_any_member_names_the_family),
		cmocka_unit_test(test_ioctl_requests_every_arch),
	};

	/* the numbers and architectures here are x86's: an aarch64 build covers arm instead */
	if (seccomp_arch_native() != SCMP_ARCH_X86_64) {
		printf("# skip: the filter of an x86_64 build is what these tests read\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
