// SPDX-License-Identifier: MIT
/*
 * The rule kinds' table (policy/kinds.c), walked: every descriptor is whole,
 * its example parses into one rule that prints back as written, reads back
 * from what it printed, compiles, and is freed; the parser's list of statements
 * and `isorun policy check`'s summary come from the table.  A new kind is
 * covered here by its descriptor alone.
 */
#include "tests/unit/unit.h"

#include <linux/filter.h>

#include "policy/kind.h"

static void test_descriptors_whole(void **state)
{
	assert_true(pol_n_kinds > 0);
	for (size_t k = 0; k < pol_n_kinds; k++) {
		const struct pol_kind *d = pol_kinds[k];

		assert_non_null(d->word);
		assert_non_null(d->example);
		assert_non_null(d->parse);
		assert_non_null(d->count);
		assert_non_null(d->origin);
		assert_non_null(d->format);
		assert_non_null(d->free);
		assert_non_null(d->summary);
		assert_non_null(d->filter);
		assert_string_not_equal(d->word, "policy");
		assert_string_not_equal(d->word, "include");
		for (size_t j = 0; j < k; j++)
			assert_string_not_equal(pol_kinds[j]->word, d->word);
	}
}

/* "policy t\n\n<example>\n": the canonical form of a policy of that one rule. */
static char *one_rule(const struct pol_kind *d)
{
	char *text = NULL;

	assert_true(asprintf(&text, "policy t\n\n%s\n", d->example) > 0);
	return text;
}

static void test_example_round_trip(void **state)
{
	setenv("XDG_RUNTIME_DIR", "/run/user/4242", 1);
	for (size_t k = 0; k < pol_n_kinds; k++) {
		const struct pol_kind *d = pol_kinds[k];
		struct pol p = { 0 }, q = { 0 };
		struct pol_error err;
		char *text = one_rule(d), *out, *again;

		if (pol_parse(text, strlen(text), "t.policy", &p, &err) < 0)
			fail_msg("%s: %s:%d:%d: %s", d->word, err.file, err.line, err.col,
				 err.e.msg);
		for (size_t j = 0; j < pol_n_kinds; j++)
			assert_int_equal(pol_kinds[j]->count(&p), j == k ? 1 : 0);
		assert_string_equal(d->origin(&p, 0), "t.policy:3");
		out = pol_format(&p);
		assert_non_null(out);
		assert_string_equal(out, text);
		assert_int_equal(pol_parse(out, strlen(out), "t.policy", &q, &err), 0);
		again = pol_format(&q);
		assert_string_equal(again, out);
		pol_free(&q);
		pol_free(&p);
		for (size_t j = 0; j < pol_n_kinds; j++)
			assert_int_equal(pol_kinds[j]->count(&p), 0);
		free(again);
		free(out);
		free(text);
	}
}

static void test_example_twice_is_once(void **state)
{
	for (size_t k = 0; k < pol_n_kinds; k++) {
		const struct pol_kind *d = pol_kinds[k];
		struct pol p = { 0 };
		struct pol_error err;
		char *text = NULL;

		assert_true(asprintf(&text, "%s\n%s\n", d->example, d->example) > 0);
		assert_int_equal(pol_parse(text, strlen(text), "t.policy", &p, &err), 0);
		assert_int_equal(d->count(&p), 1);
		pol_free(&p);
		free(text);
	}
}

static void test_example_compiles(void **state)
{
	for (size_t k = 0; k < pol_n_kinds; k++) {
		struct pol p = { 0 };
		struct pol_error err;
		char *text = one_rule(pol_kinds[k]);

		assert_int_equal(pol_parse(text, strlen(text), "t.policy", &p, &err), 0);
		for (int notify = 0; notify < 2; notify++) {
			struct sock_filter *insns = NULL;
			struct iso_err e = { 0 };
			size_t len = 0;

			if (pol_filter_build(&p, notify, false, &insns, &len, &e) < 0)
				fail_msg("%s: %s", pol_kinds[k]->word, e.msg);
			assert_true(len > 0);
			free(insns);
		}
		pol_free(&p);
		free(text);
	}
}

/* The unknown statement's error names every statement, the table's in its order. */
static void test_unknown_statement_lists_the_table(void **state)
{
	struct pol p = { 0 };
	struct pol_error err;
	char want[256] = "unknown statement 'nope' (policy, include";
	size_t used = strlen(want);

	for (size_t k = 0; k < pol_n_kinds; k++)
		used += (size_t)snprintf(want + used, sizeof(want) - used, ", %s",
					 pol_kinds[k]->word);
	snprintf(want + used, sizeof(want) - used, ")");
	assert_int_equal(pol_parse("nope\n", 5, "t.policy", &p, &err), -EINVAL);
	assert_string_equal(err.e.msg, want);
}

static void test_summary_and_masks(void **state)
{
	const char *text = "deny reboot\ndeny-socket /run/a.sock\ndeny-socket /run/b.sock\n";
	struct pol p = { 0 };
	struct pol_error err;
	char buf[256];

	assert_int_equal(pol_parse("", 0, "t.policy", &p, &err), 0);
	assert_string_equal(pol_summary(&p, buf, sizeof(buf)),
			    "0 denied calls, 0 guarded programs, 0 denied sockets");
	assert_null(pol_masked_path(&p, 0));
	assert_null(pol_masked_path(NULL, 0));
	pol_free(&p);
	assert_int_equal(pol_parse(text, strlen(text), "t.policy", &p, &err), 0);
	assert_string_equal(pol_masked_path(&p, 0), "/run/a.sock");
	assert_string_equal(pol_masked_path(&p, 1), "/run/b.sock");
	assert_null(pol_masked_path(&p, 2));
	assert_false(pol_signals_contained(&p));
	pol_set_signals_contained(&p, true);
	assert_string_equal(pol_summary(&p, buf, sizeof(buf)),
			    "1 denied calls, 0 guarded programs, 2 denied sockets, signals kept "
			    "inside the run");
	pol_free(&p);
}

/* A kind without a member of struct pol of its own has a slot there, its alone. */
static void test_rules_slots(void **state)
{
	static const struct pol_kind stranger = { .word = "stranger" };
	struct pol p = { 0 };

	for (size_t k = 0; k < pol_n_kinds; k++) {
		void **slot = pol_kind_rules(&p, pol_kinds[k]);

		assert_non_null(slot);
		assert_null(*slot);
		*slot = &p;
		for (size_t j = 0; j < k; j++)
			assert_ptr_not_equal(pol_kind_rules(&p, pol_kinds[j]), slot);
	}
	assert_null(pol_kind_rules(&p, &stranger));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descriptors_whole),
		cmocka_unit_test(test_example_round_trip),
		cmocka_unit_test(test_example_twice_is_once),
		cmocka_unit_test(test_example_compiles),
		cmocka_unit_test(test_unknown_statement_lists_the_table),
		cmocka_unit_test(test_summary_and_masks),
		cmocka_unit_test(test_rules_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
