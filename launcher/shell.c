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

void iso_shell_banner(FILE *f, const struct iso_opts *o, const char *tree_path)
{
	_cleanup_free_ char *path = iso_shell_quote(tree_path);
	char guards[256] = "", pol[160];

	if (o->verbosity < 0)
		return;
	if (o->pidns != ISO_PIDNS_OFF)
		add(guards, sizeof(guards), o->pidns == ISO_PIDNS_TRY ? "pidns=try" : "pidns");
	if (o->net_isolated)
		add(guards, sizeof(guards), "net=isolated");
	if (o->private_tmp)
		add(guards, sizeof(guards), "private-tmp");
	if (o->protect_home == NS_HOME_RO)
		add(guards, sizeof(guards), "protect-home=ro");
	else if (o->protect_home == NS_HOME_HIDE)
		add(guards, sizeof(guards), "protect-home=hide");
	snprintf(pol, sizeof(pol), "policy=%s%s", o->policy, o->policy_log ? " (log)" : "");
	add(guards, sizeof(guards), pol);
	fprintf(f, "isorun: shell in %s (%s); %sthe tree is kept; $%s is set\n",
		path ? path : tree_path, guards, o->shell_own ? "leave with exit or Ctrl-D, " : "",
		ISO_SHELL_VAR);
}

void iso_shell_kept(FILE *f, const struct iso_opts *o, const char *path)
{
	fprintf(f,
		"isorun: namespace kept at %s; remove it with: rm -rf %s (or every kept tree: "
		"%s)\n",
		path, path, iso_say(o->say, ISO_SAY_GC_KEPT));
}
