// SPDX-License-Identifier: MIT
/* Unit tests: the one parser of the numbers a person gives isorun (common/num.h). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/num.h"
#include "common/text.h"

static const struct iso_num_unit units[] = { { "K", 1024 }, { "KiB", 1024 }, { "%", 1 }, { 0 } };

static void test_plain(void **state)
{
	static const struct {
		const char *in;
		uint64_t v;
	} good[] = {
		{ "0", 0 },
		{ "7", 7 },
		{ "010", 10 }, /* a leading 0 is decimal, not octal */
		{ "18446744073709551615", UINT64_MAX },
	};
	/* blanks, signs, prefixes, the empty string: never a number */
	static const char *const bad[] = { "",	  " 1",	 "1 ",	  " -1", "-1",	"+1",  "0x10",
					   "1e3", "1.0", "1_000", "1,0", "\t2", "1\n", "one" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t v = 99;
		assert_int_equal(iso_parse_u64(good[i].in, NULL, 0, UINT64_MAX, &v), 0);
		assert_int_equal(v, good[i].v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t v = 99;
		assert_int_equal(iso_parse_u64(bad[i], NULL, 0, UINT64_MAX, &v), -EINVAL);
		assert_int_equal(v, 99);
	}
	assert_int_equal(iso_parse_u64(NULL, NULL, 0, 1, &(uint64_t){ 0 }), -EINVAL);
}

static void test_range(void **state)
{
	uint64_t v = 99;

	/* past 2^64-1 is out of range, never wrapped */
	assert_int_equal(iso_parse_u64("18446744073709551616", NULL, 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(iso_parse_u64("99999999999999999999999", NULL, 0, UINT64_MAX, &v),
			 -ERANGE);
	assert_int_equal(iso_parse_u64("0", NULL, 1, 5, &v), -ERANGE);
	assert_int_equal(iso_parse_u64("6", NULL, 1, 5, &v), -ERANGE);
	assert_int_equal(v, 99);
	assert_int_equal(iso_parse_u64("1", NULL, 1, 5, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(iso_parse_u64("5", NULL, 1, 5, &v), 0);
	assert_int_equal(v, 5);
}

static void test_units(void **state)
{
	uint64_t v = 0;

	assert_int_equal(iso_parse_u64("2K", units, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(iso_parse_u64("2kib", units, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(iso_parse_u64("150%", units, 0, UINT64_MAX, &v), 0);
	assert_int_equal(v, 150);
	/* the multiplication is checked: 2^54 K is 2^64 */
	assert_int_equal(iso_parse_u64("18014398509481984K", units, 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(iso_parse_u64("18014398509481983K", units, 0, UINT64_MAX, &v), 0);
	/* a unit not in the table, a unit alone, a unit twice, blanks around it */
	assert_int_equal(iso_parse_u64("2M", units, 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(iso_parse_u64("K", units, 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(iso_parse_u64("2KK", units, 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(iso_parse_u64("2 K", units, 0, UINT64_MAX, &v), -EINVAL);
	assert_int_equal(iso_parse_u64("2K ", units, 0, UINT64_MAX, &v), -EINVAL);
	/* no table: no suffix */
	assert_int_equal(iso_parse_u64("2K", NULL, 0, UINT64_MAX, &v), -EINVAL);
	/* the range applies after the unit */
	assert_int_equal(iso_parse_u64("1K", units, 0, 1000, &v), -ERANGE);
}

static void test_digits(void **state)
{
	const char *end = NULL;
	uint64_t v = 0;

	assert_int_equal(iso_parse_digits("0x", 16, &end, &v), 0);
	assert_int_equal(v, 0);
	assert_string_equal(end, "x");
	assert_int_equal(iso_parse_digits("5412 rest", 16, &end, &v), 0);
	assert_int_equal(v, 0x5412);
	assert_string_equal(end, " rest");
	assert_int_equal(iso_parse_digits("fFfFfFfFfFfFfFfF", 16, &end, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(iso_parse_digits("10000000000000000!", 16, &end, &v), -ERANGE);
	assert_string_equal(end, "!");
	assert_int_equal(iso_parse_digits("-1", 10, &end, &v), -EINVAL);
	assert_int_equal(iso_parse_digits("9", 8, &end, &v), -EINVAL);
}

/* durations go through the same digits: no strtod() spellings, no wrap */
static void test_durations(void **state)
{
	uint64_t ms = 0;

	assert_int_equal(iso_parse_duration("1.5s", &ms), 0);
	assert_int_equal(ms, 1500);
	assert_int_equal(iso_parse_duration(".25s", &ms), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(iso_parse_duration("0.0004s", &ms), 0);
	assert_int_equal(ms, 0);
	assert_int_equal(iso_parse_duration("1.0000000000000000001h", &ms), 0);
	assert_int_equal(ms, 3600000);
	assert_int_equal(iso_parse_duration("1000000000000s", &ms), 0);
	assert_int_equal(ms, 1000000000000000ULL);
	assert_int_equal(iso_parse_duration("1000000000001s", &ms), -ERANGE);
	assert_int_equal(iso_parse_duration("99999999999999999999s", &ms), -ERANGE);
	assert_int_equal(iso_parse_duration("213503982334601d", &ms), -ERANGE);
	static const char *const bad[] = { "1e3s", "0x10s", "+1s", " 1s",   "1s ", "inf",
					   "nan",  "1.s",   ".s",  "1.5.5", "-0s" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(iso_parse_duration(bad[i], &ms), -EINVAL);
}

/* pids as the kernel writes them: /proc names, children lists */
static void test_pids(void **state)
{
	const char *p = " 12 7\n";

	assert_int_equal(iso_parse_pid("4242"), 4242);
	assert_int_equal(iso_parse_pid("self"), 0);
	assert_int_equal(iso_parse_pid("."), 0);
	assert_int_equal(iso_parse_pid("0"), 0);
	assert_int_equal(iso_parse_pid("12x"), 0);
	assert_int_equal(iso_parse_pid("2147483648"), 0);
	assert_int_equal(iso_parse_pid("2147483647"), 2147483647);
	assert_int_equal(iso_next_pid(&p), 12);
	assert_int_equal(iso_next_pid(&p), 7);
	assert_int_equal(iso_next_pid(&p), 0);
	assert_int_equal(iso_next_pid(&p), 0);
	p = "5 -3";
	assert_int_equal(iso_next_pid(&p), 5);
	assert_int_equal(iso_next_pid(&p), -1);
	p = "99999999999999999999";
	assert_int_equal(iso_next_pid(&p), -1);
	p = "";
	assert_int_equal(iso_next_pid(&p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),	  cmocka_unit_test(test_range),
		cmocka_unit_test(test_units),	  cmocka_unit_test(test_digits),
		cmocka_unit_test(test_durations), cmocka_unit_test(test_pids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
