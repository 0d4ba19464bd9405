/* SPDX-License-Identifier: MIT */
#ifndef ISO_SUMMARY_H
#define ISO_SUMMARY_H

#include "launcher/opts.h"
#include "launcher/outcome.h"

/*
 * Decide isorun's exit code from what the run found (docs/design.md, "Exit
 * codes"), store it in o->exit, and tell stderr: one fact per line, the verdict
 * line last, nothing at all on a clean success.
 */
int iso_summarize(const struct iso_opts *opts, struct iso_outcome *o);

/*
 * The verdict's reason, the words after "FAILED (exit N): ", for the report and the
 * JUnit file too; "" when o->exit is 0.
 */
void iso_verdict_reason(const struct iso_opts *opts, const struct iso_outcome *o, char *buf,
			size_t len);

/* How the command ended, as the verdict's first words ("command exited 1"); appends. */
void iso_how_it_ended(const struct iso_outcome *o, int code, char *reason, size_t len);

/* The exit code alone, for unit tests; no output. */
int iso_exit_code(const struct iso_opts *opts, const struct iso_outcome *o, bool *ret_finding);

#endif
