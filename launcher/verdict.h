/* SPDX-License-Identifier: MIT */
/*
 * The verdict of a run, decided once from its outcome (docs/contract.md, "Exit
 * codes"): isorun's exit code, the verdict's word and reason, and every finding
 * with whether it counts against the run, its severity, its title and its words.
 * The stderr summary, the report, the JUnit file and the annotations only read it.
 */
#ifndef ISO_VERDICT_H
#define ISO_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "launcher/opts.h"
#include "launcher/outcome.h"
#include "launcher/vkinds.h"

/*
 * The provisional report's reason and the JUnit file's error, until the end replaces
 * both: a run killed on the way (a CI runner's SIGKILL) leaves them saying so.
 */
#define SUP_UNFINISHED "isorun did not finish"

struct sup_vfinding {
	enum sup_vkind kind;
	size_t index;	   /* the i-th of its kind, as in the outcome's list */
	bool counts;	   /* it fails the run: the finding exit code, or the command's own */
	const char *level; /* "error", "warning" or "info": the report's severity */
	const char *title; /* the annotation's; NULL: not annotated */
	char *text;	   /* finding.c's words, no "isorun: ", no final newline; may be NULL */
	char word[48];	   /* the reason's words for this one, where each is named */
	const char *file;  /* a policy file's mistake: where; else NULL */
	int line, col;
};

struct sup_verdict {
	const struct sup_opts *opts;
	const struct sup_run_plan *plan; /* &opts->plan: what JUnit and the words read */
	const struct sup_outcome *out;
	bool unfinished;  /* the provisional verdict, written before anything is known */
	bool nothing_ran; /* setup failed before the command ran: only that failure is news */
	int exit;	  /* isorun's exit code; -1 while unfinished */
	bool finding;	  /* a finding counts against the run */
	char how[300];	  /* how the command ended ("command exited 1"); "" when it passed */
	char reason[512]; /* the words after "FAILED (exit N): "; "" when it passed */
	struct sup_vfinding *items;
	size_t n_items;
	size_t first[SUP_V_N_KINDS], n[SUP_V_N_KINDS], n_counting[SUP_V_N_KINDS];
};

/* The verdict on out; 0 or -ENOMEM (then v still holds the exit code and the reason). */
int sup_verdict_make(struct sup_verdict *v, const struct sup_opts *opts,
		     const struct sup_outcome *out);
/* The verdict of a run that has not finished: "unfinished", no exit code, no findings. */
void sup_verdict_unfinished(struct sup_verdict *v, const struct sup_opts *opts,
			    const struct sup_outcome *out);
/*
 * An output file that could not be written: one more finding (`text` its stderr
 * line, `word` the reason's, `title` the annotation's), and the exit code and reason
 * again.  What is written after it (the JUnit file after the report) names it.
 */
void sup_verdict_undelivered(struct sup_verdict *v, const char *text, const char *word,
			     const char *title);
void sup_verdict_free(struct sup_verdict *v);

/* The i-th finding of a kind, NULL when there is none. */
const struct sup_vfinding *sup_verdict_get(const struct sup_verdict *v, enum sup_vkind kind,
					   size_t i);
/*
 * Where stderr's summary lists a kind's findings, one line (or several) each, in the
 * kinds' order: among the findings, the same with -v only, after the resources' lines,
 * or in a place of the summary's own (the leaks, folded; the tree; the home note).
 */
enum sup_vlisted { SUP_LISTED_OWN, SUP_LISTED, SUP_LISTED_VERBOSE, SUP_LISTED_LAST };
enum sup_vlisted sup_vkind_listed(enum sup_vkind kind);
/*
 * The reason's words for a kind's findings that count ("2 processes outlived the
 * command"; each finding's own word, comma-separated), into buf; "" when none counts.
 */
void sup_verdict_kind_words(const struct sup_verdict *v, enum sup_vkind kind, char *buf,
			    size_t len);
/* "passed", "failed" or "unfinished": the report's word. */
const char *sup_verdict_word(const struct sup_verdict *v);

/*
 * What a kind of finding is (a row of launcher/vkinds.h names it; its description
 * is defined beside where it is found).  A kind whose evidence has fields of its own
 * in the outcome gives how many it holds (count) and whether each counts; an
 * irregular kind adds its findings itself (add).  With neither, its findings are the
 * outcome's generic ones of its kind (sup_found_add()): each counts as its guard
 * said, its severity is "error" when it counts, "warning" when not, and its words,
 * without a words function, are its evidence's, escaped.
 */
struct sup_vkind_row {
	int (*add)(struct sup_verdict *v); /* an irregular kind's own; else: */
	size_t (*count)(const struct sup_verdict *v);
	bool (*counts)(const struct sup_verdict *v, size_t i);
	const char *(*level)(const struct sup_verdict *v, bool counts);
	/* an sup_words_fn (launcher/finding.h); NULL: no words (ceiling.c says them), or
	 * a generic kind's evidence */
	void (*words)(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
		      size_t i);
	const char *title;	 /* the annotation's; NULL: not annotated */
	enum sup_vlisted listed; /* where stderr's summary lists it */
	const char *title_quiet; /* when it does not count, where that differs */
	int reason_at;		 /* its place in the reason (1: first); 0: not named */
	/* the reason's words for the N that count: "N ONE" or "N MORE"; ONE alone when
	 * there is no MORE; NULL: each finding's own word */
	const char *one, *more;
	/* the name of a JUnit test case of its own, after the guards' six, failed by the
	 * findings that count (the reason's words its message); NULL: none */
	const char *junit;
};

/* Each kind's description: sup_vkind_leak, sup_vkind_residue, ... */
#define SUP_VKIND_DECL_(ID, name) extern const struct sup_vkind_row sup_vkind_##name;
SUP_VKIND_ROWS(SUP_VKIND_DECL_)
#undef SUP_VKIND_DECL_

/* The description of a kind, by the table the rows make. */
const struct sup_vkind_row *sup_vkind_of(enum sup_vkind kind);

/*
 * A finding of a guard with no field of its own in the outcome: its kind, whether
 * it counts against the run, and its evidence in a string (a path, a name: what
 * its words show).  0 or -ENOMEM; without memory the run still fails when it
 * counts (the outcome's found_lost).
 */
int sup_found_add(struct sup_outcome *o, enum sup_vkind kind, bool counts, const char *what);
/* The i-th generic finding of a kind, NULL when there is none. */
const struct sup_found *sup_found_get(const struct sup_outcome *o, enum sup_vkind kind, size_t i);

#endif
