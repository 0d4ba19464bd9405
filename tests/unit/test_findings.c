// SPDX-License-Identifier: MIT
/*
 * The writers of findings for CI: GitHub's workflow-command escaping, XML 1.0
 * character data for JUnit (controls and bytes that are not UTF-8 made visible,
 * never passed through to break the parser), and where a report's output tail
 * starts so that it holds whole lines.
 */
#include "tests/unit/unit.h"

#include <stdbool.h>

#include "launcher/annotate.h"
#include "launcher/junit.h"
#include "launcher/report.h"

static void check_gha(const char *in, bool props, const char *want)
{
	char *got = sup_gha_escape(in, props);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_gha_escape(void **state)
{
	(void)state;
	check_gha("plain text", false, "plain text");
	/* a message keeps : and , ; % CR LF are always encoded, % first */
	check_gha("100% a:b,c\r\nd", false, "100%25 a:b,c%0D%0Ad");
	/* a property also encodes : and , which would end it */
	check_gha("isorun: a,b%", true, "isorun%3A a%2Cb%25");
	check_gha("", true, "");
}

static char *xml(const char *s, size_t n, bool attr)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sup_xml_escape(f, s, n, attr);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void check_xml(const char *in, size_t n, bool attr, const char *want)
{
	char *got = xml(in, n, attr);

	assert_string_equal(got, want);
	free(got);
}

static void test_xml_escape(void **state)
{
	(void)state;
	check_xml("a<b>&c\"d'", 9, false, "a&lt;b&gt;&amp;c\"d'");
	check_xml("a<b>&c\"d", 8, true, "a&lt;b&gt;&amp;c&quot;d");
	/* text keeps its newlines and tabs; an attribute keeps them as references */
	check_xml("x\ny\tz\r", 6, false, "x\ny\tz&#13;");
	check_xml("x\ny\tz", 5, true, "x&#10;y&#9;z");
	/* controls XML 1.0 cannot hold, and a NUL, become visible text */
	check_xml("a\001b\033c", 5, false, "a\\x01b\\x1bc");
	check_xml("a\0b", 3, false, "a\\x00b");
	/* valid UTF-8 passes; a stray byte, an overlong form, a surrogate do not */
	check_xml("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\x8d", 14, false,
		  "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\x8d");
	check_xml("a\xff"
		  "b",
		  3, false, "a\\xffb");
	check_xml("\xc0\xaf", 2, false, "\\xc0\\xaf");
	check_xml("\xed\xa0\x80", 3, false, "\\xed\\xa0\\x80");
	/* a character cut at the end of the text */
	check_xml("ab\xe2\x86", 4, false, "ab\\xe2\\x86");
	/* U+FFFE is not an XML character */
	check_xml("\xef\xbf\xbe", 3, false, "\\xef\\xbf\\xbe");
}

static void test_tail_start(void **state)
{
	(void)state;
	/* nothing was cut: the tail is all the output */
	assert_int_equal(sup_tail_start("ab\ncd\n", 6, false), 0);
	/* cut: it starts after the first newline */
	assert_int_equal(sup_tail_start("ab\ncd\n", 6, true), 3);
	assert_int_equal(sup_tail_start("\ncd\n", 4, true), 1);
	/* one line longer than the tail: its end, from a whole UTF-8 character */
	assert_int_equal(sup_tail_start("abcdef", 6, true), 0);
	assert_int_equal(sup_tail_start("\x82\xacxyz", 5, true), 2);
	/* only a final newline: the line it ends is kept rather than nothing */
	assert_int_equal(sup_tail_start("abc\n", 4, true), 0);
}

static void check_abs(const char *cwd, const char *p, const char *want)
{
	char *got = sup_abs_path(cwd, p);

	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_abs_path(void **state)
{
	(void)state;
	check_abs("/w/proj", ".", "/w/proj");
	check_abs("/w/proj", "../r.json", "/w/r.json");
	check_abs("/w/proj", "a//b/./c/", "/w/proj/a/b/c");
	check_abs("/w/proj", "/abs/./x/../y", "/abs/y");
	check_abs("/", "..", "/");
	check_abs("/w", "../../..", "/");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gha_escape),
		cmocka_unit_test(test_xml_escape),
		cmocka_unit_test(test_tail_start),
		cmocka_unit_test(test_abs_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
