// SPDX-License-Identifier: MIT
/*
 * What the run left behind where isorun looks after it: new entries in the
 * --watch directories (less what the checkout's .gitignore and the
 * --watch-ignore globs ignore), and the files it wrote in its private home.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/nowait.h"
#include "launcher/sup.h"

/* `path`, under the watched directory `canon` (canonical), is the tree or holds it. */
static bool holds_tree(const char *canon, const char *path, const char *tree)
{
	char full[PATH_MAX * 2];
	size_t len;

	if (!tree[0] || !canon[0])
		return false;
	snprintf(full, sizeof(full), "%s/%s", canon, path);
	len = strlen(full);
	if (len && full[len - 1] == '/') /* a new directory is named with a slash */
		full[--len] = '\0';
	return strncmp(tree, full, len) == 0 && (tree[len] == '\0' || tree[len] == '/');
}

static void residue_note(struct sup_residue_gap **v, size_t *n, const char *dir, const char *why)
{
	struct sup_residue_gap *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return;
	*v = nv;
	nv[*n] = (struct sup_residue_gap){ .dir = dir };
	snprintf(nv[(*n)++].why, sizeof(nv->why), "%s", why);
}

static void push_entry(struct sup_residue_entry **v, size_t *n, const char *dir, const char *path,
		       const char *by)
{
	struct sup_residue_entry *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return;
	*v = nv;
	nv[(*n)++] = (struct sup_residue_entry){ .dir = dir,
						 .path = strdup(path),
						 .by = by ? strdup(by) : NULL };
}

/* The --watch-ignore globs: by[i] is the first one that matches added[i], as the command line words
 * it. */
static void apply_globs(const struct sup_opts *o, const char *const *added, size_t n, char **by)
{
	for (size_t i = 0; i < n; i++)
		for (size_t g = 0; g < o->watch_ignore.n && !by[i]; g++)
			if (sup_glob_ignores(o->watch_ignore.v[g], added[i]))
				by[i] = strdup(g < o->watch_ignore_by.n ? o->watch_ignore_by.v[g]
									: o->watch_ignore.v[g]);
}

/*
 * The checkout's ignore rules as they stood before the run: a .gitignore the
 * command wrote or changed is input, never a reason to hide what it left (a
 * new one in a new directory, pytest's .pytest_cache/.gitignore, is simply not
 * read).  A directory they could not be applied to gets a note.
 */
static void apply_git(struct sup *s, size_t w, const char *const *added, size_t n, char **by)
{
	char **git = calloc(n ? n : 1, sizeof(*git));
	struct iso_err e = { 0 };
	char why[384] = "";

	if (!git)
		snprintf(why, sizeof(why), "out of memory");
	else if (sup_git_check_ignore(&s->git[w], added, n, git, &e) < 0)
		iso_err_format(&e, why, sizeof(why));
	if (why[0])
		residue_note(&s->out->residue_notes, &s->out->n_residue_notes, s->snaps[w].dir,
			     why);
	for (size_t i = 0; git && i < n; i++) {
		if (!by[i])
			by[i] = git[i];
		else
			free(git[i]);
	}
	free(git);
}

/* The new entries of watched directory w, sorted into residue and ignored. */
static void sort_added(struct sup *s, size_t w, const char *const *added, size_t n,
		       const char *tree)
{
	struct sup_outcome *out = s->out;
	char **by = calloc(n ? n : 1, sizeof(*by)), canon[PATH_MAX];
	/* one allocation: residue[0..n) and shown[0..n) after it */
	bool *residue = calloc(n ? n : 1, 2 * sizeof(bool)), *shown = NULL;
	const char *dir = s->snaps[w].dir;

	if (by && residue) {
		shown = residue + (n ? n : 1);
		apply_globs(s->o, added, n, by);
		if (s->git[w].in_repo)
			apply_git(s, w, added, n, by);
	}
	if (!by || !residue ||
	    sup_residue_sort(added, n, (const char *const *)by, residue, shown) < 0) {
		residue_note(&out->residue_gaps, &out->n_residue_gaps, dir,
			     "out of memory comparing the walks");
		n = 0;
	}
	if (!realpath(dir, canon))
		canon[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (holds_tree(canon, added[i], tree))
			continue;
		if (residue[i])
			push_entry(&out->residue, &out->n_residue, dir, added[i], NULL);
		else if (shown[i] && out->n_residue_ignored >= SUP_IGNORED_MAX)
			out->n_residue_ignored_more++;
		else if (shown[i])
			push_entry(&out->residue_ignored, &out->n_residue_ignored, dir, added[i],
				   by[i]);
	}
	for (size_t i = 0; by && i < n; i++)
		free(by[i]);
	free(by);
	free(residue);
}

/*
 * Residue in the watched directories; isorun's own tree (a --root inside one) is
 * not.  A directory whose walks cannot be compared is a gap, never an empty list.
 */
void sup_collect_residue(struct sup *s)
{
	struct sup_outcome *out = s->out;
	char tree[PATH_MAX] = "";

	if (!realpath(out->tree_path, tree))
		tree[0] = '\0';
	for (size_t w = 0; w < s->o->watch.n; w++) {
		struct sup_snapshot after = { 0 };
		const char **added = NULL;
		size_t n = 0;
		struct iso_err e = { 0 };
		char why[384];

		if (sup_snapshot_compare(&s->snaps[w], &after, tree[0] ? tree : NULL, &added, &n,
					 &e) < 0)
			residue_note(&out->residue_gaps, &out->n_residue_gaps, s->snaps[w].dir,
				     iso_err_format(&e, why, sizeof(why)));
		else
			sort_added(s, w, added, n, tree);
		free(added);
		sup_snapshot_free(&after);
	}
}

/* The walk of the private home is bounded: a suite may fill it. */
#define HOME_WALK_MAX	20000
#define HOME_WALK_DEPTH 32
#define HOME_WALK_MS	2000

struct home_walk {
	char **dirs; /* directories still to list, relative to the home, each ending in '/' */
	size_t n_dirs, next;
	size_t seen;
	uint64_t deadline_ms;
	struct sup_outcome *out;
};

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int depth_of(const char *rel)
{
	int d = 0;

	for (; *rel; rel++)
		d += *rel == '/';
	return d;
}

/* Append p (malloc'ed) to the list; false, and p freed, without memory. */
static bool push_path(char ***v, size_t *n, char *p)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv) {
		free(p);
		return false;
	}
	*v = nv;
	nv[(*n)++] = p;
	return true;
}

/* One entry of the home: a directory to list later, a file to name; false: stop the walk. */
static bool home_entry(struct home_walk *hw, const char *rel, const struct dirent *de)
{
	struct sup_outcome *out = hw->out;
	char *p = NULL;

	if (++hw->seen > HOME_WALK_MAX) {
		snprintf(out->home_unmeasurable, sizeof(out->home_unmeasurable),
			 "more than %d entries", HOME_WALK_MAX);
		return false;
	}
	/* XDG_CACHE_HOME is the tools' to fill: not what a suite wrote on purpose */
	if (!rel[0] && !strcmp(de->d_name, ".cache"))
		return true;
	if (asprintf(&p, "%s%s%s", rel, de->d_name, de->d_type == DT_DIR ? "/" : "") < 0)
		return false;
	if (de->d_type == DT_DIR)
		return push_path(&hw->dirs, &hw->n_dirs, p);
	if (out->n_home_writes >= SUP_HOME_WRITES_MAX) {
		out->n_home_writes_more++;
		free(p);
		return true;
	}
	return push_path(&out->home_writes, &out->n_home_writes, p);
}

/* List the directory rel (relative to home; "" the home itself); false: stop the walk. */
static bool home_list(struct home_walk *hw, int home, const char *rel)
{
	struct sup_outcome *out = hw->out;
	/* no symlink followed, no other mount entered (one the command serves may not answer) */
	int fd = rel[0] ? iso_open_dir_here(home, rel) : fcntl(home, F_DUPFD_CLOEXEC, 0);
	struct dirent *de;
	bool go_on = true;
	DIR *d;

	if (fd < 0) {
		if (errno != ENOENT && errno != ENOTDIR)
			snprintf(out->home_unmeasurable, sizeof(out->home_unmeasurable),
				 "'%s' could not be read: %s", rel, strerror(errno));
		return errno == ENOENT || errno == ENOTDIR;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return false;
	}
	while (go_on && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			go_on = home_entry(hw, rel, de);
	closedir(d);
	return go_on;
}

/*
 * What the run wrote in its private home outside the XDG cache: the home starts
 * empty, so every file in it is the run's.  Files are named (directories are
 * only walked), at most SUP_HOME_WRITES_MAX; the walk stops at HOME_WALK_MAX
 * entries, HOME_WALK_DEPTH levels or HOME_WALK_MS, and says so.
 */
void sup_collect_home(struct sup *s)
{
	struct home_walk hw = { .out = s->out, .deadline_ms = iso_now_ms() + HOME_WALK_MS };
	int home = s->tree.fd >= 0 ? iso_open_dir_here(s->tree.fd, "home") : -1;

	if (home < 0)
		return;
	s->out->home_walked = true;
	for (const char *rel = ""; rel; rel = hw.next < hw.n_dirs ? hw.dirs[hw.next++] : NULL) {
		if (iso_now_ms() > hw.deadline_ms) {
			snprintf(s->out->home_unmeasurable, sizeof(s->out->home_unmeasurable),
				 "the walk took longer than %d ms", HOME_WALK_MS);
			break;
		}
		if (depth_of(rel) > HOME_WALK_DEPTH) {
			snprintf(s->out->home_unmeasurable, sizeof(s->out->home_unmeasurable),
				 "deeper than %d levels", HOME_WALK_DEPTH);
			continue;
		}
		if (!home_list(&hw, home, rel))
			break;
	}
	if (s->out->n_home_writes)
		qsort(s->out->home_writes, s->out->n_home_writes, sizeof(char *), cmp_path);
	for (size_t i = 0; i < hw.n_dirs; i++)
		free(hw.dirs[i]);
	free(hw.dirs);
	close(home);
}
