/* SPDX-License-Identifier: MIT */
#ifndef ISO_ARGS_H
#define ISO_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "launcher/opts.h"

enum iso_action { ISO_RUN, ISO_SHOW_HELP, ISO_SHOW_VERSION };

/*
 * Apply one setting by its key: the one place that validates a value, for the
 * command line and isorun.conf alike.  `line` is ISO_FROM_CLI (val NULL: a bare
 * flag; errors say "--name: ...") or a line of the file (errors say "name: ...",
 * without the file:line the caller adds).  val must live as long as o.
 */
int iso_opt_set(struct iso_opts *o, enum iso_key key, char *val, unsigned line, struct iso_err *e);

/* Returns the action, or -EINVAL with e->msg naming the option ("--timeout: invalid duration 'x'").
 * Only the command line: isorun.conf is read by iso_conf_load().
 */
int iso_parse_args(int argc, char **argv, struct iso_opts *o, struct iso_err *e);
/* The same; ISO_ARGS_COMMAND_OPTIONAL: no command is not an error (`isorun config`). */
#define ISO_ARGS_COMMAND_OPTIONAL 1
int iso_parse_args_flags(int argc, char **argv, unsigned flags, struct iso_opts *o,
			 struct iso_err *e);
void iso_usage(FILE *f);
/* The --help of `isorun shell` and `isorun config`. */
void iso_shell_usage(FILE *f);
void iso_config_usage(FILE *f);
/* The options' implications, once they are final (after iso_conf_load()). */
void iso_plan_compile(struct iso_opts *o);
/* One warning line for each setting that does nothing without another (not with -q). */
void iso_warn_inert(const struct iso_opts *o);
/* The two lines of a refused command line; frees o and returns 125. */
int iso_args_refuse(struct iso_opts *o, const struct iso_err *e);

#endif
