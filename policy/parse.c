// SPDX-License-Identifier: MIT
/*
 * The policy parser: text in, struct pol out; the grammar is policy/GRAMMAR.txt.
 * Nothing here prints or writes; it reads only included files and
 * $XDG_RUNTIME_DIR.  Every error names file:line:col and the offending line, and
 * anything the parser does not understand is an error, never a silent allow.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/cleanup.h"
#include "common/text.h"
#include "policy/kind.h"

#define POL_MAX_DEPTH 16	/* include nesting */
#define POL_MAX_TEXT  (1 << 20) /* bytes of one policy file */

/* What a file is, for include cycles: a shipped name, or a device and inode. */
struct ident {
	const struct pol_text *sh;
	dev_t dev;
	ino_t ino;
	bool known;
	char label[256];
};

struct parser {
	struct pol pol;
	struct pol_error *err;
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

static int vfail(struct pol_error *err, const struct pol_unit *u, int col, const char *fmt,
		 va_list ap)
{
	if (!err)
		return -EINVAL;
	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", u->label);
	err->line = u->line;
	err->col = col;
	vsnprintf(err->e.msg, POL_MSG_MAX, fmt, ap);
	if (u->line > 0)
		set_error_line(err, u->text, u->len);
	return -EINVAL;
}

__attribute__((format(printf, 4, 5))) static int fail(struct parser *ps, const struct pol_unit *u,
						      int col, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(ps->err, u, col, fmt, ap);
	va_end(ap);
	return r;
}

int pol_fail(const struct pol_stmt *st, int col, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(st->err, st->u, col, fmt, ap);
	va_end(ap);
	return r;
}

static int fail_oom(struct parser *ps, const struct pol_unit *u)
{
	(void)fail(ps, u, 0, "out of memory");
	return -ENOMEM;
}

int pol_fail_oom(const struct pol_stmt *st)
{
	(void)pol_fail(st, 0, "out of memory");
	return -ENOMEM;
}

static int end_col(const struct pol_tok *t, size_t n)
{
	return t[n - 1].col + (int)strlen(t[n - 1].s);
}

int pol_end_col(const struct pol_stmt *st)
{
	return end_col(st->t, st->n);
}

bool pol_split_option(const struct pol_tok *t, char *key, size_t keylen, const char **value,
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

int pol_origin_set(const struct pol_stmt *st, char *origin, size_t len)
{
	if (snprintf(origin, len, "%s:%d", st->u->base, st->u->line) < (int)len)
		return 0;
	return pol_fail(st, 1, "file name too long");
}

/* Stateless doubling: the array is reallocated when n reaches 16, 32, 64, ... */
void *pol_grow(void *arr, size_t n, size_t size)
{
	size_t ncap;

	if (n > 0 && (n < 16 || (n & (n - 1)) != 0))
		return arr;
	ncap = n ? n * 2 : 16;
	return reallocarray(arr, ncap, size);
}

/* --- statements ------------------------------------------------------------ */

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

static int st_policy(struct parser *ps, const struct pol_unit *u, const struct pol_tok *t, size_t n)
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

/* --- files and includes ------------------------------------------------------ */

/* A regular file, whole, at most POL_MAX_TEXT bytes: 0 or -errno (-EFBIG, -EINVAL). */
static int read_policy_file(const char *path, char **ret, size_t *ret_len, struct stat *ret_st)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	ssize_t k;

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
	k = iso_read_all(fd, buf, POL_MAX_TEXT + 1);
	if (k < 0)
		return (int)k;
	len = (size_t)k;
	if (len > POL_MAX_TEXT)
		return -EFBIG;
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

static int st_include(struct parser *ps, const struct pol_unit *u, const struct pol_tok *t,
		      size_t n)
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

/* "policy, include, deny, ...": every statement's word, for the unknown one's error. */
static void statement_words(char *buf, size_t len)
{
	size_t used = (size_t)snprintf(buf, len, "policy, include");

	for (size_t i = 0; i < pol_n_kinds && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, ", %s", pol_kinds[i]->word);
}

static int statement(struct parser *ps, struct pol_unit *u, const struct pol_tok *t, size_t n)
{
	const struct pol_stmt st = { .pol = &ps->pol, .err = ps->err, .u = u, .t = t, .n = n };
	char words[256];

	if (strcmp(t[0].s, "policy") == 0)
		return st_policy(ps, u, t, n);
	if (strcmp(t[0].s, "include") == 0)
		return st_include(ps, u, t, n);
	for (size_t i = 0; i < pol_n_kinds; i++)
		if (strcmp(pol_kinds[i]->word, t[0].s) == 0)
			return pol_kinds[i]->parse(&st);
	statement_words(words, sizeof(words));
	return fail(ps, u, t[0].col, "unknown statement '%.64s' (%s)", t[0].s, words);
}

static int parse_unit(struct parser *ps, const char *text, size_t len, const struct ident *id)
{
	struct pol_unit u = { .label = id->label, .base = base_name(id->label) };
	_cleanup_free_ char *buf = NULL;
	_cleanup_free_ struct pol_tok *toks = NULL;
	size_t pos = 0;
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
			arr = pol_grow(toks, n, sizeof(*toks));
			if (!arr) {
				r = fail_oom(ps, &u);
				goto out;
			}
			toks = arr;
			toks[n++] = (struct pol_tok){ .s = buf + i, .col = (int)i + 1 };
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
			iso_err_set(&err->e, 0, "empty policy name");
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
			iso_err_set(&err->e, 0, "cannot read: %s", read_error(r));
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

struct pol_fmt {
	FILE *f;
	bool multi; /* rules from more than one file: say where each group comes from */
	char cur[300];
	bool section_open;
};

FILE *pol_fmt_rule(struct pol_fmt *x, const char *origin)
{
	char file[300];

	if (!x->section_open) {
		fputc('\n', x->f);
		x->section_open = true;
	}
	if (!x->multi)
		return x->f;
	origin_file(origin, file, sizeof(file));
	if (strcmp(file, x->cur) != 0) {
		fprintf(x->f, "# from %s\n", file);
		snprintf(x->cur, sizeof(x->cur), "%s", file);
	}
	return x->f;
}

static bool spans_files(const struct pol *p)
{
	char first[300] = "", file[300];
	bool have = false;

	for (size_t k = 0; k < pol_n_kinds; k++)
		for (size_t i = 0; i < pol_kinds[k]->count(p); i++) {
			origin_file(pol_kinds[k]->origin(p, i), file, sizeof(file));
			if (!have)
				snprintf(first, sizeof(first), "%s", file);
			else if (strcmp(first, file) != 0)
				return true;
			have = true;
		}
	return false;
}

/* Each kind's rules after a blank line, in the order of the table. */
char *pol_format(const struct pol *p)
{
	struct pol_fmt x = { 0 };
	char *buf = NULL;
	size_t size = 0;

	x.f = open_memstream(&buf, &size);
	if (!x.f)
		return NULL;
	x.multi = spans_files(p);
	fprintf(x.f, "policy %s\n", p->name);
	for (size_t k = 0; k < pol_n_kinds; k++) {
		pol_kinds[k]->format(p, &x);
		x.section_open = false;
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
	for (size_t k = 0; k < pol_n_kinds; k++)
		pol_kinds[k]->free(p);
	memset(p, 0, sizeof(*p));
}

char *pol_summary(const struct pol *p, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < pol_n_kinds && used < len; k++) {
		char part[128];

		pol_kinds[k]->summary(p, part, sizeof(part));
		if (part[0])
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
						 part);
	}
	return buf;
}

const char *pol_masked_path(const struct pol *p, size_t i)
{
	for (size_t k = 0; p && k < pol_n_kinds; k++) {
		const char *(*fn)(const struct pol *, size_t) = pol_kinds[k]->masked_path;

		for (size_t j = 0; fn && fn(p, j); j++)
			if (i-- == 0)
				return fn(p, j);
	}
	return NULL;
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
	_cleanup_free_ char *file = iso_escape(err->file), *msg = iso_escape(err->e.msg);
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
