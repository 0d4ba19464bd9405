/* SPDX-License-Identifier: MIT */
#ifndef ISO_SUMMARY_H
#define ISO_SUMMARY_H

#include <stdio.h>

#include "launcher/verdict.h"

/*
 * The verdict on stderr (f): one fact per line, nothing at all on a clean success;
 * before the command ran, only what could not be delivered (the failure itself was
 * printed where it happened).
 */
void sup_summary_lines(FILE *f, const struct sup_verdict *v);

/* The last line, "isorun: FAILED (exit N): reason", when the run failed. */
void sup_summary_verdict(FILE *f, const struct sup_verdict *v);

#endif
