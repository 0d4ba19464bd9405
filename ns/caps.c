/* SPDX-License-Identifier: MIT */
/*
 * Capabilities of the command, set in its own (single-threaded) process just
 * before execve.  Capabilities are per thread; libcap's calls affect only the
 * calling thread, which is the whole process here.
 *
 * Why the inheritable set matters even for root: at execve a uid-0 process gets
 * P' = I | (bounding & all) | ambient, so a bit left in I survives a bounding
 * drop.  Every mode therefore trims I together with the bounding set, and the
 * result is read back from the kernel: a missed single drop is an error, not a
 * quiet hole (libcap's bulk helpers ignore single failures).
 */
#include "ns/ns.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "common/cleanup.h"

static bool in_mask(uint64_t mask, cap_value_t c)
{
	return c >= 0 && c < 64 && ((mask >> c) & 1);
}

/* Capabilities the running kernel knows: cap_last_cap + 1, not the headers' CAP_LAST_CAP. */
static cap_value_t max_bits(void)
{
	cap_value_t n = cap_max_bits();

	return n > 0 ? n : CAP_LAST_CAP + 1;
}

/* "cap_sys_boot" (libcap's spelling), or the number for a cap libcap cannot name. */
static const char *cap_name(cap_value_t c, char *buf, size_t len)
{
	char *name = cap_to_name(c);

	snprintf(buf, len, "%s", name ? name : "?");
	if (name)
		cap_free(name);
	return buf;
}

static void cap_freep(cap_t *c)
{
	if (*c)
		cap_free(*c);
}

#define _cleanup_cap_ _cleanup_(cap_freep)

/* One token of the list: trimmed, [A-Za-z0-9_] only, "cap_" optional, any case. */
static int parse_one(const char *tok, size_t len, cap_value_t *ret, struct iso_err *e)
{
	char name[64];
	cap_value_t c;
	size_t n = 0;
	bool digits_only = true;

	if (len > sizeof(name) - sizeof("cap_"))
		return iso_err_set(e, 0, "unknown capability '%.*s'", 40, tok);
	if (!(len >= 4 && !strncasecmp(tok, "cap_", 4))) {
		memcpy(name, "cap_", 4);
		n = 4;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)tok[i];

		if (!isalnum(ch) && ch != '_')
			return iso_err_set(e, 0, "unknown capability '%.*s'", (int)len, tok);
		if (!isdigit(ch))
			digits_only = false;
		name[n++] = (char)tolower(ch);
	}
	name[n] = '\0';
	/* cap_from_name() would take "12" as capability 12: names only here */
	if (digits_only || cap_from_name(name, &c) < 0 || c < 0)
		goto unknown;
	if (c >= max_bits() || c >= 64) {
		iso_err_set(e, 0, "capability '%.*s' is unknown to the running kernel", (int)len,
			    tok);
		iso_err_hint(e, "it is newer than this kernel; leave it out of the list");
		return -EINVAL;
	}
	*ret = c;
	return 0;
unknown:
	iso_err_set(e, 0, "unknown capability '%.*s'", (int)len, tok);
	iso_err_hint(e,
		     "names as in capabilities(7), e.g. CAP_NET_RAW or net_raw, separated by ','");
	return -EINVAL;
}

int ns_caps_parse(const char *list, uint64_t *ret_keep, struct iso_err *e)
{
	uint64_t keep = 0;
	const char *p = list ? list : "";

	/* Empty items (",,", a trailing ',') and blanks around names are ignored. */
	while (*p) {
		const char *end = strchrnul(p, ',');
		const char *a = p, *b = end;
		cap_value_t c = 0;
		int r;

		while (a < b && isspace((unsigned char)*a))
			a++;
		while (b > a && isspace((unsigned char)b[-1]))
			b--;
		if (b - a == 3 && !strncasecmp(a, "all", 3)) {
			/* every capability the running kernel knows */
			keep |= ns_caps_all();
		} else if (b > a) {
			r = parse_one(a, (size_t)(b - a), &c, e);
			if (r < 0)
				return r;
			keep |= UINT64_C(1) << c;
		}
		p = *end ? end + 1 : end;
	}
	*ret_keep = keep;
	return 0;
}

uint64_t ns_caps_host_dangerous(void)
{
	static const cap_value_t caps[] = {
		CAP_SYS_BOOT,  CAP_SYS_MODULE,	 CAP_SYS_TIME,	    CAP_SYS_RAWIO,
		CAP_MAC_ADMIN, CAP_MAC_OVERRIDE, CAP_AUDIT_CONTROL,
	};
	uint64_t mask = 0;

	for (size_t i = 0; i < ELEMENTSOF(caps); i++)
		mask |= UINT64_C(1) << caps[i];
	return mask;
}

uint64_t ns_caps_mount_undoers(void)
{
	/*
	 * CAP_SYS_ADMIN: umount, mount, setns, pivot_root undo any mount.
	 * CAP_SYS_PTRACE: init keeps every capability; a tracer of init could make
	 * it do the same.  CAP_DAC_READ_SEARCH: open_by_handle_at() opens a file by
	 * its handle, past whatever covers its path.
	 */
	return UINT64_C(1) << CAP_SYS_ADMIN | UINT64_C(1) << CAP_SYS_PTRACE |
	       UINT64_C(1) << CAP_DAC_READ_SEARCH;
}

uint64_t ns_caps_all(void)
{
	cap_value_t max = max_bits();

	return max >= 64 ? UINT64_MAX : (UINT64_C(1) << max) - 1;
}

const char *ns_caps_name(int c, char *buf, size_t len)
{
	return cap_name((cap_value_t)c, buf, len);
}

static const char setpcap_hint[] = "removing bounding capabilities needs CAP_SETPCAP: real root, "
				   "or root of a user namespace";

/* Remove every capability in `drop` from the bounding set; CAP_SETPCAP needed. */
static int drop_bound(uint64_t drop, bool all_but, struct iso_err *e)
{
	cap_value_t max = max_bits();
	char name[32];

	for (cap_value_t c = 0; c < max; c++) {
		bool want_gone = all_but ? !in_mask(drop, c) : in_mask(drop, c);

		if (!want_gone || cap_get_bound(c) != 1)
			continue;
		if (cap_drop_bound(c) < 0) {
			int err = errno; /* before cap_name() allocates */
			int r = iso_err_set(e, err, "drop '%s' from the bounding set",
					    cap_name(c, name, sizeof(name)));

			if (err == EPERM)
				iso_err_hint(e, setpcap_hint);
			return r;
		}
	}
	return 0;
}

/* Clear in I every capability of `clear`. */
static int trim_inheritable(uint64_t clear, struct iso_err *e)
{
	_cleanup_cap_ cap_t cur = cap_get_proc();
	cap_value_t max = max_bits();
	bool changed = false;

	if (!cur)
		return iso_err_set(e, errno, "read the capabilities of 'self'");
	for (cap_value_t c = 0; c < max; c++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (!in_mask(clear, c) || cap_get_flag(cur, c, CAP_INHERITABLE, &v) < 0 ||
		    v != CAP_SET)
			continue;
		if (cap_set_flag(cur, CAP_INHERITABLE, 1, &c, CAP_CLEAR) < 0)
			return iso_err_set(e, errno, "clear the inheritable capabilities");
		changed = true;
	}
	if (changed && cap_set_proc(cur) < 0)
		return iso_err_set(e, errno, "clear the inheritable capabilities");
	return 0;
}

/*
 * NS_CAPS_EMPTY's I and ambient: I = the kept caps still in the bounding set
 * (CAP_SETPCAP allows raising them), ambient = the kept caps the process has in
 * P, so a non-root uid keeps them across execve.
 */
static int keep_inheritable_ambient(uint64_t keep, struct iso_err *e)
{
	_cleanup_cap_ cap_t cur = cap_get_proc();
	cap_value_t max = max_bits();
	uint64_t ambient = 0;
	char name[32];

	if (!cur)
		return iso_err_set(e, errno, "read the capabilities of 'self'");
	if (cap_clear_flag(cur, CAP_INHERITABLE) < 0)
		return iso_err_set(e, errno, "clear the inheritable capabilities");
	for (cap_value_t c = 0; c < max; c++) {
		cap_flag_value_t prm = CAP_CLEAR;

		if (!in_mask(keep, c) || cap_get_bound(c) != 1)
			continue;
		if (cap_set_flag(cur, CAP_INHERITABLE, 1, &c, CAP_SET) < 0) {
			int err = errno;

			return iso_err_set(e, err, "keep '%s' inheritable",
					   cap_name(c, name, sizeof(name)));
		}
		if (cap_get_flag(cur, c, CAP_PERMITTED, &prm) == 0 && prm == CAP_SET)
			ambient |= UINT64_C(1) << c;
	}
	if (cap_set_proc(cur) < 0) {
		int err = errno;
		int r = iso_err_set(e, err, "set the inheritable capabilities to the kept ones");

		if (err == EPERM)
			iso_err_hint(e, "raising a kept capability in the inheritable set needs it "
					"permitted, or CAP_SETPCAP");
		return r;
	}
	if (cap_reset_ambient() < 0)
		return iso_err_set(e, errno, "clear the ambient capabilities");
	for (cap_value_t c = 0; c < max; c++) {
		if (!in_mask(ambient, c))
			continue;
		if (cap_set_ambient(c, CAP_SET) < 0) {
			int err = errno;
			int r = iso_err_set(e, err, "raise '%s' as ambient",
					    cap_name(c, name, sizeof(name)));

			if (err == EPERM)
				iso_err_hint(e,
					     "SECBIT_NO_CAP_AMBIENT_RAISE is set in this process");
			return r;
		}
	}
	return 0;
}

/* A check after the fact failed: no errno explains it, the result is still EPERM. */
__attribute__((format(printf, 2, 3))) static int verify_fail(struct iso_err *e, const char *fmt,
							     ...)
{
	va_list ap;

	if (e) {
		e->errnum = 0;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		e->hint[0] = '\0';
	}
	return -EPERM;
}

/*
 * Read the result back from the kernel.  A cap "gone" from the bounding set must
 * be gone from I too (root regains I at execve); ambient is checked on its own.
 * `*_all_but` turns a mask into its complement.
 */
static int verify(uint64_t gone_bound, bool bound_all_but, uint64_t gone_amb, bool amb_all_but,
		  struct iso_err *e)
{
	_cleanup_cap_ cap_t cur = cap_get_proc();
	cap_value_t max = max_bits();
	char name[32];

	if (!cur)
		return iso_err_set(e, errno, "read the capabilities of 'self'");
	for (cap_value_t c = 0; c < max; c++) {
		bool bgone = bound_all_but ? !in_mask(gone_bound, c) : in_mask(gone_bound, c);
		bool agone = amb_all_but ? !in_mask(gone_amb, c) : in_mask(gone_amb, c);
		cap_flag_value_t inh = CAP_CLEAR;

		if (bgone && cap_get_bound(c) != 0) {
			verify_fail(e, "verify the bounding set: '%s' is still in it",
				    cap_name(c, name, sizeof(name)));
			iso_err_hint(e, setpcap_hint);
			return -EPERM;
		}
		if (bgone && cap_get_flag(cur, c, CAP_INHERITABLE, &inh) == 0 && inh == CAP_SET)
			return verify_fail(e, "verify the inheritable set: '%s' is still in it",
					   cap_name(c, name, sizeof(name)));
		if (agone && cap_get_ambient(c) > 0)
			return verify_fail(e, "verify the ambient set: '%s' is still in it",
					   cap_name(c, name, sizeof(name)));
	}
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return verify_fail(e, "verify 'no_new_privs': not set");
	return 0;
}

int ns_caps_apply(enum ns_caps_mode mode, uint64_t keep, uint64_t also_drop, struct iso_err *e)
{
	uint64_t drop = (ns_caps_host_dangerous() | also_drop) & ~keep;
	int r;

	switch (mode) {
	case NS_CAPS_EMPTY:
		r = drop_bound(keep, true, e);
		if (r == 0)
			r = keep_inheritable_ambient(keep, e);
		break;
	case NS_CAPS_HOST_ROOT:
		r = drop_bound(drop, false, e);
		if (r == 0)
			r = trim_inheritable(drop, e);
		/* ambient bits leave with their inheritable bits; verify() checks */
		break;
	case NS_CAPS_UNPRIVILEGED:
		r = 0;
		if (cap_reset_ambient() < 0)
			r = iso_err_set(e, errno, "clear the ambient capabilities");
		break;
	default:
		return iso_err_set(e, EINVAL, "apply capability mode '%d'", (int)mode);
	}
	if (r < 0)
		return r;

	/* one-way, inherited: setuid bits and file capabilities stay inert */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return iso_err_set(e, errno, "set 'no_new_privs'");

	switch (mode) {
	case NS_CAPS_EMPTY:
		return verify(keep, true, keep, true, e);
	case NS_CAPS_HOST_ROOT:
		return verify(drop, false, drop, false, e);
	case NS_CAPS_UNPRIVILEGED:
	default:
		return verify(0, false, 0, true, e);
	}
}
