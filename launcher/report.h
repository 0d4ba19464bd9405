/* SPDX-License-Identifier: MIT */
#ifndef ISO_REPORT_H
#define ISO_REPORT_H

#include "launcher/outcome.h"

/* The JSON report (docs/design.md, "Report") to fd; returns 0 or -errno. */
int iso_report_write(int fd, const struct iso_outcome *o);

#endif
