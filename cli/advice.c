// SPDX-License-Identifier: MIT
/*
 * The command line's advice for a cause that ns/ reports: ns/ says what the
 * kernel or the host refused, and names no option; which option helps depends on
 * what the user asked for, which only this layer knows.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli/advice.h"
#include "ns/ns.h"

/* A protection that needs a mount namespace of its own, or NULL. */
static const char *needs_ns(const struct sup_opts *o)
{
	if (o->protect_home)
		return "--protect-home";
	if (o->private_tmp)
		return "--private-tmp";
	if (o->net_isolated)
		return "--net=isolated";
	return NULL;
}

void cli_advise(const struct sup_opts *o, int cause, char *buf, size_t len)
{
	const char *prot = needs_ns(o);
	int n;

	buf[0] = '\0';
	switch ((enum ns_cause)cause) {
	case NS_CAUSE_NO_USERNS:
	case NS_CAUSE_PROC_MASKED:
		/* an enclosing isorun is the likelier cause than a container's profile */
		n = getenv("ISORUN_NAMESPACE")
			    ? snprintf(buf, len,
				       "this isorun runs inside another one (ISORUN_NAMESPACE is "
				       "set), whose namespaces or filter may refuse it; ")
			    : 0;
		if (n < 0 || (size_t)n >= len)
			n = 0;
		if (prot)
			snprintf(buf + n, len - (size_t)n,
				 "--pidns=try cannot help: %s needs a namespace of its own", prot);
		else
			snprintf(buf + n, len - (size_t)n, "or use --pidns=try to run without one");
		break;
	case NS_CAUSE_CWD_HIDDEN:
		snprintf(buf, len, "or pass --chdir DIR outside the home");
		break;
	case NS_CAUSE_HOME_FD:
		snprintf(buf, len,
			 "--protect-home guards the home; --writable DIR keeps DIR writable");
		break;
	case NS_CAUSE_HOME_KEPT:
		snprintf(buf, len,
			 "--writable takes a directory below the home; for the whole "
			 "home, leave out --protect-home");
		break;
	case NS_CAUSE_NONE:
		break;
	}
}

/* launcher/'s words that name an option (launcher/say.h), spelled once, here. */
const char *const cli_says[SUP_SAY_N] = {
	[SUP_SAY_CAP_KEEP] = "--cap-keep",
	[SUP_SAY_CGROUP_OFF] = "--cgroup=off",
	[SUP_SAY_CHDIR] = "--chdir",
	[SUP_SAY_ENV_DIR] = "--env-dir",
	[SUP_SAY_GC_KEPT] = "isorun gc --kept",
	[SUP_SAY_GUARD_OFF] = "the service guard, which records each exec, is off "
			      "(--policy=off)",
	[SUP_SAY_HOME_HIDE] = "--protect-home=hide",
	[SUP_SAY_HOME_HIDE_FIX] = "add --writable DIR for a directory below the home, or use "
				  "--protect-home=ro",
	[SUP_SAY_HOME_RO] = "--protect-home=ro",
	[SUP_SAY_HOME_RO_FIX] = "add --writable DIR for a directory below the home, or "
				"--protect-home=off",
	[SUP_SAY_HOME_SHOW] = "--protect-home=ro (the home visible, read-only)",
	[SUP_SAY_HOME_WHOLE_FIX] = "--writable cannot keep the whole home: add --protect-home=off, "
				   "or use a directory below the home with --writable DIR",
	[SUP_SAY_KEEP] = "--keep",
	[SUP_SAY_KEEP_FAILED] = "--keep=on-failure",
	[SUP_SAY_MAP_USERS_AUTO] = "--map-users=auto",
	[SUP_SAY_MAP_USERS_REQ] = "--map-users=require",
	[SUP_SAY_MAP_USERS_FIX] = "ask an admin for a range (usermod --add-subuids, "
				  "--add-subgids), or use --map-users=auto",
	[SUP_SAY_NET_ISOLATED] = "--net=isolated",
	[SUP_SAY_PASS_FD] = "--pass-fd",
	[SUP_SAY_PIDNS] = "--pidns",
	[SUP_SAY_PIDNS_FIX] = "--pidns (or pidns = try in isorun.conf)",
	[SUP_SAY_POLICY] = "--policy",
	[SUP_SAY_POLICY_OFF] = "--policy=off",
	[SUP_SAY_PRIVATE_TMP] = "--private-tmp",
	[SUP_SAY_PRIVATE_TMP_FIX] = "run it from a working directory that holds the file, "
				    "or without --private-tmp",
	[SUP_SAY_PROTECT_HOME] = "--protect-home",
	[SUP_SAY_RO_MOUNTS] = "--ro-bind or --tmpfs",
	[SUP_SAY_ROOT] = "--root",
	[SUP_SAY_ROOT_FIX] = "choose a writable place with --root DIR or ISORUN_ROOT",
	[SUP_SAY_SETTLE] = "--settle",
	[SUP_SAY_SOCKET_MASKS] = "--policy's deny-socket masks",
	[SUP_SAY_TIMEOUT] = "--timeout",
	[SUP_SAY_VERBOSE] = "--verbose",
	[SUP_SAY_WATCH] = "--watch",
	[SUP_SAY_WRITABLE] = "--writable",
/* the output files' options, spelled from the sinks table's rows */
#define SAY_SINK(ID, name, ...) [SUP_SAY_SINK + SUP_SINK_##ID] = "--" name,
	SUP_SINK_ROWS(SAY_SINK)
#undef SAY_SINK
};
