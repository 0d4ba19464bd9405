/* SPDX-License-Identifier: MIT */
/* Pure text helpers: no I/O, no global state; unit-tested in tests/unit/test_text.c. */
#ifndef ISO_TEXT_H
#define ISO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* "90s", "5m", "1h30m", "250ms", "1.5" (seconds, as timeout(1)), "0". */
int iso_parse_duration(const char *s, uint64_t *ret_ms);
/*
 * "TERM", "SIGTERM", "sigterm", "15", and the real-time ones as "SIGRTMIN+N",
 * "RTMIN+N", "SIGRTMAX-N", "RTMAX-N" (the C library's SIGRTMIN, as kill(1)).
 * -ERANGE: a number or real-time offset that names no signal; -EINVAL: no such name.
 */
int iso_parse_signal(const char *s, int *ret_sig);
/*
 * "SIGTERM"; a real-time signal "SIGRTMIN", "SIGRTMIN+N" (those below the C
 * library's SIGRTMIN, which it keeps for itself, "SIGRTMIN-N"); into buf.  The
 * result parses back to sig.
 */
const char *iso_signal_name(int sig, char *buf, size_t len);
/* "1.5s", "3s", "5m", "1h30m" for messages. */
const char *iso_format_duration(uint64_t ms, char *buf, size_t len);
/*
 * gmtime_r() without the time zone: glibc's gmtime_r() loads /etc/localtime on
 * first use (six system calls on every launch, for a UTC stamp).  Fills the
 * date and time fields of *tm; years 1970-9999.
 */
void iso_utc(int64_t t, struct tm *tm);

/*
 * Shell-quote `s` only if it needs it (anything beyond [A-Za-z0-9_./:@%+=,-]),
 * so a printed path can be copied into a shell; a path holding a byte a terminal
 * would act on (see iso_escape) is quoted as bash's $'...' with \xNN, exact and
 * inert.  Returns malloc'ed text.
 */
char *iso_shell_quote(const char *s);
/*
 * Text the command controls, made safe for one of isorun's own lines: control
 * bytes (newline, ESC, ...), C1 controls, bytes that are not UTF-8, line
 * separators and bidi overrides become \xNN, so it can neither end the line,
 * forge another (`isorun: FAILED`, `::error::`) nor reach the terminal as a
 * sequence.  The one escaping of every such field (argv, paths, names, ids).
 * Returns malloc'ed text; NULL s is "".
 */
char *iso_escape(const char *s);
/* The same, each line of a text of several lines: its line breaks stay. */
char *iso_escape_lines(const char *s);
/* The bytes at s (n left) that are one character shown as itself; 0: escape s[0]. */
size_t iso_printable_len(const char *s, size_t n);

/*
 * Credential-shaped values made unprintable: the value of NAME=VALUE where NAME
 * contains TOKEN, SECRET, PASSWORD, PASSWD or KEY (any case, also --name=value), and the
 * password of scheme://user:pass@host.  Returns malloc'ed text.
 */
char *iso_redact(const char *s);
/* True when an environment variable's value must never be shown. */
bool iso_is_secret_name(const char *name, size_t len);

/*
 * Whether `--color=auto` colours, by the conventions, each variable's value as
 * getenv() gives it (NULL: unset): a non-empty NO_COLOR turns colour off
 * (no-color.org); else FORCE_COLOR or CLICOLOR_FORCE, non-empty and neither "0"
 * nor "false", turn it on even in a pipe; else only a terminal whose TERM is not
 * "dumb" is coloured.  An explicit --color=always|never is decided before this.
 */
bool iso_colour_auto(bool tty, const char *no_color, const char *force_color,
		     const char *clicolor_force, const char *term);

/* argv joined with spaces, each argument redacted and escaped (iso_escape), at most max bytes. */
char *iso_join_cmdline(const char *const *argv, size_t argc, size_t max);

/* A mountinfo field's octal escapes ("\\040" for a space) undone in place; returns s. */
char *iso_unescape_octal(char *s);

#endif
