// SPDX-License-Identifier: MIT
/* Unit tests: option parsing and the exit-code decision of the contract. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launcher/args.h"
#include "launcher/exit.h"
#include "launcher/summary.h"

static int parse(struct iso_opts *o, struct iso_err *e, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	iso_opts_init(o);
	memset(e, 0, sizeof(*e));
	return iso_parse_args(argc, argv, o, e);
}

static void test_defaults_and_command(void **state)
{
	char *argv[] = { "isorun", "--", "pytest", "-q", NULL };
	struct iso_opts o;
	struct iso_err e;

	assert_int_equal(parse(&o, &e, argv), ISO_RUN);
	assert_int_equal(o.settle_ms, 3000);
	assert_int_equal(o.grace_ms, 5000);
	assert_int_equal(o.stop_signal, SIGTERM);
	assert_int_equal(o.finding_exit, 122);
	assert_int_equal(o.leaks, ISO_FAIL);
	assert_int_equal(o.residue, ISO_WARN);
	assert_int_equal(o.argc, 2);
	assert_string_equal(o.argv[0], "pytest");
	iso_opts_free(&o);
}

static void test_command_options_stay_its_own(void **state)
{
	char *argv[] = { "isorun", "--keep", "ls", "--timeout", "x", NULL };
	struct iso_opts o;
	struct iso_err e;

	assert_int_equal(parse(&o, &e, argv), ISO_RUN);
	assert_true(o.keep);
	assert_int_equal(o.timeout_ms, 0);
	assert_string_equal(o.argv[1], "--timeout");
	iso_opts_free(&o);
}

static void test_repeatable(void **state)
{
	char *argv[] = { "isorun",    "--env-dir", "A=a",	"--env-dir", "B=b/c",
			 "--pass-fd", "5",	   "--pass-fd", "9",	     "--watch",
			 ".",	      "--",	   "true",	NULL };
	struct iso_opts o;
	struct iso_err e;

	assert_int_equal(parse(&o, &e, argv), ISO_RUN);
	assert_int_equal(o.env_dirs.n, 2);
	assert_string_equal(o.env_dirs.v[1], "B=b/c");
	assert_int_equal(o.n_pass_fds, 2);
	assert_int_equal(o.pass_fds[1], 9);
	assert_int_equal(o.watch.n, 1);
	iso_opts_free(&o);
}

static void expect_error(char **argv, const char *msg)
{
	struct iso_opts o;
	struct iso_err e;

	assert_true(parse(&o, &e, argv) < 0);
	assert_string_equal(e.msg, msg);
	iso_opts_free(&o);
}

static void test_errors_name_the_option(void **state)
{
	expect_error((char *[]){ "isorun", "--settle", "soon", "--", "x", NULL },
		     "--settle: invalid duration 'soon' (examples: 90s, 5m, 1h30m)");
	expect_error((char *[]){ "isorun", "--env-dir", "A=/abs", "--", "x", NULL },
		     "--env-dir: expected VAR=SUBDIR with a relative SUBDIR inside the tree, got "
		     "'A=/abs'");
	expect_error((char *[]){ "isorun", "--env-dir", "A=a/../b", "--", "x", NULL },
		     "--env-dir: expected VAR=SUBDIR with a relative SUBDIR inside the tree, got "
		     "'A=a/../b'");
	expect_error((char *[]){ "isorun", "--env-dir", "1A=a", "--", "x", NULL },
		     "--env-dir: expected VAR=SUBDIR with a relative SUBDIR inside the tree, got "
		     "'1A=a'");
	expect_error((char *[]){ "isorun", "-x", NULL }, "-x: unknown option");
	expect_error((char *[]){ "isorun", "--root", NULL }, "--root: missing argument");
	expect_error((char *[]){ "isorun", NULL },
		     "no command given (usage: isorun [OPTION]... -- COMMAND)");
}

static struct iso_outcome ok_outcome(void)
{
	return (struct iso_outcome){ .subreaper = true,
				     .exited = true,
				     .tree_state = ISO_TREE_REMOVED };
}

static void test_exit_codes(void **state)
{
	struct iso_opts o;
	struct iso_outcome out = ok_outcome();
	struct iso_leak leak = { .pid = 1 };
	bool finding;

	iso_opts_init(&o);
	assert_int_equal(iso_exit_code(&o, &out, &finding), 0);
	assert_false(finding);

	for (int c = 1; c < 256; c++) {
		out.exit_code = c;
		assert_int_equal(iso_exit_code(&o, &out, NULL), c);
	}
	out = ok_outcome();
	out.leaks = &leak;
	out.n_leaks = 1;
	assert_int_equal(iso_exit_code(&o, &out, &finding), ISO_EXIT_FINDING);
	assert_true(finding);
	out.exit_code = 3;
	assert_int_equal(iso_exit_code(&o, &out, NULL), 3);
	out.exit_code = 0;
	o.finding_exit = 99;
	assert_int_equal(iso_exit_code(&o, &out, NULL), 99);
	o.leaks = ISO_WARN;
	assert_int_equal(iso_exit_code(&o, &out, NULL), 0);

	iso_opts_init(&o);
	out = ok_outcome();
	out.tree_state = ISO_TREE_RETAINED;
	assert_int_equal(iso_exit_code(&o, &out, NULL), ISO_EXIT_FINDING);
	out = ok_outcome();
	out.term_signal = SIGSEGV;
	assert_int_equal(iso_exit_code(&o, &out, NULL), 128 + SIGSEGV);
	out = ok_outcome();
	out.timed_out = true;
	out.cancelled_by = 0;
	assert_int_equal(iso_exit_code(&o, &out, NULL), ISO_EXIT_TIMEOUT);
	out = ok_outcome();
	out.cancelled_by = SIGINT;
	assert_int_equal(iso_exit_code(&o, &out, NULL), 130);
	out = ok_outcome();
	out.exec_failed = true;
	out.exit = ISO_EXIT_NOT_FOUND;
	assert_int_equal(iso_exit_code(&o, &out, NULL), 127);
	out = ok_outcome();
	out.subreaper = false;
	assert_int_equal(iso_exit_code(&o, &out, &finding), ISO_EXIT_FINDING);
	assert_true(finding);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_command),
		cmocka_unit_test(test_command_options_stay_its_own),
		cmocka_unit_test(test_repeatable),
		cmocka_unit_test(test_errors_name_the_option),
		cmocka_unit_test(test_exit_codes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
