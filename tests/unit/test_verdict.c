// SPDX-License-Identifier: MIT
/*
 * The verdict (launcher/verdict.c): the exit code of the contract, which
 * findings count and at what severity, the reason's words, and that the
 * renderers (stderr, annotations, the JUnit file through the sinks' document)
 * say what the verdict decided, an output file's failure included.
 */
#include "tests/unit/unit.h"

#include <signal.h>
#include <stdbool.h>

#include "common/exit.h"
#include "launcher/annotate.h"
#include "launcher/sinks.h"
#include "launcher/summary.h"
#include "launcher/verdict.h"

static struct sup_outcome ok_outcome(void)
{
	return (struct sup_outcome){ .subreaper = true,
				     .exited = true,
				     .tree_state = SUP_TREE_REMOVED };
}

static void init_opts(struct sup_opts *o)
{
	sup_opts_init(o);
	o->color = SUP_COLOR_NEVER;
}

/* The verdict's exit code alone. */
static int code(const struct sup_opts *o, const struct sup_outcome *out, bool *finding)
{
	struct sup_verdict v;
	int c;

	assert_int_equal(sup_verdict_make(&v, o, out), 0);
	c = v.exit;
	if (finding)
		*finding = v.finding;
	sup_verdict_free(&v);
	return c;
}

static void test_exit_codes(void **state)
{
	struct sup_opts o;
	struct sup_outcome out = ok_outcome();
	struct sup_leak leak = { .pid = 1 };
	bool finding;

	init_opts(&o);
	assert_int_equal(code(&o, &out, &finding), 0);
	assert_false(finding);
	for (int c = 1; c < 256; c++) {
		out.exit_code = c;
		assert_int_equal(code(&o, &out, NULL), c);
	}
	out = ok_outcome();
	out.leaks = &leak;
	out.n_leaks = 1;
	assert_int_equal(code(&o, &out, &finding), ISO_EXIT_FINDING);
	assert_true(finding);
	out.exit_code = 3;
	assert_int_equal(code(&o, &out, NULL), 3);
	out.exit_code = 0;
	o.finding_exit = 99;
	assert_int_equal(code(&o, &out, NULL), 99);
	o.plan.leaks = SUP_WARN;
	assert_int_equal(code(&o, &out, NULL), 0);

	init_opts(&o);
	out = ok_outcome();
	out.tree_state = SUP_TREE_RETAINED;
	assert_int_equal(code(&o, &out, NULL), ISO_EXIT_FINDING);
	out = ok_outcome();
	out.term_signal = SIGSEGV;
	assert_int_equal(code(&o, &out, NULL), 128 + SIGSEGV);
	out = ok_outcome();
	out.timed_out = true;
	assert_int_equal(code(&o, &out, NULL), ISO_EXIT_TIMEOUT);
	out = ok_outcome();
	out.cancelled_by = SIGINT;
	assert_int_equal(code(&o, &out, NULL), 130);
	out = ok_outcome();
	out.exec_failed = true;
	out.exit = ISO_EXIT_NOT_FOUND;
	assert_int_equal(code(&o, &out, NULL), 127);
	out = ok_outcome();
	out.subreaper = false;
	assert_int_equal(code(&o, &out, &finding), ISO_EXIT_FINDING);
	assert_true(finding);
	out = ok_outcome();
	out.setup_before = true;
	assert_int_equal(code(&o, &out, NULL), ISO_EXIT_SETUP);
}

/* Output isorun could not deliver is a finding; a reader that left is not. */
static void test_delivery(void **state)
{
	struct sup_opts o;
	struct sup_outcome out = ok_outcome();
	struct sup_stream st = { .name = "stdout", .out_broken = true, .out_err = EPIPE };
	struct sup_verdict v;

	init_opts(&o);
	out.streams[0] = &st;
	assert_int_equal(code(&o, &out, NULL), 0);
	st.out_err = ENOSPC;
	assert_int_equal(code(&o, &out, NULL), ISO_EXIT_FINDING);
	out.exit_code = 3;
	assert_int_equal(code(&o, &out, NULL), 3);

	/* an output file's failure comes after the verdict, and changes it */
	out = ok_outcome();
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	assert_int_equal(v.exit, 0);
	assert_string_equal(v.reason, "");
	sup_verdict_undelivered(&v, "--report: write 'r': EIO", "report not written",
				"isorun: report not written");
	assert_int_equal(v.exit, ISO_EXIT_FINDING);
	assert_true(v.finding);
	assert_string_equal(v.reason, "report not written");
	assert_string_equal(sup_verdict_get(&v, SUP_V_UNDELIVERED, 0)->text,
			    "--report: write 'r': EIO");
	sup_verdict_free(&v);
}

/* Each finding counts and has its severity by its mode; the kinds stay together. */
static void test_findings_count_by_mode(void **state)
{
	struct sup_opts o;
	struct sup_outcome out = ok_outcome();
	struct sup_leak leaks[2] = { { .pid = 7 }, { .pid = 8 } };
	struct sup_residue_entry res = { .dir = "/w", .path = "x" };
	struct sup_residue_gap gap = { .dir = "/v", .why = "gone" };
	struct sup_verdict v;

	init_opts(&o);
	out.leaks = leaks;
	out.n_leaks = 2;
	out.residue = &res;
	out.n_residue = 1;
	out.residue_gaps = &gap;
	out.n_residue_gaps = 1;
	o.plan.residue = SUP_WARN;
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	assert_int_equal(v.n[SUP_V_LEAK], 2);
	assert_int_equal(v.n_counting[SUP_V_LEAK], 2);
	assert_string_equal(sup_verdict_get(&v, SUP_V_LEAK, 1)->level, "error");
	assert_int_equal(sup_verdict_get(&v, SUP_V_LEAK, 1)->index, 1);
	assert_null(sup_verdict_get(&v, SUP_V_LEAK, 2));
	assert_false(sup_verdict_get(&v, SUP_V_RESIDUE, 0)->counts);
	assert_string_equal(sup_verdict_get(&v, SUP_V_RESIDUE, 0)->level, "warning");
	assert_string_equal(sup_verdict_get(&v, SUP_V_RESIDUE_GAP, 0)->text,
			    "residue check: not measurable (/v: gone)");
	assert_string_equal(v.reason, "2 processes outlived the command");
	for (size_t i = 1; i < v.n_items; i++)
		assert_true(v.items[i - 1].kind <= v.items[i].kind);
	sup_verdict_free(&v);

	o.plan.residue = SUP_FAIL;
	o.plan.leaks = SUP_IGNORE;
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	assert_string_equal(sup_verdict_get(&v, SUP_V_LEAK, 0)->level, "info");
	assert_int_equal(v.n_counting[SUP_V_LEAK], 0);
	assert_string_equal(v.reason,
			    "1 new entry in watched directories, residue check not measurable");
	assert_int_equal(v.exit, ISO_EXIT_FINDING);
	sup_verdict_free(&v);
}

/* A policy file's mistake: 125, its position, not a finding, and nothing else is news. */
static void test_setup_before_start(void **state)
{
	struct sup_opts o;
	struct sup_outcome out = ok_outcome();
	struct sup_verdict v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	init_opts(&o);
	out.setup_before = true;
	out.tree_state = SUP_TREE_RETAINED;
	snprintf(out.setup_err.msg, sizeof(out.setup_err.msg), "--policy: bad word");
	snprintf(out.setup_file, sizeof(out.setup_file), "p.policy");
	out.setup_line = 2;
	out.setup_col = 5;
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	assert_int_equal(v.exit, ISO_EXIT_SETUP);
	assert_true(v.nothing_ran);
	assert_false(sup_verdict_get(&v, SUP_V_SETUP, 0)->counts);
	sup_verdict_undelivered(&v, "--junit: write 'j': EIO", "JUnit file not written",
				"isorun: JUnit file not written");
	assert_string_equal(v.reason, "bad policy");

	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sup_summary_lines(f, &v);
	sup_annotate(f, &v);
	sup_summary_verdict(f, &v);
	fclose(f);
	/* the retained tree is the JUnit file's teardown case, not stderr's news here */
	assert_string_equal(
		buf, "isorun: --junit: write 'j': EIO\n"
		     "::error file=p.policy,line=2,col=5,title=isorun%3A bad policy::--policy: "
		     "bad word\n"
		     "::error title=isorun%3A JUnit file not written::--junit: write 'j': EIO\n"
		     "isorun: FAILED (exit 125): bad policy\n");
	free(buf);
	sup_verdict_free(&v);
}

/* stderr's lines: a refusal's every line led by "isorun: ", the verdict's line last; -q. */
static void test_stderr(void **state)
{
	struct sup_opts o;
	struct sup_outcome out = ok_outcome();
	struct sup_policy_event ev = { .pid = 9,
				       .call = "execve",
				       .detail = "systemctl x",
				       .origin = "default.policy:3",
				       .refused = true,
				       .started_ms = SUP_STARTED_UNKNOWN };
	struct sup_verdict v;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	init_opts(&o);
	snprintf(ev.at.why_not, sizeof(ev.at.why_not), "gone");
	out.policy_events = &ev;
	out.n_policy_events = 1;
	out.policy_name = "default";
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sup_summary_lines(f, &v);
	sup_summary_verdict(f, &v);
	fclose(f);
	assert_string_equal(buf, "isorun: refused: execve `systemctl x` (pid 9, rule "
				 "default.policy:3)\n"
				 "isorun:   attribution incomplete: gone\n"
				 "isorun: FAILED (exit 122): 1 call refused\n");
	free(buf);
	sup_verdict_free(&v);

	/* -q: a failing command alone speaks for itself */
	o.verbosity = -1;
	out = ok_outcome();
	out.exit_code = 4;
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	assert_string_equal(v.how, "command exited 4");
	buf = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	sup_summary_verdict(f, &v);
	fclose(f);
	assert_string_equal(buf, "");
	free(buf);
	sup_verdict_free(&v);
}

/* The JUnit file written after the report's failure says the verdict with it. */
static void test_junit_after_undelivered(void **state)
{
	struct sup_opts o;
	struct sup_outcome out = ok_outcome();
	struct sup_verdict v;
	struct sup_doc d;

	init_opts(&o);
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	sup_verdict_undelivered(&v, "--report: write 'r': EIO", "report not written",
				"isorun: report not written");
	sup_doc_render(&d, iso_junit_render, &v);
	assert_int_equal(d.err, 0);
	assert_non_null(strstr(d.text, "<property name=\"isorun.exit\" value=\"122\"/>"));
	assert_non_null(
		strstr(d.text, "<property name=\"isorun.reason\" value=\"report not written\"/>"));
	assert_non_null(strstr(d.text, "<failure message=\"report not written\" "
				       "type=\"delivery\">--report: write 'r': EIO"));
	sup_doc_free(&d);
	sup_verdict_free(&v);

	sup_verdict_unfinished(&v, &o, &out);
	assert_string_equal(sup_verdict_word(&v), "unfinished");
	sup_doc_render(&d, iso_junit_render, &v);
	assert_int_equal(d.err, 0);
	assert_non_null(strstr(d.text, "<property name=\"isorun.exit\" value=\"\"/>"));
	sup_doc_free(&d);
	sup_verdict_free(&v);
}

/*
 * The generic findings (sup_found_add()): each kind's in the order found, and only
 * a row with neither add nor count reads them; a kind with fields of its own is
 * never counted twice.  Every row has a description, and the kind's words are the
 * reason's.
 */
static void test_found(void **state)
{
	struct sup_opts o;
	struct sup_outcome out = ok_outcome();
	struct sup_leak leaks[2] = { { .pid = 7 }, { .pid = 8 } };
	struct sup_verdict v;
	char words[128];

	init_opts(&o);
	for (int k = 0; k < SUP_V_N_KINDS; k++)
		assert_non_null(sup_vkind_of((enum sup_vkind)k));
	assert_int_equal(sup_found_add(&out, SUP_V_LEAK, true, "a"), 0);
	assert_int_equal(sup_found_add(&out, SUP_V_RESIDUE, true, "b"), 0);
	assert_int_equal(sup_found_add(&out, SUP_V_LEAK, false, "c"), 0);
	assert_string_equal(sup_found_get(&out, SUP_V_LEAK, 0)->what, "a");
	assert_string_equal(sup_found_get(&out, SUP_V_LEAK, 1)->what, "c");
	assert_false(sup_found_get(&out, SUP_V_LEAK, 1)->counts);
	assert_string_equal(sup_found_get(&out, SUP_V_RESIDUE, 0)->what, "b");
	assert_null(sup_found_get(&out, SUP_V_LEAK, 2));
	assert_null(sup_found_get(&out, SUP_V_TIMEOUT, 0));
	/* the leaks' row counts the outcome's leaks, not the generic list */
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	assert_int_equal(v.exit, 0);
	assert_int_equal(v.n[SUP_V_LEAK] + v.n[SUP_V_RESIDUE], 0);
	sup_verdict_free(&v);
	out.leaks = leaks;
	out.n_leaks = 2;
	assert_int_equal(sup_verdict_make(&v, &o, &out), 0);
	assert_int_equal(v.n[SUP_V_LEAK], 2);
	sup_verdict_kind_words(&v, SUP_V_LEAK, words, sizeof(words));
	assert_string_equal(words, "2 processes outlived the command");
	sup_verdict_kind_words(&v, SUP_V_RESIDUE, words, sizeof(words));
	assert_string_equal(words, "");
	sup_verdict_free(&v);
	for (size_t i = 0; i < out.n_found; i++)
		free(out.found[i].what);
	free(out.found);
	/* one that counts and could not be recorded still fails the run */
	out = ok_outcome();
	out.found_lost = true;
	assert_int_equal(code(&o, &out, NULL), ISO_EXIT_FINDING);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_delivery),
		cmocka_unit_test(test_findings_count_by_mode),
		cmocka_unit_test(test_setup_before_start),
		cmocka_unit_test(test_stderr),
		cmocka_unit_test(test_junit_after_undelivered),
		cmocka_unit_test(test_found),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
