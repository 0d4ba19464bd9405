/* SPDX-License-Identifier: MIT */
/*
 * The one parser of the numbers a person gives isorun: options, isorun.conf,
 * policy files, fd:N.  Pure; unit-tested in tests/unit/test_num.c.
 *
 * A number is decimal digits only: no blank before or after, no sign (not even
 * '+': strtoull() would wrap " -1" to 2^64-1), no 0x and no octal (a leading 0
 * is still decimal).  Every step is checked: past 2^64-1, or past a unit's
 * multiplication, is -ERANGE, never a wrapped value.
 */
#ifndef ISO_NUM_H
#define ISO_NUM_H

#include <stdint.h>

/* A unit suffix (matched whole, any case) and what it multiplies by; a table ends with { 0 }. */
struct iso_num_unit {
	const char *name;
	uint64_t mult;
};

/*
 * s, all of it: digits, then (when units is not NULL) an optional suffix named
 * in units, within [min, max].  -EINVAL: not of this form; -ERANGE: a number of
 * this form outside [min, max] (overflow included).  *ret only on success.
 */
int iso_parse_u64(const char *s, const struct iso_num_unit *units, uint64_t min, uint64_t max,
		  uint64_t *ret);

/*
 * The leading digits of s in base 10 or 16 (digits only, no prefix): -EINVAL
 * when there is none, -ERANGE past 2^64-1 (*ret_end then still past the digits).
 */
int iso_parse_digits(const char *s, unsigned base, const char **ret_end, uint64_t *ret);

/*
 * A pid as the kernel writes one, 1..INT_MAX: iso_parse_pid() takes all of s (a
 * /proc directory's name; 0 for "self" or "."); iso_next_pid() the next
 * blank-separated one of a list at *p and moves *p past it (0 at the list's end,
 * -1 for an entry that is not a pid).
 */
int iso_parse_pid(const char *s);
int iso_next_pid(const char **p);

/* a * b and a + b, or -ERANGE past 2^64-1. */
int iso_mul_u64(uint64_t a, uint64_t b, uint64_t *ret);
int iso_add_u64(uint64_t a, uint64_t b, uint64_t *ret);

#endif
