// SPDX-License-Identifier: MIT
#include "common/text.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
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

int iso_parse_signal(const char *s, int *ret_sig)
{
	const char *name = s;
	char *end;
	long n;

	if (!s || !*s)
		return -EINVAL;
	if (isdigit((unsigned char)*s)) {
		errno = 0;
		n = strtol(s, &end, 10);
		if (errno || *end || n <= 0 || n >= NSIG)
			return -EINVAL;
		*ret_sig = (int)n;
		return 0;
	}
	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
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

static bool needs_quote(const char *s)
{
	if (!*s)
		return true;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_./:@%+=,-", *s))
			return true;
	return false;
}

char *iso_shell_quote(const char *s)
{
	size_t n = 3;
	char *out, *o;

	if (!needs_quote(s))
		return strdup(s);
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
		if (!r) {
			free(out);
			return NULL;
		}
		if (a)
			out[o++] = ' ';
		for (const char *p = r; *p && o < max; p++) {
			unsigned char c = (unsigned char)*p;
			if (c < 0x20 || c == 0x7f) {
				if (o + 4 > max)
					break;
				o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
			} else {
				out[o++] = (char)c;
			}
		}
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
