// SPDX-License-Identifier: MIT
#include "launcher/env.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "launcher/say.h"
#include "launcher/shell.h"
#include "tree/orphans.h"

struct envv {
	char **v;
	size_t n, cap;
};

static ssize_t find(const struct envv *e, const char *name, size_t len)
{
	for (size_t i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, len) == 0 && e->v[i][len] == '=')
			return (ssize_t)i;
	return -1;
}

static int put(struct envv *e, char *kv)
{
	size_t len;
	ssize_t at;

	if (!kv)
		return -ENOMEM;
	len = strcspn(kv, "=");
	at = find(e, kv, len);
	if (at >= 0) {
		free(e->v[at]);
		e->v[at] = kv;
		return 0;
	}
	if (e->n + 1 >= e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 64;
		char **nv = realloc(e->v, cap * sizeof(*nv));
		if (!nv) {
			free(kv);
			return -ENOMEM;
		}
		e->v = nv;
		e->cap = cap;
	}
	e->v[e->n++] = kv;
	e->v[e->n] = NULL;
	return 0;
}

static void del(struct envv *e, const char *name)
{
	ssize_t at = find(e, name, strlen(name));

	if (at < 0)
		return;
	free(e->v[at]);
	memmove(&e->v[at], &e->v[at + 1], (e->n - (size_t)at) * sizeof(char *));
	e->n--;
}

static char *join(const char *name, const char *dir, const char *sub)
{
	char *s = NULL;

	if (asprintf(&s, "%s=%s%s%s", name, dir, sub ? "/" : "", sub ? sub : "") < 0)
		return NULL;
	return s;
}

static bool listed(const struct sup_strv *v, const char *kv)
{
	size_t len = strcspn(kv, "=");

	for (size_t i = 0; i < v->n; i++)
		if (strlen(v->v[i]) == len && strncmp(v->v[i], kv, len) == 0)
			return true;
	return false;
}

/*
 * cargo's CARGO_HOME in the tree, its download caches linked to the kept
 * directory: config, credentials and installed binaries stay the run's own.
 */
static int link_tree_home(struct tree_tree *t, const struct sup_cache_kind *k, const char *dir,
			  struct iso_err *e)
{
	char target[PATH_MAX + 64], link[PATH_MAX + 64];
	int r = tree_mkdir_sub(t, k->tree_sub, e);

	for (size_t i = 0; r == 0 && k->subs[i]; i++) {
		snprintf(target, sizeof(target), "%s/%s", dir, k->subs[i]);
		snprintf(link, sizeof(link), "%s/%s", k->tree_sub, k->subs[i]);
		if (symlinkat(target, t->fd, link) < 0)
			r = iso_err_set(e, errno, "link '%s/%s' to '%s'", t->path, link, target);
	}
	return r;
}

/* Each cache's variables, pointing at its directory outside the tree. */
static int put_caches(struct envv *env, struct tree_tree *t, const struct sup_cache_use *caches,
		      size_t n, struct iso_err *e)
{
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		const struct sup_cache_kind *k = &sup_caches[sup_cache_lookup(caches[i].name)];

		for (size_t j = 0; j < SUP_CACHE_VARS && k->vars[j] && r == 0; j++)
			r = put(env, join(k->vars[j], caches[i].dir, k->subs[j]));
		if (r == 0 && k->tree_var && (r = link_tree_home(t, k, caches[i].dir, e)) == 0)
			r = put(env, join(k->tree_var, t->path, k->tree_sub));
	}
	return r;
}

/*
 * Update checks that only nag: each tool keeps its once-a-day (pip: a week) state
 * in HOME, which isorun makes empty, so every run would ask the network and print
 * the notice.  Set where the caller's environment does not name them (npm reads
 * its variables in any case), before --setenv, which wins
 * (docs/decisions/0057-update-checks.md).
 */
static const char *const nag_vars[] = { "NO_UPDATE_NOTIFIER=1", "npm_config_update_notifier=false",
					"PIP_DISABLE_PIP_VERSION_CHECK=1" };

bool sup_env_run_sets(const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; tree_vars[i].name; i++)
		if (strcmp(tree_vars[i].name, name) == 0)
			return true;
	for (size_t i = 0; i < sizeof(nag_vars) / sizeof(nag_vars[0]); i++)
		if (strncmp(nag_vars[i], name, len) == 0 && nag_vars[i][len] == '=')
			return true;
	return false;
}

static bool named(const struct envv *e, const char *kv)
{
	size_t len = strcspn(kv, "=");

	for (size_t i = 0; i < e->n; i++)
		if (strncasecmp(e->v[i], kv, len) == 0 && e->v[i][len] == '=')
			return true;
	return false;
}

static int put_nag_vars(struct envv *env, const struct sup_opts *o)
{
	char said[256] = "";
	size_t used = 0;
	int r = 0;

	for (size_t i = 0; i < sizeof(nag_vars) / sizeof(nag_vars[0]) && r == 0; i++) {
		if (named(env, nag_vars[i]))
			continue;
		r = put(env, strdup(nag_vars[i]));
		if (used < sizeof(said))
			used += (size_t)snprintf(said + used, sizeof(said) - used, "%s%s",
						 used ? " " : "", nag_vars[i]);
	}
	if (r == 0 && used && o->verbosity > 0)
		fprintf(stderr,
			"isorun: update checks off (the empty HOME would run them "
			"every time): %s\n",
			said);
	return r;
}

int sup_env_build(const struct sup_opts *o, struct tree_tree *t, char *const *base,
		  const struct sup_cache_use *caches, size_t n_caches, char ***ret,
		  struct iso_err *e)
{
	struct envv env = { 0 };
	int r = 0;

	for (size_t i = 0; base && base[i] && r == 0; i++) {
		if (!strchr(base[i], '='))
			continue;
		if (o->clearenv && !listed(&o->keep_env, base[i]))
			continue;
		r = put(&env, strdup(base[i]));
	}
	for (const struct tree_var *v = tree_vars; v->name && r == 0; v++)
		r = put(&env, join(v->name, t->path, v->sub));
	if (r == 0)
		r = put(&env, join(TREE_NAMESPACE_VAR, t->path, NULL));
	if (r == 0)
		r = put_nag_vars(&env, o);
	if (r == 0)
		r = put_caches(&env, t, caches, n_caches, e);
	if (r < 0 && e && e->msg[0]) {
		sup_env_free(env.v);
		return r;
	}
	/* for a prompt; before --setenv, which may change it */
	if (r == 0 && o->shell)
		r = put(&env, strdup(SUP_SHELL_VAR "=1"));
	/* Debian's and Ubuntu's default prompt shows it: (isorun)user@host */
	if (r == 0 && o->shell)
		r = put(&env, strdup("debian_chroot=isorun"));
	if (r == 0 && o->shell_own && sup_shell_kind(o->argv[0]) == SUP_SHELL_ZSH)
		r = put(&env, join("ZDOTDIR", t->path, SUP_SHELL_RC_DIR));
	for (size_t i = 0; i < o->env_dirs.n && r == 0; i++) {
		const char *kv = o->env_dirs.v[i];
		const char *sub = strchr(kv, '=') + 1;
		char *name = strndup(kv, (size_t)(sub - 1 - kv));

		r = tree_mkdir_sub(t, sub, e);
		if (r < 0 && e && e->cause == TREE_CAUSE_ENV_DIR) {
			iso_err_prefix(e, sup_say(o->say, SUP_SAY_ENV_DIR), " ");
			e->cause = 0;
		}
		if (r < 0) {
			free(name);
			sup_env_free(env.v);
			return r;
		}
		r = name ? put(&env, join(name, t->path, sub)) : -ENOMEM;
		free(name);
	}
	for (size_t i = 0; i < o->setenv.n && r == 0; i++)
		r = put(&env, strdup(o->setenv.v[i]));
	for (size_t i = 0; i < o->unsetenv.n && r == 0; i++)
		del(&env, o->unsetenv.v[i]);
	if (r == 0 && !env.v)
		r = put(&env, strdup("ISORUN_EMPTY=")) ?: (del(&env, "ISORUN_EMPTY"), 0);
	if (r < 0) {
		sup_env_free(env.v);
		return iso_err_set(e, -r, "build the command's environment");
	}
	*ret = env.v;
	return 0;
}

void sup_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}
