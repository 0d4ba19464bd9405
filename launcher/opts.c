// SPDX-License-Identifier: MIT
#include <signal.h>
#include <stdlib.h>

#include "launcher/opts.h"

void sup_opts_init(struct sup_opts *o)
{
	*o = (struct sup_opts){
		.residue = SUP_WARN,
		.leaks = SUP_FAIL,
		.grace_ms = 5000,
		.settle_ms = 3000,
		.stop_signal = SIGTERM,
		.finding_exit = 122,
		.policy = "default",
		/* the defaults' plan, until cli_plan_compile() makes the options' */
		.plan = { .residue = SUP_WARN, .leaks = SUP_FAIL },
	};
}

void sup_opts_free(struct sup_opts *o)
{
	free(o->env_dirs.v);
	free(o->setenv.v);
	free(o->unsetenv.v);
	free(o->keep_env.v);
	free(o->watch.v);
	free(o->watch_ignore.v);
	free(o->watch_ignore_by.v);
	free(o->writable.v);
	free(o->caches.v);
	free(o->pass_fds);
	free(o->binds);
	free(o->config_path);
	free(o->settings);
	for (size_t i = 0; i < o->n_pool; i++)
		free(o->pool[i]);
	free(o->pool);
	o->env_dirs.v = o->setenv.v = o->unsetenv.v = o->keep_env.v = o->watch.v = o->writable.v =
		o->caches.v = NULL;
	o->watch_ignore.v = o->watch_ignore_by.v = NULL;
	o->pass_fds = NULL;
	o->binds = NULL;
	o->n_binds = 0;
	o->config_path = NULL;
	o->settings = NULL;
	o->pool = NULL;
	o->n_pool = o->n_settings = 0;
}

char *sup_opts_keep(struct sup_opts *o, char *s)
{
	char **n;

	if (!s)
		return NULL;
	n = realloc(o->pool, (o->n_pool + 1) * sizeof(*n));
	if (!n) {
		free(s);
		return NULL;
	}
	n[o->n_pool++] = s;
	o->pool = n;
	return s;
}
