// SPDX-License-Identifier: MIT
/*
 * The supervisor's phases (launcher/supervise.c, sup_step()) and teardown's
 * decisions (launcher/teardown.c, sup_teardown()) driven through a fake leak
 * gate (launcher/gate.h): its callbacks record what they were asked and answer
 * what the test scripted, so no process is started.  Teardown works on a real
 * tree (tree_create() under a mkdtemp root): removed, kept, or retained with
 * the reason the gate or the join gave.
 */
#include "tests/unit/unit.h"

#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>

#include "launcher/gate.h"
#include "launcher/opts.h"
#include "launcher/sup.h"
#include "tree/rmtree.h"
#include "tree/tree.h"

/* What the fake gate was asked, in order, and what it answers. */
struct fake {
	char calls[256]; /* "settle,settle_timer,..." */
	int last_sig;
	bool last_from_terminal;
	enum sup_phase_event settle_timer_says, sweep_says, kill_says;
	const char *unmeasurable;
};

static struct fake fk;

static void note(const char *what)
{
	size_t at = strlen(fk.calls);

	snprintf(fk.calls + at, sizeof(fk.calls) - at, "%s%s", at ? "," : "", what);
}

static void f_settle(struct sup *s)
{
	(void)s;
	note("settle");
}

static enum sup_phase_event f_settle_timer(struct sup *s)
{
	(void)s;
	note("settle_timer");
	return fk.settle_timer_says;
}

static enum sup_phase_event f_sweep(struct sup *s, int sig)
{
	(void)s;
	note("sweep");
	fk.last_sig = sig;
	return fk.sweep_says;
}

static enum sup_phase_event f_kill(struct sup *s)
{
	(void)s;
	note("kill");
	return fk.kill_says;
}

static void f_stop(struct sup *s, int sig, bool from_terminal)
{
	(void)s;
	note("stop");
	fk.last_sig = sig;
	fk.last_from_terminal = from_terminal;
}

static void f_drain(struct sup *s)
{
	(void)s;
	note("drain");
}

static void f_forward(struct sup *s, int sig)
{
	(void)s;
	note("forward");
	fk.last_sig = sig;
}

static void f_late_forward(struct sup *s, int sig)
{
	(void)s;
	note("late_forward");
	fk.last_sig = sig;
}

static pid_t f_root(const struct sup *s)
{
	(void)s;
	return getpid();
}

static const char *f_unmeasurable(const struct sup *s)
{
	(void)s;
	return fk.unmeasurable;
}

static const struct sup_gate_ops fake_gate = {
	.settle = f_settle,
	.settle_timer = f_settle_timer,
	.sweep = f_sweep,
	.kill = f_kill,
	.stop = f_stop,
	.drain = f_drain,
	.forward = f_forward,
	.late_forward = f_late_forward,
	.root = f_root,
	.unmeasurable = f_unmeasurable,
};

/* A supervisor as sup_run() sets one up, with the fake gate and nothing started. */
struct fx {
	struct sup_opts o;
	struct sup_outcome out;
	struct sup s;
	char root[PATH_MAX / 4];
	bool have_tree;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	memset(&fk, 0, sizeof(fk));
	fx->o.verbosity = -1;
	fx->o.plan.stop =
		(struct sup_stop_plan){ .signal = SIGTERM, .grace_ms = 1000, .settle_ms = 1000 };
	fx->s = (struct sup){
		.o = &fx->o,
		.gate = &fake_gate,
		.out = &fx->out,
		.self = getpid(),
		.loop = SUP_EVLOOP_INIT,
		.listener = -1,
		.ns = { .sock = -1 },
		.tty_fd = -1,
		.tree = { .user_fd = -1, .fd = -1, .lock_fd = -1 },
		.td = { .shield = { .lock_fd = -1, .watch = -1 },
			.gate = { .fd = -1, .in = -1, .release_wd = -1, .park = -1 } },
		.phase = SUP_PH_RUNNING,
	};
	fx->s.started_ms = sup_now_ms();
	*state = fx;
	return 0;
}

/* What a retained or kept tree left: the test's own scratch, as test_gc.c removes it. */
static void rm_scratch(const char *dir)
{
	char copy[PATH_MAX], copy2[PATH_MAX];
	int parent;

	snprintf(copy, sizeof(copy), "%s", dir);
	snprintf(copy2, sizeof(copy2), "%s", dir);
	parent = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent >= 0) {
		(void)tree_rmtree(parent, basename(copy2), dir, NULL, NULL);
		close(parent);
	}
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	if (fx->have_tree) {
		tree_close(&fx->s.tree);
		rm_scratch(fx->root);
	}
	free(fx);
	return 0;
}

/* The command exited, the settle window ran out with the tree empty: joined, then done. */
static void test_clean_exit_phases(void **state)
{
	struct fx *fx = *state;
	struct sup *s = &fx->s;

	fk.settle_timer_says = SUP_PE_EMPTY;
	sup_record_status(s, 0);
	sup_step(s, SUP_PE_EXITED, 0, false);
	assert_int_equal(s->phase, SUP_PH_SETTLE);
	assert_string_equal(fk.calls, "settle");
	sup_step(s, SUP_PE_TIMER, 0, false);
	/* no pipe relayed: the join finds the streams done at once */
	assert_int_equal(s->phase, SUP_PH_DONE);
	assert_string_equal(fk.calls, "settle,settle_timer,drain");
	assert_true(fx->out.exited);
	assert_false(fx->out.timed_out);
	assert_int_equal(fx->out.cancelled_by, 0);
}

/* A cancel while the command runs: noted, the gate stops the tree with the signal. */
static void test_cancel_running(void **state)
{
	struct fx *fx = *state;
	struct sup *s = &fx->s;

	sup_step(s, SUP_PE_SIGNAL, SIGINT, true);
	assert_int_equal(s->phase, SUP_PH_CANCEL);
	assert_string_equal(fk.calls, "stop");
	assert_int_equal(fk.last_sig, SIGINT);
	assert_true(fk.last_from_terminal);
	assert_int_equal(fx->out.cancelled_by, SIGINT);
	/* the grace runs out: the gate kills, and its "empty" is the join */
	fk.kill_says = SUP_PE_EMPTY;
	sup_step(s, SUP_PE_TIMER, 0, false);
	assert_string_equal(fk.calls, "stop,kill,drain");
	assert_int_equal(s->phase, SUP_PH_DONE);
}

/* A cancel during the settle: the survivors are swept with the signal, never stopped. */
static void test_cancel_in_settle(void **state)
{
	struct fx *fx = *state;
	struct sup *s = &fx->s;

	fk.sweep_says = SUP_PE_NONE;
	sup_step(s, SUP_PE_EXITED, 0, false);
	sup_step(s, SUP_PE_SIGNAL, SIGTERM, false);
	assert_int_equal(s->phase, SUP_PH_CANCEL);
	assert_string_equal(fk.calls, "settle,sweep");
	assert_int_equal(fk.last_sig, SIGTERM);
	assert_int_equal(fx->out.cancelled_by, SIGTERM);
}

/* A signal to pass on goes to forward() while the tree runs, late_forward() after the join. */
static void test_forward_by_phase(void **state)
{
	struct fx *fx = *state;
	struct sup *s = &fx->s;

	sup_step(s, SUP_PE_FORWARD, SIGUSR1, false);
	assert_int_equal(s->phase, SUP_PH_RUNNING);
	assert_string_equal(fk.calls, "forward");
	assert_int_equal(fk.last_sig, SIGUSR1);
	/* joined with a pipe still open: the run waits there for its EOF */
	s->relayed[0] = true;
	sup_step(s, SUP_PE_EMPTY, 0, false);
	assert_int_equal(s->phase, SUP_PH_JOINED);
	sup_step(s, SUP_PE_FORWARD, SIGUSR2, false);
	assert_string_equal(fk.calls, "forward,drain,late_forward");
	assert_int_equal(fk.last_sig, SIGUSR2);
	assert_int_equal(fx->out.cancelled_by, 0);
}

/* A real tree for teardown, at the path sup_make_tree() records. */
static void make_tree(struct fx *fx)
{
	char *argv[] = { "test_gate_fake", NULL };
	struct iso_err e = { 0 };

	assert_int_equal(unit_mkdtemp(fx->root, sizeof(fx->root), "test_gate_fake-XXXXXX"), 0);
	assert_int_equal(tree_create(&fx->s.tree, fx->root, argv, &e), 0);
	fx->have_tree = true;
	snprintf(fx->out.tree_path, sizeof(fx->out.tree_path), "%s", fx->s.tree.path);
}

static bool tree_exists(const struct fx *fx)
{
	struct stat st;

	return stat(fx->out.tree_path, &st) == 0;
}

/* Nothing in the way: the tree is removed. */
static void test_teardown_removes(void **state)
{
	struct fx *fx = *state;

	make_tree(fx);
	assert_true(tree_exists(fx));
	sup_teardown(&fx->s);
	assert_int_equal(fx->out.tree_state, SUP_TREE_REMOVED);
	assert_false(tree_exists(fx));
}

/* The gate cannot prove the tree empty: retained, its reason said. */
static void test_teardown_gate_unmeasurable(void **state)
{
	struct fx *fx = *state;

	make_tree(fx);
	fk.unmeasurable = "the fake gate's reason";
	sup_teardown(&fx->s);
	assert_int_equal(fx->out.tree_state, SUP_TREE_RETAINED);
	assert_string_equal(fx->out.tree_reason,
			    "leak check not measurable, so the join cannot be proven (the fake "
			    "gate's reason)");
	assert_true(tree_exists(fx));
}

/* The kill did not converge: the join is not proven, the tree stays with the gate's word. */
static void test_teardown_join_unproven(void **state)
{
	struct fx *fx = *state;

	make_tree(fx);
	fx->s.join_unproven = true;
	snprintf(fx->out.gate_unmeasurable, sizeof(fx->out.gate_unmeasurable), "%s",
		 "survivors after the kill");
	sup_teardown(&fx->s);
	assert_int_equal(fx->out.tree_state, SUP_TREE_RETAINED);
	assert_string_equal(fx->out.tree_reason,
			    "leak check not measurable, so the join cannot be proven (survivors "
			    "after the kill)");
	assert_true(tree_exists(fx));
}

/* --keep: kept on purpose, not retained, and the gate is not asked. */
static void test_teardown_keep(void **state)
{
	struct fx *fx = *state;

	make_tree(fx);
	fx->o.keep = SUP_KEEP_ALWAYS;
	fk.unmeasurable = "not asked when kept";
	sup_teardown(&fx->s);
	assert_int_equal(fx->out.tree_state, SUP_TREE_KEPT);
	assert_true(tree_exists(fx));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clean_exit_phases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_in_settle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forward_by_phase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_teardown_removes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_teardown_gate_unmeasurable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_teardown_join_unproven, setup, teardown),
		cmocka_unit_test_setup_teardown(test_teardown_keep, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
