// SPDX-License-Identifier: MIT
/*
 * guard PROGRAM [verb=N|argN] [empty=allow|deny] allow|deny PATTERN...: an
 * exec of PROGRAM (by basename) is decided on its argv (pol_decide_exec(), here).
 * execve and execveat are notified whenever notification is on: the exec log
 * reads every exec through this handler, guards or not.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "common/cleanup.h"
#include "common/num.h"
#include "policy/kind.h"

const struct pol_guard_set *pol_guards(const struct pol *p)
{
	static const struct pol_guard_set none;
	const struct pol_guard_set *set = pol_kind_rules_of(p, &pol_kind_guard);

	return set ? set : &none;
}

/* The decision on an exec: pure, shared by the handler and the unit tests. */
static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

#define VERB_MAX 100 /* verb=N is at most 99 (kind_guard.c) */

static bool verb_refused(const struct pol_guard *g, const char *verb)
{
	bool match = false;

	if (!verb)
		return !g->empty_allowed;
	for (char **p = g->patterns; p && *p && !match; p++)
		match = fnmatch(*p, verb, 0) == 0;
	return g->allow_list ? !match : match;
}

/* Where a reading of argv stands before a word: how many non-options it has seen. */
struct readings {
	bool fresh[2][VERB_MAX]; /* the word is read on its own; [1]: after "--" */
	bool value[2][VERB_MAX]; /* the word is the argument of the option before it */
};

/* One word of argv under every reading in `cur`; false once a reading refuses. */
static bool read_word(const struct pol_guard *g, const char *word, const struct readings *cur,
		      struct readings *next)
{
	int n = g->verb_index;

	memset(next, 0, sizeof(*next));
	for (int ended = 0; ended < 2; ended++)
		for (int c = 0; c < n; c++) {
			if (cur->value[ended][c])
				next->fresh[ended][c] = true;
			if (!cur->fresh[ended][c])
				continue;
			switch (ended ? POL_OPT_NONE : pol_option(g->program, word)) {
			case POL_OPT_NONE:
				if (c + 1 == n && verb_refused(g, word))
					return false;
				if (c + 1 < n)
					next->fresh[ended][c + 1] = true;
				break;
			case POL_OPT_END:
				next->fresh[1][c] = true;
				break;
			case POL_OPT_ALONE:
				next->fresh[ended][c] = true;
				break;
			case POL_OPT_UNKNOWN:
				next->fresh[ended][c] = true;
				/* fallthrough */
			case POL_OPT_NEXT:
				next->value[ended][c] = true;
				break;
			}
		}
	return true;
}

/*
 * verb=argN: argv[N] as written.  verb=N: the Nth word that is not an option,
 * skipping the argument of an option that takes one (policy/options.c), until a
 * "--".  An option the program's table does not know may or may not take the
 * next word: every reading counts, and the exec is refused when any reading's
 * verb is (fail closed: `systemctl --new-option status x` is refused, as `x`
 * may be the verb).
 */
static bool guard_refuses(const struct pol_guard *g, char *const argv[])
{
	struct readings r[2];
	size_t i, argc = 0;
	int k = 0;

	while (argv && argv[argc])
		argc++;
	if (g->verb_raw)
		return verb_refused(g, (size_t)g->verb_index < argc ? argv[g->verb_index] : NULL);
	if (g->verb_index < 1 || g->verb_index >= VERB_MAX)
		return true;
	memset(&r[0], 0, sizeof(r[0]));
	r[0].fresh[0][0] = true;
	for (i = 1; i < argc; i++, k ^= 1)
		if (!read_word(g, argv[i], &r[k], &r[k ^ 1]))
			return true;
	/* a reading still short of the verb has none */
	for (int ended = 0; ended < 2; ended++)
		for (int c = 0; c < g->verb_index; c++)
			if (r[k].fresh[ended][c] || r[k].value[ended][c])
				return verb_refused(g, NULL);
	return false;
}

/*
 * The program is named by the path executed and, when it differs, by argv[0]:
 * multi-call binaries act on argv[0] (systemctl run as `reboot`), so an exec is
 * refused when a guard for either name refuses it.
 */
struct pol_verdict pol_decide_exec(const struct pol *p, const char *path, char *const argv[])
{
	struct pol_verdict v = { .refuse = false, .origin = NULL };
	const char *name = NULL, *alias = NULL;

	if (path && *path)
		name = base_name(path);
	if (argv && argv[0] && *argv[0]) {
		const char *a = base_name(argv[0]);

		if (!name)
			name = a;
		else if (strcmp(a, name) != 0)
			alias = a;
	}
	if (!name || !p)
		return v;
	for (size_t i = 0; i < pol_guards(p)->n; i++) {
		const struct pol_guard *g = &pol_guards(p)->v[i];

		if (strcmp(g->program, name) != 0 && (!alias || strcmp(g->program, alias) != 0))
			continue;
		if (guard_refuses(g, argv)) {
			v.refuse = true;
			v.origin = g->origin;
			return v;
		}
	}
	return v;
}

/* The policy's set of these rules, made at the first: NULL when out of memory. */
static struct pol_guard_set *set_of(struct pol *p)
{
	void **slot = pol_kind_rules(p, &pol_kind_guard);

	if (!*slot)
		*slot = calloc(1, sizeof(struct pol_guard_set));
	return *slot;
}

#define POL_MAX_VERB 99 /* verb=N, verb=argN */

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

/* A decimal number in [lo, hi] with no sign, no leading zero, nothing after. */
static bool parse_small(const char *s, int lo, int hi, int *ret)
{
	uint64_t v;

	if (s[0] == '0' || iso_parse_u64(s, NULL, (uint64_t)lo, (uint64_t)hi, &v) < 0)
		return false;
	*ret = (int)v;
	return true;
}

/* The program's name into g->program. */
static int guard_program(const struct pol_stmt *st, struct pol_guard *g)
{
	const struct pol_tok *t = st->t;

	if (st->n < 2)
		return pol_fail(st, pol_end_col(st), "guard: expected a program name");
	if (strchr(t[1].s, '/'))
		return pol_fail(st, t[1].col,
				"guard: '%.64s' is a path; programs are matched by basename",
				t[1].s);
	if (strcmp(t[1].s, ".") == 0 || strcmp(t[1].s, "..") == 0 || strchr(t[1].s, '='))
		return pol_fail(st, t[1].col, "guard: '%.64s' is not a program name", t[1].s);
	if (strlen(t[1].s) >= sizeof(g->program))
		return pol_fail(st, t[1].col, "program name longer than %zu bytes",
				sizeof(g->program) - 1);
	snprintf(g->program, sizeof(g->program), "%s", t[1].s);
	return 0;
}

/* verb= and empty= up to allow or deny: its index in *ret_i. */
static int guard_options(const struct pol_stmt *st, struct pol_guard *g, bool *have_empty,
			 size_t *ret_i)
{
	const struct pol_tok *t = st->t;
	bool have_verb = false;
	size_t i;

	for (i = 2; i < st->n; i++) {
		char key[16];
		const char *value;
		int vcol;

		if (strcmp(t[i].s, "allow") == 0 || strcmp(t[i].s, "deny") == 0)
			break;
		if (!pol_split_option(&t[i], key, sizeof(key), &value, &vcol))
			return pol_fail(st, t[i].col, "guard: expected allow or deny, got '%.64s'",
					t[i].s);
		if (strcmp(key, "verb") == 0) {
			if (have_verb)
				return pol_fail(st, t[i].col, "verb= given twice");
			have_verb = true;
			g->verb_raw = strncmp(value, "arg", 3) == 0;
			if (!parse_small(value + (g->verb_raw ? 3 : 0), 1, POL_MAX_VERB,
					 &g->verb_index))
				return pol_fail(st, vcol,
						"bad verb= '%.64s' (N or argN, N from 1 to %d)",
						value, POL_MAX_VERB);
		} else if (strcmp(key, "empty") == 0) {
			if (*have_empty)
				return pol_fail(st, t[i].col, "empty= given twice");
			*have_empty = true;
			if (strcmp(value, "allow") == 0)
				g->empty_allowed = true;
			else if (strcmp(value, "deny") == 0)
				g->empty_allowed = false;
			else
				return pol_fail(st, vcol, "bad empty= '%.64s' (allow or deny)",
						value);
		} else {
			return pol_fail(st, t[i].col, "unknown option '%.64s' for guard", t[i].s);
		}
	}
	*ret_i = i;
	return 0;
}

/* The patterns from t[i] on, checked and copied into *ret (NULL-terminated). */
static int guard_patterns(const struct pol_stmt *st, struct pol_guard *g, size_t i,
			  bool *matches_empty, char ***ret)
{
	size_t np = st->n - i;
	char **patterns;

	for (size_t k = 0; k < np; k++) {
		const struct pol_tok *p = &st->t[i + k];

		/* verb=N skips options ("-" is not one): such a pattern could only mislead */
		if (!g->verb_raw && p->s[0] == '-' && fnmatch(p->s, "-", 0) != 0)
			return pol_fail(st, p->col,
					"pattern '%.64s' never matches: verb=%d skips options (use "
					"verb=arg%d)",
					p->s, g->verb_index, g->verb_index);
		if (fnmatch(p->s, "", 0) == 0)
			*matches_empty = true;
	}
	patterns = calloc(np + 1, sizeof(*patterns));
	if (!patterns)
		return pol_fail_oom(st);
	for (size_t k = 0; k < np; k++) {
		patterns[k] = strdup(st->t[i + k].s);
		if (!patterns[k]) {
			free_patterns(patterns);
			return pol_fail_oom(st);
		}
	}
	*ret = patterns;
	return 0;
}

/* g with its patterns into the policy, unless it is there already. */
static int guard_add(const struct pol_stmt *st, struct pol_guard *g, char **patterns)
{
	struct pol *p = st->pol;
	struct pol_guard_set *set;
	void *arr;
	int r;

	for (size_t k = 0; k < pol_guards(p)->n; k++)
		if (same_guard(&pol_guards(p)->v[k], g, patterns)) {
			free_patterns(patterns);
			return 0; /* the same rule again */
		}
	r = pol_origin_set(st, g->origin, sizeof(g->origin));
	set = r < 0 ? NULL : set_of(p);
	arr = set ? pol_grow(set->v, set->n, sizeof(*g)) : NULL;
	if (!arr) {
		free_patterns(patterns);
		return r < 0 ? r : pol_fail_oom(st);
	}
	set->v = arr;
	g->patterns = patterns;
	set->v[set->n++] = *g;
	return 0;
}

static int guard_parse(const struct pol_stmt *st)
{
	struct pol_guard g = { .verb_index = 1 };
	bool have_empty = false, matches_empty = false;
	char **patterns = NULL;
	size_t i = 0;
	int r;

	r = guard_program(st, &g);
	if (r == 0)
		r = guard_options(st, &g, &have_empty, &i);
	if (r < 0)
		return r;
	if (i == st->n)
		return pol_fail(st, pol_end_col(st), "guard: expected allow or deny");
	g.allow_list = strcmp(st->t[i].s, "allow") == 0;
	if (++i == st->n)
		return pol_fail(st, pol_end_col(st), "guard: expected a pattern after '%s'",
				g.allow_list ? "allow" : "deny");
	r = guard_patterns(st, &g, i, &matches_empty, &patterns);
	if (r < 0)
		return r;
	/* no verb at all is matched as the empty word unless empty= says otherwise */
	if (!have_empty)
		g.empty_allowed = g.allow_list ? matches_empty : !matches_empty;
	return guard_add(st, &g, patterns);
}

static size_t guard_count(const struct pol *p)
{
	return pol_guards(p)->n;
}

static const char *guard_origin(const struct pol *p, size_t i)
{
	return pol_guards(p)->v[i].origin;
}

static void guard_format(const struct pol *p, struct pol_fmt *x)
{
	for (size_t i = 0; i < pol_guards(p)->n; i++) {
		const struct pol_guard *g = &pol_guards(p)->v[i];
		FILE *f = pol_fmt_rule(x, g->origin);

		fprintf(f, "guard %s verb=%s%d empty=%s %s", g->program, g->verb_raw ? "arg" : "",
			g->verb_index, g->empty_allowed ? "allow" : "deny",
			g->allow_list ? "allow" : "deny");
		for (char **s = g->patterns; s && *s; s++)
			fprintf(f, " %s", *s);
		fputc('\n', f);
	}
}

static void guard_free(struct pol *p)
{
	struct pol_guard_set *set = *pol_kind_rules(p, &pol_kind_guard);

	for (size_t i = 0; set && i < set->n; i++)
		free_patterns(set->v[i].patterns);
	if (set)
		free(set->v);
	free(set);
	*pol_kind_rules(p, &pol_kind_guard) = NULL;
}

static void guard_summary(const struct pol *p, char *buf, size_t len)
{
	snprintf(buf, len, "%zu guarded programs", pol_guards(p)->n);
}

static int guard_filter(pol_scmp_ctx ctx, const struct pol *p, bool notify, bool log_only,
			struct iso_err *e)
{
	int r = 0;

	if (notify)
		r = pol_filter_notify(ctx, p, "execve", e);
	if (notify && r >= 0)
		r = pol_filter_notify(ctx, p, "execveat", e);
	return r;
}

static struct pol_verdict decide_exec(const struct pol *p, const void *args)
{
	const struct pol_exec_args *x = args;

	return pol_decide_exec(p, x->path, x->argv);
}

/* The exec log: the exec as the caller passed it, before it is answered. */
static void exec_passed(const struct pol_notif *n, const void *args)
{
	const struct pol_exec_args *x = args;

	if (n->on_exec)
		n->on_exec((pid_t)n->req->pid, x->argv, x->argc, n->arg);
}

static int guard_handle(const struct pol_notif *n)
{
	static const struct pol_args_ops ops[2] = {
		{ "execve", POL_EXEC_ARGS_SIZE, pol_exec_read, decide_exec, pol_exec_detail,
		  exec_passed },
		{ "execveat", POL_EXEC_ARGS_SIZE, pol_execat_read, decide_exec, pol_exec_detail,
		  exec_passed },
	};
	bool at = pol_notif_is(n, SYS_execveat, "execveat");

	if (!at && !pol_notif_is(n, SYS_execve, "execve"))
		return POL_NOTIF_NOT_MINE;
	if (pol_guards(n->p)->n == 0 && !n->on_exec)
		return pol_notif_answer(n, 0, true);
	return pol_notif_args(n, &ops[at]);
}

const struct pol_kind pol_kind_guard = {
	.word = "guard",
	.example = "guard systemctl verb=2 empty=allow allow status show",
	.parse = guard_parse,
	.count = guard_count,
	.origin = guard_origin,
	.format = guard_format,
	.free = guard_free,
	.summary = guard_summary,
	.filter = guard_filter,
	.handle = guard_handle,
};
