// SPDX-License-Identifier: MIT
/* Unit tests: option parsing (the exit-code decision is test_verdict.c's). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/args.h"
#include "cli/keys.h"
#include "common/exit.h"
#include "cli/suggest.h"

static int parse(struct sup_opts *o, struct iso_err *e, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	sup_opts_init(o);
	memset(e, 0, sizeof(*e));
	return cli_parse_args(argc, argv, o, e);
}

static void test_defaults_and_command(void **state)
{
	char *argv[] = { "isorun", "--", "pytest", "-q", NULL };
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(parse(&o, &e, argv), CLI_RUN);
	assert_int_equal(o.settle_ms, 3000);
	assert_int_equal(o.grace_ms, 5000);
	assert_int_equal(o.stop_signal, SIGTERM);
	assert_int_equal(o.finding_exit, 122);
	assert_int_equal(o.leaks, SUP_FAIL);
	assert_int_equal(o.residue, SUP_WARN);
	assert_int_equal(o.argc, 2);
	assert_string_equal(o.argv[0], "pytest");
	sup_opts_free(&o);
}

static void test_command_options_stay_its_own(void **state)
{
	char *argv[] = { "isorun", "--keep", "cat", "--timeout", "x", NULL };
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(parse(&o, &e, argv), CLI_RUN);
	assert_true(o.keep);
	assert_int_equal(o.timeout_ms, 0);
	assert_string_equal(o.argv[1], "--timeout");
	sup_opts_free(&o);
}

/* `isorun --keep ls`: a subcommand in the command's place, unless after "--" */
static void test_subcommand_after_options(void **state)
{
	char *late[] = { "isorun", "--keep", "ls", "-l", NULL };
	char *dashed[] = { "isorun", "--keep", "--", "ls", NULL };
	char *value[] = { "isorun", "--root", "--", "true", NULL };
	struct sup_opts o;
	struct iso_err e;

	assert_true(parse(&o, &e, late) < 0);
	assert_string_equal(
		e.msg, "'ls' is a subcommand: isorun ls --keep -l (a command named ls: -- ls)");
	sup_opts_free(&o);
	assert_int_equal(parse(&o, &e, dashed), CLI_RUN);
	assert_string_equal(o.argv[0], "ls");
	sup_opts_free(&o);
	assert_true(parse(&o, &e, value) < 0);
	assert_string_equal(
		e.msg, "--root needs a value, got '--' (a value that begins with '-': --root=--)");
	sup_opts_free(&o);
}

static void test_repeatable(void **state)
{
	char *argv[] = { "isorun",    "--env-dir", "A=a",	"--env-dir", "B=b/c",
			 "--pass-fd", "5",	   "--pass-fd", "9",	     "--watch",
			 ".",	      "--",	   "true",	NULL };
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(parse(&o, &e, argv), CLI_RUN);
	assert_int_equal(o.env_dirs.n, 2);
	assert_string_equal(o.env_dirs.v[1], "B=b/c");
	assert_int_equal(o.n_pass_fds, 2);
	assert_int_equal(o.pass_fds[1], 9);
	assert_int_equal(o.watch.n, 1);
	sup_opts_free(&o);
}

static void expect_error(char **argv, const char *msg)
{
	struct sup_opts o;
	struct iso_err e;

	assert_true(parse(&o, &e, argv) < 0);
	assert_string_equal(e.msg, msg);
	sup_opts_free(&o);
}

static void test_did_you_mean(void **state)
{
	static const char *const words[] = { "timeout", "pidns", "policy", "policy-mode", NULL };

	assert_int_equal(cli_edit_distance("tmieout", "timeout"), 1); /* a transposition */
	assert_int_equal(cli_edit_distance("", "abc"), 3);
	assert_int_equal(cli_edit_distance("KILL", "kill"), 0);
	assert_string_equal(cli_suggest("tmieout", words, 5), "timeout");
	assert_string_equal(cli_suggest("polcy", words, 5), "policy");
	assert_null(cli_suggest("bogus", words, 5));
	/* a short word: one edit at most */
	assert_null(cli_suggest("px", words, 5));
	expect_error((char *[]){ "isorun", "--tmieout=5m", "--", "x", NULL },
		     "--tmieout: unknown option; did you mean --timeout?");
	expect_error((char *[]){ "isorun", "--polcy-mode", "log", "--", "x", NULL },
		     "--polcy-mode: unknown option; did you mean --policy-mode?");
	expect_error((char *[]){ "isorun", "--pol", "--", "x", NULL },
		     "--pol: ambiguous option: could be --policy, --policy-mode");
	expect_error((char *[]){ "isorun", "--pidns", "try", "--", "x", NULL },
		     "--pidns try: the value of --pidns goes after '=': did you mean --pidns=try? "
		     "(a command named try: --pidns -- try)");
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

static void test_flags_and_config(void **state)
{
	struct sup_opts o;
	struct iso_err e;

	/* a bare flag is true; =false turns off what isorun.conf turned on */
	assert_int_equal(
		parse(&o, &e,
		      (char *[]){ "isorun", "--keep", "--private-tmp=false", "--map-root=yes", "-q",
				  "--config", "a.conf", "--", "true", NULL }),
		CLI_RUN);
	assert_true(o.keep);
	assert_false(o.private_tmp);
	assert_true(o.map_root);
	assert_int_equal(o.verbosity, -1);
	assert_string_equal(o.config_arg, "a.conf");
	assert_false(o.no_config);
	/* every setting is recorded, from the command line */
	assert_int_equal(o.n_settings, 4);
	assert_int_equal(o.settings[0].key, SUP_K_KEEP);
	assert_null(o.settings[0].val);
	assert_int_equal(o.settings[3].key, SUP_K_QUIET);
	assert_int_equal(o.settings[3].line, SUP_FROM_CLI);
	sup_opts_free(&o);

	/* the last of --config and --no-config wins */
	assert_int_equal(parse(&o, &e,
			       (char *[]){ "isorun", "--config", "a.conf", "--no-config", "-v",
					   "--verbose=false", "true", NULL }),
			 CLI_RUN);
	assert_null(o.config_arg);
	assert_true(o.no_config);
	assert_int_equal(o.verbosity, 0);
	sup_opts_free(&o);

	/* `isorun shell` keeps its tree whatever --keep says */
	assert_int_equal(parse(&o, &e, (char *[]){ "isorun", "shell", "--keep=false", NULL }),
			 CLI_RUN);
	assert_true(o.keep);
	sup_opts_free(&o);

	/* `isorun config` needs no command */
	sup_opts_init(&o);
	assert_int_equal(cli_parse_args_flags(2, (char *[]){ "config", "--no-config", NULL },
					      CLI_ARGS_COMMAND_OPTIONAL, &o, &e),
			 CLI_RUN);
	assert_int_equal(o.argc, 0);
	sup_opts_free(&o);

	expect_error((char *[]){ "isorun", "--private-tmp=maybe", "--", "x", NULL },
		     "--private-tmp: expected nothing, =true or =false, got 'maybe'");
	expect_error((char *[]){ "isorun", "--keep=maybe", "--", "x", NULL },
		     "--keep: expected never, always or on-failure, got 'maybe'");
	expect_error((char *[]){ "isorun", "--pidns=maybe", "--", "x", NULL },
		     "--pidns: expected nothing or =try, got 'maybe'");
	expect_error((char *[]){ "isorun", "--config", "", "--", "x", NULL },
		     "--config: empty path");
	expect_error((char *[]){ "isorun", "--no-config=x", "--", "x", NULL },
		     "--no-config: takes no value, got 'x'");
}

/* One function validates for both: only the name in the message differs. */
static void test_one_setter_for_both(void **state)
{
	struct sup_opts o;
	struct iso_err e = { 0 };

	sup_opts_init(&o);
	assert_true(cli_opt_set(&o, SUP_K_GRACE, "x", SUP_FROM_CLI, &e) < 0);
	assert_string_equal(e.msg, "--grace: invalid duration 'x' (examples: 90s, 5m, 1h30m)");
	assert_true(cli_opt_set(&o, SUP_K_GRACE, "x", 7, &e) < 0);
	assert_string_equal(e.msg, "grace: invalid duration 'x' (examples: 90s, 5m, 1h30m)");
	assert_int_equal(o.n_settings, 0); /* nothing recorded for a bad value */
	assert_int_equal(cli_opt_set(&o, SUP_K_GRACE, "2s", 7, &e), 0);
	assert_int_equal(o.grace_ms, 2000);
	assert_int_equal(o.settings[0].line, 7);
	assert_int_equal(cli_key_lookup("finding-exit-code"), SUP_K_FINDING_EXIT);
	assert_int_equal(cli_key_lookup("config"), -1);
	assert_int_equal(cli_key_lookup("help"), -1);
	sup_opts_free(&o);
}

/* Every key of isorun.conf is an option of the command line too, by its name. */
static void test_every_key_is_an_option(void **state)
{
	for (int k = 0; k < SUP_N_KEYS; k++) {
		char opt[64];
		char *argv[] = { "isorun", opt, "--", "true", NULL };
		struct sup_opts o;
		struct iso_err e;

		snprintf(opt, sizeof(opt), "--%s=\x01", cli_keys[k].name);
		(void)parse(&o, &e, argv);
		if (strstr(e.msg, "unknown option"))
			fail_msg("%s is a key of isorun.conf but not an option: %s", opt, e.msg);
		sup_opts_free(&o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_command),
		cmocka_unit_test(test_command_options_stay_its_own),
		cmocka_unit_test(test_subcommand_after_options),
		cmocka_unit_test(test_repeatable),
		cmocka_unit_test(test_errors_name_the_option),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_flags_and_config),
		cmocka_unit_test(test_one_setter_for_both),
		cmocka_unit_test(test_every_key_is_an_option),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
