// SPDX-License-Identifier: MIT
/*
 * The policy parser: text in, struct pol out; the grammar is policy/GRAMMAR.txt.
 * Nothing here prints or writes; it reads only included files and
 * $XDG_RUNTIME_DIR.  Every error names file:line:col and the offending line, and
 * anything the parser does not understand is an error, never a silent allow.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <seccomp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/kd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/num.h"
#include "common/text.h"
#include "policy/policy.h"

#define POL_MAX_DEPTH 16	/* include nesting */
#define POL_MAX_TEXT  (1 << 20) /* bytes of one policy file */
#define POL_MAX_VERB  99	/* verb=N, verb=argN */
#define XDG_VAR	      "$XDG_RUNTIME_DIR"

static const struct ioctl_name {
	const char *name;
	unsigned long req;
} ioctl_names[] = {
	{ "TIOCSTI", TIOCSTI },	    { "TIOCLINUX", TIOCLINUX },	      { "KDSKBENT", KDSKBENT },
	{ "KDSKBSENT", KDSKBSENT }, { "KDSETKEYCODE", KDSETKEYCODE },
};

/* What a file is, for include cycles: a shipped name, or a device and inode. */
struct ident {
	const struct pol_text *sh;
	dev_t dev;
	ino_t ino;
	bool known;
	char label[256];
};

struct tok {
	char *s;
	int col; /* 1-based byte column */
};

/* The file being parsed and its current line. */
struct unit {
	const char *label; /* as named in errors: the path as given or joined */
	const char *base;  /* basename, for origins */
	int line;
	const char *text; /* the raw line, not NUL-terminated */
	size_t len;
	bool seen_statement;
};

struct parser {
	struct pol pol;
	struct pol_error *err;
	size_t cap_deny, cap_guard, cap_socket;
	struct ident stack[POL_MAX_DEPTH + 1];
	int depth; /* entries used in stack */
	bool named;
};

const char *pol_shipped_name(size_t i)
{
	return i < pol_n_shipped_text ? pol_shipped_text[i].name : NULL;
}

static const struct pol_text *find_shipped(const char *name)
{
	for (size_t i = 0; i < pol_n_shipped_text; i++)
		if (strcmp(pol_shipped_text[i].name, name) == 0)
			return &pol_shipped_text[i];
	return NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static void set_error_line(struct pol_error *err, const char *text, size_t len)
{
	size_t n = len < sizeof(err->text) - 1 ? len : sizeof(err->text) - 1;

	/* the line is shown on a terminal: no control bytes but tabs */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)text[i];

		err->text[i] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
	}
	err->text[n] = '\0';
}

__attribute__((format(printf, 4, 5))) static int fail(struct parser *ps, const struct unit *u,
						      int col, const char *fmt, ...)
{
	struct pol_error *err = ps->err;
	va_list ap;

	if (!err)
		return -EINVAL;
	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", u->label);
	err->line = u->line;
	err->col = col;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	if (u->line > 0)
		set_error_line(err, u->text, u->len);
	return -EINVAL;
}

static int fail_oom(struct parser *ps, const struct unit *u)
{
	(void)fail(ps, u, 0, "out of memory");
	return -ENOMEM;
}

/* Where a missing word would start: just past the last token. */
static int end_col(const struct tok *t, size_t n)
{
	return t[n - 1].col + (int)strlen(t[n - 1].s);
}

/* Split "key=value"; false when there is no '='. */
static bool split_option(const struct tok *t, char *key, size_t keylen, const char **value,
			 int *value_col)
{
	const char *eq = strchr(t->s, '=');
	size_t n;

	if (!eq)
		return false;
	n = (size_t)(eq - t->s);
	if (n >= keylen)
		n = keylen - 1;
	memcpy(key, t->s, n);
	key[n] = '\0';
	*value = eq + 1;
	*value_col = t->col + (int)(eq - t->s) + 1;
	return true;
}

static int errno_by_name(const char *name)
{
	static const struct {
		const char *alias;
		int errnum;
	} aliases[] = { { "EWOULDBLOCK", EWOULDBLOCK },
			{ "EDEADLOCK", EDEADLOCK },
			{ "ENOTSUP", ENOTSUP } };

	if (name[0] != 'E')
		return -1;
	for (int e = 1; e < 256; e++) {
		const char *s = strerrorname_np(e);

		if (s && strcmp(s, name) == 0)
			return e;
	}
	for (size_t i = 0; i < ELEMENTSOF(aliases); i++)
		if (strcmp(aliases[i].alias, name) == 0)
			return aliases[i].errnum;
	return -1;
}

/* A decimal number in [lo, hi] with no sign, no leading zero, nothing after. */
static bool parse_small(const char *s, int lo, int hi, int *ret)
{
	uint64_t v;

	if (s[0] == '0' || iso_parse_u64(s, NULL, (uint64_t)lo, (uint64_t)hi, &v) < 0)
		return false;
	*ret = (int)v;
	return true;
}

static bool parse_ioctl_request(const char *s, unsigned long *ret)
{
	const char *end;
	uint64_t v;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(ioctl_names); i++)
		if (strcmp(ioctl_names[i].name, s) == 0) {
			*ret = ioctl_names[i].req;
			return true;
		}
	/* 0x5412 or 21522; 010 is refused rather than read as C's octal or as ten */
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		r = iso_parse_digits(s + 2, 16, &end, &v);
	else if (s[0] == '0' && s[1])
		return false;
	else
		r = iso_parse_digits(s, 10, &end, &v);
	/* the kernel's ioctl request is an unsigned int */
	if (r < 0 || *end || v > 0xffffffffULL)
		return false;
	*ret = (unsigned long)v;
	return true;
}

static bool origin_set(char *origin, size_t len, const struct unit *u)
{
	return snprintf(origin, len, "%s:%d", u->base, u->line) < (int)len;
}

/* arr with room for element n (of *cap): the same or a new array, NULL when out of memory. */
static void *grow(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return arr;
	ncap = *cap ? *cap * 2 : 16;
	p = reallocarray(arr, ncap, size);
	if (p)
		*cap = ncap;
	return p;
}

/* --- statements ------------------------------------------------------------ */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

static int st_policy(struct parser *ps, const struct unit *u, const struct tok *t, size_t n)
{
	const char *name;

	if (u->seen_statement)
		return fail(ps, u, t[0].col, "'policy' must be the first statement");
	if (n < 2)
		return fail(ps, u, end_col(t, n), "policy: expected a name");
	if (n > 2)
		return fail(ps, u, t[2].col, "unexpected '%.64s' after the policy name", t[2].s);
	name = t[1].s;
	if (strlen(name) >= sizeof(ps->pol.name))
		return fail(ps, u, t[1].col, "policy name longer than %zu bytes",
			    sizeof(ps->pol.name) - 1);
	for (const char *c = name; *c; c++)
		if (!name_char(*c))
			return fail(ps, u, t[1].col + (int)(c - name),
				    "invalid character in policy name (letters, digits, '.', '_', "
				    "'-')");
	/* an included file's name is not the name of the whole */
	if (ps->depth == 1) {
		snprintf(ps->pol.name, sizeof(ps->pol.name), "%s", name);
		ps->named = true;
	}
	return 0;
}

static int st_deny(struct parser *ps, const struct unit *u, const struct tok *t, size_t n)
{
	struct pol_deny d = { .errnum = EPERM };
	bool have_errno = false;
	void *arr;
	int nr;

	if (n < 2)
		return fail(ps, u, end_col(t, n), "deny: expected a syscall name");
	if (strlen(t[1].s) >= sizeof(d.syscall))
		return fail(ps, u, t[1].col, "unknown syscall '%.64s'", t[1].s);
	/*
	 * libseccomp knows every x86_64 name; other arches' names come back
	 * negative, and pass only as a spelling in a family (stime, umount)
	 */
	nr = seccomp_syscall_resolve_name_arch(SCMP_ARCH_X86_64, t[1].s);
	if (nr < 0 && !pol_family(t[1].s))
		return fail(ps, u, t[1].col, "unknown syscall '%s'", t[1].s);
	snprintf(d.syscall, sizeof(d.syscall), "%s", t[1].s);

	for (size_t i = 2; i < n; i++) {
		char key[16];
		const char *value;
		int vcol;

		if (!split_option(&t[i], key, sizeof(key), &value, &vcol))
			return fail(ps, u, t[i].col, "unexpected '%.64s' (deny takes errno=NAME%s)",
				    t[i].s,
				    strcmp(d.syscall, "ioctl") == 0 ? " and request=REQ" : "");
		if (strcmp(key, "errno") == 0) {
			if (have_errno)
				return fail(ps, u, t[i].col, "errno= given twice");
			have_errno = true;
			d.errnum = errno_by_name(value);
			if (!*value || (*value >= '0' && *value <= '9'))
				return fail(ps, u, vcol, "errno=: expected a name such as EPERM");
			if (d.errnum < 0)
				return fail(ps, u, vcol, "unknown errno '%.64s'", value);
		} else if (strcmp(key, "request") == 0) {
			if (strcmp(d.syscall, "ioctl") != 0)
				return fail(ps, u, t[i].col, "request= applies only to ioctl");
			if (d.has_ioctl_req)
				return fail(ps, u, t[i].col, "request= given twice");
			d.has_ioctl_req = true;
			if (!parse_ioctl_request(value, &d.ioctl_req))
				return fail(ps, u, vcol,
					    "bad ioctl request '%.64s' (a number, TIOCSTI, "
					    "TIOCLINUX, KDSKBENT, KDSKBSENT or KDSETKEYCODE)",
					    value);
		} else {
			return fail(ps, u, t[i].col, "unknown option '%.64s' for deny", t[i].s);
		}
	}

	for (size_t i = 0; i < ps->pol.n_deny; i++) {
		const struct pol_deny *o = &ps->pol.deny[i];

		if (strcmp(o->syscall, d.syscall) != 0 || o->has_ioctl_req != d.has_ioctl_req ||
		    o->ioctl_req != d.ioctl_req)
			continue;
		if (o->errnum == d.errnum)
			return 0; /* the same rule again, e.g. through two includes */
		return fail(ps, u, t[1].col, "'%s' is already denied with %s at %s", d.syscall,
			    strerrorname_np(o->errnum), o->origin);
	}

	if (!origin_set(d.origin, sizeof(d.origin), u))
		return fail(ps, u, 1, "file name too long");
	arr = grow(ps->pol.deny, &ps->cap_deny, ps->pol.n_deny, sizeof(d));
	if (!arr)
		return fail_oom(ps, u);
	ps->pol.deny = arr;
	ps->pol.deny[ps->pol.n_deny++] = d;
	return 0;
}

static void free_patterns(char **patterns)
{
	for (char **s = patterns; s && *s; s++)
		free(*s);
	free(patterns);
}

static bool same_guard(const struct pol_guard *a, const struct pol_guard *b, char **b_patterns)
{
	size_t i;

	if (strcmp(a->program, b->program) != 0 || a->verb_index != b->verb_index ||
	    a->verb_raw != b->verb_raw || a->allow_list != b->allow_list ||
	    a->empty_allowed != b->empty_allowed)
		return false;
	for (i = 0; a->patterns[i] && b_patterns[i]; i++)
		if (strcmp(a->patterns[i], b_patterns[i]) != 0)
			return false;
	return !a->patterns[i] && !b_patterns[i];
}

static int st_guard(struct parser *ps, const struct unit *u, const struct tok *t, size_t n)
{
	struct pol_guard g = { .verb_index = 1 };
	bool have_verb = false, have_empty = false, matches_empty = false;
	_cleanup_free_ char **patterns = NULL;
	size_t i, np;
	void *arr;

	if (n < 2)
		return fail(ps, u, end_col(t, n), "guard: expected a program name");
	if (strchr(t[1].s, '/'))
		return fail(ps, u, t[1].col,
			    "guard: '%.64s' is a path; programs are matched by basename", t[1].s);
	if (strcmp(t[1].s, ".") == 0 || strcmp(t[1].s, "..") == 0 || strchr(t[1].s, '='))
		return fail(ps, u, t[1].col, "guard: '%.64s' is not a program name", t[1].s);
	if (strlen(t[1].s) >= sizeof(g.program))
		return fail(ps, u, t[1].col, "program name longer than %zu bytes",
			    sizeof(g.program) - 1);
	snprintf(g.program, sizeof(g.program), "%s", t[1].s);

	for (i = 2; i < n; i++) {
		char key[16];
		const char *value;
		int vcol;

		if (strcmp(t[i].s, "allow") == 0 || strcmp(t[i].s, "deny") == 0)
			break;
		if (!split_option(&t[i], key, sizeof(key), &value, &vcol))
			return fail(ps, u, t[i].col, "guard: expected allow or deny, got '%.64s'",
				    t[i].s);
		if (strcmp(key, "verb") == 0) {
			if (have_verb)
				return fail(ps, u, t[i].col, "verb= given twice");
			have_verb = true;
			g.verb_raw = strncmp(value, "arg", 3) == 0;
			if (!parse_small(value + (g.verb_raw ? 3 : 0), 1, POL_MAX_VERB,
					 &g.verb_index))
				return fail(ps, u, vcol,
					    "bad verb= '%.64s' (N or argN, N from 1 to %d)", value,
					    POL_MAX_VERB);
		} else if (strcmp(key, "empty") == 0) {
			if (have_empty)
				return fail(ps, u, t[i].col, "empty= given twice");
			have_empty = true;
			if (strcmp(value, "allow") == 0)
				g.empty_allowed = true;
			else if (strcmp(value, "deny") == 0)
				g.empty_allowed = false;
			else
				return fail(ps, u, vcol, "bad empty= '%.64s' (allow or deny)",
					    value);
		} else {
			return fail(ps, u, t[i].col, "unknown option '%.64s' for guard", t[i].s);
		}
	}
	if (i == n)
		return fail(ps, u, end_col(t, n), "guard: expected allow or deny");
	g.allow_list = strcmp(t[i].s, "allow") == 0;
	if (++i == n)
		return fail(ps, u, end_col(t, n), "guard: expected a pattern after '%s'",
			    g.allow_list ? "allow" : "deny");

	np = n - i;
	patterns = calloc(np + 1, sizeof(*patterns));
	if (!patterns)
		return fail_oom(ps, u);
	for (size_t k = 0; k < np; k++) {
		const struct tok *p = &t[i + k];

		/* verb=N skips options ("-" is not one): such a pattern could only mislead */
		if (!g.verb_raw && p->s[0] == '-' && fnmatch(p->s, "-", 0) != 0)
			return fail(ps, u, p->col,
				    "pattern '%.64s' never matches: verb=%d skips options (use "
				    "verb=arg%d)",
				    p->s, g.verb_index, g.verb_index);
		if (fnmatch(p->s, "", 0) == 0)
			matches_empty = true;
	}
	for (size_t k = 0; k < np; k++) {
		patterns[k] = strdup(t[i + k].s);
		if (!patterns[k]) {
			free_patterns(TAKE_PTR(patterns));
			return fail_oom(ps, u);
		}
	}
	/* no verb at all is matched as the empty word unless empty= says otherwise */
	if (!have_empty)
		g.empty_allowed = g.allow_list ? matches_empty : !matches_empty;
	for (size_t k = 0; k < ps->pol.n_guard; k++)
		if (same_guard(&ps->pol.guard[k], &g, patterns)) {
			free_patterns(TAKE_PTR(patterns));
			return 0; /* the same rule again */
		}
	if (!origin_set(g.origin, sizeof(g.origin), u)) {
		free_patterns(TAKE_PTR(patterns));
		return fail(ps, u, 1, "file name too long");
	}

	arr = grow(ps->pol.guard, &ps->cap_guard, ps->pol.n_guard, sizeof(g));
	if (!arr) {
		free_patterns(TAKE_PTR(patterns));
		return fail_oom(ps, u);
	}
	ps->pol.guard = arr;
	g.patterns = TAKE_PTR(patterns);
	ps->pol.guard[ps->pol.n_guard++] = g;
	return 0;
}

/* $XDG_RUNTIME_DIR, or the directory systemd would give this user. */
static void runtime_dir(char *buf, size_t len)
{
	const char *e = getenv("XDG_RUNTIME_DIR");
	size_t n;

	if (!e || e[0] != '/' || strlen(e) >= len) {
		snprintf(buf, len, "/run/user/%u", (unsigned)geteuid());
		return;
	}
	n = strlen(e);
	while (n > 1 && e[n - 1] == '/')
		n--;
	memcpy(buf, e, n);
	buf[n] = '\0';
	if (n == 1) /* "/": the rest of the path supplies the slash */
		buf[0] = '\0';
}

/* No empty, "." or ".." component, no trailing slash: 0, or 1 + the offset of the fault. */
static size_t path_bad_at(const char *p)
{
	for (size_t i = 0; p[i]; i++) {
		const char *c;
		size_t n;

		if (p[i] != '/')
			continue;
		c = p + i + 1;
		n = strcspn(c, "/");
		if (n == 0 && c[0] == '\0')
			return i + 1; /* the trailing slash */
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return i + 2; /* the component */
	}
	return 0;
}

/*
 * The struct keeps the expanded path in `path` for everyone who matches or
 * masks it, and the path as written right after its NUL, so that pol_format
 * can print `$XDG_RUNTIME_DIR/bus` rather than this user's directory.
 */
static int st_socket(struct parser *ps, const struct unit *u, const struct tok *t, size_t n)
{
	struct pol_socket s = { 0 };
	const char *raw, *dollar, *rest = NULL;
	char dir[256];
	size_t bad, need;
	void *arr;

	if (n < 2)
		return fail(ps, u, end_col(t, n), "deny-socket: expected a path");
	if (n > 2)
		return fail(ps, u, t[2].col, "unexpected '%.64s' after the path", t[2].s);
	raw = t[1].s;
	if (strncmp(raw, XDG_VAR, strlen(XDG_VAR)) == 0 &&
	    (raw[strlen(XDG_VAR)] == '/' || raw[strlen(XDG_VAR)] == '\0')) {
		rest = raw + strlen(XDG_VAR);
		if (!rest[0] || !rest[1])
			return fail(ps, u, t[1].col + (int)strlen(XDG_VAR),
				    "deny-socket: expected a path below " XDG_VAR);
	}
	dollar = strchr(rest ? rest : raw, '$');
	if (dollar)
		return fail(ps, u, t[1].col + (int)(dollar - raw),
			    "only a leading " XDG_VAR " is expanded in a socket path");
	if (!rest && raw[0] != '/')
		return fail(ps, u, t[1].col, "deny-socket: '%.64s' is not an absolute path", raw);
	bad = path_bad_at(rest ? rest : raw);
	if (bad)
		return fail(ps, u, t[1].col + (int)(bad - 1 + (rest ? (size_t)(rest - raw) : 0)),
			    "deny-socket: path not in normal form (no '//', '.', '..' or trailing "
			    "'/')");

	if (rest) {
		runtime_dir(dir, sizeof(dir));
		need = strlen(dir) + strlen(rest) + 1 + strlen(raw) + 1;
		if (need > sizeof(s.path))
			return fail(ps, u, t[1].col, "deny-socket: path too long");
		memcpy(s.path, dir, strlen(dir));
		memcpy(s.path + strlen(dir), rest, strlen(rest) + 1);
		memcpy(s.path + strlen(s.path) + 1, raw, strlen(raw) + 1);
	} else {
		if (strlen(raw) >= sizeof(s.path))
			return fail(ps, u, t[1].col, "deny-socket: path too long");
		snprintf(s.path, sizeof(s.path), "%s", raw);
	}

	for (size_t i = 0; i < ps->pol.n_socket; i++)
		if (strcmp(ps->pol.socket[i].path, s.path) == 0)
			return 0; /* the same rule again */
	if (!origin_set(s.origin, sizeof(s.origin), u))
		return fail(ps, u, 1, "file name too long");
	arr = grow(ps->pol.socket, &ps->cap_socket, ps->pol.n_socket, sizeof(s));
	if (!arr)
		return fail_oom(ps, u);
	ps->pol.socket = arr;
	ps->pol.socket[ps->pol.n_socket++] = s;
	return 0;
}

/* contain-signals: a signal to a process outside the run is refused (policy/signal.c) */
static int st_signals(struct parser *ps, const struct unit *u, const struct tok *t, size_t n)
{
	if (n > 1)
		return fail(ps, u, t[1].col, "contain-signals: takes no argument");
	if (ps->pol.contain_signals)
		return 0; /* the same rule again */
	if (!origin_set(ps->pol.signals_origin, sizeof(ps->pol.signals_origin), u))
		return fail(ps, u, 1, "file name too long");
	ps->pol.contain_signals = true;
	return 0;
}

/* --- files and includes ------------------------------------------------------ */

/* A regular file, whole, at most POL_MAX_TEXT bytes: 0 or -errno (-EFBIG, -EINVAL). */
static int read_policy_file(const char *path, char **ret, size_t *ret_len, struct stat *ret_st)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;

	/* O_NONBLOCK: a FIFO named as a policy must not hang the open */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, ret_st) < 0)
		return -errno;
	if (S_ISDIR(ret_st->st_mode))
		return -EISDIR;
	if (!S_ISREG(ret_st->st_mode))
		return -EINVAL;
	buf = malloc(POL_MAX_TEXT + 1);
	if (!buf)
		return -ENOMEM;
	/* st_size is 0 for /proc files: read to EOF */
	for (;;) {
		ssize_t k = read(fd, buf + len, POL_MAX_TEXT + 1 - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		len += (size_t)k;
		if (len > POL_MAX_TEXT)
			return -EFBIG;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

static const char *read_error(int r)
{
	switch (r) {
	case -EINVAL:
		return "not a regular file";
	case -EFBIG:
		return "larger than 1 MiB";
	default:
		return strerror(-r);
	}
}

static bool same_ident(const struct ident *a, const struct ident *b)
{
	if (a->sh || b->sh)
		return a->sh == b->sh;
	return a->known && b->known && a->dev == b->dev && a->ino == b->ino;
}

static int parse_unit(struct parser *ps, const char *text, size_t len, const struct ident *id);

static int st_include(struct parser *ps, const struct unit *u, const struct tok *t, size_t n)
{
	struct ident id = { 0 };
	_cleanup_free_ char *buf = NULL;
	const char *text, *arg;
	size_t len, dirlen;
	struct stat st;
	int r;

	if (n < 2)
		return fail(ps, u, end_col(t, n), "include: expected a policy name or path");
	if (n > 2)
		return fail(ps, u, t[2].col, "unexpected '%.64s' after the include", t[2].s);
	arg = t[1].s;

	id.sh = find_shipped(arg);
	if (id.sh) {
		snprintf(id.label, sizeof(id.label), "%s", id.sh->file);
		text = id.sh->text;
		len = id.sh->len;
	} else {
		/* relative to the including file's directory */
		dirlen = arg[0] == '/' || !strchr(u->label, '/')
				 ? 0
				 : (size_t)(strrchr(u->label, '/') - u->label) + 1;
		if (dirlen + strlen(arg) >= sizeof(id.label))
			return fail(ps, u, t[1].col, "include: path too long");
		snprintf(id.label, sizeof(id.label), "%.*s%s", (int)dirlen, u->label, arg);
		r = read_policy_file(id.label, &buf, &len, &st);
		if (r == -ENOMEM)
			return fail_oom(ps, u);
		if (r < 0)
			return fail(ps, u, t[1].col, "include: cannot read '%.128s': %s", id.label,
				    read_error(r));
		id.known = true;
		id.dev = st.st_dev;
		id.ino = st.st_ino;
		text = buf;
	}

	for (int i = 0; i < ps->depth; i++) {
		char chain[256] = "";
		size_t used = 0;

		if (!same_ident(&ps->stack[i], &id))
			continue;
		for (int k = i; k < ps->depth && used < sizeof(chain); k++)
			used += (size_t)snprintf(chain + used, sizeof(chain) - used, "%s -> ",
						 base_name(ps->stack[k].label));
		return fail(ps, u, t[1].col, "include cycle: %s%s", chain, base_name(id.label));
	}
	if (ps->depth > POL_MAX_DEPTH)
		return fail(ps, u, t[1].col, "includes nested deeper than %d", POL_MAX_DEPTH);
	return parse_unit(ps, text, len, &id);
}

static int statement(struct parser *ps, struct unit *u, const struct tok *t, size_t n)
{
	static const struct {
		const char *word;
		int (*fn)(struct parser *, const struct unit *, const struct tok *, size_t);
	} table[] = {
		{ "policy", st_policy },      { "include", st_include },
		{ "deny", st_deny },	      { "guard", st_guard },
		{ "deny-socket", st_socket }, { "contain-signals", st_signals },
	};

	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (strcmp(table[i].word, t[0].s) == 0)
			return table[i].fn(ps, u, t, n);
	return fail(ps, u, t[0].col,
		    "unknown statement '%.64s' (policy, include, deny, guard, deny-socket, "
		    "contain-signals)",
		    t[0].s);
}

static int parse_unit(struct parser *ps, const char *text, size_t len, const struct ident *id)
{
	struct unit u = { .label = id->label, .base = base_name(id->label) };
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ struct tok *toks = NULL;
	size_t cap = 0, pos = 0;
	void *arr;
	int r = 0;

	if (len > POL_MAX_TEXT)
		return fail(ps, &u, 0, "larger than 1 MiB");
	buf = malloc(len + 1);
	if (!buf)
		return fail_oom(ps, &u);
	ps->stack[ps->depth++] = *id;

	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos, n = 0;

		pos += ll + (nl ? 1 : 0);
		u.line++;
		if (ll > 0 && line[ll - 1] == '\r')
			ll--;
		u.text = line;
		u.len = ll;
		memcpy(buf, line, ll);
		buf[ll] = '\0';

		for (size_t i = 0; i < ll; i++) {
			unsigned char c = (unsigned char)line[i];

			if ((c < 0x20 && c != '\t') || c == 0x7f) {
				r = fail(ps, &u, (int)i + 1, "invalid byte 0x%02x", c);
				goto out;
			}
		}
		for (size_t i = 0; i < ll;) {
			size_t w;

			i += strspn(buf + i, " \t");
			if (i >= ll || buf[i] == '#')
				break;
			w = strcspn(buf + i, " \t");
			arr = grow(toks, &cap, n, sizeof(*toks));
			if (!arr) {
				r = fail_oom(ps, &u);
				goto out;
			}
			toks = arr;
			toks[n++] = (struct tok){ .s = buf + i, .col = (int)i + 1 };
			buf[i + w] = '\0';
			i += w + 1;
		}
		if (n == 0)
			continue;
		r = statement(ps, &u, toks, n);
		if (r < 0)
			goto out;
		u.seen_statement = true;
		if (u.line == INT_MAX) {
			r = fail(ps, &u, 1, "too many lines");
			goto out;
		}
	}
out:
	ps->depth--;
	return r;
}

static int parse_top(const char *text, size_t len, const struct ident *id, struct pol *ret,
		     struct pol_error *err)
{
	struct parser ps = { .err = err };
	int r;

	if (err)
		memset(err, 0, sizeof(*err));
	r = parse_unit(&ps, text, len, id);
	if (r < 0) {
		pol_free(&ps.pol);
		return r;
	}
	if (!ps.named) {
		/* unnamed: the file's name without ".policy" */
		const char *b = base_name(id->label);
		size_t n = strlen(b);

		if (n > 7 && strcmp(b + n - 7, ".policy") == 0)
			n -= 7;
		if (n >= sizeof(ps.pol.name))
			n = sizeof(ps.pol.name) - 1;
		/* a name pol_format can print and the parser read back */
		for (size_t i = 0; i < n; i++)
			ps.pol.name[i] = name_char(b[i]) ? b[i] : '_';
		ps.pol.name[n] = '\0';
		if (n == 0)
			snprintf(ps.pol.name, sizeof(ps.pol.name), "unnamed");
	}
	*ret = ps.pol;
	return 0;
}

int pol_parse(const char *text, size_t len, const char *file, struct pol *ret,
	      struct pol_error *err)
{
	struct ident id = { 0 };
	struct stat st;

	snprintf(id.label, sizeof(id.label), "%s", file ? file : "<policy>");
	/* the file on disk, if it is one, so that including itself is a cycle */
	if (file && stat(file, &st) == 0) {
		id.known = true;
		id.dev = st.st_dev;
		id.ino = st.st_ino;
	}
	return parse_top(text ? text : "", text ? len : 0, &id, ret, err);
}

int pol_load(const char *name_or_path, struct pol *ret, struct pol_error *err)
{
	struct ident id = { 0 };
	_cleanup_free_ char *buf = NULL;
	size_t len;
	struct stat st;
	int r;

	if (!name_or_path || !*name_or_path) {
		if (err) {
			memset(err, 0, sizeof(*err));
			snprintf(err->file, sizeof(err->file), "policy");
			snprintf(err->msg, sizeof(err->msg), "empty policy name");
		}
		return -EINVAL;
	}
	id.sh = find_shipped(name_or_path);
	if (id.sh) {
		snprintf(id.label, sizeof(id.label), "%s", id.sh->file);
		r = parse_top(id.sh->text, id.sh->len, &id, ret, err);
		if (r == 0)
			ret->shipped = id.sh->name;
		return r;
	}

	snprintf(id.label, sizeof(id.label), "%s", name_or_path);
	r = read_policy_file(name_or_path, &buf, &len, &st);
	if (r < 0) {
		if (err) {
			memset(err, 0, sizeof(*err));
			snprintf(err->file, sizeof(err->file), "%s", name_or_path);
			snprintf(err->msg, sizeof(err->msg), "cannot read: %s", read_error(r));
		}
		return r == -EFBIG ? -EINVAL : r;
	}
	id.known = true;
	id.dev = st.st_dev;
	id.ino = st.st_ino;
	return parse_top(buf, len, &id, ret, err);
}

/* --- output ------------------------------------------------------------------ */

static void origin_file(const char *origin, char *buf, size_t len)
{
	const char *colon = strrchr(origin, ':');
	size_t n = colon ? (size_t)(colon - origin) : strlen(origin);

	snprintf(buf, len, "%.*s", (int)n, origin);
}

struct fmt {
	FILE *f;
	bool multi; /* rules from more than one file: say where each group comes from */
	char cur[300];
	bool section_open;
};

static void fmt_rule(struct fmt *x, const char *origin)
{
	char file[300];

	if (!x->section_open) {
		fputc('\n', x->f);
		x->section_open = true;
	}
	if (!x->multi)
		return;
	origin_file(origin, file, sizeof(file));
	if (strcmp(file, x->cur) != 0) {
		fprintf(x->f, "# from %s\n", file);
		snprintf(x->cur, sizeof(x->cur), "%s", file);
	}
}

static bool spans_files(const struct pol *p)
{
	char first[300] = "", file[300];
	bool have = false;

#define CHECK(o)                                                                                   \
	do {                                                                                       \
		origin_file((o), file, sizeof(file));                                              \
		if (!have)                                                                         \
			snprintf(first, sizeof(first), "%s", file);                                \
		else if (strcmp(first, file) != 0)                                                 \
			return true;                                                               \
		have = true;                                                                       \
	} while (0)
	for (size_t i = 0; i < p->n_deny; i++)
		CHECK(p->deny[i].origin);
	for (size_t i = 0; i < p->n_guard; i++)
		CHECK(p->guard[i].origin);
	for (size_t i = 0; i < p->n_socket; i++)
		CHECK(p->socket[i].origin);
	if (p->contain_signals)
		CHECK(p->signals_origin);
#undef CHECK
	return false;
}

static void fmt_ioctl_req(FILE *f, unsigned long req)
{
	for (size_t i = 0; i < ELEMENTSOF(ioctl_names); i++)
		if (ioctl_names[i].req == req) {
			fprintf(f, " request=%s", ioctl_names[i].name);
			return;
		}
	fprintf(f, " request=%#lx", req);
}

char *pol_format(const struct pol *p)
{
	struct fmt x = { 0 };
	char *buf = NULL;
	size_t size = 0;

	x.f = open_memstream(&buf, &size);
	if (!x.f)
		return NULL;
	x.multi = spans_files(p);
	fprintf(x.f, "policy %s\n", p->name);

	for (size_t i = 0; i < p->n_deny; i++) {
		const struct pol_deny *d = &p->deny[i];
		const char *e = strerrorname_np(d->errnum);

		fmt_rule(&x, d->origin);
		fprintf(x.f, "deny %s", d->syscall);
		if (d->has_ioctl_req)
			fmt_ioctl_req(x.f, d->ioctl_req);
		if (e)
			fprintf(x.f, " errno=%s\n", e);
		else
			fprintf(x.f, " errno=%d\n", d->errnum);
	}
	x.section_open = false;

	for (size_t i = 0; i < p->n_guard; i++) {
		const struct pol_guard *g = &p->guard[i];

		fmt_rule(&x, g->origin);
		fprintf(x.f, "guard %s verb=%s%d empty=%s %s", g->program, g->verb_raw ? "arg" : "",
			g->verb_index, g->empty_allowed ? "allow" : "deny",
			g->allow_list ? "allow" : "deny");
		for (char **s = g->patterns; s && *s; s++)
			fprintf(x.f, " %s", *s);
		fputc('\n', x.f);
	}
	x.section_open = false;

	for (size_t i = 0; i < p->n_socket; i++) {
		const struct pol_socket *s = &p->socket[i];
		size_t n = strnlen(s->path, sizeof(s->path));
		const char *raw = s->path;

		/* the path as written, kept past the NUL when it was expanded */
		if (n + 1 < sizeof(s->path) && s->path[n + 1] == '$') {
			raw = s->path + n + 1;
			n = strnlen(raw, sizeof(s->path) - n - 1);
		}
		fmt_rule(&x, s->origin);
		fprintf(x.f, "deny-socket %.*s\n", (int)n, raw);
	}
	x.section_open = false;

	if (p->contain_signals) {
		fmt_rule(&x, p->signals_origin);
		fputs("contain-signals\n", x.f);
	}

	if (fclose(x.f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

void pol_free(struct pol *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_guard; i++)
		free_patterns(p->guard[i].patterns);
	free(p->guard);
	free(p->deny);
	free(p->socket);
	memset(p, 0, sizeof(*p));
}

/* The source line as shown: each part between tabs escaped (iso_escape), the tabs kept. */
static void shown_line(const char *text, char *out, size_t len)
{
	size_t used = 0;

	out[0] = '\0';
	for (const char *p = text;; p++) {
		size_t n = strcspn(p, "\t");
		_cleanup_free_ char *part = strndup(p, n);
		_cleanup_free_ char *esc = part ? iso_escape(part) : NULL;

		used += (size_t)snprintf(out + used, len - used, "%s%s", esc ? esc : "?",
					 p[n] ? "\t" : "");
		p += n;
		if (!*p || used >= len)
			break;
	}
}

/*
 * The file, message and line come from the policy file (a checkout's): escaped, so
 * that they can neither end isorun's line nor reach the terminal as a sequence.
 */
const char *pol_error_format(const struct pol_error *err, char *buf, size_t len)
{
	_cleanup_free_ char *file = iso_escape(err->file), *msg = iso_escape(err->msg);
	char line[sizeof(err->text) * 4 + 1];
	size_t used, n;
	int k;

	if (!buf || len == 0)
		return buf;
	if (err->line <= 0) {
		snprintf(buf, len, "%s: %s", file ? file : "?", msg ? msg : "?");
		return buf;
	}
	shown_line(err->text, line, sizeof(line));
	k = snprintf(buf, len, "%s:%d:%d: %s\n  %s\n  ", file ? file : "?", err->line, err->col,
		     msg ? msg : "?", line);
	if (k < 0 || (size_t)k >= len)
		return buf;
	used = (size_t)k;
	/* the caret under the column: tabs kept, a character one column, an escape four */
	n = strnlen(err->text, sizeof(err->text));
	for (size_t i = 0; i + 1 < (size_t)err->col && used + 5 < len;) {
		size_t w = i < n ? iso_printable_len(err->text + i, n - i) : 1;

		if (i < n && err->text[i] == '\t') {
			buf[used++] = '\t';
			i++;
		} else if (!w) {
			memcpy(buf + used, "    ", 4);
			used += 4;
			i++;
		} else {
			buf[used++] = ' ';
			i += w;
		}
	}
	/* the line itself may have filled the buffer: no room, no caret */
	if (used + 2 <= len) {
		buf[used++] = '^';
		buf[used] = '\0';
	}
	return buf;
}
