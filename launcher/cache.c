// SPDX-License-Identifier: MIT
#include "launcher/cache.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/cache.h"

const struct sup_cache_kind sup_caches[SUP_N_CACHES] = {
	[SUP_CACHE_GO] = { "go", { "GOCACHE", "GOMODCACHE" }, { "build", "mod" } },
	[SUP_CACHE_NPM] = { "npm", { "npm_config_cache" }, { NULL } },
	[SUP_CACHE_PIP] = { "pip", { "PIP_CACHE_DIR" }, { NULL } },
	[SUP_CACHE_CARGO] = { "cargo",
			      { NULL },
			      { "registry", "git" },
			      "CARGO_HOME",
			      "home/.cargo" },
	[SUP_CACHE_XDG] = { "xdg", { "XDG_CACHE_HOME" }, { NULL } },
};

int sup_cache_lookup(const char *name)
{
	for (int i = 0; i < SUP_N_CACHES; i++)
		if (strcmp(sup_caches[i].name, name) == 0)
			return i;
	return -1;
}

int sup_cache_parse(const char *val, unsigned *bits, bool *none, const char **bad, size_t *badlen)
{
	*bits = 0;
	*none = false;
	for (const char *p = val;;) {
		size_t l;
		char w[16];
		int c;

		p += strspn(p, " \t");
		l = strcspn(p, ",");
		while (l && (p[l - 1] == ' ' || p[l - 1] == '\t'))
			l--;
		c = l < sizeof(w) ? (snprintf(w, sizeof(w), "%.*s", (int)l, p), sup_cache_lookup(w))
				  : -1;
		if (c < 0 && l == 4 && strncmp(p, "none", 4) == 0)
			*none = true;
		else if (c < 0) {
			*bad = p;
			*badlen = l;
			return -EINVAL;
		} else
			*bits |= 1u << c;
		p = strchr(p, ',');
		if (!p)
			return 0;
		p++;
	}
}

int sup_cache_open_all(const struct sup_opts *o, struct sup_cache_use uses[SUP_N_CACHES], size_t *n,
		       struct iso_err *e)
{
	char base[PATH_MAX], dir[PATH_MAX];

	*n = 0;
	if (!o->plan.caches)
		return 0;
	if (tree_cache_base(base, sizeof(base), e) < 0)
		return -EINVAL;
	for (int i = 0; i < SUP_N_CACHES; i++) {
		if (!(o->plan.caches & (1u << i)))
			continue;
		if (tree_cache_open(base, sup_caches[i].name, sup_caches[i].subs, dir, sizeof(dir),
				    e) < 0)
			return -EINVAL;
		uses[*n].name = sup_caches[i].name;
		uses[*n].dir = strdup(dir);
		if (!uses[(*n)++].dir)
			return iso_err_set(e, ENOMEM, "cache '%s'", sup_caches[i].name);
		if (o->verbosity > 0)
			fprintf(stderr,
				"isorun: cache %s: %s, kept between runs (isorun gc never "
				"removes it)\n",
				sup_caches[i].name, dir);
	}
	return 0;
}

void sup_cache_uses_free(struct sup_cache_use *uses, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(uses[i].dir);
}
