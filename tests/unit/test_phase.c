// SPDX-License-Identifier: MIT
/*
 * The supervisor's phase table (launcher/phase.h), every (phase, event) pair
 * against a list written out here, and the properties the supervisor relies on.
 */
#include "tests/unit/unit.h"

#include <stdbool.h>

#include "launcher/phase.h"

#define A(x) SUP_PA_##x

struct row {
	enum sup_phase from;
	enum sup_phase_event ev;
	enum sup_phase to;
	unsigned actions;
};

/* Every pair, once: what the supervisor did before the table (launcher/run.c) did. */
static const struct row expected[] = {
	{ SUP_PH_RUNNING, SUP_PE_NONE, SUP_PH_RUNNING, 0 },
	{ SUP_PH_RUNNING, SUP_PE_EXITED, SUP_PH_SETTLE, A(SETTLE) },
	{ SUP_PH_RUNNING, SUP_PE_EMPTY, SUP_PH_JOINED, A(DRAIN) | A(JOIN) },
	{ SUP_PH_RUNNING, SUP_PE_TIMER, SUP_PH_CANCEL,
	  A(TIMED_OUT) | A(TAKE_HUNG) | A(ARM_GRACE) | A(STOP) },
	{ SUP_PH_RUNNING, SUP_PE_SIGNAL, SUP_PH_CANCEL,
	  A(NOTE_CANCEL) | A(TAKE_HUNG) | A(ARM_GRACE) | A(STOP) },
	{ SUP_PH_RUNNING, SUP_PE_FORWARD, SUP_PH_RUNNING, A(FORWARD) },
	{ SUP_PH_RUNNING, SUP_PE_STREAMS_DONE, SUP_PH_RUNNING, 0 },
	{ SUP_PH_RUNNING, SUP_PE_NOTHING_RAN, SUP_PH_JOINED, A(JOIN) },
	{ SUP_PH_RUNNING, SUP_PE_FAILED, SUP_PH_CANCEL, A(KILL) },

	{ SUP_PH_SETTLE, SUP_PE_NONE, SUP_PH_SETTLE, 0 },
	{ SUP_PH_SETTLE, SUP_PE_EXITED, SUP_PH_SETTLE, 0 },
	{ SUP_PH_SETTLE, SUP_PE_EMPTY, SUP_PH_JOINED, A(DRAIN) | A(JOIN) },
	{ SUP_PH_SETTLE, SUP_PE_TIMER, SUP_PH_SETTLE, A(SETTLE_TIMER) },
	{ SUP_PH_SETTLE, SUP_PE_SIGNAL, SUP_PH_CANCEL, A(NOTE_CANCEL) | A(ARM_GRACE) | A(SWEEP) },
	{ SUP_PH_SETTLE, SUP_PE_FORWARD, SUP_PH_SETTLE, A(FORWARD) },
	{ SUP_PH_SETTLE, SUP_PE_STREAMS_DONE, SUP_PH_SETTLE, 0 },
	{ SUP_PH_SETTLE, SUP_PE_NOTHING_RAN, SUP_PH_SETTLE, 0 },
	{ SUP_PH_SETTLE, SUP_PE_FAILED, SUP_PH_CANCEL, A(KILL) },

	{ SUP_PH_CANCEL, SUP_PE_NONE, SUP_PH_CANCEL, 0 },
	{ SUP_PH_CANCEL, SUP_PE_EXITED, SUP_PH_CANCEL, 0 },
	{ SUP_PH_CANCEL, SUP_PE_EMPTY, SUP_PH_JOINED, A(DRAIN) | A(JOIN) },
	{ SUP_PH_CANCEL, SUP_PE_TIMER, SUP_PH_CANCEL, A(GRACE_OVER) | A(KILL) },
	{ SUP_PH_CANCEL, SUP_PE_SIGNAL, SUP_PH_CANCEL, A(GRACE_OVER) | A(KILL) },
	{ SUP_PH_CANCEL, SUP_PE_FORWARD, SUP_PH_CANCEL, A(FORWARD) },
	{ SUP_PH_CANCEL, SUP_PE_STREAMS_DONE, SUP_PH_CANCEL, 0 },
	{ SUP_PH_CANCEL, SUP_PE_NOTHING_RAN, SUP_PH_CANCEL, 0 },
	{ SUP_PH_CANCEL, SUP_PE_FAILED, SUP_PH_CANCEL, A(KILL) },

	{ SUP_PH_JOINED, SUP_PE_NONE, SUP_PH_JOINED, 0 },
	{ SUP_PH_JOINED, SUP_PE_EXITED, SUP_PH_JOINED, 0 },
	{ SUP_PH_JOINED, SUP_PE_EMPTY, SUP_PH_JOINED, 0 },
	{ SUP_PH_JOINED, SUP_PE_TIMER, SUP_PH_DONE, 0 },
	{ SUP_PH_JOINED, SUP_PE_SIGNAL, SUP_PH_JOINED, A(LATE_CANCEL) },
	{ SUP_PH_JOINED, SUP_PE_FORWARD, SUP_PH_JOINED, A(LATE_FORWARD) },
	{ SUP_PH_JOINED, SUP_PE_STREAMS_DONE, SUP_PH_DONE, 0 },
	{ SUP_PH_JOINED, SUP_PE_NOTHING_RAN, SUP_PH_JOINED, 0 },
	{ SUP_PH_JOINED, SUP_PE_FAILED, SUP_PH_JOINED, 0 },

	{ SUP_PH_DONE, SUP_PE_NONE, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_EXITED, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_EMPTY, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_TIMER, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_SIGNAL, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_FORWARD, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_STREAMS_DONE, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_NOTHING_RAN, SUP_PH_DONE, 0 },
	{ SUP_PH_DONE, SUP_PE_FAILED, SUP_PH_DONE, 0 },
};

static const struct row *find(enum sup_phase p, enum sup_phase_event ev)
{
	const struct row *hit = NULL;

	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (expected[i].from == p && expected[i].ev == ev) {
			if (hit)
				fail_msg("%s + %s listed twice", sup_phase_name(p),
					 sup_phase_event_name(ev));
			hit = &expected[i];
		}
	return hit;
}

static void test_every_pair(void **state)
{
	size_t seen = 0;

	for (int p = 0; p < SUP_PH_COUNT; p++)
		for (int ev = 0; ev < SUP_PE_COUNT; ev++) {
			const struct row *r = find(p, ev);
			struct sup_phase_step st = sup_phase_next(p, ev);

			if (!r)
				fail_msg("%s + %s not listed", sup_phase_name(p),
					 sup_phase_event_name(ev));
			if (st.next != r->to || st.actions != r->actions)
				fail_msg("%s + %s: got %s 0x%x, want %s 0x%x", sup_phase_name(p),
					 sup_phase_event_name(ev), sup_phase_name(st.next),
					 st.actions, sup_phase_name(r->to), r->actions);
			seen++;
		}
	assert_int_equal(seen, sizeof(expected) / sizeof(expected[0]));
}

/* A kill, a stop or a settle is asked for only while the tree may still run. */
static void test_no_kill_after_the_join(void **state)
{
	unsigned tree = A(STOP) | A(SWEEP) | A(KILL) | A(SETTLE) | A(SETTLE_TIMER) | A(TAKE_HUNG) |
			A(GRACE_OVER) | A(ARM_GRACE) | A(DRAIN) | A(FORWARD);

	for (int ev = 0; ev < SUP_PE_COUNT; ev++) {
		assert_int_equal(sup_phase_next(SUP_PH_JOINED, ev).actions & tree, 0);
		assert_int_equal(sup_phase_next(SUP_PH_DONE, ev).actions, 0);
		assert_int_equal(sup_phase_next(SUP_PH_DONE, ev).next, SUP_PH_DONE);
	}
}

/* The tree's end joins from every phase before the join, and the join always waits first. */
static void test_empty_joins(void **state)
{
	for (int p = SUP_PH_RUNNING; p <= SUP_PH_CANCEL; p++) {
		struct sup_phase_step st = sup_phase_next(p, SUP_PE_EMPTY);

		assert_int_equal(st.next, SUP_PH_JOINED);
		assert_true(st.actions & A(JOIN));
		assert_true(st.actions & A(DRAIN));
	}
}

/* Only the join's deadline or the pipes' EOF end the loop. */
static void test_done_only_from_joined(void **state)
{
	for (int p = 0; p < SUP_PH_COUNT; p++)
		for (int ev = 0; ev < SUP_PE_COUNT; ev++)
			if (sup_phase_next(p, ev).next == SUP_PH_DONE && p != SUP_PH_DONE)
				assert_true(p == SUP_PH_JOINED &&
					    (ev == SUP_PE_TIMER || ev == SUP_PE_STREAMS_DONE));
}

/* A cancel arms the grace exactly when it stops something; the second one ends it. */
static void test_cancel_then_second_signal(void **state)
{
	struct sup_phase_step st = sup_phase_next(SUP_PH_RUNNING, SUP_PE_SIGNAL);

	assert_int_equal(st.next, SUP_PH_CANCEL);
	st = sup_phase_next(st.next, SUP_PE_SIGNAL);
	assert_int_equal(st.next, SUP_PH_CANCEL);
	assert_int_equal(st.actions & A(ARM_GRACE), 0);
	assert_true(st.actions & A(KILL));
	/* a timeout is a cancel without a signal, and says so */
	st = sup_phase_next(SUP_PH_RUNNING, SUP_PE_TIMER);
	assert_true(st.actions & A(TIMED_OUT));
	assert_int_equal(st.actions & A(NOTE_CANCEL), 0);
}

/* From each phase a run reaches DONE: nothing the table allows can hang the loop forever. */
static void test_every_phase_reaches_done(void **state)
{
	for (int p = 0; p < SUP_PH_COUNT; p++) {
		bool reach[SUP_PH_COUNT] = { false };
		bool grew = true;

		reach[p] = true;
		while (grew) {
			grew = false;
			for (int q = 0; q < SUP_PH_COUNT; q++)
				for (int ev = 0; reach[q] && ev < SUP_PE_COUNT; ev++) {
					enum sup_phase n = sup_phase_next(q, ev).next;

					if (!reach[n])
						reach[n] = grew = true;
				}
		}
		if (!reach[SUP_PH_DONE])
			fail_msg("%s never reaches DONE", sup_phase_name(p));
	}
}

static void test_out_of_range_changes_nothing(void **state)
{
	struct sup_phase_step st = sup_phase_next(SUP_PH_SETTLE, SUP_PE_COUNT);

	assert_int_equal(st.next, SUP_PH_SETTLE);
	assert_int_equal(st.actions, 0);
	st = sup_phase_next(SUP_PH_COUNT, SUP_PE_TIMER);
	assert_int_equal(st.next, SUP_PH_COUNT);
	assert_int_equal(st.actions, 0);
	assert_string_equal(sup_phase_name(SUP_PH_COUNT), "?");
	assert_string_equal(sup_phase_event_name(SUP_PE_COUNT), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_pair),
		cmocka_unit_test(test_no_kill_after_the_join),
		cmocka_unit_test(test_empty_joins),
		cmocka_unit_test(test_done_only_from_joined),
		cmocka_unit_test(test_cancel_then_second_signal),
		cmocka_unit_test(test_every_phase_reaches_done),
		cmocka_unit_test(test_out_of_range_changes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
