/* SPDX-License-Identifier: MIT */
/*
 * --bind, --ro-bind and --tmpfs judged on the host before anything exists
 * (docs/decisions/0048-mounts-the-caller-asks-for.md).
 */
#ifndef ISO_CLI_MOUNTS_H
#define ISO_CLI_MOUNTS_H

#include "common/err.h"
#include "launcher/opts.h"

/*
 * Once every option is final (isorun.conf read): each of o->binds gets a
 * canonical source and destination, and whether init makes its mount point;
 * -EINVAL (or -errno) with one line naming the option and its value when one
 * would fail, or would cover or reopen what --protect-home, --private-tmp or
 * the trees keep.
 */
int cli_mounts_check(struct sup_opts *o, struct iso_err *e);

#endif
