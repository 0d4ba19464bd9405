// SPDX-License-Identifier: MIT
#include "common/text.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cleanup.h"
#include "common/num.h"

/*
 * NUMBER[.FRACTION]: the fraction's first nine digits count (nanoseconds of a
 * second), the rest must still be digits.  *ret_frac is in billionths.
 */
static int duration_number(const char *s, const char **ret_end, uint64_t *ret_int,
			   uint64_t *ret_frac)
{
	const char *p = s;
	uint64_t frac = 0, scale = 1000000000;
	int r = 0;

	*ret_int = 0;
	if (*p != '.') {
		r = iso_parse_digits(p, 10, &p, ret_int);
		if (r < 0)
			return r;
	}
	if (*p == '.') {
		p++;
		if (*p < '0' || *p > '9')
			return -EINVAL;
		for (; *p >= '0' && *p <= '9'; p++)
			if (scale /= 10)
				frac += (uint64_t)(*p - '0') * scale;
	}
	*ret_end = p;
	*ret_frac = frac;
	return r;
}

int iso_parse_duration(const char *s, uint64_t *ret_ms)
{
	static const struct {
		const char *unit;
		uint64_t ms;
	} units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 }, { "d", 86400000 },
	};
	/* far beyond any run; the report keeps milliseconds in a JSON integer */
	const uint64_t limit = 1000000000000000ULL;
	uint64_t total = 0;
	const char *p = s;

	if (!s || !*s)
		return -EINVAL;
	while (*p) {
		const char *start = p;
		uint64_t whole, frac, part;
		size_t ulen = 0;
		uint64_t mult = 0;
		int r = duration_number(p, &p, &whole, &frac);

		if (r < 0)
			return r;
		for (size_t i = 0; i < ELEMENTSOF(units); i++) {
			size_t l = strlen(units[i].unit);
			/* "m" must not swallow the "m" of "ms" */
			if (strncmp(p, units[i].unit, l) == 0 && l > ulen &&
			    !(l == 1 && p[0] == 'm' && p[1] == 's')) {
				ulen = l;
				mult = units[i].ms;
			}
		}
		if (!ulen) {
			/* a bare number is seconds, and only as the whole string */
			if (*p || start != s)
				return -EINVAL;
			mult = 1000;
		}
		/* frac * mult stays below 2^64: frac < 10^9, mult <= 8.64 * 10^7 */
		if (iso_mul_u64(whole, mult, &part) < 0 ||
		    iso_add_u64(part, (frac * mult + 500000000) / 1000000000, &part) < 0 ||
		    iso_add_u64(total, part, &total) < 0 || total > limit)
			return -ERANGE;
		p += ulen;
	}
	*ret_ms = total;
	return 0;
}

/*
 * The kernel's real-time signals start at 32, the C library's SIGRTMIN above the
 * ones it keeps for itself (34 with glibc): shells, kill(1) and Python count from
 * the library's, so "RTMIN+2" means the same here as in `kill -s RTMIN+2`.
 */
#define ISO_SIGRT_FIRST 32

/* "RTMIN", "RTMIN+N", "RTMIN-N", "RTMAX", "RTMAX-N" (SIG already stripped): 0 when not one */
static int parse_rt(const char *name, int *ret_sig)
{
	bool max = strncasecmp(name, "RTMAX", 5) == 0;
	const char *p = name + 5;
	long n = 0, sig;
	char *end;

	if (!max && strncasecmp(name, "RTMIN", 5) != 0)
		return 0;
	if (*p == '+' || *p == '-') {
		if (!isdigit((unsigned char)p[1]))
			return -EINVAL;
		errno = 0;
		n = strtol(p + 1, &end, 10);
		if (errno || *end)
			return -ERANGE;
		if (*p == '-')
			n = -n;
	} else if (*p) {
		return -EINVAL;
	}
	sig = (max ? SIGRTMAX : SIGRTMIN) + n;
	if (sig < ISO_SIGRT_FIRST || sig > SIGRTMAX)
		return -ERANGE;
	*ret_sig = (int)sig;
	return 1;
}

int iso_parse_signal(const char *s, int *ret_sig)
{
	const char *name = s;
	char *end;
	long n;
	int r;

	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)*s)) {
		errno = 0;
		n = strtol(s, &end, 10);
		if (*end)
			return -EINVAL;
		if (errno || n <= 0 || n >= NSIG)
			return -ERANGE;
		*ret_sig = (int)n;
		return 0;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	r = parse_rt(name, ret_sig);
	if (r)
		return r < 0 ? r : 0;
	for (int sig = 1; sig < NSIG; sig++) {
		const char *abbrev = sigabbrev_np(sig);
		if (abbrev && strcasecmp(abbrev, name) == 0) {
			*ret_sig = sig;
			return 0;
		}
	}
	return -EINVAL;
}

const char *iso_signal_name(int sig, char *buf, size_t len)
{
	const char *abbrev = sigabbrev_np(sig);

	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else if (sig == SIGRTMIN)
		snprintf(buf, len, "SIGRTMIN");
	else if (sig >= ISO_SIGRT_FIRST && sig <= SIGRTMAX)
		snprintf(buf, len, "SIGRTMIN%+d", sig - SIGRTMIN);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

const char *iso_format_duration(uint64_t ms, char *buf, size_t len)
{
	uint64_t h = ms / 3600000, m = ms / 60000 % 60, s = ms / 1000 % 60, r = ms % 1000;

	if (h && (m || s))
		snprintf(buf, len, "%luh%lum", (unsigned long)h, (unsigned long)m);
	else if (h)
		snprintf(buf, len, "%luh", (unsigned long)h);
	else if (m && s)
		snprintf(buf, len, "%lum%lus", (unsigned long)m, (unsigned long)s);
	else if (m)
		snprintf(buf, len, "%lum", (unsigned long)m);
	else if (!s && r)
		snprintf(buf, len, "%lums", (unsigned long)r);
	else if (r && s < 10)
		snprintf(buf, len, "%lu.%lus", (unsigned long)s, (unsigned long)(r / 100));
	else
		snprintf(buf, len, "%lus", (unsigned long)s);
	return buf;
}

/*
 * How many bytes at s (n left) are one character a terminal shows as itself:
 * printable ASCII, or a valid UTF-8 sequence that is not a C1 control, a line or
 * paragraph separator or a bidirectional override.  0: s[0] must be escaped.
 */
size_t iso_printable_len(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = p[0] < 0x80	     ? 1
		     : (p[0] & 0xe0) == 0xc0 ? 2
		     : (p[0] & 0xf0) == 0xe0 ? 3
		     : (p[0] & 0xf8) == 0xf0 ? 4
					     : 0;
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned cp;

	if (!len || len > n)
		return 0;
	if (len == 1)
		return p[0] >= 0x20 && p[0] != 0x7f;
	cp = p[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	/* C1 (CSI is 0x9b), U+2028/9, and the bidi embeddings, overrides and isolates */
	if (cp <= 0x9f || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return 0;
	return len;
}

/* s as iso_escape() writes it into out (room for 4 bytes a byte), at most max bytes; the length. */
static size_t escape_into(char *out, const char *s, size_t max)
{
	size_t n = strlen(s), o = 0;

	for (size_t i = 0; i < n && o < max;) {
		size_t len = iso_printable_len(s + i, n - i);

		if (!len) {
			if (o + 4 > max)
				break;
			o += (size_t)sprintf(out + o, "\\x%02x", (unsigned char)s[i]);
			i++;
			continue;
		}
		if (o + len > max)
			break;
		memcpy(out + o, s + i, len);
		o += len;
		i += len;
	}
	out[o] = '\0';
	return o;
}

char *iso_escape(const char *s)
{
	char *out = malloc(strlen(s ? s : "") * 4 + 1);

	if (out)
		escape_into(out, s ? s : "", SIZE_MAX);
	return out;
}

char *iso_escape_lines(const char *s)
{
	size_t n = strlen(s ? s : ""), o = 0;
	char *out = malloc(n * 4 + 1);

	if (!out)
		return NULL;
	for (const char *p = s ? s : "";;) {
		size_t len = strcspn(p, "\n");
		char *line = strndup(p, len);

		if (!line) {
			free(out);
			return NULL;
		}
		o += escape_into(out + o, line, SIZE_MAX);
		free(line);
		p += len;
		if (!*p)
			break;
		out[o++] = *p++;
	}
	out[o] = '\0';
	return out;
}

static bool all_printable(const char *s)
{
	size_t n = strlen(s);

	for (size_t i = 0, len; i < n; i += len)
		if (!(len = iso_printable_len(s + i, n - i)))
			return false;
	return true;
}

static bool needs_quote(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_./:@%+=,-", *s))
			return true;
	return false;
}

/* bash's $'...': the exact bytes, with nothing a terminal would act on */
static char *ansi_c_quote(const char *s)
{
	size_t n = strlen(s), o = 0;
	char *out = malloc(n * 4 + 4);

	if (!out)
		return NULL;
	out[o++] = '$';
	out[o++] = '\'';
	for (size_t i = 0; i < n;) {
		size_t len = iso_printable_len(s + i, n - i);

		if (!len) {
			o += (size_t)sprintf(out + o, "\\x%02x", (unsigned char)s[i++]);
		} else if (s[i] == '\'' || s[i] == '\\') {
			out[o++] = '\\';
			out[o++] = s[i++];
		} else {
			memcpy(out + o, s + i, len);
			o += len;
			i += len;
		}
	}
	out[o++] = '\'';
	out[o] = '\0';
	return out;
}

char *iso_shell_quote(const char *s)
{
	size_t n = 3;
	char *out, *o;

	if (!needs_quote(s))
		return strdup(s);
	if (!all_printable(s))
		return ansi_c_quote(s);
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	out = malloc(n);
	if (!out)
		return NULL;
	o = out;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

bool iso_is_secret_name(const char *name, size_t len)
{
	static const char *const words[] = { "TOKEN",  "SECRET", "PASSWORD",
					     "PASSWD", "KEY",	 "CREDENTIAL" };

	for (size_t w = 0; w < ELEMENTSOF(words); w++) {
		size_t wl = strlen(words[w]);
		for (size_t i = 0; i + wl <= len; i++)
			if (strncasecmp(name + i, words[w], wl) == 0)
				return true;
	}
	return false;
}

char *iso_redact(const char *s)
{
	size_t len = strlen(s);
	/* each masked span shrinks to "***", so the result is at most len + 3 */
	char *out = malloc(len + 4);
	const char *eq, *name;
	size_t o = 0;

	if (!out)
		return NULL;
	eq = strchr(s, '=');
	name = s;
	while (*name == '-')
		name++;
	if (eq && eq > name && iso_is_secret_name(name, (size_t)(eq - name))) {
		size_t keep = (size_t)(eq - s) + 1;
		memcpy(out, s, keep);
		memcpy(out + keep, "***", 4);
		return out;
	}
	for (size_t i = 0; i < len;) {
		const char *scheme = strstr(s + i, "://");
		const char *auth, *at, *colon, *end;

		if (!scheme) {
			memcpy(out + o, s + i, len - i);
			o += len - i;
			break;
		}
		auth = scheme + 3;
		end = auth + strcspn(auth, "/?# \t\n");
		at = memchr(auth, '@', (size_t)(end - auth));
		colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
		if (!colon) {
			size_t n = (size_t)(auth - (s + i));
			memcpy(out + o, s + i, n);
			o += n;
			i += n;
			continue;
		}
		memcpy(out + o, s + i, (size_t)(colon + 1 - (s + i)));
		o += (size_t)(colon + 1 - (s + i));
		memcpy(out + o, "***", 3);
		o += 3;
		i = (size_t)(at - s);
	}
	out[o] = '\0';
	return out;
}

char *iso_join_cmdline(const char *const *argv, size_t argc, size_t max)
{
	size_t cap = max + 8, o = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	for (size_t a = 0; a < argc && o < max; a++) {
		_cleanup_free_ char *r = iso_redact(argv[a]);
		_cleanup_free_ char *esc = r ? malloc(strlen(r) * 4 + 1) : NULL;
		if (!esc) {
			free(out);
			return NULL;
		}
		if (a)
			out[o++] = ' ';
		escape_into(esc, r, max - o);
		memcpy(out + o, esc, strlen(esc));
		o += strlen(esc);
	}
	if (o >= max && max > 3) {
		o = max;
		memcpy(out + max - 3, "...", 3);
	}
	out[o] = '\0';
	return out;
}

void iso_utc(int64_t t, struct tm *tm)
{
	int64_t days = t / 86400, secs = t % 86400;
	int64_t z, era, y;
	unsigned doe, yoe, doy, mp;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* civil_from_days, after Howard Hinnant's date algorithms: March-based years */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	y = (int64_t)yoe + era * 400 + (mp >= 10);
	*tm = (struct tm){
		.tm_year = (int)(y - 1900),
		.tm_mon = (int)(mp < 10 ? mp + 2 : mp - 10),
		.tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1),
		.tm_hour = (int)(secs / 3600),
		.tm_min = (int)(secs / 60 % 60),
		.tm_sec = (int)(secs % 60),
	};
}

static bool forced(const char *v)
{
	return v && *v && strcmp(v, "0") != 0 && strcmp(v, "false") != 0;
}

bool iso_colour_auto(bool tty, const char *no_color, const char *force_color,
		     const char *clicolor_force, const char *term)
{
	if (no_color && *no_color)
		return false;
	if (forced(force_color) || forced(clicolor_force))
		return true;
	return tty && !(term && strcmp(term, "dumb") == 0);
}

char *iso_unescape_octal(char *s)
{
	char *w = s;

	for (char *p = s; *p; p++) {
		if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] && p[3]) {
			*w++ = (char)(((p[1] - '0') << 6) | ((p[2] - '0') << 3) | (p[3] - '0'));
			p += 3;
		} else {
			*w++ = *p;
		}
	}
	*w = '\0';
	return s;
}
