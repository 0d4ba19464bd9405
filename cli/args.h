/* SPDX-License-Identifier: MIT */
#ifndef ISO_ARGS_H
#define ISO_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "launcher/opts.h"

enum cli_action { CLI_RUN, CLI_SHOW_HELP, CLI_SHOW_VERSION };

/*
 * Apply one setting by its key: the one place that validates a value, for the
 * command line and isorun.conf alike.  `line` is SUP_FROM_CLI (val NULL: a bare
 * flag; errors say "--name: ...") or a line of the file (errors say "name: ...",
 * without the file:line the caller adds).  val must live as long as o.
 */
int cli_opt_set(struct sup_opts *o, enum sup_key key, char *val, unsigned line, struct iso_err *e);

/* Returns the action, or -EINVAL with e->msg naming the option ("--timeout: invalid duration 'x'").
 * Only the command line: isorun.conf is read by cli_conf_load().
 */
int cli_parse_args(int argc, char **argv, struct sup_opts *o, struct iso_err *e);
/* The same; CLI_ARGS_COMMAND_OPTIONAL: no command is not an error (`isorun config`). */
#define CLI_ARGS_COMMAND_OPTIONAL 1
int cli_parse_args_flags(int argc, char **argv, unsigned flags, struct sup_opts *o,
			 struct iso_err *e);
void cli_usage(FILE *f);
/* The --help of `isorun shell` and `isorun config`. */
void cli_shell_usage(FILE *f);
void cli_config_usage(FILE *f);
/* The options' implications, once they are final (after cli_conf_load()). */
void cli_plan_compile(struct sup_opts *o);
/* One warning line for each setting that does nothing without another (not with -q). */
void cli_warn_inert(const struct sup_opts *o);
/*
 * The isorun options among the command's own arguments, up to its own "--"
 * (--help and --version left out: every program has them), as one line in
 * buf: "`--keep` after the command went to pytest; put isorun's options
 * before it".  False: none.  For opts->misplaced, after a failed command.
 */
bool cli_misplaced_options(const struct sup_opts *o, char *buf, size_t len);
/* The two lines of a refused command line; frees o and returns 125. */
int cli_args_refuse(struct sup_opts *o, const struct iso_err *e);

#endif
