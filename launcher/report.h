/* SPDX-License-Identifier: MIT */
#ifndef ISO_REPORT_H
#define ISO_REPORT_H

#include <stdbool.h>
#include <stddef.h>

/* The report's version ("schema"), and its JSON Schema (docs/report.schema.json). */
#define SUP_REPORT_SCHEMA 1

/* p absolute against cwd, "." ".." and "//" resolved by the words alone; malloc'ed. */
char *sup_abs_path(const char *cwd, const char *p);

/* Where an output tail that lost its beginning (cut) starts, to hold whole lines. */
size_t sup_tail_start(const char *buf, size_t n, bool cut);

#endif
