// SPDX-License-Identifier: MIT
/*
 * Decisions on a parsed policy: pure functions of the policy and the call's
 * arguments, shared by the notification handler and the unit tests.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <string.h>

#include "policy/policy.h"

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

int pol_path_normalize(const char *path, char *out, size_t len)
{
	size_t o = 0;

	if (!path || path[0] != '/' || len < 2)
		return -EINVAL;
	out[o++] = '/';
	for (const char *c = path; *c;) {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.')) {
			c += n;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			/* back to the last '/', never above the root */
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			c += n;
			continue;
		}
		if (o > 1)
			out[o++] = '/';
		if (o + n >= len)
			return -ENAMETOOLONG;
		memcpy(out + o, c, n);
		o += n;
		c += n;
		if (o + 1 >= len)
			return -ENAMETOOLONG;
	}
	out[o] = '\0';
	return 0;
}

struct pol_verdict pol_decide_connect(const struct pol *p, const char *path)
{
	struct pol_verdict v = { .refuse = false, .origin = NULL };
	char norm[PATH_MAX];

	if (!p || !path || !*path)
		return v;
	/* the spelling as the kernel would walk it if no name were a symlink */
	if (pol_path_normalize(path, norm, sizeof(norm)) == 0)
		path = norm;
	for (size_t i = 0; i < pol_sockets(p)->n; i++)
		if (strcmp(pol_sockets(p)->v[i].path, path) == 0) {
			v.refuse = true;
			v.origin = pol_sockets(p)->v[i].origin;
			return v;
		}
	return v;
}
