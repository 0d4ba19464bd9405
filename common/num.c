// SPDX-License-Identifier: MIT
#include "common/num.h"

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <strings.h>

static int digit_value(char c, unsigned base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int iso_mul_u64(uint64_t a, uint64_t b, uint64_t *ret)
{
	if (b && a > UINT64_MAX / b)
		return -ERANGE;
	*ret = a * b;
	return 0;
}

int iso_add_u64(uint64_t a, uint64_t b, uint64_t *ret)
{
	if (a > UINT64_MAX - b)
		return -ERANGE;
	*ret = a + b;
	return 0;
}

int iso_parse_digits(const char *s, unsigned base, const char **ret_end, uint64_t *ret)
{
	const char *p = s;
	uint64_t v = 0;
	int d, r = 0;

	if (base != 10 && base != 16)
		return -EINVAL;
	/* every digit is read, also past an overflow, so *ret_end is where the number ends */
	for (; (d = digit_value(*p, base)) >= 0; p++)
		if (!r && (iso_mul_u64(v, base, &v) < 0 || iso_add_u64(v, (uint64_t)d, &v) < 0))
			r = -ERANGE;
	if (p == s)
		return -EINVAL;
	*ret_end = p;
	if (r == 0)
		*ret = v;
	return r;
}

int iso_parse_u64(const char *s, const struct iso_num_unit *units, uint64_t min, uint64_t max,
		  uint64_t *ret)
{
	const char *end;
	uint64_t v = 0, mult = 1;
	int r;

	if (!s)
		return -EINVAL;
	r = iso_parse_digits(s, 10, &end, &v);
	if (r == -EINVAL)
		return r;
	if (*end) {
		const struct iso_num_unit *u = units;

		while (u && u->name && strcasecmp(end, u->name) != 0)
			u++;
		if (!u || !u->name)
			return -EINVAL;
		mult = u->mult;
	}
	if (r < 0 || iso_mul_u64(v, mult, &v) < 0 || v < min || v > max)
		return -ERANGE;
	*ret = v;
	return 0;
}

int iso_parse_pid(const char *s)
{
	uint64_t v;

	return iso_parse_u64(s, NULL, 1, INT_MAX, &v) < 0 ? 0 : (int)v;
}

int iso_next_pid(const char **p)
{
	const char *s = *p, *end;
	uint64_t v;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	*p = s;
	if (!*s)
		return 0;
	if (iso_parse_digits(s, 10, &end, &v) < 0 || v < 1 || v > INT_MAX ||
	    (*end && *end != ' ' && *end != '\t' && *end != '\n'))
		return -1;
	*p = end;
	return (int)v;
}
