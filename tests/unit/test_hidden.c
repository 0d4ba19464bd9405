// SPDX-License-Identifier: MIT
/*
 * Unit tests: what --private-tmp and --protect-home=hide hide (launcher/hidden.c),
 * on a scratch tree whose own "tmp" and "home" stand for the covered places.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/advice.h"
#include "common/cleanup.h"
#include "launcher/hidden.h"
#include "tests/unit/unit.h"

static char S[PATH_MAX];

static void mk(const char *rel, bool dir)
{
	char p[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", S, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
	} else {
		FILE *f = fopen(p, "we");
		assert_non_null(f);
		fputs("#!/bin/sh\n", f);
		assert_int_equal(fclose(f), 0);
	}
}

/* rel, a symlink to S/target */
static void ln(const char *target, const char *rel)
{
	char p[PATH_MAX * 2], t[PATH_MAX * 2];

	snprintf(p, sizeof(p), "%s/%s", S, rel);
	snprintf(t, sizeof(t), "%s/%s", S, target);
	assert_int_equal(symlink(t, p), 0);
}

static char *in_s(const char *rel)
{
	char *p = NULL;

	assert_true(asprintf(&p, "%s/%s", S, rel) > 0);
	return p;
}

static int setup(void **state)
{
	char raw[PATH_MAX];

	if (unit_mkdtemp(raw, sizeof(raw), "isorun-unit-hidden.XXXXXX") < 0 || !realpath(raw, S))
		return -1;
	mk("tmp", true);
	mk("tmp/keep", true);
	mk("tmp/keep/proj", true);
	mk("tmp/keep/proj/file", false);
	mk("tmp/keep/other", false);
	mk("tmp/x", true);
	mk("tmp/x/tool", false);
	mk("out", true);
	mk("out/f", false);
	ln("out/f", "tmp/link");
	ln("tmp/x/tool", "out/to-hidden");
	ln("loop2", "loop1");
	ln("loop1", "loop2");
	mk("home", true);
	mk("home/w", true);
	mk("home/w/f", false);
	mk("home/a", true);
	mk("home/a/tool", false);
	mk("out/script", false);
	return 0;
}

static int teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", S);
	return system(cmd) == 0 ? 0 : -1;
}

/* "tmp" covered but for tmp/keep/proj, the working directory. */
static void tmp_plan(struct sup_hidden *h)
{
	*h = (struct sup_hidden){ .on = true, .say = cli_says };
	h->tmp[0] = in_s("tmp");
	h->tmp_keep[0] = in_s("tmp/keep/proj");
	h->cwd = in_s("tmp/keep/proj");
}

/* the option that hides rel (absolute when it starts with '/'), and where */
static const char *by(const struct sup_hidden *h, const char *rel, bool whole, char *at)
{
	char p[PATH_MAX * 2];

	if (rel[0] == '.' || rel[0] == '/')
		snprintf(p, sizeof(p), "%s", rel);
	else
		snprintf(p, sizeof(p), "%s/%s", S, rel);
	at[0] = '\0';
	return sup_hidden_by(h, p, whole, at, PATH_MAX);
}

static void expect_at(const char *at, const char *rel)
{
	char want[PATH_MAX * 2];

	snprintf(want, sizeof(want), "%s/%s", S, rel);
	assert_string_equal(at, want);
}

static void test_tmp(void **state)
{
	struct sup_hidden h;
	char at[PATH_MAX];

	tmp_plan(&h);
	assert_string_equal(by(&h, "tmp/x/tool", true, at), "--private-tmp");
	expect_at(at, "tmp/x");
	/* the covered place itself, the kept directory, the way to it, and outside */
	assert_null(by(&h, "tmp", true, at));
	assert_null(by(&h, "tmp/keep/proj/file", true, at));
	assert_null(by(&h, "tmp/keep", true, at));
	assert_null(by(&h, "out/f", true, at));
	/* beside the kept directory, on the way to it */
	assert_string_equal(by(&h, "tmp/keep/other", true, at), "--private-tmp");
	expect_at(at, "tmp/keep/other");
	/* relative, from the working directory */
	assert_string_equal(by(&h, "../../x/tool", true, at), "--private-tmp");
	expect_at(at, "tmp/x");
	assert_null(by(&h, "./file", true, at));
	assert_null(by(&h, "../proj/./file", true, at));
	sup_hidden_free(&h);
}

static void test_links_and_missing(void **state)
{
	struct sup_hidden h;
	char at[PATH_MAX];

	tmp_plan(&h);
	/* a visible link to a hidden file; a hidden link to a visible file */
	assert_string_equal(by(&h, "out/to-hidden", true, at), "--private-tmp");
	expect_at(at, "tmp/x");
	assert_string_equal(by(&h, "tmp/link", true, at), "--private-tmp");
	expect_at(at, "tmp/link");
	/* missing on the host: not the option's doing for a command; the hidden
	 * directory is named for a file the command would make there */
	assert_null(by(&h, "tmp/x/missing", true, at));
	assert_string_equal(by(&h, "tmp/x/missing", false, at), "--private-tmp");
	expect_at(at, "tmp/x");
	assert_null(by(&h, "tmp/missing", false, at));
	assert_null(by(&h, "nowhere/tmp/x", false, at));
	/* a symlink loop ends */
	assert_null(by(&h, "loop1", true, at));
	assert_null(by(&h, "loop1/x", false, at));
	assert_null(by(&h, "", true, at));
	sup_hidden_free(&h);
	/* nothing on: nothing hidden */
	h = (struct sup_hidden){ 0 };
	assert_null(by(&h, "tmp/x/tool", true, at));
}

static void test_home(void **state)
{
	struct sup_hidden h = { .on = true, .say = cli_says };
	char at[PATH_MAX], cause[PATH_MAX * 2];

	h.home = in_s("home");
	h.home_keep = calloc(2, sizeof(*h.home_keep));
	assert_non_null(h.home_keep);
	h.home_keep[h.n_home_keep++] = in_s("home/w");
	h.home_keep[h.n_home_keep++] = NULL; /* a --writable that did not resolve */
	assert_null(by(&h, "home/w/f", true, at));
	assert_null(by(&h, "home", true, at));
	assert_string_equal(by(&h, "home/a/tool", true, at), "--protect-home=hide");
	expect_at(at, "home/a");
	/* the fix names --writable for a directory, not for a file */
	sup_hidden_cause(&h, at, cause, sizeof(cause));
	assert_non_null(strstr(cause, "; add --writable "));
	{
		_cleanup_free_ char *f = in_s("home/w/f");
		sup_hidden_cause(&h, f, cause, sizeof(cause));
		assert_string_equal(cause, "");
	}
	sup_hidden_free(&h);
}

static void test_interpreter(void **state)
{
	struct sup_hidden h;
	char cause[PATH_MAX * 3], want[PATH_MAX * 3];
	_cleanup_free_ char *script = in_s("out/script"), *f = in_s("out/f");
	FILE *s = fopen(script, "we");

	assert_non_null(s);
	fprintf(s, "#! %s/tmp/x/tool -e\n", S);
	assert_int_equal(fclose(s), 0);
	tmp_plan(&h);
	sup_hidden_cause(&h, script, cause, sizeof(cause));
	snprintf(want, sizeof(want), "its interpreter %s/tmp/x/tool: --private-tmp hides %s/tmp/x",
		 S, S);
	assert_true(strncmp(cause, want, strlen(want)) == 0);
	/* "#!/bin/sh": visible, nothing to say */
	sup_hidden_cause(&h, f, cause, sizeof(cause));
	assert_string_equal(cause, "");
	sup_hidden_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tmp),
		cmocka_unit_test(test_links_and_missing),
		cmocka_unit_test(test_home),
		cmocka_unit_test(test_interpreter),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
