/* SPDX-License-Identifier: MIT */
/*
 * Whose word counts: an isorun.conf is the project's (in CI, the code under
 * test: a pull request controls it), the command line is the operator's.  A
 * setting of the file that would widen what the command line protects is
 * refused (docs/decisions/0016-isorun-conf.md, "The file never widens the
 * command line").
 */
#ifndef ISO_CONFTRUST_H
#define ISO_CONFTRUST_H

#include "cli/args.h"
#include "common/err.h"

/*
 * The file's `name = raw` (`val`: a path resolved against the file's directory,
 * else raw), read under the command line `cli` (its settings only): 0 when the
 * command line protects nothing the setting opens; else -EPERM with e->msg
 * "name = value: why" and a hint naming the option that allows it.
 */
int cli_conf_trust(const struct sup_opts *cli, enum sup_key key, const char *raw, const char *val,
		   struct iso_err *e);

#endif
