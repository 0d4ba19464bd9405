/* SPDX-License-Identifier: MIT */
#ifndef ISO_RUN_H
#define ISO_RUN_H

#include "launcher/opts.h"

/* Run the command as the contract says; returns isorun's exit code. */
int iso_run(const struct iso_opts *o);

#endif
