/* SPDX-License-Identifier: MIT */
/*
 * GitHub Actions workflow commands for the findings: `::error title=...::text`,
 * `::warning` for what does not fail the run, with file, line and col where a
 * finding has them (a policy file's mistake).  Levels, titles and words are the
 * verdict's (launcher/verdict.c).
 */
#ifndef ISO_ANNOTATE_H
#define ISO_ANNOTATE_H

#include <stdbool.h>
#include <stdio.h>

#include "launcher/verdict.h"

/* GITHUB_ACTIONS=true, as the runner sets it for every step. */
bool sup_annotations_wanted(void);
/* Every finding of the verdict that has a title, in the verdict's order. */
void sup_annotate(FILE *f, const struct sup_verdict *v);

/*
 * One command, `::LEVEL title=TITLE::TEXT`: text made inert (iso_escape_lines) and
 * both escaped as the runner expects; a title from input must be made inert first.
 */
void sup_annotate_text(FILE *f, const char *level, const char *title, const char *text);

/* Escape s for a command's message (props false) or a property value; malloc'ed. */
char *sup_gha_escape(const char *s, bool props);

#endif
