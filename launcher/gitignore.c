// SPDX-License-Identifier: MIT
/*
 * The checkout's ignore rules, read before the run and matched as git matches
 * them (gitignore(5), git's dir.c and wildmatch): nothing is executed, so
 * nothing the checkout or the command wrote (a git in PATH, core.fsmonitor,
 * hooks, include.path) can run, and a rule file the command writes or changes
 * is never read.
 */
#include "launcher/gitignore.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/cleanup.h"

/* A .git that git itself would take: a directory with HEAD, or a file (a worktree's link). */
static bool is_git_here(const char *dir)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s/.git", dir);
	if (lstat(p, &st) < 0)
		return false;
	if (S_ISREG(st.st_mode))
		return true;
	snprintf(p, sizeof(p), "%s/.git/HEAD", dir);
	return S_ISDIR(st.st_mode) && lstat(p, &st) == 0;
}

/*
 * A rule file's bytes, NUL-terminated, at most `max`: 1 read, 0 nothing to read
 * (missing, a symlink with O_NOFOLLOW as git >= 2.32 reads in-tree rule files,
 * not a regular file), -errno (-EFBIG: too large).  Never blocks on a FIFO.
 */
static int read_small(const char *path, int flags, size_t max, char **ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	ssize_t got;

	*ret = NULL;
	if (fd < 0)
		return errno == ENOENT || errno == ELOOP || errno == ENOTDIR ? 0 : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	if ((size_t)st.st_size > max)
		return -EFBIG;
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return -ENOMEM;
	got = iso_read_all(fd, buf, (size_t)st.st_size);
	if (got < 0)
		return (int)got;
	buf[got] = '\0';
	*ret = buf;
	buf = NULL;
	return 1;
}

/* Trailing spaces go unless a backslash quotes them (git's trim_trailing_spaces). */
static void trim_spaces(char *s)
{
	char *last = NULL;

	for (char *p = s; *p; p++) {
		if (*p == ' ') {
			if (!last)
				last = p;
			continue;
		}
		last = NULL;
		if (*p == '\\' && !*++p)
			return;
	}
	if (last)
		*last = '\0';
}

/* One line, trimmed, into a rule; false for a blank line or a comment. */
static bool parse_line(char *s, unsigned line, struct sup_git_rule *r)
{
	const char *p = s;
	size_t len;

	if (!s[0] || s[0] == '#')
		return false;
	trim_spaces(s);
	if (!s[0])
		return false;
	*r = (struct sup_git_rule){ .text = s, .line = line };
	if (*p == '!') {
		r->neg = true;
		p++;
	}
	len = strlen(p);
	if (len && p[len - 1] == '/') {
		r->dir_only = true;
		len--;
	}
	r->anywhere = !memchr(p, '/', len);
	if (!r->anywhere && *p == '/') {
		p++;
		len--;
	}
	r->pat = strndup(p, len);
	return r->pat != NULL;
}

/* The file's lines into rules, as git splits them: '\n', a '\r' before it dropped, a BOM skipped.
 */
static int parse_rules(struct sup_git_rulefile *f)
{
	char *s = f->buf;
	size_t cap = 0;

	if (!strncmp(s, "\xef\xbb\xbf", 3))
		s += 3;
	for (unsigned line = 1; s; line++) {
		char *nl = strchr(s, '\n'), *next = nl ? nl + 1 : NULL;

		if (nl) {
			*nl = '\0';
			if (nl > s && nl[-1] == '\r')
				nl[-1] = '\0';
		}
		if (f->n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			struct sup_git_rule *nv = realloc(f->r, nc * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			f->r = nv;
			cap = nc;
		}
		if (parse_line(s, line, &f->r[f->n]))
			f->n++;
		s = next;
	}
	return 0;
}

static void file_free(struct sup_git_rulefile *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->r[i].pat);
	free(f->r);
	free(f->buf);
	free(f->src);
	free(f->base);
}

/* The rule file at `path` into g->files (taken as the list's next), or g->why. */
static void add_file(struct sup_git_rules *g, const char *path, int flags, const char *src,
		     const char *base)
{
	struct sup_git_rulefile f = { 0 }, *nv;
	int r;

	if (g->why[0] && g->n_files) /* nothing will be applied: read no more */
		return;
	r = read_small(path, flags, SUP_GIT_RULES_MAX, &f.buf);
	if (r > 0 && (g->bytes += strlen(f.buf)) > SUP_GIT_RULES_ALL && !g->why[0])
		snprintf(g->why, sizeof(g->why), "the rule files are larger than %d bytes together",
			 SUP_GIT_RULES_ALL);
	if (r == -EFBIG && !g->why[0])
		snprintf(g->why, sizeof(g->why), "'%s' is larger than %d bytes", src,
			 SUP_GIT_RULES_MAX);
	else if (r < 0 && !g->why[0])
		snprintf(g->why, sizeof(g->why), "read '%s': %s", path, strerror(-r));
	if (r <= 0 && g->n_files) /* files[0], info/exclude, is there even when empty */
		return;
	f.src = strdup(src);
	f.base = strdup(base);
	nv = realloc(g->files, (g->n_files + 1) * sizeof(*nv));
	if (!f.src || !f.base || !nv || (f.buf && parse_rules(&f) < 0)) {
		if (nv)
			g->files = nv;
		file_free(&f);
		if (!g->why[0])
			snprintf(g->why, sizeof(g->why), "out of memory");
		return;
	}
	g->files = nv;
	g->files[g->n_files++] = f;
}

/*
 * The repository's info/exclude: in .git, or where a .git file (a worktree, a
 * submodule) points, in its common directory.  src: as git names it.
 */
static void add_exclude(struct sup_git_rules *g)
{
	char p[PATH_MAX * 4], gitdir[PATH_MAX], common[PATH_MAX * 3];
	_cleanup_free_ char *link = NULL, *cd = NULL;
	struct stat st;

	snprintf(p, sizeof(p), "%s/.git", g->top);
	if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(p, sizeof(p), "%s/.git/info/exclude", g->top);
		add_file(g, p, 0, ".git/info/exclude", "");
		return;
	}
	if (read_small(p, O_NOFOLLOW, 4096, &link) <= 0 || strncmp(link, "gitdir: ", 8)) {
		add_file(g, "/dev/null", 0, ".git/info/exclude", "");
		return;
	}
	link[strcspn(link, "\r\n")] = '\0';
	if (link[8] == '/')
		snprintf(gitdir, sizeof(gitdir), "%s", link + 8);
	else
		snprintf(gitdir, sizeof(gitdir), "%s/%s", g->top, link + 8);
	snprintf(p, sizeof(p), "%s/commondir", gitdir);
	if (read_small(p, 0, 4096, &cd) > 0) {
		cd[strcspn(cd, "\r\n")] = '\0';
		snprintf(common, sizeof(common), "%s%s%s", cd[0] == '/' ? "" : gitdir,
			 cd[0] == '/' ? "" : "/", cd);
	} else {
		snprintf(common, sizeof(common), "%s", gitdir);
	}
	snprintf(p, sizeof(p), "%s/info/exclude", common);
	add_file(g, p, 0, p, "");
}

/* A .gitignore, rel its directory from the top ("" or "a/b/"). */
static void add_ignore(struct sup_git_rules *g, const char *rel)
{
	char p[PATH_MAX * 2], src[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/%s.gitignore", g->top, rel);
	snprintf(src, sizeof(src), "%s.gitignore", rel);
	add_file(g, p, O_NOFOLLOW, src, rel);
}

static int cmp_base(const void *a, const void *b)
{
	return strcmp(((const struct sup_git_rulefile *)a)->base,
		      ((const struct sup_git_rulefile *)b)->base);
}

/* info/exclude, the .gitignore files from the top down to the directory, and those the walk found.
 */
static void take_rules(const char *canon, char *const *paths, size_t n, struct sup_git_rules *g)
{
	char rel[PATH_MAX + 1];
	size_t top = strlen(g->top);

	add_exclude(g);
	/* the top's own, then each directory down to the watched one */
	snprintf(rel, sizeof(rel), "%s%s", canon + top + (canon[top] == '/'),
		 canon[top] ? "/" : "");
	g->rel = strdup(rel);
	for (char *s = rel;; s++) {
		char keep = *s;

		*s = '\0';
		add_ignore(g, rel);
		*s = keep;
		s = strchr(s, '/');
		if (!s)
			break;
	}
	for (size_t i = 0; i < n; i++) {
		const char *b = strrchr(paths[i], '/');
		char dir[PATH_MAX * 2];

		/* the watched directory's own was taken above */
		if (!b || strcmp(b + 1, ".gitignore"))
			continue;
		snprintf(dir, sizeof(dir), "%s%.*s", g->rel ? g->rel : "", (int)(b + 1 - paths[i]),
			 paths[i]);
		add_ignore(g, dir);
	}
	if (g->n_files > 1)
		qsort(g->files + 1, g->n_files - 1, sizeof(*g->files), cmp_base);
	if (!g->rel && !g->why[0])
		snprintf(g->why, sizeof(g->why), "out of memory");
}

void sup_git_rules_take(const char *dir, char *const *paths, size_t n, struct sup_git_rules *g)
{
	char canon[PATH_MAX], p[PATH_MAX];

	*g = (struct sup_git_rules){ 0 };
	if (!realpath(dir, canon))
		return;
	snprintf(p, sizeof(p), "%s", canon);
	while (!is_git_here(p[0] ? p : "/")) {
		char *slash = strrchr(p, '/');

		if (!slash || !p[0])
			return;
		*slash = '\0';
	}
	g->in_repo = true;
	snprintf(g->top, sizeof(g->top), "%s", p);
	take_rules(canon, paths, n, g);
}

void sup_git_rules_free(struct sup_git_rules *g)
{
	for (size_t i = 0; i < g->n_files; i++)
		file_free(&g->files[i]);
	free(g->files);
	free(g->rel);
	*g = (struct sup_git_rules){ 0 };
}

/* wildmatch's answers: ABORT_ALL and TO_STARSTAR end the backtracking early. */
enum { WM_MATCH, WM_NOMATCH, WM_ABORT_ALL, WM_ABORT_TO_STARSTAR };

/* [:name:] for c (ASCII, as git's ctype); -1 for a name git does not know. */
static int in_class(const unsigned char *s, size_t len, unsigned char c)
{
	static const struct {
		const char *name;
		int (*is)(int);
	} classes[] = { { "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
			{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
			{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
			{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit } };

	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strlen(classes[i].name) == len && !memcmp(s, classes[i].name, len))
			return c < 0x80 && classes[i].is(c);
	return -1;
}

/*
 * A bracket expression at *pp (just past '['): whether c is in it, *pp left on
 * its ']'; -1 when it is not closed or names an unknown class.  As git: '!' or
 * '^' negates, a ']' first is literal, '\' quotes, "a-z" ranges, "[:alpha:]".
 */
static int bracket(const unsigned char **pp, unsigned char c)
{
	const unsigned char *p = *pp;
	unsigned char prev = 0;
	bool neg = *p == '!' || *p == '^', hit = false;

	for (p += neg;; p++) {
		unsigned char ch = *p;

		if (!ch)
			return -1;
		if (ch == ']' && p > *pp + neg)
			break;
		if (ch == '\\') {
			if (!(ch = *++p))
				return -1;
		} else if (ch == '-' && prev && p[1] && p[1] != ']') {
			unsigned char hi = *++p;

			if (hi == '\\' && !(hi = *++p))
				return -1;
			hit |= c >= prev && c <= hi;
			prev = 0;
			continue;
		} else if (ch == '[' && p[1] == ':') {
			const unsigned char *s = p + 2, *e = s;
			int k;

			while (*e && *e != ']')
				e++;
			if (!*e)
				return -1;
			if (e > s && e[-1] == ':') {
				k = in_class(s, (size_t)(e - s - 1), c);
				if (k < 0)
					return -1;
				hit |= k;
				prev = 0;
				p = e;
				continue;
			}
		}
		hit |= c == ch;
		prev = ch;
	}
	*pp = p;
	return hit != neg;
}

static int wild(const unsigned char *p, const unsigned char *t);

/*
 * p at a '*' (or a run of them), t what is left to match.  One '*' stops at
 * '/'; "**" crosses slashes only as a whole segment ("**<slash>", "<slash>**",
 * "a<slash>**<slash>b"), elsewhere it is one '*'.
 */
static int star(const unsigned char *start, const unsigned char *p, const unsigned char *t)
{
	bool cross = false;

	if (p[1] == '*') {
		const unsigned char *before = p - 1;

		while (*p == '*')
			p++;
		cross = (before < start || *before == '/') &&
			(!*p || *p == '/' || (p[0] == '\\' && p[1] == '/'));
		/* "a<slash>**<slash>b" matches "a/b": the segment may be none */
		if (cross && *p == '/' && wild(p + 1, t) == WM_MATCH)
			return WM_MATCH;
	} else {
		p++;
	}
	if (!*p)
		return cross || !strchr((const char *)t, '/') ? WM_MATCH : WM_NOMATCH;
	if (!cross && *p == '/') {
		const unsigned char *slash = (const unsigned char *)strchr((const char *)t, '/');

		return slash ? wild(p, slash) : WM_NOMATCH;
	}
	for (; *t; t++) {
		int m;

		/* a literal next: skip to where it occurs, not past a '/' for one '*' */
		if (!strchr("*?[\\", *p)) {
			while (*t && *t != *p && (cross || *t != '/'))
				t++;
			if (*t != *p)
				return WM_NOMATCH;
		}
		m = wild(p, t);
		if (m != WM_NOMATCH) {
			if (!cross || m != WM_ABORT_TO_STARSTAR)
				return m;
		} else if (!cross && *t == '/') {
			return WM_ABORT_TO_STARSTAR;
		}
	}
	return WM_ABORT_ALL;
}

static int wild(const unsigned char *p, const unsigned char *t)
{
	const unsigned char *start = p;

	for (; *p; p++, t++) {
		int k;

		if (!*t && *p != '*')
			return WM_ABORT_ALL;
		switch (*p) {
		case '*':
			return star(start, p, t);
		case '?':
			if (*t == '/')
				return WM_NOMATCH;
			break;
		case '[':
			p++;
			k = bracket(&p, *t);
			if (k < 0)
				return WM_ABORT_ALL;
			if (!k || *t == '/')
				return WM_NOMATCH;
			break;
		case '\\':
			if (!p[1] || *t != p[1])
				return WM_NOMATCH;
			p++;
			break;
		default:
			if (*t != *p)
				return WM_NOMATCH;
		}
	}
	return *t ? WM_NOMATCH : WM_MATCH;
}

bool sup_git_wildmatch(const char *pattern, const char *text)
{
	return wild((const unsigned char *)pattern, (const unsigned char *)text) == WM_MATCH;
}

/* Whether rule r of file f matches path (from the top, no trailing '/'). */
static bool rule_matches(const struct sup_git_rulefile *f, const struct sup_git_rule *r,
			 const char *path, bool is_dir)
{
	size_t bl = strlen(f->base);
	const char *name = strrchr(path, '/');

	if (r->dir_only && !is_dir)
		return false;
	if (r->anywhere)
		return sup_git_wildmatch(r->pat, name ? name + 1 : path);
	return !strncmp(path, f->base, bl) && path[bl] && sup_git_wildmatch(r->pat, path + bl);
}

/* The file's last line that matches: it decides (a negation too). */
static const struct sup_git_rule *last_match(const struct sup_git_rulefile *f, const char *path,
					     bool is_dir)
{
	for (size_t i = f->n; i-- > 0;)
		if (rule_matches(f, &f->r[i], path, is_dir))
			return &f->r[i];
	return NULL;
}

/* The .gitignore whose directory is the first `len` bytes of `dir`, or NULL. */
static const struct sup_git_rulefile *file_at(const struct sup_git_rules *g, const char *dir,
					      size_t len)
{
	size_t lo = 1, hi = g->n_files;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const char *b = g->files[mid].base;
		int c = strncmp(dir, b, len);

		if (!c)
			c = b[len] ? -1 : 0;
		if (!c)
			return &g->files[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/*
 * The rule that decides path (from the top, no trailing '/'), a negation
 * included, or NULL: the deepest .gitignore with a matching line, from the
 * path's directory up to the top, then info/exclude (git's precedence).
 */
static const struct sup_git_rule *decide(const struct sup_git_rules *g, const char *path,
					 bool is_dir, const struct sup_git_rulefile **from)
{
	const char *slash = strrchr(path, '/');
	size_t len = slash ? (size_t)(slash + 1 - path) : 0;

	for (;;) {
		const struct sup_git_rulefile *f = file_at(g, path, len);
		const struct sup_git_rule *r = f ? last_match(f, path, is_dir) : NULL;

		if (r) {
			*from = f;
			return r;
		}
		if (!len)
			break;
		for (len--; len && path[len - 1] != '/'; len--)
			;
	}
	*from = &g->files[0];
	return last_match(&g->files[0], path, is_dir);
}

/*
 * Whether path is ignored, and by which rule: as git, a directory that is
 * ignored takes everything below it along (its rule is theirs), and a
 * negation cannot bring back what lies in an ignored directory.
 */
static const struct sup_git_rule *ignored_by(const struct sup_git_rules *g, char *path,
					     const struct sup_git_rulefile **from)
{
	size_t len = strlen(path);
	bool is_dir = len && path[len - 1] == '/';
	const struct sup_git_rule *r;

	if (is_dir)
		path[--len] = '\0';
	for (char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		r = decide(g, path, true, from);
		*s = '/';
		if (r && !r->neg)
			return r;
	}
	r = decide(g, path, is_dir, from);
	return r && !r->neg ? r : NULL;
}

int sup_git_check_ignore(const struct sup_git_rules *rules, const char *const *paths, size_t n,
			 char **by, struct iso_err *e)
{
	memset(by, 0, n * sizeof(*by));
	if (rules->why[0]) {
		iso_err_set(e, 0, "%s", rules->why);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sup_git_rulefile *f = NULL;
		const struct sup_git_rule *r;
		char *full = NULL;

		if (asprintf(&full, "%s%s", rules->rel, paths[i]) < 0) {
			for (size_t k = 0; k < i; k++) {
				free(by[k]);
				by[k] = NULL;
			}
			iso_err_set(e, 0, "out of memory");
			return -1;
		}
		r = ignored_by(rules, full, &f);
		if (r && asprintf(&by[i], "%s:%u:%s", f->src, r->line, r->text) < 0)
			by[i] = NULL;
		free(full);
	}
	return 0;
}
