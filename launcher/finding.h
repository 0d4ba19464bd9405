/* SPDX-License-Identifier: MIT */
/*
 * The text of each finding, written once: the stderr summary, the JUnit file and
 * the GitHub annotations all say the same words.  Each writes the body of the
 * finding's stderr line(s) without the leading "isorun: " and without a final
 * newline; a finding of several lines has its later lines indented.
 */
#ifndef ISO_FINDING_H
#define ISO_FINDING_H

#include <stdio.h>

#include "launcher/opts.h"
#include "launcher/outcome.h"

void iso_leak_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o, size_t i);
void iso_refusal_text(FILE *f, const struct iso_outcome *o, size_t i);
void iso_residue_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o, size_t i);
void iso_timeout_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o);
/* "namespace retained at PATH: reason" */
void iso_retained_text(FILE *f, const struct iso_outcome *o);
/* Why the leak check did not run ("" when it did), into buf. */
const char *iso_unmeasurable_why(const struct iso_outcome *o, char *buf, size_t len);

enum iso_finding_kind {
	ISO_FIND_LEAK,
	ISO_FIND_REFUSAL,
	ISO_FIND_RESIDUE,
	ISO_FIND_TIMEOUT,
	ISO_FIND_RETAINED,
};

/* The i-th finding of a kind (i is ignored for the single ones). */
void iso_finding_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o,
		      enum iso_finding_kind kind, size_t i);
/* The same as a malloc'ed string; NULL on ENOMEM. */
char *iso_finding_str(const struct iso_opts *opts, const struct iso_outcome *o,
		      enum iso_finding_kind kind, size_t i);

/* Whether a finding counts against the verdict (the same rules as the exit code). */
bool iso_leaks_count(const struct iso_opts *opts, const struct iso_outcome *o);
bool iso_unmeasurable_counts(const struct iso_opts *opts, const struct iso_outcome *o);
size_t iso_refused_count(const struct iso_outcome *o);

#endif
