// SPDX-License-Identifier: MIT
/* Unit tests: durations, signal names, shell quoting, redaction. */
#include <setjmp.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/text.h"

static void test_durations(void **state)
{
	static const struct {
		const char *in;
		uint64_t ms;
	} good[] = {
		{ "90s", 90000 }, { "5m", 300000 }, { "1h30m", 5400000 }, { "250ms", 250 },
		{ "1.5", 1500 },  { "0", 0 },	    { "2d", 172800000 },  { "1m30s", 90000 },
		{ "10", 10000 },  { "0.25s", 250 },
	};
	static const char *const bad[] = { "",	   "s",	    "5 s", "-1s", "5x",
					   "1h30", "1.2.3", "5sm", "abc", "10 " };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint64_t ms = 12345;
		assert_int_equal(iso_parse_duration(good[i].in, &ms), 0);
		assert_int_equal(ms, good[i].ms);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t ms;
		assert_true(iso_parse_duration(bad[i], &ms) < 0);
	}
}

static void test_format_duration(void **state)
{
	char b[32];

	assert_string_equal(iso_format_duration(3000, b, sizeof(b)), "3s");
	assert_string_equal(iso_format_duration(1500, b, sizeof(b)), "1.5s");
	assert_string_equal(iso_format_duration(250, b, sizeof(b)), "250ms");
	assert_string_equal(iso_format_duration(0, b, sizeof(b)), "0s");
	assert_string_equal(iso_format_duration(300000, b, sizeof(b)), "5m");
	assert_string_equal(iso_format_duration(5400000, b, sizeof(b)), "1h30m");
	assert_string_equal(iso_format_duration(90000, b, sizeof(b)), "1m30s");
}

static void test_signals(void **state)
{
	int sig = 0;
	char b[32];

	assert_int_equal(iso_parse_signal("TERM", &sig), 0);
	assert_int_equal(sig, SIGTERM);
	assert_int_equal(iso_parse_signal("SIGINT", &sig), 0);
	assert_int_equal(sig, SIGINT);
	assert_int_equal(iso_parse_signal("sigkill", &sig), 0);
	assert_int_equal(sig, SIGKILL);
	assert_int_equal(iso_parse_signal("9", &sig), 0);
	assert_int_equal(sig, 9);
	assert_true(iso_parse_signal("0", &sig) < 0);
	assert_true(iso_parse_signal("SIGNOPE", &sig) < 0);
	assert_true(iso_parse_signal("", &sig) < 0);
	assert_true(iso_parse_signal("999", &sig) < 0);
	assert_string_equal(iso_signal_name(SIGTERM, b, sizeof(b)), "SIGTERM");
}

static void check_signal(const char *in, int want)
{
	int sig = 0;

	assert_int_equal(iso_parse_signal(in, &sig), 0);
	assert_int_equal(sig, want);
}

/* The real-time signals: named from the C library's SIGRTMIN, as kill(1) names them. */
static void test_signals_rt(void **state)
{
	char b[32];
	int sig = 0;

	check_signal("SIGRTMIN", SIGRTMIN);
	check_signal("RTMIN+2", SIGRTMIN + 2);
	check_signal("sigrtmin+0", SIGRTMIN);
	check_signal("SIGRTMAX-3", SIGRTMAX - 3);
	check_signal("RTMAX", SIGRTMAX);
	check_signal("34", 34);
	check_signal("64", 64);
	check_signal("SIGRTMIN-2", 32);
	assert_int_equal(iso_parse_signal("RTMIN+31", &sig), -ERANGE);
	assert_int_equal(iso_parse_signal("RTMAX+1", &sig), -ERANGE);
	assert_int_equal(iso_parse_signal("RTMIN-3", &sig), -ERANGE);
	assert_int_equal(iso_parse_signal("RTMIN+99999999999999999999", &sig), -ERANGE);
	assert_int_equal(iso_parse_signal("65", &sig), -ERANGE);
	assert_int_equal(iso_parse_signal("0", &sig), -ERANGE);
	assert_int_equal(iso_parse_signal("99999999999999999999", &sig), -ERANGE);
	assert_int_equal(iso_parse_signal("RTMIN+", &sig), -EINVAL);
	assert_int_equal(iso_parse_signal("RTMIN2", &sig), -EINVAL);
	assert_int_equal(iso_parse_signal("RTMIN+-2", &sig), -EINVAL);
	assert_int_equal(iso_parse_signal("34x", &sig), -EINVAL);
	assert_string_equal(iso_signal_name(SIGRTMIN, b, sizeof(b)), "SIGRTMIN");
	assert_string_equal(iso_signal_name(SIGRTMIN + 2, b, sizeof(b)), "SIGRTMIN+2");
	assert_string_equal(iso_signal_name(SIGRTMAX, b, sizeof(b)), "SIGRTMIN+30");
	assert_string_equal(iso_signal_name(32, b, sizeof(b)), "SIGRTMIN-2");
	/* every number has a name that parses back to it */
	for (int n = 1; n < NSIG; n++) {
		iso_signal_name(n, b, sizeof(b));
		assert_int_equal(strncmp(b, "SIG", 3), 0);
		check_signal(b, n);
	}
}

static void check_quote(const char *in, const char *out)
{
	char *q = iso_shell_quote(in);
	assert_non_null(q);
	assert_string_equal(q, out);
	free(q);
}

static void test_quote(void **state)
{
	check_quote("/tmp/isorun-1000/20261202T103730Z-k3f9",
		    "/tmp/isorun-1000/20261202T103730Z-k3f9");
	check_quote("/tmp/a b", "'/tmp/a b'");
	check_quote("it's", "'it'\\''s'");
	check_quote("", "''");
	check_quote("$HOME", "'$HOME'");
	/* what a terminal would act on: bash's $'...', exact and inert */
	check_quote("/tmp/a\nb", "$'/tmp/a\\x0ab'");
	check_quote("x\033[2J'\\", "$'x\\x1b[2J\\'\\\\'");
	check_quote("caf\xc3\xa9 \xff", "$'caf\xc3\xa9 \\xff'");
}

static void check_redact(const char *in, const char *out)
{
	char *r = iso_redact(in);
	assert_non_null(r);
	assert_string_equal(r, out);
	free(r);
}

static void test_redact(void **state)
{
	check_redact("API_TOKEN=abc", "API_TOKEN=***");
	check_redact("--password=abc", "--password=***");
	check_redact("db_passwd=x", "db_passwd=***");
	check_redact("AWS_SECRET_ACCESS_KEY=k", "AWS_SECRET_ACCESS_KEY=***");
	check_redact("https://me:pw@host/x", "https://me:***@host/x");
	check_redact("see https://me:pw@h/a and ftp://u:p@g",
		     "see https://me:***@h/a and ftp://u:***@g");
	check_redact("https://host/x?a=b", "https://host/x?a=b");
	check_redact("https://user@host", "https://user@host");
	check_redact("PATH=/usr/bin", "PATH=/usr/bin");
	check_redact("plain", "plain");
	check_redact("", "");
	assert_true(iso_is_secret_name("GITHUB_TOKEN", 12));
	assert_false(iso_is_secret_name("HOME", 4));
}

static void check_escape(const char *in, const char *out)
{
	char *e = iso_escape(in);
	assert_non_null(e);
	assert_string_equal(e, out);
	free(e);
}

/* One escaping for every field the command controls: nothing can end or forge a line. */
static void test_escape(void **state)
{
	check_escape("tests/t.py::test_a (call)", "tests/t.py::test_a (call)");
	check_escape("a\nisorun: FAILED (exit 0): x", "a\\x0aisorun: FAILED (exit 0): x");
	check_escape("\r::error::x", "\\x0d::error::x");
	check_escape("\033[2J\x7f", "\\x1b[2J\\x7f");
	/* valid UTF-8 stays; bytes that are not, C1 (CSI 0x9b), U+2028 and bidi overrides go */
	check_escape("caf\xc3\xa9 \xe2\x86\x92", "caf\xc3\xa9 \xe2\x86\x92");
	check_escape("\xff\xc3", "\\xff\\xc3");
	check_escape("\xc2\x9b"
		     "2J",
		     "\\xc2\\x9b2J");
	check_escape("\xe2\x80\xa8\xe2\x80\xae", "\\xe2\\x80\\xa8\\xe2\\x80\\xae");
	check_escape("\xed\xa0\x80", "\\xed\\xa0\\x80"); /* a surrogate */
	check_escape(NULL, "");
	/* a text of several lines keeps its breaks, each line escaped */
	char *e = iso_escape_lines("f:2:1: bad\n  frob \033[2J\n  ^");
	assert_string_equal(e, "f:2:1: bad\n  frob \\x1b[2J\n  ^");
	free(e);
}

static void test_join(void **state)
{
	const char *argv[] = { "redis-server", "--port", "6390", "PASSWORD=x", "a\nb" };
	char *j = iso_join_cmdline(argv, 5, 200);

	assert_string_equal(j, "redis-server --port 6390 PASSWORD=*** a\\x0ab");
	free(j);
	j = iso_join_cmdline(argv, 3, 10);
	assert_int_equal(strlen(j), 10);
	assert_string_equal(j + 7, "...");
	free(j);
	/* the same escaping as every other field: not UTF-8, ESC, CSI */
	argv[1] = "\xff\033[2J\xc2\x9b";
	j = iso_join_cmdline(argv, 2, 200);
	assert_string_equal(j, "redis-server \\xff\\x1b[2J\\xc2\\x9b");
	free(j);
}

/* iso_utc() against glibc's gmtime_r(): leap years, century rules, month ends. */
static void test_utc(void **state)
{
	static const int64_t fixed[] = { 0,	     59,	 86399,	      86400,
					 951782399,  951782400,	 951868800,   1709164800,
					 4107542399, 4107542400, 253402300799 };
	int64_t t;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		struct tm want, got;
		time_t tt = (time_t)fixed[i];

		assert_non_null(gmtime_r(&tt, &want));
		iso_utc(fixed[i], &got);
		assert_int_equal(got.tm_year, want.tm_year);
		assert_int_equal(got.tm_mon, want.tm_mon);
		assert_int_equal(got.tm_mday, want.tm_mday);
		assert_int_equal(got.tm_hour, want.tm_hour);
		assert_int_equal(got.tm_min, want.tm_min);
		assert_int_equal(got.tm_sec, want.tm_sec);
	}
	/* every day of 1970-2200, at an odd second */
	for (t = 12345; t < 7289654400; t += 86400 + 1) {
		struct tm want, got;
		time_t tt = (time_t)t;

		assert_non_null(gmtime_r(&tt, &want));
		iso_utc(t, &got);
		if (got.tm_year != want.tm_year || got.tm_mon != want.tm_mon ||
		    got.tm_mday != want.tm_mday || got.tm_hour != want.tm_hour ||
		    got.tm_min != want.tm_min || got.tm_sec != want.tm_sec)
			fail_msg("iso_utc(%lld) differs from gmtime_r", (long long)t);
	}
}

/* --color=auto: NO_COLOR, then FORCE_COLOR / CLICOLOR_FORCE, then a terminal not TERM=dumb */
static void test_colour_auto(void **state)
{
	(void)state;
	assert_true(iso_colour_auto(true, NULL, NULL, NULL, "xterm"));
	assert_true(iso_colour_auto(true, NULL, NULL, NULL, NULL));
	assert_false(iso_colour_auto(false, NULL, NULL, NULL, "xterm"));
	assert_false(iso_colour_auto(true, NULL, NULL, NULL, "dumb"));
	/* NO_COLOR: present and not empty */
	assert_false(iso_colour_auto(true, "1", NULL, NULL, "xterm"));
	assert_true(iso_colour_auto(true, "", NULL, NULL, "xterm"));
	/* forced: a pipe, and TERM=dumb, are coloured */
	assert_true(iso_colour_auto(false, NULL, "1", NULL, NULL));
	assert_true(iso_colour_auto(true, NULL, "3", NULL, "dumb"));
	assert_true(iso_colour_auto(false, NULL, NULL, "1", "dumb"));
	assert_true(iso_colour_auto(false, "", NULL, "yes", NULL));
	for (size_t i = 0; i < 3; i++) {
		static const char *const off[] = { "", "0", "false" };

		assert_false(iso_colour_auto(false, NULL, off[i], NULL, NULL));
		assert_false(iso_colour_auto(false, NULL, NULL, off[i], NULL));
	}
	/* NO_COLOR beats the forcing variables */
	assert_false(iso_colour_auto(true, "1", "1", "1", "xterm"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_durations), cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_signals),	  cmocka_unit_test(test_signals_rt),
		cmocka_unit_test(test_quote),	  cmocka_unit_test(test_redact),
		cmocka_unit_test(test_join),	  cmocka_unit_test(test_escape),
		cmocka_unit_test(test_utc),	  cmocka_unit_test(test_colour_auto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
