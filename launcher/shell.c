// SPDX-License-Identifier: MIT
#include "launcher/shell.h"

#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/say.h"
#include "ns/ns.h"

/* Append ", WHAT" (or "WHAT" first) to buf. */
static void add(char *buf, size_t len, const char *what)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", what);
}

/* An option as isorun.conf spells it: without its dashes. */
static const char *bare(const struct iso_opts *o, enum iso_say w)
{
	const char *s = iso_say(o->say, w);

	return s + strspn(s, "-");
}

void iso_shell_banner(FILE *f, const struct iso_opts *o, const char *tree_path)
{
	_cleanup_free_ char *path = iso_shell_quote(tree_path);
	char guards[256] = "", pol[160], pidns[32];

	if (o->verbosity < 0)
		return;
	snprintf(pidns, sizeof(pidns), "%s%s", bare(o, ISO_SAY_PIDNS),
		 o->pidns == ISO_PIDNS_TRY ? "=try" : "");
	if (o->pidns != ISO_PIDNS_OFF)
		add(guards, sizeof(guards), pidns);
	if (o->net_isolated)
		add(guards, sizeof(guards), bare(o, ISO_SAY_NET_ISOLATED));
	if (o->private_tmp)
		add(guards, sizeof(guards), bare(o, ISO_SAY_PRIVATE_TMP));
	if (o->protect_home == NS_HOME_RO)
		add(guards, sizeof(guards), bare(o, ISO_SAY_HOME_RO));
	else if (o->protect_home == NS_HOME_HIDE)
		add(guards, sizeof(guards), bare(o, ISO_SAY_HOME_HIDE));
	snprintf(pol, sizeof(pol), "%s=%s%s", bare(o, ISO_SAY_POLICY), o->policy,
		 o->policy_log ? " (log)" : "");
	add(guards, sizeof(guards), pol);
	fprintf(f, "isorun: shell in %s (%s); %sthe tree is kept; $%s is set\n",
		path ? path : tree_path, guards, o->shell_own ? "leave with exit or Ctrl-D, " : "",
		ISO_SHELL_VAR);
}

void iso_shell_kept(FILE *f, const struct iso_opts *o, const char *path)
{
	fprintf(f,
		"isorun: tree kept at %s; remove it with: rm -rf %s (or every kept tree: "
		"%s)\n",
		path, path, iso_say(o->say, ISO_SAY_GC_KEPT));
}
