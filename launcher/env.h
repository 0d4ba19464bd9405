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
 * *ret and its strings are malloc'ed; free with iso_env_free().
 */
int iso_env_build(const struct iso_opts *o, struct iso_tree *t, char *const *base,
		  const struct iso_cache_use *caches, size_t n_caches, char ***ret,
		  struct iso_err *e);
void iso_env_free(char **env);

#endif
