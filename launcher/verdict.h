/* SPDX-License-Identifier: MIT */
/*
 * The verdict of a run, decided once from its outcome (docs/design.md, "Exit
 * codes"): isorun's exit code, the verdict's word and reason, and every finding
 * with whether it counts against the run, its severity, its title and its words.
 * The stderr summary, the report, the JUnit file and the annotations only read it.
 */
#ifndef ISO_VERDICT_H
#define ISO_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "launcher/opts.h"
#include "launcher/outcome.h"

/*
 * The provisional report's reason and the JUnit file's error, until the end replaces
 * both: a run killed on the way (a CI runner's SIGKILL) leaves them saying so.
 */
#define ISO_UNFINISHED "isorun did not finish"

/* In the order the annotations name them; the reason has an order of its own. */
enum iso_vkind {
	ISO_V_SETUP,	    /* a setup step failed (125); a policy file's mistake has a position */
	ISO_V_TIMEOUT,	    /* --timeout fired */
	ISO_V_UNMEASURABLE, /* the leak check did not run */
	ISO_V_LEAK,	    /* one per leaked process */
	ISO_V_REFUSAL,	    /* one per policy event, refused or logged */
	ISO_V_RESIDUE,	    /* one per new entry in a --watch directory */
	ISO_V_RESIDUE_GAP,  /* one per --watch directory that could not be checked */
	ISO_V_RESIDUE_NOTE, /* a --watch directory whose .gitignore was not applied: never counts */
	ISO_V_IGNORED,	    /* an entry a .gitignore or a glob ignored: info, said with -v */
	ISO_V_RETAINED,	    /* the tree could not be removed */
	ISO_V_HOME_NOTE,    /* --protect-home may explain a failure: a possibility, never counts */
	ISO_V_HOME_WRITE, /* --watch-home: a file the run wrote in its private home; never counts */
	ISO_V_CEILING,	  /* a ceiling was reached (the lines are ceiling.c's) */
	ISO_V_CGROUP,	  /* the run's cgroup could not be removed */
	ISO_V_STREAM_LOST, /* relayed output that could not be written */
	ISO_V_UNDELIVERED, /* an output file of isorun's own (--report, --junit) */
	ISO_V_N_KINDS
};

struct iso_vfinding {
	enum iso_vkind kind;
	size_t index;	   /* the i-th of its kind, as in the outcome's list */
	bool counts;	   /* it fails the run: the finding exit code, or the command's own */
	const char *level; /* "error", "warning" or "info": the report's severity */
	const char *title; /* the annotation's; NULL: not annotated */
	char *text;	   /* finding.c's words, no "isorun: ", no final newline; may be NULL */
	char word[48];	   /* the reason's words for this one, where each is named */
	const char *file;  /* a policy file's mistake: where; else NULL */
	int line, col;
};

struct iso_verdict {
	const struct iso_opts *opts;
	const struct iso_run_plan *plan; /* &opts->plan: what JUnit and the words read */
	const struct iso_outcome *out;
	bool unfinished;  /* the provisional verdict, written before anything is known */
	bool nothing_ran; /* setup failed before the command ran: only that failure is news */
	int exit;	  /* isorun's exit code; -1 while unfinished */
	bool finding;	  /* a finding counts against the run */
	char how[300];	  /* how the command ended ("command exited 1"); "" when it passed */
	char reason[512]; /* the words after "FAILED (exit N): "; "" when it passed */
	struct iso_vfinding *items;
	size_t n_items;
	size_t first[ISO_V_N_KINDS], n[ISO_V_N_KINDS], n_counting[ISO_V_N_KINDS];
};

/* The verdict on out; 0 or -ENOMEM (then v still holds the exit code and the reason). */
int iso_verdict_make(struct iso_verdict *v, const struct iso_opts *opts,
		     const struct iso_outcome *out);
/* The verdict of a run that has not finished: "unfinished", no exit code, no findings. */
void iso_verdict_unfinished(struct iso_verdict *v, const struct iso_opts *opts,
			    const struct iso_outcome *out);
/*
 * An output file that could not be written: one more finding (`text` its stderr
 * line, `word` the reason's, `title` the annotation's), and the exit code and reason
 * again.  What is written after it (the JUnit file after the report) names it.
 */
void iso_verdict_undelivered(struct iso_verdict *v, const char *text, const char *word,
			     const char *title);
void iso_verdict_free(struct iso_verdict *v);

/* The i-th finding of a kind, NULL when there is none. */
const struct iso_vfinding *iso_verdict_get(const struct iso_verdict *v, enum iso_vkind kind,
					   size_t i);
/*
 * Where stderr's summary lists a kind's findings, one line (or several) each, in the
 * kinds' order: among the findings, the same with -v only, after the resources' lines,
 * or in a place of the summary's own (the leaks, folded; the tree; the home note).
 */
enum iso_vlisted { ISO_LISTED_OWN, ISO_LISTED, ISO_LISTED_VERBOSE, ISO_LISTED_LAST };
enum iso_vlisted iso_vkind_listed(enum iso_vkind kind);
/* "passed", "failed" or "unfinished": the report's word. */
const char *iso_verdict_word(const struct iso_verdict *v);

#endif
