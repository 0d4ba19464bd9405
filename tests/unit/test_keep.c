// SPDX-License-Identifier: MIT
/* Unit tests: --keep's words (issue 29), on the command line and as isorun.conf gives them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cli/args.h"
#include "cli/keys.h"

static int parse(struct sup_opts *o, struct iso_err *e, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	sup_opts_init(o);
	memset(e, 0, sizeof(*e));
	return cli_parse_args(argc, argv, o, e);
}

static int keep_of(char *arg, char *cmd)
{
	char *argv[] = { "isorun", arg, "--", cmd, NULL };
	struct sup_opts o;
	struct iso_err e;
	int r = parse(&o, &e, argv), keep = o.keep;

	sup_opts_free(&o);
	return r == CLI_RUN ? keep : -1;
}

static void test_words(void **state)
{
	assert_int_equal(keep_of("--keep", "true"), SUP_KEEP_ALWAYS);
	assert_int_equal(keep_of("--keep=always", "true"), SUP_KEEP_ALWAYS);
	assert_int_equal(keep_of("--keep=on-failure", "true"), SUP_KEEP_ON_FAILURE);
	assert_int_equal(keep_of("--keep=never", "true"), SUP_KEEP_NEVER);
	/* every flag's words, as --keep was a flag */
	assert_int_equal(keep_of("--keep=true", "true"), SUP_KEEP_ALWAYS);
	assert_int_equal(keep_of("--keep=false", "true"), SUP_KEEP_NEVER);
	assert_int_equal(keep_of("--keep=yes", "true"), SUP_KEEP_ALWAYS);
	assert_int_equal(keep_of("--keep=0", "true"), SUP_KEEP_NEVER);
	assert_int_equal(keep_of("--no-config", "true"), SUP_KEEP_NEVER);
}

static void test_bad_words(void **state)
{
	char *argv[] = { "isorun", "--keep=onfailure", "--", "true", NULL };
	char *bare[] = { "isorun", "--keep", "on-failure", "--", "true", NULL };
	char *cmd[] = { "isorun", "--keep", "true", NULL };
	struct sup_opts o;
	struct iso_err e;

	assert_int_not_equal(parse(&o, &e, argv), CLI_RUN);
	assert_string_equal(e.msg, "--keep: expected never, always or on-failure, got 'onfailure'; "
				   "did you mean --keep=on-failure?");
	sup_opts_free(&o);
	assert_int_not_equal(parse(&o, &e, bare), CLI_RUN);
	assert_non_null(strstr(e.msg, "did you mean --keep=on-failure?"));
	sup_opts_free(&o);
	/* a bool is not a word a bare --keep refuses: `--keep true` runs true */
	assert_int_equal(parse(&o, &e, cmd), CLI_RUN);
	assert_int_equal(o.keep, SUP_KEEP_ALWAYS);
	assert_string_equal(o.argv[0], "true");
	sup_opts_free(&o);
}

/* isorun.conf's value goes through the same setter */
static void test_conf_value(void **state)
{
	struct sup_opts o;
	struct iso_err e = { 0 };
	char on[] = "on-failure", bad[] = "sometimes";

	sup_opts_init(&o);
	assert_int_equal(cli_opt_set(&o, SUP_K_KEEP, on, 1, &e), 0);
	assert_int_equal(o.keep, SUP_KEEP_ON_FAILURE);
	assert_int_not_equal(cli_opt_set(&o, SUP_K_KEEP, bad, 2, &e), 0);
	assert_string_equal(e.msg, "keep: expected never, always or on-failure, got 'sometimes'");
	sup_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_bad_words),
		cmocka_unit_test(test_conf_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
