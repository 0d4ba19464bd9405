/* SPDX-License-Identifier: MIT */
/*
 * The words of a finding: one function per kind writes the lines that the stderr
 * summary prints and that the JUnit file and the CI annotations carry, so all of
 * them say the same thing, attribution included.  And the same findings as the
 * report's JSON fields (docs/contract.md, "Report").
 */
#ifndef ISO_FINDING_H
#define ISO_FINDING_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "launcher/attrib.h"
#include "launcher/opts.h"
#include "launcher/outcome.h"

/* More leaks than this with one command line are folded into one line. */
#define SUP_LEAK_FOLD 3

/*
 * One leak: its line and its attribution lines ("  during test: ...", "  started
 * by: ..."), each starting with `lead` ("isorun: " on stderr, "" elsewhere) and
 * ending in '\n'.  `after_cmd_ms`: how long after the command it was found;
 * `warning`: --leaks=warn.
 */
void sup_leak_lines(FILE *out, const struct sup_leak *l, uint64_t after_cmd_ms, bool warning,
		    const char *lead);
/* Every leak of the outcome, more than SUP_LEAK_FOLD alike folded into one line. */
void sup_leaks_text(FILE *out, const struct sup_outcome *o, bool warning, const char *lead);
/* One policy event (refused or logged), with its attribution lines. */
void sup_refusal_lines(FILE *out, const struct sup_policy_event *ev, const char *lead);
/* The attribution lines alone (none when nothing is known); `chain`: with "started by:". */
void sup_attrib_text(FILE *out, const struct sup_attrib *a, bool chain, const char *lead);
/* The tree when --timeout fired or a cancel came, and the stop that followed. */
void sup_hung_text(FILE *out, const struct sup_outcome *o, bool cancel, const char *lead);
/* Who was still alive when the grace ran out. */
void sup_survived_text(FILE *out, const struct sup_hung_tree *t, const char *lead);

/* Attribute a policy event's process, alive when its call was answered. */
void sup_policy_event_attribute(struct sup_policy_event *ev, const struct sup_attrib_ctx *c);
/* Describe every live process below `root` (excluded) into t->procs. */
void sup_hung_take(struct sup_hung_tree *t, pid_t root, const struct sup_attrib_ctx *c);
/* The live processes below root into t->survived (pid and argv). */
void sup_hung_survivors(struct sup_hung_tree *t, pid_t root);
void sup_hung_free(struct sup_hung_tree *t);

/* The report's fields (docs/contract.md): added to an entry the report built. */
void sup_leak_json_add(json_t *entry, const struct sup_leak *l);
void sup_refusal_json_add(json_t *entry, const struct sup_policy_event *ev);
/* The report's "timeout": null, or the tree, the stop and who survived the grace. */
json_t *sup_hung_json(const struct sup_hung_tree *t);

/*
 * The words of the i-th finding of a kind, as stderr, the JUnit file and the
 * annotations carry them: the body of its stderr line(s) without the leading
 * "isorun: "; a finding of several lines has its later lines indented.  One such
 * function per kind of the verdict's table (launcher/verdict.c); i is ignored by
 * the single ones.
 */
typedef void sup_words_fn(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
			  size_t i);
/* the i-th leak, its attribution lines indented below it */
sup_words_fn sup_leak_text;
/* the i-th policy event, refused or logged */
sup_words_fn sup_refusal_text;
/* "residue: 'PATH' appeared in DIR" */
sup_words_fn sup_residue_text;
/* "residue check: not measurable (DIR: why)": the i-th --watch directory not checked */
sup_words_fn sup_residue_gap_text;
/* "leak check: not measurable (why)" */
sup_words_fn sup_unmeasurable_text;
/* "timed out after D; stopped the whole tree", the tree taken when the timer fired,
 * the stop, and who outlived the grace */
sup_words_fn sup_timeout_text;
/* "tree retained at PATH: reason" */
sup_words_fn sup_retained_text;
/* "timed out after D; stopped the whole tree" alone: stderr printed the tree when it fired */
void sup_timeout_line(FILE *f, const struct sup_run_plan *plan);
/* Why the leak check did not run ("" when it did), into buf. */
const char *sup_unmeasurable_why(const struct sup_outcome *o, char *buf, size_t len);

/*
 * The words of the i-th finding, without a final newline, malloc'ed; NULL on
 * ENOMEM.  Whether it counts is launcher/verdict.c's.
 */
char *sup_finding_str(sup_words_fn *words, const struct sup_run_plan *plan,
		      const struct sup_outcome *o, size_t i);

/*
 * Under --protect-home, when the command itself failed (exited non-zero or was
 * killed, not by isorun's --timeout or a cancel): that the real home was
 * read-only or hidden for it, and the option that lets a directory through, into
 * buf.  A possibility, never a finding: the kernel refuses the write before
 * anything isorun watches sees it
 * (docs/decisions/0015-what-the-run-s-mounts-hide-and-a-failure-under.md).  False when
 * nothing applies.
 */
bool sup_home_note(const struct sup_run_plan *plan, const char *const *say,
		   const struct sup_outcome *o, char *buf, size_t len);

/*
 * The same under --private-tmp: /tmp and /var/tmp were the run's own, and a
 * file of the host's there was not the command's to see (issue 39 item 16: a
 * suite's run failed with only --protect-home's line to go by).
 */
bool sup_tmp_note(const struct sup_run_plan *plan, const char *const *say,
		  const struct sup_outcome *o, char *buf, size_t len);

#endif
