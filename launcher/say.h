/* SPDX-License-Identifier: MIT */
/*
 * The words that name an option, by what launcher/ means, not by how it is
 * spelled: the command line owns the spellings (cli/advice.c, iso_says[]) and
 * hands the table to the run through opts->say, as it hands opts->advise.
 * launcher/ keeps the sentence and puts the phrase in with "%s".
 */
#ifndef ISO_SAY_H
#define ISO_SAY_H

#include "launcher/sinktab.h"

enum iso_say {
	ISO_SAY_CAP_KEEP,	/* the capabilities a namespace's root keeps */
	ISO_SAY_CGROUP_OFF,	/* cgroups asked off */
	ISO_SAY_CHDIR,		/* the command's working directory */
	ISO_SAY_ENV_DIR,	/* a variable pointing into the tree */
	ISO_SAY_GC_KEPT,	/* the command that removes every kept tree */
	ISO_SAY_GUARD_OFF,	/* why no exec was recorded: the service guard is off */
	ISO_SAY_HOME_HIDE,	/* the home hidden */
	ISO_SAY_HOME_HIDE_FIX,	/* what helps a command that failed in the hidden home */
	ISO_SAY_HOME_RO,	/* the home read-only */
	ISO_SAY_HOME_RO_FIX,	/* what helps a command that failed in the read-only home */
	ISO_SAY_HOME_SHOW,	/* the home shown read-only, explained */
	ISO_SAY_HOME_WHOLE_FIX, /* what helps when the directory kept is the whole home */
	ISO_SAY_KEEP,		/* the tree kept after the run */
	ISO_SAY_KEEP_FAILED,	/* the tree kept after a failed run */
	ISO_SAY_MAP_USERS_AUTO, /* more ids when the host grants them */
	ISO_SAY_MAP_USERS_REQ,	/* more ids or no run */
	ISO_SAY_MAP_USERS_FIX,	/* what helps when the host grants no ids */
	ISO_SAY_NET_ISOLATED,	/* a network namespace of the run's own */
	ISO_SAY_PASS_FD,	/* a descriptor passed to the command */
	ISO_SAY_PIDNS,		/* a PID namespace of the run's own */
	ISO_SAY_POLICY,		/* the seccomp policy */
	ISO_SAY_POLICY_OFF,	/* no seccomp policy */
	ISO_SAY_PRIVATE_TMP,	/* /tmp and /var/tmp of the run's own */
	ISO_SAY_PROTECT_HOME,	/* the home guarded */
	ISO_SAY_RO_MOUNTS,	/* the read-only binds and tmpfs mounts asked for */
	ISO_SAY_ROOT,		/* where the trees are made */
	ISO_SAY_ROOT_FIX,	/* what helps when that place is not writable */
	ISO_SAY_SETTLE,		/* how long survivors get after the command */
	ISO_SAY_SOCKET_MASKS,	/* the policy's masks of socket kinds */
	ISO_SAY_TIMEOUT,	/* the run's deadline */
	ISO_SAY_WATCH,		/* a directory compared before and after */
	ISO_SAY_WRITABLE,	/* a directory kept writable in the protected home */
	/* each output file's option, by the sinks table's row: ISO_SAY_SINK + ISO_SINK_ID */
	ISO_SAY_SINK,
	ISO_SAY_N = ISO_SAY_SINK + ISO_N_SINKS
};

/* The command line's words for w, or "" when the run was given no table (a test's). */
static inline const char *iso_say(const char *const *table, enum iso_say w)
{
	return table && table[w] ? table[w] : "";
}

#endif
