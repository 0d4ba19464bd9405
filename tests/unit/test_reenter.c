// SPDX-License-Identifier: MIT
/* Unit tests: the settings record a tree keeps for isorun shell --tree, and reading it back. */
#include <limits.h>
#include <pwd.h>
#include <unistd.h>

#include "tests/unit/unit.h"

#include "cli/args.h"
#include "cli/conf.h"
#include "cli/reenter.h"
#include "common/cleanup.h"
#include "ns/ns.h"

/* The record of a run with these options (argv[0] is "isorun"), malloc'ed. */
static char *record_of(int argc, char **argv)
{
	struct sup_opts o;
	struct iso_err e = { 0 };
	char *text;

	sup_opts_init(&o);
	assert_true(cli_parse_args(argc, argv, &o, &e) >= 0);
	text = cli_settings_record(&o);
	assert_non_null(text);
	sup_opts_free(&o);
	return text;
}

static void test_what_is_recorded(void **state)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0), *want = NULL;
	_cleanup_free_ char *text = record_of(
		17, (char *[]){ "isorun", "--pidns", "--private-tmp", "--setenv", "FOO=bar",
				"--setenv", "API_TOKEN=s3cret", "--watch", "sub", "--root", "/r",
				"--timeout", "5m", "--report", "/x.json", "--", "true", NULL });

	assert_true(asprintf(&want,
			     "# the settings of the run that made this tree, read by isorun "
			     "shell --tree\n"
			     "pidns = true\nprivate-tmp = true\nsetenv = FOO=bar\nwatch = %s/sub\n",
			     cwd) > 0);
	/* no secret, no root, timeout or outputs: one invocation's own */
	assert_string_equal(text, want);
}

static void test_values_a_line_cannot_carry(void **state)
{
	_cleanup_free_ char *text =
		record_of(9, (char *[]){ "isorun", "--setenv", "A=x\ny", "--setenv", "B=$HOME",
					 "--setenv", "C=edge ", "--", "true", NULL });

	assert_null(strstr(text, "setenv"));
}

/* The record read back under a command line: the command line wins, and is not widened. */
static void test_read_back_under_the_command_line(void **state)
{
	struct sup_opts o;
	struct iso_err e = { 0 };
	char *path = strdup("/t/isorun-0/x/settings");
	_cleanup_free_ char *line = NULL;

	sup_opts_init(&o);
	assert_true(cli_parse_args(5,
				   (char *[]){ "isorun", "--protect-home=ro", "--", "true", NULL },
				   &o, &e) >= 0);
	assert_int_equal(cli_conf_apply(&o, path, "protect-home = off\nprivate-tmp = true\n", &e),
			 0);
	assert_int_equal(o.protect_home, NS_HOME_RO);
	assert_true(o.private_tmp);
	sup_opts_free(&o);

	sup_opts_init(&o);
	path = strdup("/t/isorun-0/x/settings");
	assert_true(cli_parse_args(5,
				   (char *[]){ "isorun", "--protect-home=ro", "--", "true", NULL },
				   &o, &e) >= 0);
	assert_true(asprintf(&line, "writable = %s\n", getpwuid(getuid())->pw_dir) > 0);
	assert_true(cli_conf_apply(&o, path, line, &e) < 0);
	assert_non_null(strstr(e.msg, "/t/isorun-0/x/settings:1: writable = "));
	sup_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_what_is_recorded),
		cmocka_unit_test(test_values_a_line_cannot_carry),
		cmocka_unit_test(test_read_back_under_the_command_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
