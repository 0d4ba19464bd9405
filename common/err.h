/* SPDX-License-Identifier: MIT */
/*
 * One error convention for the whole project: functions return 0 (or a
 * positive count) on success and -errno on failure, and describe the failure
 * in a fixed-size record the caller owns.  Fixed size because a child after
 * fork() sends the record whole over a pipe; no pointers inside.
 *
 * Only the supervisor (launcher/) and the command line (cli/) print; the
 * modules below them describe.  A message says what was done on which object:
 * "open '/tmp/isorun-1000'"; iso_err_format() appends strerror(errnum).
 */
#ifndef ISO_ERR_H
#define ISO_ERR_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct iso_err {
	int errnum;	/* positive errno; 0 = no strerror suffix */
	int cause;	/* the module's own cause code (enum ns_cause, ...); 0 = none */
	char msg[512];	/* "verb 'object'", no trailing newline */
	char hint[256]; /* optional second line, without "hint: "; names no option */
};

__attribute__((format(printf, 3, 4))) static inline int iso_err_set(struct iso_err *e, int errnum,
								    const char *fmt, ...)
{
	va_list ap;

	if (e) {
		e->errnum = errnum < 0 ? -errnum : errnum;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		e->hint[0] = '\0';
		e->cause = 0;
	}
	return errnum > 0 ? -errnum : (errnum < 0 ? errnum : -EINVAL);
}

static inline void iso_err_hint(struct iso_err *e, const char *hint)
{
	if (e)
		snprintf(e->hint, sizeof(e->hint), "%s", hint);
}

/* A cause the caller can phrase advice for (an option to use); keeps msg and hint. */
static inline void iso_err_cause(struct iso_err *e, int cause)
{
	if (e)
		e->cause = cause;
}

/*
 * Empty the record and hand out its message, for a text written in steps by a
 * module's own helpers (a reason, a verdict's evidence): errnum and cause stay
 * 0, the text says what failed, with strerror where a call did.
 */
static inline char *iso_err_text(struct iso_err *e)
{
	e->errnum = 0;
	e->cause = 0;
	e->msg[0] = '\0';
	e->hint[0] = '\0';
	return e->msg;
}

/* The caller names what msg is about (an option, for a module that names none). */
static inline void iso_err_prefix(struct iso_err *e, const char *word, const char *sep)
{
	char msg[sizeof(e->msg)];

	memcpy(msg, e->msg, sizeof(msg));
	if (snprintf(e->msg, sizeof(e->msg), "%s%s%s", word, msg[0] ? sep : "", msg) < 0)
		e->msg[0] = '\0';
}

/* "msg: strerror" into buf; returns buf. */
static inline const char *iso_err_format(const struct iso_err *e, char *buf, size_t len)
{
	int n;

	/* a buffer shorter than the message cuts it: the caller chose the width */
	if (e->errnum)
		n = snprintf(buf, len, "%s: %s", e->msg, strerror(e->errnum));
	else
		n = snprintf(buf, len, "%s", e->msg);
	if (n < 0 && len)
		buf[0] = '\0';
	return buf;
}

#endif
