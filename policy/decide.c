// SPDX-License-Identifier: MIT
/*
 * Decisions on a parsed policy: pure functions of the policy and the call's
 * arguments, shared by the notification handler and the unit tests.
 */
#include <fnmatch.h>
#include <string.h>

#include "policy/policy.h"

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/*
 * The verb a guard looks at: argv[N] as written (verb=argN), or the Nth
 * argument that is not an option (verb=N).  An option is a word starting with
 * '-' other than "-" itself, until a "--" that ends the options.
 */
static const char *find_verb(const struct pol_guard *g, char *const argv[])
{
	size_t argc = 0;
	bool options = true;
	int seen = 0;

	while (argv && argv[argc])
		argc++;
	if (g->verb_raw)
		return (size_t)g->verb_index < argc ? argv[g->verb_index] : NULL;
	for (size_t i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (options && strcmp(a, "--") == 0) {
			options = false;
			continue;
		}
		if (options && a[0] == '-' && a[1] != '\0')
			continue;
		if (++seen == g->verb_index)
			return a;
	}
	return NULL;
}

static bool guard_refuses(const struct pol_guard *g, char *const argv[])
{
	const char *verb = find_verb(g, argv);
	bool match = false;

	if (!verb)
		return !g->empty_allowed;
	for (char **p = g->patterns; p && *p && !match; p++)
		match = fnmatch(*p, verb, 0) == 0;
	return g->allow_list ? !match : match;
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
	for (size_t i = 0; i < p->n_guard; i++) {
		const struct pol_guard *g = &p->guard[i];

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

struct pol_verdict pol_decide_connect(const struct pol *p, const char *path)
{
	struct pol_verdict v = { .refuse = false, .origin = NULL };

	if (!p || !path || !*path)
		return v;
	for (size_t i = 0; i < p->n_socket; i++)
		if (strcmp(p->socket[i].path, path) == 0) {
			v.refuse = true;
			v.origin = p->socket[i].origin;
			return v;
		}
	return v;
}
