// SPDX-License-Identifier: MIT
#include "launcher/hidden.h"

#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/say.h"
#include "ns/ns.h"

#define MAX_LINKS  40 /* the kernel's own limit on symlinks in one lookup */
#define MAX_LISTED 8

static bool at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

static bool strictly_below(const char *path, const char *dir)
{
	return at_or_below(path, dir) && strcmp(path, dir) != 0;
}

/*
 * cand (canonical parent) lies in the covered root and is neither a kept path,
 * below one, nor a directory on the way to one (those are made again in the cover).
 */
static bool covered(const char *cand, const char *root, char *const *keep, size_t n_keep)
{
	if (!root || !strictly_below(cand, root))
		return false;
	for (size_t i = 0; i < n_keep; i++)
		if (keep[i] && (at_or_below(cand, keep[i]) || strictly_below(keep[i], cand)))
			return false;
	return true;
}

static const char *hidden_at(const struct sup_hidden *h, const char *cand)
{
	for (size_t i = 0; i < ELEMENTSOF(h->tmp); i++)
		if (covered(cand, h->tmp[i], h->tmp_keep, ELEMENTSOF(h->tmp_keep)))
			return sup_say(h->say, SUP_SAY_PRIVATE_TMP);
	if (covered(cand, h->home, h->home_keep, h->n_home_keep))
		return sup_say(h->say, SUP_SAY_HOME_HIDE);
	return NULL;
}

/* The literal path as --private-tmp's re-exposure judges it (launcher/init.c). */
static bool literally_in_tmp(const char *path)
{
	return !strncmp(path, "/tmp/", 5) || !strncmp(path, "/var/tmp/", 9);
}

static void init_home(struct sup_hidden *h, const struct sup_opts *o, const char *tree)
{
	struct passwd *pw = getpwuid(getuid());

	if (!pw || !pw->pw_dir || !(h->home = realpath(pw->pw_dir, NULL)))
		return;
	h->home_keep = calloc(o->writable.n + 1, sizeof(*h->home_keep));
	if (!h->home_keep)
		return;
	h->home_keep[h->n_home_keep++] = realpath(tree, NULL);
	for (size_t i = 0; i < o->writable.n; i++)
		h->home_keep[h->n_home_keep++] = realpath(o->writable.v[i], NULL);
}

void sup_hidden_init(struct sup_hidden *h, const struct sup_opts *o, const char *tree,
		     const char *cwd)
{
	const char *work = o->chdir ? o->chdir : cwd;

	*h = (struct sup_hidden){ .say = o->say };
	h->on = o->plan.hides;
	if (!h->on)
		return;
	h->cwd = work ? realpath(work, NULL) : NULL;
	if (o->plan.mounts.private_tmp) {
		h->tmp[0] = realpath("/tmp", NULL);
		h->tmp[1] = realpath("/var/tmp", NULL);
		if (h->tmp[0] && h->tmp[1] && !strcmp(h->tmp[0], h->tmp[1]))
			free(TAKE_PTR(h->tmp[1]));
		h->tmp_keep[0] = realpath(tree, NULL);
		if (h->cwd && work && literally_in_tmp(work))
			h->tmp_keep[1] = strdup(h->cwd);
	}
	if (o->plan.mounts.home == NS_HOME_HIDE)
		init_home(h, o, tree);
}

void sup_hidden_free(struct sup_hidden *h)
{
	for (size_t i = 0; i < ELEMENTSOF(h->tmp); i++) {
		free(h->tmp[i]);
		free(h->tmp_keep[i]);
	}
	for (size_t i = 0; i < h->n_home_keep; i++)
		free(h->home_keep[i]);
	free(h->home_keep);
	free(h->home);
	free(h->cwd);
	*h = (struct sup_hidden){ 0 };
}

/* cur, a canonical directory, one name further ("..": one up); false when too long. */
static bool step(char *cur, size_t len, const char *name)
{
	if (!strcmp(name, "..")) {
		char *slash = strrchr(cur, '/');

		if (slash == cur)
			cur[1] = '\0';
		else if (slash)
			*slash = '\0';
		return true;
	}
	return (size_t)snprintf(cur + strlen(cur), len - strlen(cur), "%s%s",
				strcmp(cur, "/") ? "/" : "", name) < len - strlen(cur);
}

const char *sup_hidden_by(const struct sup_hidden *h, const char *path, bool whole, char *ret_at,
			  size_t len)
{
	char cur[PATH_MAX], cand[PATH_MAX], rest[PATH_MAX], next[PATH_MAX], link[PATH_MAX];
	const char *found = NULL;
	int links = 0;

	if (!h->on || !*path || (path[0] != '/' && !h->cwd))
		return NULL;
	snprintf(cur, sizeof(cur), "%s", path[0] == '/' ? "/" : h->cwd);
	if ((size_t)snprintf(rest, sizeof(rest), "%s", path) >= sizeof(rest))
		return NULL;
	for (char *p = rest; *p;) {
		char *name = p;
		const char *why;
		struct stat st;
		ssize_t n;

		p = strchrnul(p, '/');
		if (*p)
			*p++ = '\0';
		if (!*name || !strcmp(name, "."))
			continue;
		snprintf(cand, sizeof(cand), "%s", cur);
		if (!step(cand, sizeof(cand), name) || lstat(cand, &st) < 0)
			return whole ? NULL : found; /* not on the host either */
		why = found || !strcmp(name, "..") ? NULL : hidden_at(h, cand);
		if (why) {
			snprintf(ret_at, len, "%s", cand);
			found = why;
			if (!whole)
				return found;
		}
		if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, cand, sizeof(cur));
			continue;
		}
		/* the link's target, then what was left of the path, walked on from here */
		n = readlink(cand, link, sizeof(link) - 1);
		if (n <= 0 || ++links > MAX_LINKS)
			return NULL;
		link[n] = '\0';
		if ((size_t)snprintf(next, sizeof(next), "%s/%s", link, p) >= sizeof(next))
			return NULL;
		memcpy(rest, next, sizeof(rest));
		p = rest;
		if (link[0] == '/')
			snprintf(cur, sizeof(cur), "/");
	}
	return found;
}

/* The interpreter a "#!" line names, into buf; false when path has none. */
static bool interpreter(const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char head[256];
	ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head) - 1);
	size_t start, end;

	if (n < 3 || head[0] != '#' || head[1] != '!')
		return false;
	head[n] = '\0';
	start = 2 + strspn(head + 2, " \t");
	end = start + strcspn(head + start, " \t\n");
	if (end == start || end - start >= len)
		return false;
	memcpy(buf, head + start, end - start);
	buf[end - start] = '\0';
	return true;
}

void sup_hidden_cause(const struct sup_hidden *h, const char *path, char *buf, size_t len)
{
	char at[PATH_MAX], interp[256], fix[PATH_MAX + 128], abs[PATH_MAX * 2];
	const char *why = sup_hidden_by(h, path, true, at, sizeof(at)), *via = "";
	_cleanup_free_ char *q = NULL, *qi = NULL;
	struct stat st;

	buf[0] = '\0';
	/* relative to the command's working directory, not isorun's */
	if (path[0] != '/' && h->cwd)
		snprintf(abs, sizeof(abs), "%s/%s", h->cwd, path);
	else
		snprintf(abs, sizeof(abs), "%s", path);
	/* the kernel answers ENOENT for a script whose interpreter is missing, too */
	if (!why && interpreter(abs, interp, sizeof(interp)) &&
	    (why = sup_hidden_by(h, interp, true, at, sizeof(at))))
		via = (qi = iso_shell_quote(interp)) ? qi : interp;
	if (!why)
		return;
	q = iso_shell_quote(at);
	if (!strcmp(why, sup_say(h->say, SUP_SAY_PRIVATE_TMP)))
		snprintf(fix, sizeof(fix),
			 " (of /tmp and /var/tmp only the working directory and "
			 "the tree stay visible)");
	else if (stat(at, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(fix, sizeof(fix), "; add %s %s, or use %s",
			 sup_say(h->say, SUP_SAY_WRITABLE), q ? q : at,
			 sup_say(h->say, SUP_SAY_HOME_SHOW));
	else
		snprintf(fix, sizeof(fix), "; use %s", sup_say(h->say, SUP_SAY_HOME_SHOW));
	snprintf(buf, len, "%s%s%s%s hides %s from the command%s", via[0] ? "its interpreter " : "",
		 via, via[0] ? ": " : "", why, q ? q : at, fix);
}

/* A list of what one option hides, for the line before the start. */
struct listing {
	const char *opt;
	char line[1024];
	size_t n, more;
};

/* item already in the ", "-separated line */
static bool listed(const char *line, const char *item)
{
	size_t n = strlen(item);

	for (const char *p = line; (p = strstr(p, item)); p++)
		if ((p == line || !strncmp(p - 2, ", ", 2)) && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

/* path, when this option hides it: named, or counted past the room; false when not hidden */
static bool list_add(struct listing *l, const struct sup_hidden *h, const char *path,
		     const char *where)
{
	char at[PATH_MAX], item[PATH_MAX + 64];
	const char *why = sup_hidden_by(h, path, false, at, sizeof(at));
	_cleanup_free_ char *q = NULL;
	size_t used = strlen(l->line);

	if (!why || strcmp(why, l->opt))
		return false;
	q = iso_shell_quote(path);
	snprintf(item, sizeof(item), "%s (%s)", q ? q : path, where);
	if (listed(l->line, item))
		return true; /* a PATH that names a directory twice */
	/* past the room or the count: only counted, "and N more" */
	if (l->n++ >= MAX_LISTED || used + 2 + strlen(item) >= sizeof(l->line)) {
		l->more++;
		return true;
	}
	if (used)
		strcat(l->line, ", ");
	strcat(l->line, item);
	return true;
}

/* Each entry of a PATH-like list; an empty one is the working directory, as execvp takes it. */
static void list_var(struct listing *l, const struct sup_hidden *h, char *const *envp,
		     const char *var, const char *seps)
{
	size_t n = strlen(var);

	for (size_t i = 0; envp && envp[i]; i++) {
		_cleanup_free_ char *v = NULL;
		char *save = NULL;

		if (strncmp(envp[i], var, n) || envp[i][n] != '=' || !(v = strdup(envp[i] + n + 1)))
			continue;
		for (char *e = strtok_r(v, seps, &save); e; e = strtok_r(NULL, seps, &save))
			list_add(l, h, e, var);
	}
}

/*
 * What may stand before an absolute path inside a word, and what ends one: a
 * shell's words and quotes (sh -c 'cat /tmp/x/data'), an option's '=', a list's
 * ':' or ','; a glob or a variable ends it too, so that a pattern of files in
 * /tmp/x is judged by /tmp/x/.
 */
#define PATH_BEFORE " \t\n'\"`=:;,(<>|&{["
#define PATH_END    " \t\n'\"`:;,()<>|&{}[]$*?"

/* Each absolute path inside word (not the whole word: the caller judged it). */
static void list_inside(struct listing *l, const struct sup_hidden *h, const char *word,
			const char *where)
{
	for (const char *p = word; (p = strchr(p, '/'));) {
		size_t n = strcspn(p, PATH_END);
		char path[PATH_MAX];

		if (p != word && strchr(PATH_BEFORE, p[-1]) && n < sizeof(path)) {
			memcpy(path, p, n);
			path[n] = '\0';
			list_add(l, h, path, where);
		}
		p += n ? n : 1;
	}
}

static void list_argv(struct listing *l, const struct sup_hidden *h, char *const *argv,
		      bool relative)
{
	char where[32];

	for (size_t i = 1; argv[i]; i++) {
		/* --opt=PATH: the value */
		const char *eq = argv[i][0] == '-' ? strchr(argv[i], '=') : NULL;
		const char *p = eq ? eq + 1 : argv[i];

		snprintf(where, sizeof(where), "argument %zu", i);
		if (strchr(p, '/') && (p[0] == '/' || relative) && list_add(l, h, p, where))
			continue;
		/* else the paths inside it: an `sh -c` string, a list (issue 39 item 16) */
		list_inside(l, h, argv[i], where);
	}
}

void sup_hidden_warn(FILE *f, const struct sup_hidden *h, char *const *argv, char *const *envp)
{
	const char *const opts[] = { sup_say(h->say, SUP_SAY_PRIVATE_TMP),
				     sup_say(h->say, SUP_SAY_HOME_HIDE) };
	char at[PATH_MAX];
	/* a hidden working directory fails the start with its own line: its paths would echo it */
	bool relative = h->cwd && !sup_hidden_by(h, h->cwd, false, at, sizeof(at));

	if (!h->on)
		return;
	for (size_t i = 0; i < ELEMENTSOF(opts); i++) {
		struct listing l = { .opt = opts[i] };

		list_argv(&l, h, argv, relative);
		list_var(&l, h, envp, "PATH", ":");
		list_var(&l, h, envp, "LD_LIBRARY_PATH", ":;");
		if (!l.n)
			continue;
		fprintf(f, "isorun: %s hides from the command: %s", l.opt, l.line);
		if (l.more)
			fprintf(f, " and %zu more", l.more);
		fputc('\n', f);
	}
}
