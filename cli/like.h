/* SPDX-License-Identifier: MIT */
/*
 * `isorun rerun REPORT` and `isorun shell --like REPORT`: a run's report
 * (--report) read as input, never as evidence: its settings become the run's
 * as an isorun.conf's would, under the same trust (cli/conftrust.h), and its
 * command and working directory are taken only when they can be replayed here.
 */
#ifndef ISO_LIKE_H
#define ISO_LIKE_H

#include "cli/args.h"
#include "common/err.h"

/*
 * Read o->like_arg and rebuild `o` as the report's settings with the command
 * line over them; the command (rerun, unless one was given after --) and the
 * working directory (unless a command was given) are the report's.  Prints
 * the one line that says what runs where and what is not replayed.  Errors are
 * one line naming the report and the reason.
 */
int cli_like_load(struct sup_opts *o, struct iso_err *e);

#endif
