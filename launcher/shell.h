/* SPDX-License-Identifier: MIT */
/* `isorun shell`'s words to the person at the terminal: on entry and on exit. */
#ifndef ISO_SHELL_H
#define ISO_SHELL_H

#include <stdio.h>

#include "common/err.h"
#include "launcher/opts.h"
#include "tree/tree.h"

/* The variable an isorun shell exports, for a prompt: ${ISORUN_SHELL:+(isorun) } */
#define SUP_SHELL_VAR "ISORUN_SHELL"

/*
 * One line on entry: where the tree is, the guards asked for, how to leave
 * ("isorun: shell in PATH (pidns, protect-home=ro, policy=default); leave with exit
 * or Ctrl-D, the tree is kept").  Nothing with -q.
 */
void sup_shell_banner(FILE *f, const struct sup_opts *o, const char *tree_path);

/* The kept line on exit, with how to remove the tree; `path` is shell-quoted. */
void sup_shell_kept(FILE *f, const struct sup_opts *o, const char *path);

/* Where in the tree `isorun shell` writes its start-up files (bashrc; zsh's ZDOTDIR). */
#define SUP_SHELL_RC_PARENT "run"
#define SUP_SHELL_RC_NAME   "isorun-shell"
#define SUP_SHELL_RC_DIR    SUP_SHELL_RC_PARENT "/" SUP_SHELL_RC_NAME

/* The shells whose start-up isorun shell knows how to read. */
enum sup_shell_kind {
	SUP_SHELL_OTHER,
	SUP_SHELL_BASH,
	SUP_SHELL_ZSH,
};
/* By the program's name: bash, zsh, or another. */
enum sup_shell_kind sup_shell_kind(const char *path);

/*
 * `isorun shell`'s own $SHELL reads the caller's start-up (its real HOME's
 * .bashrc or .zshrc and history) and marks the prompt: isorun writes the files
 * into the tree's SUP_SHELL_RC_DIR (bashrc, or zsh's .zshenv and .zshrc, found
 * through ZDOTDIR in the environment, launcher/env.c).  *ret_argv is the argv
 * to start bash with (`bash --rcfile FILE -i`; free with sup_shell_argv_free),
 * NULL when the command's own is right.
 */
int sup_shell_startup(const struct sup_opts *o, const struct tree_tree *t, char ***ret_argv,
		      struct iso_err *e);
void sup_shell_argv_free(char **argv);

#endif
