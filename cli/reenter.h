/* SPDX-License-Identifier: MIT */
/*
 * `isorun shell --tree PATH|ID`: which kept tree is re-entered, and the
 * settings of the run that made it (the tree's `settings` record), read as
 * input under the command line, as a checkout's isorun.conf is.
 */
#ifndef ISO_REENTER_H
#define ISO_REENTER_H

#include "cli/args.h"
#include "common/err.h"

/*
 * Check o->tree_arg (a tree below the caller's own per-user directory, kept
 * or retained, its run ended) and rebuild `o` as the tree's settings with the
 * command line over them; o->root and o->reenter then name the tree.  Errors
 * are one line naming --tree and the value.
 */
int cli_reenter_load(struct sup_opts *o, struct iso_err *e);

/*
 * The settings a new tree records: `name = value` lines (isorun.conf) of the
 * run's settings, less what belongs to one invocation (where trees go, the
 * outputs, the terminal's words, inherited descriptors, the working directory,
 * the timeout) and values a line cannot carry.  malloc'ed; NULL on ENOMEM.
 */
char *cli_settings_record(const struct sup_opts *o);

#endif
