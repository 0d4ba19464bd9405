// SPDX-License-Identifier: MIT
/* The signal table decides every signal number; the blocked set holds all that can be caught. */
#include "tests/unit/unit.h"

#include "launcher/sigtable.h"

static void test_every_signal_is_decided(void **state)
{
	for (int sig = 1; sig <= 64; sig++) {
		enum sup_sig_class c = sup_sig_class(sig);

		if (c == SUP_SIG_UNDECIDED)
			fail_msg("signal %d has no entry in the table", sig);
		assert_int_equal(c == SUP_SIG_UNCATCHABLE, sig == SIGKILL || sig == SIGSTOP);
	}
}

static void test_every_catchable_signal_is_blocked(void **state)
{
	sigset_t mask;
	const unsigned long *w = (const unsigned long *)&mask;

	sup_sig_supervised(&mask, 0);
	/* glibc's own 32 and 33 too, which sigismember() would not report */
	for (int sig = 1; sig <= 64; sig++) {
		bool in = w[(sig - 1) / (8 * sizeof(*w))] >> ((sig - 1) % (8 * sizeof(*w))) & 1;

		assert_int_equal(in, sig != SIGKILL && sig != SIGSTOP);
	}
}

/* nohup's SIGHUP, a background job's SIGINT: ignored by isorun too, not a cancel */
static void test_a_cancel_the_caller_ignored_stays_ignored(void **state)
{
	uint64_t ignored = 1ULL << (SIGHUP - 1) | 1ULL << (SIGINT - 1) | 1ULL << (SIGCHLD - 1) |
			   1ULL << (SIGUSR1 - 1) | 1ULL << (SIGPIPE - 1);
	sigset_t mask;

	sup_sig_supervised(&mask, ignored);
	assert_false(sigismember(&mask, SIGHUP));
	assert_false(sigismember(&mask, SIGINT));
	assert_true(sigismember(&mask, SIGTERM));
	/* isorun's own events and what it passes on: the command decides */
	assert_true(sigismember(&mask, SIGCHLD));
	assert_true(sigismember(&mask, SIGUSR1));
	assert_true(sigismember(&mask, SIGPIPE));
	assert_true(sup_sig_in(ignored, SIGHUP));
	assert_false(sup_sig_in(ignored, SIGTERM));
	assert_false(sup_sig_in(ignored, 0));
	assert_false(sup_sig_in(ignored, 65));
}

static void test_classes_of_named_signals(void **state)
{
	assert_int_equal(sup_sig_class(SIGINT), SUP_SIG_CANCEL);
	assert_int_equal(sup_sig_class(SIGSEGV), SUP_SIG_ABORT);
	assert_int_equal(sup_sig_class(SIGXCPU), SUP_SIG_ABORT);
	assert_int_equal(sup_sig_class(SIGUSR1), SUP_SIG_FORWARD);
	assert_int_equal(sup_sig_class(SIGRTMAX), SUP_SIG_FORWARD);
	assert_int_equal(sup_sig_class(32), SUP_SIG_FORWARD);
	assert_int_equal(sup_sig_class(SIGTSTP), SUP_SIG_GROUP);
	assert_int_equal(sup_sig_class(SIGXFSZ), SUP_SIG_IGNORE);
	assert_true(sup_sig_cancels(sup_sig_class(SIGTERM)));
	assert_false(sup_sig_cancels(sup_sig_class(SIGUSR2)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_signal_is_decided),
		cmocka_unit_test(test_every_catchable_signal_is_blocked),
		cmocka_unit_test(test_a_cancel_the_caller_ignored_stays_ignored),
		cmocka_unit_test(test_classes_of_named_signals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
