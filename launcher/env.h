/* SPDX-License-Identifier: MIT */
#ifndef ISO_ENV_H
#define ISO_ENV_H

#include "launcher/cache.h"
#include "launcher/opts.h"
#include "tree/tree.h"

/*
 * The command's environment, in this order: the caller's (only the --keep-env names
 * under --clearenv); isorun's variables pointing into the tree; the caches kept
 * between runs (caches[], made: cargo's links are made in the tree); --env-dir; then
 * --setenv and --unsetenv, so an explicit request wins over isorun's defaults.
 * *ret and its strings are malloc'ed; free with sup_env_free().
 */
int sup_env_build(const struct sup_opts *o, struct tree_tree *t, char *const *base,
		  const struct sup_cache_use *caches, size_t n_caches, char ***ret,
		  struct iso_err *e);
void sup_env_free(char **env);
/* A variable every run sets itself when the caller's does not: the tree's, the update checks'. */
bool sup_env_run_sets(const char *name);

#endif
