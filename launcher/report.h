/* SPDX-License-Identifier: MIT */
#ifndef ISO_REPORT_H
#define ISO_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "launcher/opts.h"
#include "launcher/outcome.h"

/* The report's version ("schema"), and its JSON Schema (docs/report.schema.json). */
#define ISO_REPORT_SCHEMA 1

/*
 * The provisional report's reason and the JUnit file's error, until the end replaces
 * both: a run killed on the way (a CI runner's SIGKILL) leaves them saying so.
 */
#define ISO_UNFINISHED "isorun did not finish"

/* The JSON report (docs/design.md, "Report") to fd; returns 0 or -errno. */
int iso_report_write(int fd, const struct iso_opts *opts, const struct iso_outcome *o);

/* All of text to fd, then fsync where fd has one; 0 or -errno. */
int iso_write_synced(int fd, const char *text, size_t len);

/* p absolute against cwd, "." ".." and "//" resolved by the words alone; malloc'ed. */
char *iso_abs_path(const char *cwd, const char *p);

/* Where an output tail that lost its beginning (cut) starts, to hold whole lines. */
size_t iso_tail_start(const char *buf, size_t n, bool cut);

#endif
