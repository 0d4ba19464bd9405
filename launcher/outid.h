/* SPDX-License-Identifier: MIT */
/*
 * isorun's own outputs (--report, --junit) must not name one file: two writers
 * to it would leave neither JSON nor XML.  Identity is the (device, inode) of a
 * file or descriptor that exists, the canonical path of one still to be made.
 */
#ifndef ISO_OUTID_H
#define ISO_OUTID_H

#include <stddef.h>

#include "common/err.h"

struct sup_output {
	const char *opt;  /* "--report" */
	const char *spec; /* FILE or fd:N, as given; NULL when not asked for */
};

/* -EINVAL with one message naming both options when two of outs[] are one file. */
int sup_outputs_distinct(const struct sup_output *outs, size_t n, struct iso_err *e);

#endif
