// SPDX-License-Identifier: MIT
/*
 * deny SYSCALL [errno=NAME] [request=REQ]: a call refused with that errno by
 * the filter itself (plain BPF, no notification); a whole-call deny of one
 * spelling denies its family (policy/families.c).
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kd.h>
#include <sys/ioctl.h>

#include "common/cleanup.h"
#include "common/num.h"
#include "policy/kind.h"

const struct pol_deny_set *pol_denies(const struct pol *p)
{
	static const struct pol_deny_set none;
	const struct pol_deny_set *set = pol_kind_rules_of(p, &pol_kind_deny);

	return set ? set : &none;
}

/* The policy's set of these rules, made at the first: NULL when out of memory. */
static struct pol_deny_set *set_of(struct pol *p)
{
	void **slot = pol_kind_rules(p, &pol_kind_deny);

	if (!*slot)
		*slot = calloc(1, sizeof(struct pol_deny_set));
	return *slot;
}

/* The kernel's MAX_ERRNO: larger ERRNO() data is clamped by the kernel. */
#define ERRNO_MAX 4095

static const struct ioctl_name {
	const char *name;
	unsigned long req;
} ioctl_names[] = {
	{ "TIOCSTI", TIOCSTI },	    { "TIOCLINUX", TIOCLINUX },	      { "KDSKBENT", KDSKBENT },
	{ "KDSKBSENT", KDSKBSENT }, { "KDSETKEYCODE", KDSETKEYCODE },
};

static int errno_by_name(const char *name)
{
	static const struct {
		const char *alias;
		int errnum;
	} aliases[] = { { "EWOULDBLOCK", EWOULDBLOCK },
			{ "EDEADLOCK", EDEADLOCK },
			{ "ENOTSUP", ENOTSUP } };

	if (name[0] != 'E')
		return -1;
	for (int e = 1; e < 256; e++) {
		const char *s = strerrorname_np(e);

		if (s && strcmp(s, name) == 0)
			return e;
	}
	for (size_t i = 0; i < ELEMENTSOF(aliases); i++)
		if (strcmp(aliases[i].alias, name) == 0)
			return aliases[i].errnum;
	return -1;
}

static bool parse_ioctl_request(const char *s, unsigned long *ret)
{
	const char *end;
	uint64_t v;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(ioctl_names); i++)
		if (strcmp(ioctl_names[i].name, s) == 0) {
			*ret = ioctl_names[i].req;
			return true;
		}
	/* 0x5412 or 21522; 010 is refused rather than read as C's octal or as ten */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		r = iso_parse_digits(s + 2, 16, &end, &v);
	else if (s[0] == '0' && s[1])
		return false;
	else
		r = iso_parse_digits(s, 10, &end, &v);
	/* the kernel's ioctl request is an unsigned int */
	if (r < 0 || *end || v > 0xffffffffULL)
		return false;
	*ret = (unsigned long)v;
	return true;
}

/* errno=NAME or request=REQ at t[i] into d. */
static int deny_option(const struct pol_stmt *st, size_t i, struct pol_deny *d, bool *have_errno)
{
	const struct pol_tok *t = st->t;
	char key[16];
	const char *value;
	int vcol;

	if (!pol_split_option(&t[i], key, sizeof(key), &value, &vcol))
		return pol_fail(st, t[i].col, "unexpected '%.64s' (deny takes errno=NAME%s)",
				t[i].s, strcmp(d->syscall, "ioctl") == 0 ? " and request=REQ" : "");
	if (strcmp(key, "errno") == 0) {
		if (*have_errno)
			return pol_fail(st, t[i].col, "errno= given twice");
		*have_errno = true;
		d->errnum = errno_by_name(value);
		if (!*value || (*value >= '0' && *value <= '9'))
			return pol_fail(st, vcol, "errno=: expected a name such as EPERM");
		if (d->errnum < 0)
			return pol_fail(st, vcol, "unknown errno '%.64s'", value);
	} else if (strcmp(key, "request") == 0) {
		if (strcmp(d->syscall, "ioctl") != 0)
			return pol_fail(st, t[i].col, "request= applies only to ioctl");
		if (d->has_ioctl_req)
			return pol_fail(st, t[i].col, "request= given twice");
		d->has_ioctl_req = true;
		if (!parse_ioctl_request(value, &d->ioctl_req))
			return pol_fail(st, vcol,
					"bad ioctl request '%.64s' (a number, TIOCSTI, "
					"TIOCLINUX, KDSKBENT, KDSKBSENT or KDSETKEYCODE)",
					value);
	} else {
		return pol_fail(st, t[i].col, "unknown option '%.64s' for deny", t[i].s);
	}
	return 0;
}

/* The same call denied before: 1 when it is this rule again, else the conflict or 0. */
static int deny_again(const struct pol_stmt *st, const struct pol_deny *d)
{
	const struct pol *p = st->pol;

	for (size_t i = 0; i < pol_denies(p)->n; i++) {
		const struct pol_deny *o = &pol_denies(p)->v[i];

		if (strcmp(o->syscall, d->syscall) != 0 || o->has_ioctl_req != d->has_ioctl_req ||
		    o->ioctl_req != d->ioctl_req)
			continue;
		if (o->errnum == d->errnum)
			return 1; /* the same rule again, e.g. through two includes */
		return pol_fail(st, st->t[1].col, "'%s' is already denied with %s at %s",
				d->syscall, strerrorname_np(o->errnum), o->origin);
	}
	return 0;
}

static int deny_parse(const struct pol_stmt *st)
{
	const struct pol_tok *t = st->t;
	struct pol_deny d = { .errnum = EPERM };
	struct pol_deny_set *set;
	bool have_errno = false;
	void *arr;
	int nr, r;

	if (st->n < 2)
		return pol_fail(st, pol_end_col(st), "deny: expected a syscall name");
	if (strlen(t[1].s) >= sizeof(d.syscall))
		return pol_fail(st, t[1].col, "unknown syscall '%.64s'", t[1].s);
	/*
	 * libseccomp knows every x86_64 name; other arches' names come back
	 * negative, and pass only as a spelling in a family (stime, umount)
	 */
	nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, t[1].s);
	if (nr < 0 && !pol_family(t[1].s))
		return pol_fail(st, t[1].col, "unknown syscall '%s'", t[1].s);
	snprintf(d.syscall, sizeof(d.syscall), "%s", t[1].s);
	for (size_t i = 2; i < st->n; i++) {
		r = deny_option(st, i, &d, &have_errno);
		if (r < 0)
			return r;
	}
	r = deny_again(st, &d);
	if (r != 0)
		return r < 0 ? r : 0;
	r = pol_origin_set(st, d.origin, sizeof(d.origin));
	if (r < 0)
		return r;
	set = set_of(st->pol);
	arr = set ? pol_grow(set->v, set->n, sizeof(d)) : NULL;
	if (!arr)
		return pol_fail_oom(st);
	set->v = arr;
	set->v[set->n++] = d;
	return 0;
}

static size_t deny_count(const struct pol *p)
{
	return pol_denies(p)->n;
}

static const char *deny_origin(const struct pol *p, size_t i)
{
	return pol_denies(p)->v[i].origin;
}

static void fmt_ioctl_req(FILE *f, unsigned long req)
{
	for (size_t i = 0; i < ELEMENTSOF(ioctl_names); i++)
		if (ioctl_names[i].req == req) {
			fprintf(f, " request=%s", ioctl_names[i].name);
			return;
		}
	fprintf(f, " request=%#lx", req);
}

static void deny_format(const struct pol *p, struct pol_fmt *x)
{
	for (size_t i = 0; i < pol_denies(p)->n; i++) {
		const struct pol_deny *d = &pol_denies(p)->v[i];
		const char *e = strerrorname_np(d->errnum);
		FILE *f = pol_fmt_rule(x, d->origin);

		fprintf(f, "deny %s", d->syscall);
		if (d->has_ioctl_req)
			fmt_ioctl_req(f, d->ioctl_req);
		if (e)
			fprintf(f, " errno=%s\n", e);
		else
			fprintf(f, " errno=%d\n", d->errnum);
	}
}

static void deny_free(struct pol *p)
{
	struct pol_deny_set *set = *pol_kind_rules(p, &pol_kind_deny);

	if (set)
		free(set->v);
	free(set);
	*pol_kind_rules(p, &pol_kind_deny) = NULL;
}

static void deny_summary(const struct pol *p, char *buf, size_t len)
{
	snprintf(buf, len, "%zu denied calls", pol_denies(p)->n);
}

bool pol_denied_outright(const struct pol *p, const char *name)
{
	for (size_t i = 0; i < pol_denies(p)->n; i++)
		if (!pol_denies(p)->v[i].has_ioctl_req &&
		    !strcmp(pol_denies(p)->v[i].syscall, name))
			return true;
	return false;
}

static int add_rule(pol_scmp_ctx ctx, const struct pol_deny *d, const char *name, uint32_t action,
		    struct iso_err *e)
{
	int nr = seccomp_syscall_resolve_name(name);
	int r;

	if (nr == __NR_SCMP_ERROR)
		return iso_err_set(e, EINVAL,
				   strcmp(name, d->syscall)
					   ? "compile rule %s: libseccomp does not know '%s', a "
					     "spelling of '%s' (a newer libseccomp is needed)"
					   : "compile rule %s: unknown system call '%s'",
				   d->origin, name, d->syscall);
	if (d->has_ioctl_req) {
		if (nr != SCMP_SYS(ioctl))
			return iso_err_set(e, EINVAL,
					   "compile rule %s: a request applies to ioctl only",
					   d->origin);
		/* ioctl's request is an unsigned int: the kernel ignores the upper half */
		r = seccomp_rule_add(ctx, action, nr, 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu,
					     (scmp_datum_t)(d->ioctl_req & 0xffffffffu)));
	} else {
		r = seccomp_rule_add(ctx, action, nr, 0);
	}
	/*
	 * A call denied twice (an include repeating a rule, a family reached
	 * from two of its members) keeps the first rule: libseccomp 2.5.4
	 * ignores the repeat of a whole-call rule and says -EEXIST for a
	 * repeated condition; neither is an error here.  It skips the ABIs on
	 * which a call does not exist (kexec_file_load on i386, create_module
	 * on x32, stime everywhere but i386).
	 */
	if (r < 0 && r != -EEXIST)
		return iso_err_set(e, r, "compile rule %s (%s)", d->origin, name);
	return 0;
}

/*
 * The rule's call and, for a whole-call deny, every other spelling of it
 * (policy/families.c) that the policy does not deny by a rule of its own.
 */
static int add_deny(pol_scmp_ctx ctx, const struct pol *p, const struct pol_deny *d, bool log_only,
		    struct iso_err *e)
{
	const char *const *family = d->has_ioctl_req ? NULL : pol_family(d->syscall);
	uint32_t action;
	int r;

	if (d->errnum <= 0 || d->errnum > ERRNO_MAX)
		return iso_err_set(e, EINVAL, "compile rule %s: errno %d out of range", d->origin,
				   d->errnum);
	action = log_only ? SCMP_ACT_LOG : SCMP_ACT_ERRNO((uint32_t)d->errnum);
	r = add_rule(ctx, d, d->syscall, action, e);
	for (; r == 0 && family && *family; family++)
		if (strcmp(*family, d->syscall) && !pol_denied_outright(p, *family))
			r = add_rule(ctx, d, *family, action, e);
	return r;
}

static int deny_filter(pol_scmp_ctx ctx, const struct pol *p, bool notify, bool log_only,
		       struct iso_err *e)
{
	for (size_t i = 0; i < pol_denies(p)->n; i++) {
		int r = add_deny(ctx, p, &pol_denies(p)->v[i], log_only, e);

		if (r < 0)
			return r;
	}
	return 0;
}

const struct pol_kind pol_kind_deny = {
	.word = "deny",
	.example = "deny ioctl request=TIOCSTI errno=EACCES",
	.parse = deny_parse,
	.count = deny_count,
	.origin = deny_origin,
	.format = deny_format,
	.free = deny_free,
	.summary = deny_summary,
	.filter = deny_filter,
};
