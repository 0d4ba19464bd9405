/* SPDX-License-Identifier: MIT */
/*
 * The words that name an option, by what launcher/ means, not by how it is
 * spelled: the command line owns the spellings (cli/advice.c, cli_says[]) and
 * hands the table to the run through opts->say, as it hands opts->advise.
 * launcher/ keeps the sentence and puts the phrase in with "%s".
 */
#ifndef ISO_SAY_H
#define ISO_SAY_H

#include "launcher/sinktab.h"

enum sup_say {
	SUP_SAY_CAP_KEEP,	 /* the capabilities a namespace's root keeps */
	SUP_SAY_CGROUP_OFF,	 /* cgroups asked off */
	SUP_SAY_CHDIR,		 /* the command's working directory */
	SUP_SAY_ENV_DIR,	 /* a variable pointing into the tree */
	SUP_SAY_GC_KEPT,	 /* the command that removes every kept tree */
	SUP_SAY_GUARD_OFF,	 /* why no exec was recorded: the service guard is off */
	SUP_SAY_HOME_HIDE,	 /* the home hidden */
	SUP_SAY_HOME_HIDE_FIX,	 /* what helps a command that failed in the hidden home */
	SUP_SAY_HOME_RO,	 /* the home read-only */
	SUP_SAY_HOME_RO_FIX,	 /* what helps a command that failed in the read-only home */
	SUP_SAY_HOME_SHOW,	 /* the home shown read-only, explained */
	SUP_SAY_HOME_WHOLE_FIX,	 /* what helps when the directory kept is the whole home */
	SUP_SAY_KEEP,		 /* the tree kept after the run */
	SUP_SAY_KEEP_FAILED,	 /* the tree kept after a failed run */
	SUP_SAY_MAP_USERS_AUTO,	 /* more ids when the host grants them */
	SUP_SAY_MAP_USERS_REQ,	 /* more ids or no run */
	SUP_SAY_MAP_USERS_FIX,	 /* what helps when the host grants no ids */
	SUP_SAY_NET_ISOLATED,	 /* a network namespace of the run's own */
	SUP_SAY_PASS_FD,	 /* a descriptor passed to the command */
	SUP_SAY_PIDNS,		 /* a PID namespace of the run's own */
	SUP_SAY_PIDNS_FIX,	 /* what lets the kernel prove an ordinary user's tree */
	SUP_SAY_POLICY,		 /* the seccomp policy */
	SUP_SAY_POLICY_OFF,	 /* no seccomp policy */
	SUP_SAY_PRIVATE_TMP,	 /* /tmp and /var/tmp of the run's own */
	SUP_SAY_PRIVATE_TMP_FIX, /* what helps a command that failed on a file in the host's /tmp */
	SUP_SAY_PROTECT_HOME,	 /* the home guarded */
	SUP_SAY_RO_MOUNTS,	 /* the read-only binds and tmpfs mounts asked for */
	SUP_SAY_ROOT,		 /* where the trees are made */
	SUP_SAY_ROOT_FIX,	 /* what helps when that place is not writable */
	SUP_SAY_SETTLE,		 /* how long survivors get after the command */
	SUP_SAY_SOCKET_MASKS,	 /* the policy's masks of socket kinds */
	SUP_SAY_TIMEOUT,	 /* the run's deadline */
	SUP_SAY_VERBOSE,	 /* more detail on stderr */
	SUP_SAY_WATCH,		 /* a directory compared before and after */
	SUP_SAY_WRITABLE,	 /* a directory kept writable in the protected home */
	/* each output file's option, by the sinks table's row: SUP_SAY_SINK + SUP_SINK_ID */
	SUP_SAY_SINK,
	SUP_SAY_N = SUP_SAY_SINK + SUP_N_SINKS
};

/* The command line's words for w, or "" when the run was given no table (a test's). */
static inline const char *sup_say(const char *const *table, enum sup_say w)
{
	return table && table[w] ? table[w] : "";
}

#endif
