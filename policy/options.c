// SPDX-License-Identifier: MIT
/*
 * Which options of a guarded program take an argument: without knowing it, the
 * guard took the argument of `systemctl -p status restart x` for the verb.
 *
 * From the programs' own getopt tables (systemd 252, as `systemctl --NAME=x`
 * answers "requires"/"doesn't allow an argument"), plus the options later
 * versions added that take an argument.  A table may name an option as taking an
 * argument that some version does not know (that version refuses the word and
 * runs nothing), but never one as a flag that some version gives an argument:
 * that would hide a verb again.  Every option a table does not name, and every
 * option of a program without a table, may or may not take the next word; the
 * guard then weighs both readings (see decide.c).
 */
#include <string.h>

#include "common/cleanup.h"
#include "policy/policy.h"

struct tool {
	const char *program;
	/* getopt(3) optstring: "x:" takes an argument, "x::" only one attached to it */
	const char *shorts;
	const char *const *with_arg; /* long options, NULL-terminated */
	const char *const *flags;
};

// clang-format off
static const char *const systemctl_arg[] = {
	"host", "machine", "type", "state", "property", "job-mode", "check-inhibitors",
	"kill-whom", "kill-value", "signal", "what", "legend", "preset-mode", "root", "image",
	"image-policy", "lines", "output", "boot-loader-menu", "boot-loader-entry",
	"reboot-argument", "timestamp", "message", "when", "drop-in", "capsule", NULL,
};
static const char *const systemctl_flag[] = {
	"help", "version", "system", "user", "failed", "all", "full", "recursive", "reverse",
	"with-dependencies", "show-transaction", "show-types", "value", "now", "dry-run", "quiet",
	"wait", "no-block", "no-wall", "no-reload", "no-legend", "no-pager", "no-ask-password",
	"global", "runtime", "force", "firmware-setup", "plain", "read-only", "mkdir", "marked",
	"fail", "irreversible", "ignore-dependencies", "ignore-inhibitors", "after", "before", NULL,
};
static const char *const loginctl_arg[] = {
	"host", "machine", "property", "kill-whom", "kill-who", "signal", "lines", "output", "json",
	NULL,
};
static const char *const loginctl_flag[] = {
	"help", "version", "no-pager", "no-legend", "no-ask-password", "value", "all", "full", NULL,
};

// clang-format on

static const struct tool tools[] = {
	{ "systemctl", "hC:t:p:P:alqfs:H:M:n:o:iTr.::", systemctl_arg, systemctl_flag },
	{ "loginctl", "hp:P:als:H:M:n:o:", loginctl_arg, loginctl_flag },
};

static const struct tool *tool_find(const char *program)
{
	for (size_t i = 0; program && i < ELEMENTSOF(tools); i++)
		if (!strcmp(tools[i].program, program))
			return &tools[i];
	return NULL;
}

static bool listed(const char *const *names, const char *name, size_t len, bool *exact)
{
	bool any = false;

	for (; names && *names; names++) {
		if (strncmp(*names, name, len) != 0)
			continue;
		any = true;
		if ((*names)[len] == '\0')
			*exact = true;
	}
	return any;
}

/*
 * --NAME (no '='): getopt_long(3) takes an exact name, or an abbreviation; one
 * matching names of both kinds is refused by the program (ambiguous), so it is
 * unknown here.
 */
static enum pol_opt long_option(const struct tool *t, const char *name)
{
	size_t len = strlen(name);
	bool exact_arg = false, exact_flag = false;
	bool arg = listed(t->with_arg, name, len, &exact_arg);
	bool flag = listed(t->flags, name, len, &exact_flag);

	if (exact_arg || (arg && !flag))
		return POL_OPT_NEXT;
	if (exact_flag || (flag && !arg))
		return POL_OPT_ALONE;
	return POL_OPT_UNKNOWN;
}

/* -abc: letters until one takes an argument, which is the rest or the next word. */
static enum pol_opt short_options(const struct tool *t, const char *cluster)
{
	for (const char *c = cluster; *c; c++) {
		const char *at = *c == ':' ? NULL : strchr(t->shorts, *c);

		if (!at)
			return POL_OPT_UNKNOWN;
		if (at[1] == ':')
			return at[2] == ':' || c[1] ? POL_OPT_ALONE : POL_OPT_NEXT;
	}
	return POL_OPT_ALONE;
}

enum pol_opt pol_option(const char *program, const char *word)
{
	const struct tool *t = tool_find(program);

	if (word[0] != '-' || word[1] == '\0')
		return POL_OPT_NONE;
	if (!strcmp(word, "--"))
		return POL_OPT_END;
	if (word[1] == '-' && strchr(word, '='))
		return POL_OPT_ALONE; /* --name=value, whatever the name */
	if (!t)
		return POL_OPT_UNKNOWN;
	return word[1] == '-' ? long_option(t, word + 2) : short_options(t, word + 1);
}
