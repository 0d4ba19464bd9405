// SPDX-License-Identifier: MIT
/*
 * Unit tests: which test invocation a run was (launcher/invocation.c), from the
 * runner's variables and the binary's argv, and the file name's first part that
 * --report DIR/ makes of it: only safe bytes, never hidden, bounded, never empty.
 */
#include "unit.h"

#include <stdlib.h>

#include "launcher/invocation.h"

static const char *const runner_vars[] = { "TEST_TARGET", "HARNESS_ACTIVE", "MESON_TEST_ITERATION",
					   "DASHBOARD_TEST_FROM_CTEST",
					   "CTEST_INTERACTIVE_DEBUG_MODE" };

static void clear_runners(void)
{
	for (size_t i = 0; i < sizeof(runner_vars) / sizeof(runner_vars[0]); i++)
		unsetenv(runner_vars[i]);
}

static void find(struct sup_invocation *inv, char *const *argv, size_t argc, char *stem, size_t len)
{
	sup_invocation_find(inv, argv, argc);
	sup_invocation_stem(inv, stem, len);
}

static void test_runners(void **state)
{
	char *const go[] = { "/tmp/go-build1/b001/pkg.test", "-test.paniconexit0" };
	char *const cargo[] = { "/src/target/debug/deps/mycrate-0123456789abcdef" };
	char *const prove[] = { "perl", "-Ilib", "t/01-basic.t" };
	char *const plain[] = { "/usr/bin/make", "check" };
	struct sup_invocation inv;
	char stem[96];

	clear_runners();
	find(&inv, go, 2, stem, sizeof(stem));
	assert_string_equal(inv.runner, "go test");
	assert_string_equal(stem, "pkg.test");
	sup_invocation_free(&inv);
	find(&inv, cargo, 1, stem, sizeof(stem));
	assert_string_equal(inv.runner, "cargo test");
	assert_string_equal(inv.test, "mycrate");
	assert_string_equal(stem, "mycrate");
	sup_invocation_free(&inv);
	setenv("HARNESS_ACTIVE", "1", 1);
	find(&inv, prove, 3, stem, sizeof(stem));
	assert_string_equal(inv.runner, "prove");
	assert_string_equal(inv.test, "t/01-basic.t");
	assert_string_equal(stem, "t_01-basic.t");
	sup_invocation_free(&inv);
	/* bazel's target wins: it names the test, the binary does not */
	setenv("TEST_TARGET", "//a/b:c", 1);
	find(&inv, plain, 2, stem, sizeof(stem));
	assert_string_equal(inv.runner, "bazel");
	assert_string_equal(stem, "__a_b_c");
	sup_invocation_free(&inv);
	clear_runners();
	setenv("DASHBOARD_TEST_FROM_CTEST", "3.25.1", 1);
	find(&inv, plain, 2, stem, sizeof(stem));
	assert_string_equal(inv.runner, "ctest");
	assert_null(inv.test);
	assert_string_equal(stem, "make");
	sup_invocation_free(&inv);
	/* a credential in a test's name is redacted as argv's are: it is shown and a file name */
	setenv("TEST_TARGET", "API_TOKEN=sekrit", 1);
	find(&inv, plain, 2, stem, sizeof(stem));
	assert_null(strstr(inv.test, "sekrit"));
	assert_null(strstr(inv.name, "sekrit"));
	assert_null(strstr(stem, "sekrit"));
	sup_invocation_free(&inv);
	/* control: no runner told is no runner guessed */
	clear_runners();
	find(&inv, plain, 2, stem, sizeof(stem));
	assert_null(inv.runner);
	assert_string_equal(inv.binary, "/usr/bin/make");
	sup_invocation_free(&inv);
}

static void test_stem(void **state)
{
	char long_name[300], *const hidden[] = { ".hidden x\n\x1b[31m" }, *const empty[] = { "" };
	char *const longv[] = { long_name };
	struct sup_invocation inv;
	char stem[96];

	clear_runners();
	find(&inv, hidden, 1, stem, sizeof(stem));
	assert_string_equal(stem, "_hidden_x___31m");
	sup_invocation_free(&inv);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	find(&inv, longv, 1, stem, sizeof(stem));
	assert_int_equal(strlen(stem), 80);
	sup_invocation_free(&inv);
	find(&inv, empty, 1, stem, sizeof(stem));
	assert_string_equal(stem, "run");
	sup_invocation_free(&inv);
	find(&inv, NULL, 0, stem, sizeof(stem));
	assert_string_equal(stem, "run");
	assert_null(inv.binary);
	sup_invocation_free(&inv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runners),
		cmocka_unit_test(test_stem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
