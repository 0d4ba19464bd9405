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
static const char *needs_ns(const struct iso_opts *o)
{
	if (o->protect_home)
		return "--protect-home";
	if (o->private_tmp)
		return "--private-tmp";
	if (o->net_isolated)
		return "--net=isolated";
	return NULL;
}

void iso_advise(const struct iso_opts *o, int cause, char *buf, size_t len)
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
