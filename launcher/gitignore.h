/* SPDX-License-Identifier: MIT */
/*
 * --watch in a git work tree: which new entries the checkout's ignore rules
 * ignore.  The rules are read before the run and matched here as git matches
 * them; no program is run and no configuration is read
 * (docs/decisions/0050-watch-and-gitignore-the-private-home-s-writes.md).
 */
#ifndef ISO_GITIGNORE_H
#define ISO_GITIGNORE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/* A rule file larger than this is not applied (git's own limit is 100 MiB), nor all together larger
 * than SUP_GIT_RULES_ALL */
#define SUP_GIT_RULES_MAX (1 << 20)
#define SUP_GIT_RULES_ALL (16 << 20)

/* One line of a rule file. */
struct sup_git_rule {
	const char *text; /* the line as git words it in check-ignore -v (in the file's buffer) */
	char *pat;	  /* without '!', the trailing '/' and a leading '/' */
	unsigned line;
	bool neg, dir_only, anywhere; /* anywhere: no '/' in it, matches the name at any depth */
};

/* One rule file as it was before the run. */
struct sup_git_rulefile {
	char *src;  /* as git names it: ".gitignore", "sub/.gitignore", ".git/info/exclude" */
	char *base; /* the directory its rules are relative to, from the top: "" or "sub/" */
	char *buf;
	struct sup_git_rule *r;
	size_t n;
};

/* The rules that stood before the run: the run may not change them. */
struct sup_git_rules {
	bool in_repo; /* the directory lies in a git work tree (a .git with HEAD, or a .git file) */
	char top[4096];			/* the work tree's top, canonical */
	char *rel;			/* the watched directory from the top: "" or "a/b/" */
	struct sup_git_rulefile *files; /* info/exclude first, then .gitignore files */
	size_t n_files, bytes;
	char why[320]; /* a rule file that could not be read: nothing applied, and why */
};

/* Whether dir lies in a work tree, and its rule files read now; paths: the walk's. */
void sup_git_rules_take(const char *dir, char *const *paths, size_t n, struct sup_git_rules *g);
void sup_git_rules_free(struct sup_git_rules *g);

/*
 * by[i] for each of paths[] (relative to the watched directory; a directory
 * ends in '/'): the rule that ignores it as git words it
 * ("SOURCE:LINE:PATTERN", malloc'ed), or NULL.  0, or -1 and e says why the
 * rules could not be applied (nothing ignored then).
 */
int sup_git_check_ignore(const struct sup_git_rules *rules, const char *const *paths, size_t n,
			 char **by, struct iso_err *e);

/* git's wildmatch with WM_PATHNAME: '*' and '?' stop at '/', '**' between slashes crosses them. */
bool sup_git_wildmatch(const char *pattern, const char *text);

#endif
