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

enum sup_cache_name { SUP_CACHE_GO, SUP_CACHE_NPM, SUP_CACHE_PIP, SUP_CACHE_CARGO, SUP_CACHE_XDG };
#define SUP_N_CACHES   5
#define SUP_CACHE_VARS 2

/*
 * One cache: vars[i] is set to its directory, or to subs[i] below it.  cargo's
 * CARGO_HOME stays in the tree (tree_var at tree_sub), its links[i] being
 * symlinks to the directory's subs[i]: only the downloads persist, never the
 * config, credentials or installed binaries a run could leave to the next.
 */
struct sup_cache_kind {
	const char *name;
	const char *vars[SUP_CACHE_VARS];
	const char *subs[SUP_CACHE_VARS + 1]; /* NULL-ended; vars[i] is dir/subs[i] when set */
	const char *tree_var, *tree_sub;      /* cargo: CARGO_HOME=TREE/home/.cargo */
};
extern const struct sup_cache_kind sup_caches[SUP_N_CACHES];

/* The cache called name, or -1. */
int sup_cache_lookup(const char *name);
/*
 * A --cache value: NAME[,NAME]... or none.  Sets *bits (1 << enum
 * sup_cache_name) and *none; -EINVAL with the first unknown name in *bad
 * (a pointer into val; the caller says which names there are).
 */
int sup_cache_parse(const char *val, unsigned *bits, bool *none, const char **bad, size_t *badlen);

/* A cache the run uses: its name and its directory (canonical). */
struct sup_cache_use {
	const char *name;
	char *dir;
};

/* Make and check each cache plan->caches names; fills uses[] (free with sup_cache_uses_free). */
int sup_cache_open_all(const struct sup_opts *o, struct sup_cache_use uses[SUP_N_CACHES], size_t *n,
		       struct iso_err *e);
void sup_cache_uses_free(struct sup_cache_use *uses, size_t n);

#endif
