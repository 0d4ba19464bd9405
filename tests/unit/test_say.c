// SPDX-License-Identifier: MIT
/*
 * launcher/'s words that name an option come from the command line's table
 * (cli/advice.c): each names an option that exists, and a module below the
 * command line states a cause the caller names (iso_err_prefix()).
 */
#include <string.h>

#include "cli/advice.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/keys.h"
#include "common/err.h"
#include "launcher/say.h"
#include "selftest/selftest.h"
#include "tests/unit/unit.h"

/* "--name" or "--name=value" at w is a key of the option table */
static bool known_option(const char *w)
{
	size_t n = strcspn(w + 2, "= '),.;");

	for (size_t i = 0; i < SUP_N_KEYS; i++)
		if (cli_keys[i].name && strlen(cli_keys[i].name) == n &&
		    !strncmp(cli_keys[i].name, w + 2, n))
			return true;
	return false;
}

static void test_every_word_names_an_option(void **state)
{
	for (int w = 0; w < SUP_SAY_N; w++) {
		const char *s = cli_says[w], *p;

		assert_non_null(s);
		p = strstr(s, "--");
		assert_non_null(p);
		/* the other programs' options: isorun gc's, usermod's */
		if (strstr(s, "isorun gc") || strstr(s, "usermod"))
			continue;
		for (; p; p = strstr(p + 2, "--"))
			if (!known_option(p))
				fail_msg("iso_says[%d] = \"%s\": unknown option at \"%s\"", w, s,
					 p);
	}
}

/* selftest's words and its controls' options (cli/selftest_cli.c): every one names an option */
static void test_every_selftest_word_names_an_option(void **state)
{
	for (int w = 0; w < ST_SAY_N; w++) {
		const char *s = cli_st_says[w], *p;

		assert_non_null(s);
		p = strstr(s, "--");
		assert_non_null(p);
		for (; p; p = strstr(p + 2, "--"))
			if (!known_option(p))
				fail_msg("cli_st_says[%d] = \"%s\": unknown option at \"%s\"", w, s,
					 p);
	}
}

static void test_no_table(void **state)
{
	/* a run built without the command line (a test's) says nothing, never NULL */
	assert_string_equal(sup_say(NULL, SUP_SAY_PIDNS), "");
	assert_string_equal(sup_say(cli_says, SUP_SAY_PIDNS), "--pidns");
}

static void test_prefix(void **state)
{
	struct iso_err e = { 0 };

	iso_err_set(&e, ENAMETOOLONG, "'%s'", "/r");
	iso_err_prefix(&e, "--root", " ");
	assert_string_equal(e.msg, "--root '/r'");
	iso_err_set(&e, ENOMEM, "%s", "");
	iso_err_prefix(&e, "--env-dir", " ");
	assert_string_equal(e.msg, "--env-dir");
	iso_err_set(&e, ENOENT, "open '%s'", "/w");
	iso_err_prefix(&e, "--watch", ": ");
	assert_string_equal(e.msg, "--watch: open '/w'");
	assert_int_equal(e.errnum, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_word_names_an_option),
		cmocka_unit_test(test_every_selftest_word_names_an_option),
		cmocka_unit_test(test_no_table),
		cmocka_unit_test(test_prefix),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
