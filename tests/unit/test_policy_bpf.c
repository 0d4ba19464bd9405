// SPDX-License-Identifier: MIT
/*
 * The shipped policies' BPF is compiled at build time (policy/gen_bpf.c) and
 * the command's child only installs it.  These tests go red if the table ever
 * differs from what libseccomp builds now, misses a shipped policy or a mode,
 * or is used for a policy that is not the shipped one as shipped.
 */
#include "tests/unit/unit.h"

#include <linux/filter.h>

#include "policy/policy.h"

static void test_table_matches_runtime_build(void **state)
{
	size_t checked = 0;

	for (size_t i = 0; i < pol_n_shipped_bpf; i++) {
		const struct pol_bpf *b = &pol_shipped_bpf[i];
		struct pol p = { 0 };
		struct pol_error perr = { 0 };
		struct iso_err e = { 0 };
		struct sock_filter *insns = NULL;
		size_t len = 0;

		assert_int_equal(pol_load(b->policy, &p, &perr), 0);
		p.contain_signals = p.contain_signals && b->signals;
		p.signals_scoped = b->scoped;
		p.guard_init = b->init;
		assert_int_equal(pol_filter_build(&p, b->notify, b->log_only, &insns, &len, &e), 0);
		assert_int_equal(len, b->len);
		assert_memory_equal(insns, b->insns, len * sizeof(*insns));
		free(insns);
		pol_free(&p);
		checked++;
	}
	assert_true(checked > 0);
}

static void test_every_shipped_policy_and_mode(void **state)
{
	for (size_t i = 0; pol_shipped_name(i); i++) {
		struct pol p = { 0 };
		struct pol_error perr = { 0 };

		assert_int_equal(pol_load(pol_shipped_name(i), &p, &perr), 0);
		assert_non_null(p.shipped);
		assert_string_equal(p.shipped, pol_shipped_name(i));
		for (int notify = 0; notify < 2; notify++)
			for (int log_only = 0; log_only < 2; log_only++)
				for (int sig = 0; sig < 8; sig++) {
					const struct pol_bpf *b;

					/* the launcher clears it under a PID namespace */
					p.contain_signals = sig & 1;
					/* and scopes signals in the kernel where it can */
					p.signals_scoped = sig >> 1 & 1;
					/* and guards init under a PID namespace */
					p.guard_init = sig >> 2;
					b = pol_filter_shipped(&p, notify, log_only);
					assert_non_null(b);
					assert_string_equal(b->policy, pol_shipped_name(i));
					assert_int_equal(b->notify, notify);
					assert_int_equal(b->log_only, log_only);
					assert_int_equal(b->signals, sig & 1);
					assert_int_equal(b->scoped, sig >> 1 & 1);
					assert_int_equal(b->init, sig >> 2);
				}
		pol_free(&p);
	}
}

/* A file, even one that only includes a shipped policy, is built at run time. */
static void test_not_for_other_policies(void **state)
{
	static const char text[] = "policy mine\ninclude default\ndeny acct\n";
	struct pol p = { 0 };
	struct pol_error perr = { 0 };

	assert_int_equal(pol_parse(text, sizeof(text) - 1, "mine.policy", &p, &perr), 0);
	assert_null(p.shipped);
	assert_null(pol_filter_shipped(&p, true, false));
	pol_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_matches_runtime_build),
		cmocka_unit_test(test_every_shipped_policy_and_mode),
		cmocka_unit_test(test_not_for_other_policies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
