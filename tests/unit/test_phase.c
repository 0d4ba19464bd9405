// SPDX-License-Identifier: MIT
/*
 * The supervisor's phase table (launcher/phase.h), every (phase, event) pair
 * against a list written out here, and the properties the supervisor relies on.
 */
#include "tests/unit/unit.h"

#include <stdbool.h>

#include "launcher/phase.h"

#define A(x) PA_##x

struct row {
	enum phase from;
	enum phase_event ev;
	enum phase to;
	unsigned actions;
};

/* Every pair, once: what the supervisor did before the table (launcher/run.c) did. */
static const struct row expected[] = {
	{ PH_RUNNING, PE_NONE, PH_RUNNING, 0 },
	{ PH_RUNNING, PE_EXITED, PH_SETTLE, A(SETTLE) },
	{ PH_RUNNING, PE_EMPTY, PH_JOINED, A(DRAIN) | A(JOIN) },
	{ PH_RUNNING, PE_TIMER, PH_CANCEL, A(TIMED_OUT) | A(TAKE_HUNG) | A(ARM_GRACE) | A(STOP) },
	{ PH_RUNNING, PE_SIGNAL, PH_CANCEL,
	  A(NOTE_CANCEL) | A(TAKE_HUNG) | A(ARM_GRACE) | A(STOP) },
	{ PH_RUNNING, PE_FORWARD, PH_RUNNING, A(FORWARD) },
	{ PH_RUNNING, PE_STREAMS_DONE, PH_RUNNING, 0 },
	{ PH_RUNNING, PE_NOTHING_RAN, PH_JOINED, A(JOIN) },
	{ PH_RUNNING, PE_FAILED, PH_CANCEL, A(KILL) },

	{ PH_SETTLE, PE_NONE, PH_SETTLE, 0 },
	{ PH_SETTLE, PE_EXITED, PH_SETTLE, 0 },
	{ PH_SETTLE, PE_EMPTY, PH_JOINED, A(DRAIN) | A(JOIN) },
	{ PH_SETTLE, PE_TIMER, PH_SETTLE, A(SETTLE_TIMER) },
	{ PH_SETTLE, PE_SIGNAL, PH_CANCEL, A(NOTE_CANCEL) | A(ARM_GRACE) | A(SWEEP) },
	{ PH_SETTLE, PE_FORWARD, PH_SETTLE, A(FORWARD) },
	{ PH_SETTLE, PE_STREAMS_DONE, PH_SETTLE, 0 },
	{ PH_SETTLE, PE_NOTHING_RAN, PH_SETTLE, 0 },
	{ PH_SETTLE, PE_FAILED, PH_CANCEL, A(KILL) },

	{ PH_CANCEL, PE_NONE, PH_CANCEL, 0 },
	{ PH_CANCEL, PE_EXITED, PH_CANCEL, 0 },
	{ PH_CANCEL, PE_EMPTY, PH_JOINED, A(DRAIN) | A(JOIN) },
	{ PH_CANCEL, PE_TIMER, PH_CANCEL, A(GRACE_OVER) | A(KILL) },
	{ PH_CANCEL, PE_SIGNAL, PH_CANCEL, A(GRACE_OVER) | A(KILL) },
	{ PH_CANCEL, PE_FORWARD, PH_CANCEL, A(FORWARD) },
	{ PH_CANCEL, PE_STREAMS_DONE, PH_CANCEL, 0 },
	{ PH_CANCEL, PE_NOTHING_RAN, PH_CANCEL, 0 },
	{ PH_CANCEL, PE_FAILED, PH_CANCEL, A(KILL) },

	{ PH_JOINED, PE_NONE, PH_JOINED, 0 },
	{ PH_JOINED, PE_EXITED, PH_JOINED, 0 },
	{ PH_JOINED, PE_EMPTY, PH_JOINED, 0 },
	{ PH_JOINED, PE_TIMER, PH_DONE, 0 },
	{ PH_JOINED, PE_SIGNAL, PH_JOINED, A(LATE_CANCEL) },
	{ PH_JOINED, PE_FORWARD, PH_JOINED, A(LATE_FORWARD) },
	{ PH_JOINED, PE_STREAMS_DONE, PH_DONE, 0 },
	{ PH_JOINED, PE_NOTHING_RAN, PH_JOINED, 0 },
	{ PH_JOINED, PE_FAILED, PH_JOINED, 0 },

	{ PH_DONE, PE_NONE, PH_DONE, 0 },
	{ PH_DONE, PE_EXITED, PH_DONE, 0 },
	{ PH_DONE, PE_EMPTY, PH_DONE, 0 },
	{ PH_DONE, PE_TIMER, PH_DONE, 0 },
	{ PH_DONE, PE_SIGNAL, PH_DONE, 0 },
	{ PH_DONE, PE_FORWARD, PH_DONE, 0 },
	{ PH_DONE, PE_STREAMS_DONE, PH_DONE, 0 },
	{ PH_DONE, PE_NOTHING_RAN, PH_DONE, 0 },
	{ PH_DONE, PE_FAILED, PH_DONE, 0 },
};

static const struct row *find(enum phase p, enum phase_event ev)
{
	const struct row *hit = NULL;

	for (size_t i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (expected[i].from == p && expected[i].ev == ev) {
			if (hit)
				fail_msg("%s + %s listed twice", phase_name(p),
					 phase_event_name(ev));
			hit = &expected[i];
		}
	return hit;
}

static void test_every_pair(void **state)
{
	size_t seen = 0;

	for (int p = 0; p < PH_COUNT; p++)
		for (int ev = 0; ev < PE_COUNT; ev++) {
			const struct row *r = find(p, ev);
			struct phase_step st = phase_next(p, ev);

			if (!r)
				fail_msg("%s + %s not listed", phase_name(p), phase_event_name(ev));
			if (st.next != r->to || st.actions != r->actions)
				fail_msg("%s + %s: got %s 0x%x, want %s 0x%x", phase_name(p),
					 phase_event_name(ev), phase_name(st.next), st.actions,
					 phase_name(r->to), r->actions);
			seen++;
		}
	assert_int_equal(seen, sizeof(expected) / sizeof(expected[0]));
}

/* A kill, a stop or a settle is asked for only while the tree may still run. */
static void test_no_kill_after_the_join(void **state)
{
	unsigned tree = A(STOP) | A(SWEEP) | A(KILL) | A(SETTLE) | A(SETTLE_TIMER) | A(TAKE_HUNG) |
			A(GRACE_OVER) | A(ARM_GRACE) | A(DRAIN) | A(FORWARD);

	for (int ev = 0; ev < PE_COUNT; ev++) {
		assert_int_equal(phase_next(PH_JOINED, ev).actions & tree, 0);
		assert_int_equal(phase_next(PH_DONE, ev).actions, 0);
		assert_int_equal(phase_next(PH_DONE, ev).next, PH_DONE);
	}
}

/* The tree's end joins from every phase before the join, and the join always waits first. */
static void test_empty_joins(void **state)
{
	for (int p = PH_RUNNING; p <= PH_CANCEL; p++) {
		struct phase_step st = phase_next(p, PE_EMPTY);

		assert_int_equal(st.next, PH_JOINED);
		assert_true(st.actions & A(JOIN));
		assert_true(st.actions & A(DRAIN));
	}
}

/* Only the join's deadline or the pipes' EOF end the loop. */
static void test_done_only_from_joined(void **state)
{
	for (int p = 0; p < PH_COUNT; p++)
		for (int ev = 0; ev < PE_COUNT; ev++)
			if (phase_next(p, ev).next == PH_DONE && p != PH_DONE)
				assert_true(p == PH_JOINED &&
					    (ev == PE_TIMER || ev == PE_STREAMS_DONE));
}

/* A cancel arms the grace exactly when it stops something; the second one ends it. */
static void test_cancel_then_second_signal(void **state)
{
	struct phase_step st = phase_next(PH_RUNNING, PE_SIGNAL);

	assert_int_equal(st.next, PH_CANCEL);
	st = phase_next(st.next, PE_SIGNAL);
	assert_int_equal(st.next, PH_CANCEL);
	assert_int_equal(st.actions & A(ARM_GRACE), 0);
	assert_true(st.actions & A(KILL));
	/* a timeout is a cancel without a signal, and says so */
	st = phase_next(PH_RUNNING, PE_TIMER);
	assert_true(st.actions & A(TIMED_OUT));
	assert_int_equal(st.actions & A(NOTE_CANCEL), 0);
}

/* From each phase a run reaches DONE: nothing the table allows can hang the loop forever. */
static void test_every_phase_reaches_done(void **state)
{
	for (int p = 0; p < PH_COUNT; p++) {
		bool reach[PH_COUNT] = { false };
		bool grew = true;

		reach[p] = true;
		while (grew) {
			grew = false;
			for (int q = 0; q < PH_COUNT; q++)
				for (int ev = 0; reach[q] && ev < PE_COUNT; ev++) {
					enum phase n = phase_next(q, ev).next;

					if (!reach[n])
						reach[n] = grew = true;
				}
		}
		if (!reach[PH_DONE])
			fail_msg("%s never reaches DONE", phase_name(p));
	}
}

static void test_out_of_range_changes_nothing(void **state)
{
	struct phase_step st = phase_next(PH_SETTLE, PE_COUNT);

	assert_int_equal(st.next, PH_SETTLE);
	assert_int_equal(st.actions, 0);
	st = phase_next(PH_COUNT, PE_TIMER);
	assert_int_equal(st.next, PH_COUNT);
	assert_int_equal(st.actions, 0);
	assert_string_equal(phase_name(PH_COUNT), "?");
	assert_string_equal(phase_event_name(PE_COUNT), "?");
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
