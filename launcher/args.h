/* SPDX-License-Identifier: MIT */
#ifndef ISO_ARGS_H
#define ISO_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launcher/err.h"

struct iso_strv {
	char **v;
	size_t n;
};

enum iso_verdict_mode { ISO_FAIL, ISO_WARN, ISO_IGNORE };
enum { ISO_PIDNS_OFF, ISO_PIDNS_ON, ISO_PIDNS_TRY };

/* How a run was asked for.  Filled by iso_parse_args(); all strings point into argv. */
struct iso_opts {
	const char *root;
	bool keep;
	bool clearenv;
	struct iso_strv env_dirs; /* "VAR=SUB" */
	struct iso_strv setenv;	  /* "VAR=VAL" */
	struct iso_strv unsetenv; /* "VAR" */
	struct iso_strv keep_env; /* "VAR" */
	struct iso_strv watch;	  /* directories */
	int *pass_fds;
	size_t n_pass_fds;
	const char *chdir;
	enum iso_verdict_mode residue; /* ISO_FAIL or ISO_WARN */
	enum iso_verdict_mode leaks;
	uint64_t timeout_ms; /* 0: none */
	uint64_t grace_ms;
	uint64_t settle_ms;
	int stop_signal;
	const char *report;
	int finding_exit;
	int verbosity;	    /* -1 quiet, 0 normal, 1 verbose */
	bool shell;	    /* `isorun shell`: interactive, tree kept */
	const char *policy; /* default|strict|off|FILE */
	bool policy_log;    /* --policy-mode=log */
	int pidns;	    /* ISO_PIDNS_* */
	bool map_root;
	uint64_t cap_keep; /* bit n: capability n */
	bool net_isolated;
	bool private_tmp;
	int protect_home; /* enum ns_home_mode */
	char **argv;	  /* the command, NULL-terminated */
	size_t argc;
};

enum iso_action { ISO_RUN, ISO_SHOW_HELP, ISO_SHOW_VERSION };

void iso_opts_init(struct iso_opts *o);
void iso_opts_free(struct iso_opts *o);
/* Returns the action, or -EINVAL with e->msg naming the option ("--timeout: invalid duration 'x'").
 */
int iso_parse_args(int argc, char **argv, struct iso_opts *o, struct iso_err *e);
void iso_usage(FILE *f);

#endif
