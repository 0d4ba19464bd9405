/* SPDX-License-Identifier: MIT */
/*
 * What the run's mount namespace hides from the command, judged from the host
 * before the start: --private-tmp covers /tmp and /var/tmp (the tree and the
 * working directory are bound back), --protect-home=hide covers the real home
 * (the tree and each --writable DIR are moved back).  --protect-home=ro hides
 * nothing.  A path is hidden when a name its lookup walks through exists on the
 * host and lies in a covered directory: symlinks are followed here as the
 * kernel follows them, so a link in /tmp to a visible file is hidden too.
 */
#ifndef ISO_HIDDEN_H
#define ISO_HIDDEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "launcher/opts.h"

struct sup_hidden {
	bool on;
	char *tmp[2];	   /* --private-tmp: /tmp and /var/tmp, canonical (NULL: none) */
	char *tmp_keep[2]; /* visible there: the tree, the working directory */
	char *home;	   /* --protect-home=hide: the real home, canonical */
	char **home_keep;  /* visible there: the tree, each --writable DIR */
	size_t n_home_keep;
	char *cwd;		/* the command's working directory, canonical: relative paths */
	const char *const *say; /* the options' words (launcher/say.h) */
};

/*
 * From the options, the tree, isorun's own working directory and the passwd
 * entry's home.  Nothing is hidden (h->on false) without a hiding option; a
 * path that cannot be resolved is left out, never an error: this only explains.
 */
void sup_hidden_init(struct sup_hidden *h, const struct sup_opts *o, const char *tree,
		     const char *cwd);
void sup_hidden_free(struct sup_hidden *h);

/*
 * The option that hides path from the command ("--private-tmp",
 * "--protect-home=hide"), with the first hidden name on its way in ret_at;
 * NULL when path is visible.  whole: only when all of path exists on the host
 * (a command that is missing there too is not the option's doing); else the
 * hidden name alone must (a file the command will make in a hidden directory).
 */
const char *sup_hidden_by(const struct sup_hidden *h, const char *path, bool whole, char *ret_at,
			  size_t len);

/* "ERROR: OPTION hides NAME ...; FIX" for an exec that failed with ENOENT, or "" */
void sup_hidden_cause(const struct sup_hidden *h, const char *path, char *buf, size_t len);

/*
 * Before the start, one line per hiding option naming what of argv, PATH and
 * LD_LIBRARY_PATH it hides (not argv[0]: its exec failure names the cause).
 */
void sup_hidden_warn(FILE *f, const struct sup_hidden *h, char *const *argv, char *const *envp);

#endif
