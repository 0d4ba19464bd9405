// SPDX-License-Identifier: MIT
/* Unit tests: --watch-ignore's globs and the sorting of new entries into residue
 * (launcher/residue.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launcher/gitignore.h"
#include "launcher/residue.h"

static void test_globs(void **state)
{
	static const struct {
		const char *glob, *path;
		bool match;
	} cases[] = {
		{ "*.o", "a.o", true },
		{ "*.o", "src/deep/a.o", true }, /* no '/': the name at any depth */
		{ "*.o", "a.o/", true },	 /* a directory named so too */
		{ "*.o", "a.c", false },
		{ "*", ".hidden", true }, /* '*' matches a leading dot, as in git */
		{ "/out", "out/", true },
		{ "/out", "src/out/", false }, /* a leading '/' anchors */
		{ "out", "src/out/", true },
		{ "src/gen-*", "src/gen-1.c", true },
		{ "src/gen-*", "src/sub/gen-1.c", false }, /* '*' stops at '/' */
		{ "src/gen-*", "x/src/gen-1.c", false },   /* a '/' anchors as well */
		{ "cache/", "cache/", true },
		{ "cache/", "cache", false }, /* a trailing '/': directories only */
		{ "cache/", "a/cache/", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (sup_glob_ignores(cases[i].glob, cases[i].path) != cases[i].match)
			fail_msg("%s against %s: expected %d", cases[i].glob, cases[i].path,
				 cases[i].match);
	}
}

/* The entries (sorted, as sup_snapshot_added gives them) and what ignores each. */
static void sort(const char *const *added, const char *const *by, size_t n, bool *residue,
		 bool *shown)
{
	assert_int_equal(sup_residue_sort(added, n, by, residue, shown), 0);
}

static void test_sort(void **state)
{
	static const char *const added[] = {
		"build/",      "build/x", "empty/",   "keep.o",	    "mixed/",	     "mixed/m.o",
		"mixed/notes", "objs/",	  "objs/a.o", "objs/deep/", "objs/deep/b.o", "top.txt",
	};
	static const char *const by[] = {
		"g:1:build/", NULL, NULL,      NULL, NULL,	"g:1:*.o",
		NULL,	      NULL, "g:1:*.o", NULL, "g:1:*.o", NULL,
	};
	/* build/ ignored whole; empty/ stays residue; mixed/ once; objs/ holds only ignored */
	static const bool want_residue[] = { false, false, true,  true,	 true,	false,
					     false, false, false, false, false, true };
	static const bool want_shown[] = { true,  false, false, false, false, true,
					   false, false, true,	false, true,  false };
	size_t n = sizeof(added) / sizeof(added[0]);
	bool residue[sizeof(added) / sizeof(added[0])], shown[sizeof(added) / sizeof(added[0])];

	sort(added, by, n, residue, shown);
	for (size_t i = 0; i < n; i++) {
		if (residue[i] != want_residue[i] || shown[i] != want_shown[i])
			fail_msg("%s: residue %d shown %d", added[i], residue[i], shown[i]);
	}
}

/* Nothing ignored: what the walk alone reported, a new directory once. */
static void test_sort_plain(void **state)
{
	/* sorted as strcmp does: '-' before '/' */
	static const char *const added[] = { "a-b", "a/", "a/b/", "a/b/c", "z" };
	static const char *const by[] = { NULL, NULL, NULL, NULL, NULL };
	static const bool want[] = { true, true, false, false, true };
	bool residue[5], shown[5];

	sort(added, by, 5, residue, shown);
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(residue[i], want[i]);
	assert_int_equal(sup_residue_sort(NULL, 0, NULL, residue, shown), 0);
}

/* git's wildmatch under WM_PATHNAME, as its t3070 tests it; watch.bats checks against git itself.
 */
static void test_wildmatch(void **state)
{
	static const struct {
		const char *pat, *text;
		bool match;
	} cases[] = {
		{ "foo", "foo", true },
		{ "foo", "bar", false },
		{ "???", "foo", true },
		{ "*f", "foo", false },
		{ "*ob*a*r*", "foobar", true },
		{ "*ab", "aaaaaaabababab", true },
		{ "foo\\*", "foo*", true },
		{ "foo\\*bar", "foobar", false },
		{ "*[al]?", "ball", true },
		{ "[ten]", "ten", false },
		{ "**[!te]", "ten", true },
		{ "**[!ten]", "ten", false },
		{ "t[a-g]n", "ten", true },
		{ "t[!a-g]n", "ten", false },
		{ "t[^a-g]n", "ton", true },
		{ "a[]]b", "a]b", true },
		{ "a[]-]b", "a-b", true },
		{ "a[]a-]b", "aab", true },
		{ "[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true },
		{ "[[:digit:][:upper:][:space:]]", "a", false },
		{ "[a-c[:digit:]x-z]", "5", true },
		{ "[[:nope:]]", "a", false }, /* an unknown class matches nothing */
		{ "[abc", "a", false },	      /* nor does an open bracket */
		{ "foo*bar", "foo/baz/bar", false },
		{ "foo**bar", "foo/baz/bar", false },
		{ "foo?bar", "foo/bar", false },
		{ "foo[/]bar", "foo/bar", false },
		{ "foo/**/bar", "foo/bar", true },
		{ "foo/**/bar", "foo/b/a/z/bar", true },
		{ "**/foo", "foo", true },
		{ "**/foo", "bar/baz/foo", true },
		{ "*/foo", "bar/baz/foo", false },
		{ "**/bar*", "foo/bar/baz", false },
		{ "**/bar/*", "deep/foo/bar/baz", true },
		{ "**/bar/*", "deep/foo/bar", false },
		{ "a/**", "a/b/c", true },
		{ "a/**", "a", false },
		{ "**", "a/b", true },
		{ "*", "a/b", false },
		{ "*", ".hidden", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (sup_git_wildmatch(cases[i].pat, cases[i].text) != cases[i].match)
			fail_msg("%s against %s: expected %d", cases[i].pat, cases[i].text,
				 cases[i].match);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_sort),
		cmocka_unit_test(test_sort_plain),
		cmocka_unit_test(test_wildmatch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
