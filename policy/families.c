/* SPDX-License-Identifier: MIT */
/*
 * The one list of call families: the spellings under which the kernel offers
 * one operation.  A `deny` of any member denies every member, on every
 * architecture the filter covers (policy/compile.c), so that a newer call
 * (quotactl_fd), a 32-bit time64 call (clock_settime64) or an older one
 * (stime, i386 only) is no way around a rule written with the familiar name.
 * libseccomp places each member on the architectures where it exists.
 */
#include "policy/policy.h"

#include <string.h>

#include "common/cleanup.h"

/* Each row ends with NULL; a call is in one row at most (the unit test checks). */
static const char *const families[][8] = {
	/* set the clock: settimeofday is clock_settime(CLOCK_REALTIME) */
	{ "settimeofday", "stime", "clock_settime", "clock_settime64", NULL },
	/* steer the clock: adjtimex is clock_adjtime(CLOCK_REALTIME) */
	{ "adjtimex", "clock_adjtime", "clock_adjtime64", NULL },
	{ "quotactl", "quotactl_fd", NULL },
	{ "kexec_load", "kexec_file_load", NULL },
	{ "init_module", "finit_module", NULL },
	/*
	 * the mount API: a detached mount (fsmount, open_tree's clone) is used
	 * through its fd without ever being attached, and mount_setattr remounts
	 */
	{ "mount", "fsopen", "fsconfig", "fsmount", "move_mount", "open_tree", "mount_setattr",
	  NULL },
	{ "umount", "umount2", NULL },
};

const char *const *pol_family(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(families); i++)
		for (const char *const *m = families[i]; *m; m++)
			if (!strcmp(*m, name))
				return families[i];
	return NULL;
}

const char *const *pol_family_at(size_t i)
{
	return i < ELEMENTSOF(families) ? families[i] : NULL;
}
