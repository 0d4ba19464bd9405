// SPDX-License-Identifier: MIT
/* isorun.conf: find it, refuse it unless only its owner can change it, map it onto sup_opts. */
#include "cli/conf.h"
#include "cli/keys.h"

#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ini.h>

#include "common/io.h"
#include "common/cleanup.h"
#include "common/exit.h"
#include "cli/conftrust.h"
#include "cli/expand.h"
#include "cli/suggest.h"

static const char conf_hint[] = "--no-config reads no isorun.conf; --config FILE names another";

/* libinih reads through us one line at a time: that is how errors get their line. */
struct conf_parse {
	struct sup_opts *o;
	const struct sup_opts *cli; /* the command line's settings alone; NULL: not checked */
	const char *path;
	char *dir;
	const char *p, *end;
	unsigned line;
	char *buf; /* the line as handed to libinih, whose values point into it */
	size_t buf_len;
	size_t skipped; /* bytes of the line dropped before buf (a BOM, blanks) */
	bool failed;	/* at line failed_line: nothing more is read */
	unsigned failed_line;
	struct iso_err *e;
};

static __attribute__((format(printf, 2, 3))) void fail_at(struct conf_parse *cp, const char *fmt,
							  ...)
{
	char msg[sizeof(cp->e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	iso_err_set(cp->e, 0, "%s:%u: %s", cp->path, cp->line, msg);
	cp->failed = true;
	cp->failed_line = cp->line;
}

/* A value refused: file:line:column of the value, as a policy file's errors. */
static void fail_value(struct conf_parse *cp, const char *value, const struct iso_err *sub)
{
	char buf[sizeof(sub->msg) + 64];
	size_t col = 0;

	if (cp->buf && value >= cp->buf && value <= cp->buf + cp->buf_len)
		col = (size_t)(value - cp->buf) + cp->skipped + 1;
	iso_err_format(sub, buf, sizeof(buf));
	if (col)
		iso_err_set(cp->e, 0, "%s:%u:%zu: %s", cp->path, cp->line, col, buf);
	else
		iso_err_set(cp->e, 0, "%s:%u: %s", cp->path, cp->line, buf);
	cp->failed = true;
	cp->failed_line = cp->line;
}

/* The name of a section header, blanks around it ignored, is "isorun". */
static bool is_isorun(const char *a, const char *b)
{
	while (a < b && (*a == ' ' || *a == '\t'))
		a++;
	while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
		b--;
	return (size_t)(b - a) == strlen("isorun") && strncmp(a, "isorun", 6) == 0;
}

/* A section header "[name]" on `s` (already without leading blanks): only [isorun]. */
static bool section_ok(struct conf_parse *cp, const char *s)
{
	const char *close = strchr(s, ']');

	if (!close)
		return true; /* libinih reports the broken header */
	if (is_isorun(s + 1, close))
		return true;
	fail_at(cp, "[%.*s]: unknown section (settings go before any section or in [isorun])",
		(int)(close - s - 1), s + 1);
	return false;
}

/* The same as fail_at(), pointing at a column (from 1) of the line. */
static void fail_at_col(struct conf_parse *cp, size_t col, const char *msg)
{
	iso_err_set(cp->e, 0, "%s:%u:%zu: %s", cp->path, cp->line, col, msg);
	cp->failed = true;
	cp->failed_line = cp->line;
}

/*
 * libinih cuts a value at a ';' after a blank (Debian builds it with
 * INI_ALLOW_INLINE_COMMENTS, prefix ";", fixed when the library is compiled)
 * and keeps a '#' in the same place, so `setenv = X=a ;b` would be X=a while
 * `X=a #b` stays whole.  isorun.conf has no inline comments, and one rule for
 * both characters: on a setting or section line, a ';' or '#' after a blank or
 * at the start of a value, or anything but blanks after a section's ']', is an
 * error at its column.  `s` has no leading blanks; their count is `lead`.
 */
static bool inline_comment_ok(struct conf_parse *cp, const char *s, size_t len, size_t lead)
{
	const char *close = s[0] == '[' ? memchr(s, ']', len) : NULL;
	size_t i, v = strcspn(s, "=:"); /* libinih splits at the first '=' or ':' */
	char msg[160];

	if (!len || s[0] == ';' || s[0] == '#')
		return true;
	if (s[0] == '[') {
		for (i = close ? (size_t)(close - s) + 1 : len; i < len; i++)
			if (!isspace((unsigned char)s[i])) {
				fail_at_col(cp, lead + i + 1,
					    "text after ']': isorun.conf has no inline comments "
					    "(put a comment on a line of its own)");
				return false;
			}
		return true;
	}
	for (i = 1; i < len; i++)
		if ((s[i] == ';' || s[i] == '#') && isspace((unsigned char)s[i - 1]))
			break;
	/* the value starts after the separator and its blanks */
	for (v = v < len ? v + 1 : len; v < len && (s[v] == ' ' || s[v] == '\t'); v++)
		;
	if (v < i && (s[v] == ';' || s[v] == '#'))
		i = v;
	if (i >= len)
		return true;
	snprintf(msg, sizeof(msg),
		 "'%c' %s: isorun.conf has no inline comments (put a comment on a line of its "
		 "own; a value with '%c' there goes on the command line)",
		 s[i], i == v ? "at the start of a value" : "after a blank", s[i]);
	fail_at_col(cp, lead + i + 1, msg);
	return false;
}

static char *read_line(char *str, int num, void *stream)
{
	struct conf_parse *cp = stream;
	const char *nl, *s, *start = cp->p;
	size_t len, lead = 0;

	if (cp->failed || cp->p >= cp->end)
		return NULL;
	nl = memchr(cp->p, '\n', (size_t)(cp->end - cp->p));
	len = nl ? (size_t)(nl - cp->p) + 1 : (size_t)(cp->end - cp->p);
	s = cp->p;
	cp->p += len;
	cp->line++;
	cp->buf = NULL;
	/* a UTF-8 BOM: dropped here, so that the section check below sees a "[" */
	if (cp->line == 1 && len >= 3 && memcmp(s, "\xEF\xBB\xBF", 3) == 0) {
		s += 3;
		len -= 3;
		start = s; /* columns count what an editor shows */
	}
	/*
	 * Leading blanks go: libinih would take an indented line for the
	 * continuation of the previous value, and `  watch = x` would silently
	 * become part of the setting above it.
	 */
	while (len && (*s == ' ' || *s == '\t')) {
		s++;
		len--;
		lead++;
	}
	/* libinih would read the rest of a longer line as a line of its own */
	if (num < 1 || len + 1 > (size_t)num) {
		fail_at(cp, "line too long (at most %d bytes)", num - 2);
		return NULL;
	}
	memcpy(str, s, len);
	str[len] = '\0';
	cp->buf = str;
	cp->buf_len = len;
	cp->skipped = (size_t)(s - start);
	if (str[0] == '[' && !section_ok(cp, str))
		return NULL;
	if (!inline_comment_ok(cp, str, strcspn(str, "\r\n"), lead))
		return NULL;
	return str;
}

char *cli_conf_resolve(const char *dir, const char *val)
{
	char *r;

	if (val[0] == '/' || !val[0])
		return strdup(val);
	while (val[0] == '.' && val[1] == '/') {
		val += 2;
		while (*val == '/')
			val++;
	}
	if (!val[0] || strcmp(val, ".") == 0)
		return strdup(dir);
	if (asprintf(&r, "%s/%s", strcmp(dir, "/") == 0 ? "" : dir, val) < 0)
		return NULL;
	return r;
}

/* "tiemout = 5m": the setting that was meant, or NULL */
static const char *suggest_key(const char *name)
{
	const char *names[SUP_N_KEYS];

	for (int k = 0; k < SUP_N_KEYS; k++)
		names[k] = cli_keys[k].name;
	return cli_suggest(name, names, SUP_N_KEYS);
}

/* --policy names a shipped policy (default, strict, off) or a file: a name has no '/' or '.'. */
static bool is_path_value(enum sup_key key, const char *val)
{
	if (!cli_keys[key].path)
		return false;
	if (key == SUP_K_POLICY)
		return strpbrk(val, "/.") != NULL;
	if (cli_key_output(key))
		return strncmp(val, "fd:", 3) != 0;
	return true;
}

/* The caller's real home for ~: $HOME as the caller has it, else the password database's. */
static const char *caller_home(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && h[0] == '/')
		return h;
	pw = getpwuid(geteuid());
	return pw && pw->pw_dir ? pw->pw_dir : "/";
}

static const char *caller_var(const char *name)
{
	return getenv(name);
}

/*
 * `setenv = RUSTUP_HOME=${HOME}/.rustup`: the value expanded from the caller's
 * environment now, before the command's HOME replaces it (cli/expand.h).
 */
static int setenv_value(struct conf_parse *cp, const char *value)
{
	struct iso_err sub = { 0 };
	char why[300];
	const char *eq = strchr(value, '=');
	char *exp, *val = NULL;

	exp = cli_expand(eq ? eq + 1 : "", caller_var, caller_home(), &sub);
	if (!exp) {
		fail_at(cp, "setenv: %s", iso_err_format(&sub, why, sizeof(why)));
		return 0;
	}
	if (eq && asprintf(&val, "%.*s=%s", (int)(eq - value), value, exp) < 0)
		val = NULL;
	else if (!eq)
		val = strdup(value);
	free(exp);
	if (!sup_opts_keep(cp->o, val)) {
		fail_at(cp, "setenv: out of memory");
		return 0;
	}
	if (cli_opt_set(cp->o, SUP_K_SETENV, val, cp->line, &sub) < 0) {
		fail_value(cp, value, &sub);
		return 0;
	}
	return 1;
}

/* A setting that would widen what the command line protects is refused here (cli/conftrust.h). */
static bool trusted(struct conf_parse *cp, enum sup_key key, const char *value)
{
	_cleanup_free_ char *path =
		is_path_value(key, value) ? cli_conf_resolve(cp->dir, value) : NULL;
	struct iso_err sub = { 0 };

	if (!cp->cli || cli_conf_trust(cp->cli, key, value, path ? path : value, &sub) == 0)
		return true;
	fail_at(cp, "%s", sub.msg);
	iso_err_hint(cp->e, sub.hint);
	return false;
}

static int on_setting(void *user, const char *section, const char *name, const char *value)
{
	static const char *const cli_only[] = { "config", "no-config", "help", "version" };
	struct conf_parse *cp = user;
	struct iso_err sub = { 0 };
	char *val;
	int key;

	if (cp->failed)
		return 0;
	/* read_line() refused any other section already; this is for a header it missed */
	if (*section && !is_isorun(section, section + strlen(section))) {
		fail_at(cp, "[%s]: unknown section (settings go before any section or in [isorun])",
			section);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cli_only) / sizeof(cli_only[0]); i++)
		if (strcmp(name, cli_only[i]) == 0) {
			fail_at(cp, "%s: only on the command line, not in %s", name, CLI_CONF_NAME);
			return 0;
		}
	key = cli_key_lookup(name);
	if (key < 0 && suggest_key(name)) {
		fail_at(cp, "%s: unknown setting; did you mean %s?", name, suggest_key(name));
		return 0;
	}
	if (key < 0) {
		fail_at(cp,
			"%s: unknown setting (the settings are the long options of a run, "
			"see isorun --help)",
			name);
		return 0;
	}
	if (cli_keys[key].cli_only) {
		char hint[sizeof(cp->e->hint)];

		fail_at(cp,
			"%s: only on the command line, not in %s (a mount widens what the "
			"command reaches; a project file cannot add one)",
			name, CLI_CONF_NAME);
		snprintf(hint, sizeof(hint), "give it on the command line: --%s %s", name, value);
		iso_err_hint(cp->e, hint);
		return 0;
	}
	if (!trusted(cp, key, value))
		return 0;
	if (key == SUP_K_SETENV)
		return setenv_value(cp, value);
	val = is_path_value(key, value) ? cli_conf_resolve(cp->dir, value) : strdup(value);
	if (!sup_opts_keep(cp->o, val)) {
		fail_at(cp, "%s: out of memory", name);
		return 0;
	}
	if (cli_opt_set(cp->o, key, val, cp->line, &sub) < 0) {
		fail_value(cp, value, &sub);
		return 0;
	}
	return 1;
}

int cli_conf_parse(struct sup_opts *o, const char *path, const char *text, struct iso_err *e)
{
	return cli_conf_parse_under(o, NULL, path, text, e);
}

int cli_conf_parse_under(struct sup_opts *o, const struct sup_opts *cli, const char *path,
			 const char *text, struct iso_err *e)
{
	const char *slash = strrchr(path, '/');
	struct conf_parse cp = {
		.o = o, .cli = cli, .path = path, .p = text, .end = text + strlen(text), .e = e
	};
	int r;

	if (!slash)
		cp.dir = getcwd(NULL, 0);
	else
		cp.dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!cp.dir)
		return iso_err_set(e, errno, "%s: directory", path);
	r = ini_parse_stream(read_line, &cp, on_setting, &cp);
	free(cp.dir);
	if (r == -2)
		return iso_err_set(e, ENOMEM, "%s", path);
	/* libinih goes on after a line it cannot parse: an error of ours may come later */
	if (cp.failed && (r <= 0 || (unsigned)r >= cp.failed_line))
		return -EINVAL;
	if (r != 0) {
		cp.line = (unsigned)(r > 0 ? r : 0);
		fail_at(&cp, "expected 'name = value', '[isorun]' or a # comment");
		return -EINVAL;
	}
	return 0;
}

int cli_conf_read(int fd, const char *path, char **ret, struct iso_err *e)
{
	_cleanup_free_ char *buf = NULL;
	struct stat st;
	size_t len = 0;
	ssize_t n;
	uid_t me = geteuid();

	if (fstat(fd, &st) < 0)
		return iso_err_set(e, errno, "stat '%s'", path);
	if (!S_ISREG(st.st_mode))
		return iso_err_set(e, 0, "%s: not a regular file", path);
	if (st.st_uid != me && st.st_uid != 0) {
		iso_err_set(e, 0, "%s: refused: owned by uid %u, not by you (uid %u) or root", path,
			    (unsigned)st.st_uid, (unsigned)me);
		iso_err_hint(e, conf_hint);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		iso_err_set(e, 0, "%s: refused: writable by %s (mode %04o)", path,
			    st.st_mode & S_IWOTH ? "others" : "its group",
			    (unsigned)(st.st_mode & 07777));
		iso_err_hint(e, "chmod go-w it, or --no-config to read no isorun.conf");
		return -EPERM;
	}
	if (st.st_size > CLI_CONF_MAX_SIZE)
		return iso_err_set(e, 0, "%s: larger than %d bytes", path, CLI_CONF_MAX_SIZE);
	buf = malloc(CLI_CONF_MAX_SIZE + 1);
	if (!buf)
		return iso_err_set(e, ENOMEM, "read '%s'", path);
	/* the size may have changed since fstat(): read to EOF, bounded */
	n = iso_read_all(fd, buf, CLI_CONF_MAX_SIZE + 1);
	if (n < 0)
		return iso_err_set(e, (int)-n, "read '%s'", path);
	len = (size_t)n;
	if (len > CLI_CONF_MAX_SIZE)
		return iso_err_set(e, 0, "%s: larger than %d bytes", path, CLI_CONF_MAX_SIZE);
	if (memchr(buf, '\0', len))
		return iso_err_set(e, 0, "%s: not a text file (contains a NUL byte)", path);
	buf[len] = '\0';
	*ret = buf;
	buf = NULL;
	return 0;
}

static int open_conf(const char *path)
{
	/* O_NONBLOCK: a FIFO named isorun.conf must not hang isorun; fstat refuses it */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	return fd < 0 ? -errno : fd;
}

int cli_conf_find(const char *dir, char **ret_path, int *ret_fd, struct iso_err *e)
{
	_cleanup_free_ char *d = strdup(dir);
	char *path, *slash;
	int fd;

	*ret_path = NULL;
	*ret_fd = -1;
	if (!d)
		return iso_err_set(e, ENOMEM, "find %s", CLI_CONF_NAME);
	for (;;) {
		if (asprintf(&path, "%s/%s", strcmp(d, "/") == 0 ? "" : d, CLI_CONF_NAME) < 0)
			return iso_err_set(e, ENOMEM, "find %s", CLI_CONF_NAME);
		fd = open_conf(path);
		if (fd >= 0) {
			*ret_path = path;
			*ret_fd = fd;
			return 0;
		}
		if (fd != -ENOENT && fd != -ENOTDIR) {
			iso_err_set(e, -fd, "open '%s'", path);
			iso_err_hint(e, conf_hint);
			free(path);
			return fd;
		}
		free(path);
		if (strcmp(d, "/") == 0)
			return 0;
		slash = strrchr(d, '/');
		if (!slash)
			return 0;
		if (slash == d)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

/* --config FILE as an absolute path, so that relative settings have a directory */
static char *absolute(const char *p)
{
	_cleanup_free_ char *cwd = NULL;
	char *r;

	if (p[0] == '/')
		return strdup(p);
	cwd = getcwd(NULL, 0);
	if (!cwd || asprintf(&r, "%s/%s", strcmp(cwd, "/") == 0 ? "" : cwd, p) < 0)
		return NULL;
	return r;
}

int cli_conf_load(struct sup_opts *o, struct iso_err *e)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	if (o->no_config)
		return 0;
	if (o->config_arg) {
		path = absolute(o->config_arg);
		if (!path)
			return iso_err_set(e, errno ? errno : ENOMEM, "--config '%s'",
					   o->config_arg);
		fd = open_conf(path);
		if (fd < 0)
			return iso_err_set(e, -fd, "--config: open '%s'", path);
	} else {
		_cleanup_free_ char *cwd = getcwd(NULL, 0);
		if (!cwd) {
			r = iso_err_set(e, errno, "find %s: the working directory", CLI_CONF_NAME);
			iso_err_hint(e, conf_hint);
			return r;
		}
		r = cli_conf_find(cwd, &path, &fd, e);
		if (r < 0 || !path)
			return r;
	}
	r = cli_conf_read(fd, path, &text, e);
	if (r < 0)
		return r;
	r = cli_conf_apply(o, path, text, e);
	path = NULL;
	return r;
}

int cli_conf_apply(struct sup_opts *o, char *taken_path, const char *text, struct iso_err *e)
{
	_cleanup_free_ char *path = taken_path;
	struct sup_opts f;
	char **pool;
	int r;

	sup_opts_init(&f);
	r = cli_conf_parse_under(&f, o, path, text, e);
	/* the command line again, over the file; it was valid the first time */
	for (size_t i = 0; r >= 0 && i < o->n_settings; i++)
		if (o->settings[i].line == SUP_FROM_CLI)
			r = cli_opt_set(&f, o->settings[i].key, o->settings[i].val, SUP_FROM_CLI,
					e);
	/* strings the command line's settings may point to */
	if (o->n_pool) {
		pool = realloc(f.pool, (f.n_pool + o->n_pool) * sizeof(*pool));
		if (!pool) {
			sup_opts_free(&f);
			return iso_err_set(e, ENOMEM, "%s", path);
		}
		f.pool = pool;
		for (size_t i = 0; i < o->n_pool; i++)
			f.pool[f.n_pool++] = o->pool[i];
		o->n_pool = 0;
	}
	if (r < 0) {
		sup_opts_free(&f);
		return r;
	}
	f.shell = o->shell;
	f.shell_own = o->shell_own;
	if (f.shell)
		f.keep = SUP_KEEP_ALWAYS;
	/* `isorun shell`: argv is the opts' own array, which *o = f below keeps in place */
	memcpy(f.shell_argv, o->shell_argv, sizeof(f.shell_argv));
	f.tree_arg = o->tree_arg;
	f.like_arg = o->like_arg;
	f.rerun = o->rerun;
	f.reenter = o->reenter;
	f.argv = o->argv;
	f.argc = o->argc;
	f.config_arg = o->config_arg;
	f.no_config = o->no_config;
	f.config_path = path;
	path = NULL;
	sup_opts_free(o);
	*o = f;
	return 0;
}

int cli_conf_fail(const struct iso_err *e, const char *what)
{
	char buf[sizeof(e->msg) + 128];

	fprintf(stderr, "isorun: %s\n", iso_err_format(e, buf, sizeof(buf)));
	if (e->hint[0])
		fprintf(stderr, "  (hint: %s)\n", e->hint);
	fprintf(stderr, "isorun: FAILED (exit %d): %s\n", ISO_EXIT_SETUP, what);
	return ISO_EXIT_SETUP;
}
