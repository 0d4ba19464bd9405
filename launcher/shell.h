/* SPDX-License-Identifier: MIT */
/* `isorun shell`'s words to the person at the terminal: on entry and on exit. */
#ifndef ISO_SHELL_H
#define ISO_SHELL_H

#include <stdio.h>

#include "launcher/opts.h"

/* The variable an isorun shell exports, for a prompt: ${ISORUN_SHELL:+(isorun) } */
#define ISO_SHELL_VAR "ISORUN_SHELL"

/*
 * One line on entry: where the tree is, the guards asked for, how to leave
 * ("isorun: shell in PATH (pidns, protect-home=ro, policy=default); leave with exit
 * or Ctrl-D, the tree is kept").  Nothing with -q.
 */
void iso_shell_banner(FILE *f, const struct iso_opts *o, const char *tree_path);

/* The kept line on exit, with how to remove the tree; `path` is shell-quoted. */
void iso_shell_kept(FILE *f, const struct iso_opts *o, const char *path);

#endif
