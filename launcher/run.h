/* SPDX-License-Identifier: MIT */
#ifndef ISO_RUN_H
#define ISO_RUN_H

#include "launcher/opts.h"

/* Run the command as the contract says; returns isorun's exit code. */
int sup_run(const struct sup_opts *o);

#endif
