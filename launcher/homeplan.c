// SPDX-License-Identifier: MIT
/*
 * --protect-home's part of the namespace's plan: the real home, what stays
 * writable in it (the tree, each --writable DIR), the hidden home's skeleton,
 * and the hint when the command's own directory lies under the covered home.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/say.h"
#include "launcher/shell.h"
#include "launcher/sup.h"
#include "ns/ns.h"

/*
 * What --protect-home leaves as it is: the tree (TMPDIR may lie in the home), each
 * --writable DIR and each cache kept between runs, canonical.  Reachable from the
 * static plan for the whole run.
 */
static int home_keeps(struct sup *s, struct sup_ns_plan *p, struct iso_err *e)
{
	const struct sup_opts *o = s->o;

	s->ns.keep = calloc(o->writable.n + s->out->n_caches + 1, sizeof(*s->ns.keep));
	if (!s->ns.keep)
		return iso_err_set(e, ENOMEM, "%s", sup_say(o->say, SUP_SAY_WRITABLE));
	s->ns.keep[0] = realpath(s->tree.path, NULL);
	if (!s->ns.keep[0])
		return iso_err_set(e, errno, "resolve '%s'", s->tree.path);
	s->ns.n_keep = 1;
	for (size_t i = 0; i < o->writable.n; i++, s->ns.n_keep++) {
		s->ns.keep[s->ns.n_keep] = realpath(o->writable.v[i], NULL);
		if (!s->ns.keep[s->ns.n_keep])
			return iso_err_set(e, errno, "%s '%s'", sup_say(o->say, SUP_SAY_WRITABLE),
					   o->writable.v[i]);
	}
	/* a cache asked for stays writable: made and canonical already (launcher/cache.h) */
	for (size_t i = 0; i < s->out->n_caches; i++, s->ns.n_keep++) {
		s->ns.keep[s->ns.n_keep] = strdup(s->out->caches[i].dir);
		if (!s->ns.keep[s->ns.n_keep])
			return iso_err_set(e, ENOMEM, "%s", s->out->caches[i].dir);
	}
	p->keep = (const char *const *)s->ns.keep;
	p->n_keep = s->ns.n_keep;
	return 0;
}

enum covered { COVERED_NONE, COVERED_CWD, COVERED_CHDIR, COVERED_WATCH };

/*
 * The first directory the command works in (--chdir or the working directory,
 * then each --watch) that the covered home (canonical) makes read-only,
 * canonical into buf.
 */
static enum covered home_covered_dir(const struct sup *s, const struct sup_ns_plan *p,
				     const char *home, char *buf)
{
	const struct sup_opts *o = s->o;
	const char *cwd = o->chdir ? o->chdir : s->out->cwd;

	if (cwd && realpath(cwd, buf) && ns_home_covers(home, p->keep, p->n_keep, buf))
		return o->chdir ? COVERED_CHDIR : COVERED_CWD;
	for (size_t i = 0; i < o->watch.n; i++)
		if (realpath(o->watch.v[i], buf) && ns_home_covers(home, p->keep, p->n_keep, buf))
			return COVERED_WATCH;
	return COVERED_NONE;
}

/*
 * Where isorun knows the fix, it says so before the start: the kernel refuses a
 * write to the covered home before anything isorun could watch sees it
 * (docs/use/guard-home.md), so the suite's own "Read-only file system" would be
 * all the user gets.  One line, not with -q.
 */
static void name_covered(const struct sup_opts *o, enum covered c, char *buf, size_t len)
{
	if (c == COVERED_CWD)
		snprintf(buf, len, "the working directory");
	else
		snprintf(buf, len, "the %s directory",
			 sup_say(o->say, c == COVERED_CHDIR ? SUP_SAY_CHDIR : SUP_SAY_WATCH));
}

static void home_hint(const struct sup *s, const struct sup_ns_plan *p)
{
	const struct sup_opts *o = s->o;
	/* a home reached through a symlink: the directories are compared canonical */
	_cleanup_free_ char *q = NULL, *home = realpath(p->real_home, NULL);
	char dir[PATH_MAX];
	enum covered c =
		o->verbosity < 0 || !home ? COVERED_NONE : home_covered_dir(s, p, home, dir);
	const char *shown, *what, *writable = sup_say(o->say, SUP_SAY_WRITABLE);
	char covered[64], alt[64] = "";

	if (c == COVERED_NONE)
		return;
	q = iso_shell_quote(dir);
	shown = q ? q : dir;
	name_covered(o, c, covered, sizeof(covered));
	what = o->protect_home == NS_HOME_HIDE
		       ? "hidden home; the command can neither see nor write it"
		       : "protected home; writes there will fail with \"Read-only file system\"";
	/* --writable refuses the home itself: a hint must work when followed */
	if (strcmp(home, dir) == 0) {
		fprintf(stderr, "isorun: %s %s is the %s; %s\n", covered, shown, what,
			sup_say(o->say, SUP_SAY_HOME_WHOLE_FIX));
		return;
	}
	if (c == COVERED_CWD)
		snprintf(alt, sizeof(alt), " (or %s .)", writable);
	fprintf(stderr, "isorun: %s %s lies under the %s; add %s %s%s\n", covered, shown, what,
		writable, shown, alt);
}

/* --protect-home: the real home from the passwd entry, and what stays writable. */
int sup_plan_home(struct sup *s, struct sup_ns_plan *p, struct iso_err *e)
{
	struct tree_tree *t = &s->tree;
	struct passwd *pw;
	int r;

	/* HOME points into the tree by now: the real one is the passwd entry's */
	errno = 0;
	pw = getpwuid(getuid());
	if (!pw || !pw->pw_dir || !*pw->pw_dir)
		return iso_err_set(e, errno ? errno : ENOENT,
				   "%s: find the home of uid %u in the passwd database",
				   sup_say(s->o->say, SUP_SAY_PROTECT_HOME), (unsigned)getuid());
	p->real_home = pw->pw_dir;
	free(s->out->home);
	s->out->home = strdup(pw->pw_dir); /* for the failure's note; none without memory */
	r = home_keeps(s, p, e);
	if (r == 0)
		home_hint(s, p);
	if (r < 0 || s->o->plan.mounts.home != NS_HOME_HIDE)
		return r;
	snprintf(s->ns.empty_dir, sizeof(s->ns.empty_dir), "%s/empty", t->path);
	/* by path: the tree's descriptor is parked while its shield is up */
	if (mkdir(s->ns.empty_dir, 0700) < 0)
		return iso_err_set(e, errno, "create '%s'", s->ns.empty_dir);
	r = ns_home_skeleton(p->real_home, s->ns.empty_dir, p->keep, p->n_keep, e);
	if (r < 0)
		return r;
	/* the hidden home takes no files */
	if (chmod(s->ns.empty_dir, 0500) < 0)
		return iso_err_set(e, errno, "make '%s' read-only", s->ns.empty_dir);
	return 0;
}
