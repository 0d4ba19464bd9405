/* SPDX-License-Identifier: MIT */
/*
 * --watch in a git work tree: which new entries git ignores, asked of
 * `git check-ignore --stdin -z` once per watched directory, with a deadline and
 * nothing of the checkout's that could make git run a program (docs/design.md).
 */
#ifndef ISO_GITIGNORE_H
#define ISO_GITIGNORE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

/* git gets this long to answer; then it is killed and nothing is ignored */
#define SUP_GIT_DEADLINE_MS 5000

/* .gitignore files and info/exclude as they were before the run: the rules the run may not change
 */
struct sup_git_rules {
	bool in_repo; /* the directory lies in a git work tree (a .git with HEAD, or a .git file) */
	char top[4096]; /* the work tree's top, canonical */
	char *stamp;	/* the rule files' identities and sizes and times, malloc'ed */
};

/* Whether dir (canonical) lies in a work tree, and the rule files' stamp; paths: the walk's. */
void sup_git_rules_take(const char *dir, char *const *paths, size_t n, struct sup_git_rules *g);
void sup_git_rules_free(struct sup_git_rules *g);

/*
 * by[i] for each of paths[] (relative to dir; a directory ends in '/'): the
 * rule that ignores it as git words it ("SOURCE:LINE:PATTERN", malloc'ed), or
 * NULL.  0, or -1 and e says why (git missing, failed, too slow; no errno
 * suffix) and nothing ignored.
 */
int sup_git_check_ignore(const char *dir, const struct sup_git_rules *rules,
			 const char *const *paths, size_t n, char **by, struct iso_err *e);

#endif
