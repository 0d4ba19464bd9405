/* SPDX-License-Identifier: MIT */
/*
 * The caches a run keeps between runs on purpose (--cache NAME): which
 * variables each name points at a per-user directory outside the tree
 * (tree/cache.h), and what the run recorded of them for the report.
 */
#ifndef ISO_CACHE_H
#define ISO_CACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "launcher/opts.h"

enum iso_cache_name { ISO_CACHE_GO, ISO_CACHE_NPM, ISO_CACHE_PIP, ISO_CACHE_CARGO, ISO_CACHE_XDG };
#define ISO_N_CACHES   5
#define ISO_CACHE_VARS 2

/*
 * One cache: vars[i] is set to its directory, or to subs[i] below it.  cargo's
 * CARGO_HOME stays in the tree (tree_var at tree_sub), its links[i] being
 * symlinks to the directory's subs[i]: only the downloads persist, never the
 * config, credentials or installed binaries a run could leave to the next.
 */
struct iso_cache_kind {
	const char *name;
	const char *vars[ISO_CACHE_VARS];
	const char *subs[ISO_CACHE_VARS + 1]; /* NULL-ended; vars[i] is dir/subs[i] when set */
	const char *tree_var, *tree_sub;      /* cargo: CARGO_HOME=TREE/home/.cargo */
};
extern const struct iso_cache_kind iso_caches[ISO_N_CACHES];

/* The cache called name, or -1. */
int iso_cache_lookup(const char *name);
/*
 * A --cache value: NAME[,NAME]... or none.  Sets *bits (1 << enum
 * iso_cache_name) and *none; -EINVAL with the first unknown name in *bad
 * (a pointer into val; the caller says which names there are).
 */
int iso_cache_parse(const char *val, unsigned *bits, bool *none, const char **bad, size_t *badlen);

/* A cache the run uses: its name and its directory (canonical). */
struct iso_cache_use {
	const char *name;
	char *dir;
};

/* Make and check each cache plan->caches names; fills uses[] (free with iso_cache_uses_free). */
int iso_cache_open_all(const struct iso_opts *o, struct iso_cache_use uses[ISO_N_CACHES], size_t *n,
		       struct iso_err *e);
void iso_cache_uses_free(struct iso_cache_use *uses, size_t n);

#endif
