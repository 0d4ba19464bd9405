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

/* The exit code alone, for unit tests; no output. */
int iso_exit_code(const struct iso_opts *opts, const struct iso_outcome *o, bool *ret_finding);

#endif
