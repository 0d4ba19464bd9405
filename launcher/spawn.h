/* SPDX-License-Identifier: MIT */
#ifndef ISO_SPAWN_H
#define ISO_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/err.h"

struct iso_spawn {
	const char *path; /* from iso_resolve_command() */
	char *const *argv;
	char **envp;
	const char *cwd;    /* NULL: inherit */
	int out_fd, err_fd; /* -1: inherit isorun's own 1 / 2 */
	const int *pass_fds;
	size_t n_pass_fds;
	int tty_fd;	    /* >= 0: make the command's group the terminal's foreground */
	int caps_mode;	    /* enum ns_caps_mode, applied last before execve */
	uint64_t caps_keep; /* --cap-keep */
};

/* Why the command did not start, when it did not. */
struct iso_exec_failure {
	int errnum; /* 0: it started */
	int stage;  /* ISO_STAGE_* */
};
enum { ISO_STAGE_EXEC = 1, ISO_STAGE_CHDIR, ISO_STAGE_SETUP, ISO_STAGE_CAPS, ISO_STAGE_NS };

/* Find argv[0] in the command's own PATH; -ENOENT when it is nowhere. */
int iso_resolve_command(const char *name, char **envp, char **ret_path);

/*
 * Start the command in a new process group.  Returns only after the command has
 * exec'd or failed to (a close-on-exec pipe tells which).  ret_pid is set even
 * when exec failed, so the caller reaps the child.
 */
int iso_spawn(const struct iso_spawn *s, pid_t *ret_pid, struct iso_exec_failure *ret_fail,
	      struct iso_err *e);

#endif
