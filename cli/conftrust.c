// SPDX-License-Identifier: MIT
/* isorun.conf under the command line: a setting that widens what the command line protects. */
#include "cli/conftrust.h"

#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "cli/keys.h"
#include "launcher/cache.h"
#include "ns/ns.h"
#include "tree/cache.h"

/* at most this many symlinks are followed, as the kernel's own limit */
#define TRUST_MAX_LINKS 40

/* A symlink `link`'s target, relative targets taken from the link's directory. */
static char *link_target(const char *link)
{
	char t[PATH_MAX], *r = NULL;
	const char *slash = strrchr(link, '/');
	ssize_t n = readlink(link, t, sizeof(t) - 1);

	if (n < 0)
		return NULL;
	t[n] = '\0';
	if (t[0] == '/' || !slash)
		return strdup(t);
	if (asprintf(&r, "%.*s/%s", (int)(slash - link), link, t) < 0)
		return NULL;
	return r;
}

/*
 * Where a write to the absolute `path` would land: its symlinks followed (a
 * dangling last one too, as open(O_CREAT) follows it), the deepest existing
 * ancestor made canonical and the rest appended as written.  malloc'ed.
 */
static char *landing(const char *path)
{
	_cleanup_free_ char *cur = strdup(path);
	struct stat st;
	char *r, *next;

	for (int i = 0; cur && i < TRUST_MAX_LINKS; i++) {
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			break;
		next = link_target(cur);
		if (!next)
			break;
		free(cur);
		cur = next;
	}
	if (!cur)
		return NULL;
	r = realpath(cur, NULL);
	for (size_t i = strlen(cur); !r && i > 0;) {
		_cleanup_free_ char *parent = NULL;

		/* the next '/' to the left: the ancestor it ends */
		while (i > 0 && cur[--i] != '/')
			;
		if (cur[i] != '/')
			break;
		cur[i] = '\0';
		parent = realpath(i ? cur : "/", NULL);
		cur[i] = '/';
		if (parent && asprintf(&r, "%s%s", strcmp(parent, "/") ? parent : "", cur + i) < 0)
			return NULL;
	}
	return r;
}

/*
 * `path` lies in the home --protect-home covers (the passwd entry's, as the run
 * finds it) and in none of the command line's --writable directories.
 */
static bool in_covered_home(const struct sup_opts *cli, const char *path)
{
	_cleanup_free_ char *at = landing(path), *home = NULL;
	_cleanup_free_ char **keep = calloc(cli->writable.n + 1, sizeof(*keep));
	struct passwd *pw = getpwuid(getuid());
	size_t n = 0;
	bool covered;

	if (!pw || !pw->pw_dir || !keep)
		return true; /* cannot tell: refused, as the run would fail to cover it */
	home = realpath(pw->pw_dir, NULL);
	if (!home || !at)
		return !!home; /* no home to cover; a path that cannot be resolved is refused */
	for (size_t i = 0; i < cli->writable.n; i++)
		if ((keep[n] = realpath(cli->writable.v[i], NULL)))
			n++;
	covered = ns_home_covers(home, (const char *const *)keep, n, at);
	for (size_t i = 0; i < n; i++)
		free(keep[i]);
	return covered;
}

/*
 * A file's `cache = NAMES` names a cache the command line did not ask for, in
 * the covered home (the caches share $XDG_CACHE_HOME/isorun).  A command-line
 * `--cache none` drops the file's entries: nothing of the file's line is used.
 */
static bool cache_widens(const struct sup_opts *cli, const char *val)
{
	unsigned bits = 0, cli_bits = 0, b;
	const char *bad;
	size_t badlen;
	bool none;
	char base[PATH_MAX], dir[PATH_MAX + 16];
	struct iso_err ce = { 0 };

	if (sup_cache_parse(val, &bits, &none, &bad, &badlen) < 0)
		return false; /* the setter refuses it, naming the word */
	for (size_t i = 0; i < cli->n_settings; i++) {
		const struct sup_setting *st = &cli->settings[i];

		if (st->key != SUP_K_CACHE || st->line != SUP_FROM_CLI || !st->val ||
		    sup_cache_parse(st->val, &b, &none, &bad, &badlen) < 0)
			continue;
		if (none)
			return false;
		cli_bits |= b;
	}
	if (!(bits & ~cli_bits))
		return false;
	if (tree_cache_base(base, sizeof(base), &ce) < 0)
		return true; /* cannot tell where: refused */
	snprintf(dir, sizeof(dir), "%s/%s", base, TREE_CACHE_SUBDIR);
	return in_covered_home(cli, dir);
}

/* A `$NAME` or `${NAME}` in a setenv value: it would copy the caller's variable. */
static bool reads_variable(const char *raw)
{
	for (const char *p = strchr(raw, '$'); p; p = strchr(p + 1, '$')) {
		if (p[1] == '$') {
			p++; /* "$$" is a literal '$' */
			continue;
		}
		if (p[1] == '{' || p[1] == '_' || (p[1] >= 'A' && p[1] <= 'Z') ||
		    (p[1] >= 'a' && p[1] <= 'z'))
			return true;
	}
	return false;
}

/* The command line's first mount protection, the one a capability could undo; NULL: none. */
static const char *mount_protection(const struct sup_opts *cli)
{
	if (cli->protect_home == NS_HOME_RO)
		return "--protect-home=ro";
	if (cli->protect_home == NS_HOME_HIDE)
		return "--protect-home=hide";
	if (cli->private_tmp)
		return "--private-tmp";
	if (cli->net_isolated)
		return "--net=isolated";
	for (size_t i = 0; i < cli->n_binds; i++)
		if (cli->binds[i].kind != NS_MOUNT_BIND)
			return cli->binds[i].kind == NS_MOUNT_RO_BIND ? "--ro-bind" : "--tmpfs";
	return NULL;
}

/* The command line's own --policy, when it named one that filters. */
static const char *cli_policy(const struct sup_opts *cli)
{
	for (size_t i = 0; i < cli->n_settings; i++)
		if (cli->settings[i].key == SUP_K_POLICY && cli->settings[i].line == SUP_FROM_CLI)
			return strcmp(cli->policy, "off") ? cli->policy : NULL;
	return NULL;
}

/* The same entry of a list in both: a variable's name, a descriptor, a directory. */
static bool same_entry(enum sup_key key, const char *a, const char *b)
{
	_cleanup_free_ char *ra = NULL, *rb = NULL;

	switch (key) {
	case SUP_K_SETENV:
		return strcspn(a, "=") == strcspn(b, "=") && !strncmp(a, b, strcspn(a, "="));
	case SUP_K_PASS_FD:
		return strtol(a, NULL, 10) == strtol(b, NULL, 10);
	case SUP_K_WATCH:
		ra = landing(a);
		rb = realpath(b, NULL);
		return ra && rb && !strcmp(ra, rb);
	default:
		return !strcmp(a, b);
	}
}

/*
 * The command line gives this setting itself: a value of its own replaces the
 * file's, and an entry it lists is its own word; either way the file adds nothing.
 */
static bool cli_gives(const struct sup_opts *cli, enum sup_key key, const char *val)
{
	for (size_t i = 0; i < cli->n_settings; i++) {
		const struct sup_setting *st = &cli->settings[i];

		if (st->key != key || st->line != SUP_FROM_CLI)
			continue;
		if (cli_keys[key].kind != CLI_KIND_LIST ||
		    (st->val && same_entry(key, val, st->val)))
			return true;
	}
	return false;
}

/* A directory kept writable, the trees or an output file in the covered home. */
static const char *in_home(const struct sup_opts *cli, enum sup_key key, const char *val)
{
	if (cli->protect_home == NS_HOME_OFF || (key == SUP_K_REPORT && !strncmp(val, "fd:", 3)))
		return NULL;
	if (!in_covered_home(cli, val))
		return NULL;
	return key == SUP_K_WRITABLE ? "makes part of the home writable"
	       : key == SUP_K_ROOT   ? "isorun would make its trees in the home"
				     : "isorun would write it in the home";
}

/*
 * What the file's setting would undo ("makes part of the home writable"), and
 * in prot the command-line option that protects it; NULL: nothing.
 */
static const char *widens(const struct sup_opts *cli, enum sup_key key, const char *raw,
			  const char *val, char *prot, size_t len)
{
	const char *report = cli->outputs[SUP_SINK_REPORT];
	uint64_t caps = 0;
	struct iso_err ce = { 0 };
	const char *m;

	if (cli_gives(cli, key, val))
		return NULL;
	if (cli->protect_home != NS_HOME_OFF)
		snprintf(prot, len, "--protect-home=%s",
			 cli_word_name(&cli_keys[SUP_K_PROTECT_HOME], cli->protect_home));
	if (cli_key_output(key))
		return in_home(cli, key, val);
	switch (key) {
	case SUP_K_WRITABLE:
	case SUP_K_ROOT:
		return in_home(cli, key, val);
	case SUP_K_CACHE:
		if (cli->protect_home == NS_HOME_OFF || !cache_widens(cli, val))
			return NULL;
		return "makes a cache in the home writable";
	case SUP_K_WATCH:
	case SUP_K_POLICY:
		/* read by isorun itself, outside the namespace: names and lines of a hidden home */
		if (cli->protect_home != NS_HOME_HIDE ||
		    (key == SUP_K_POLICY && !strpbrk(raw, "/.")))
			return NULL;
		return in_covered_home(cli, val) ? "isorun would read it in the hidden home" : NULL;
	case SUP_K_CAP_KEEP:
		m = mount_protection(cli);
		if (!m || ns_caps_parse(val, &caps, &ce) < 0 ||
		    !(caps & (ns_caps_mount_undoers() | ns_caps_host_dangerous())))
			return NULL;
		snprintf(prot, len, "%s", m);
		return "keeps a capability that undoes it";
	case SUP_K_KEEP_ENV:
	case SUP_K_SETENV:
		if (!cli->clearenv || (key == SUP_K_SETENV && !reads_variable(raw)))
			return NULL;
		snprintf(prot, len, "--clearenv");
		return "copies the caller's environment into the command's";
	case SUP_K_PASS_FD:
		/* the report's descriptor in the command's hands: it could write the verdict */
		if (!report || strncmp(report, "fd:", 3) ||
		    strtol(report + 3, NULL, 10) != strtol(val, NULL, 10))
			return NULL;
		snprintf(prot, len, "--report %s", report);
		return "hands the command isorun's report descriptor";
	case SUP_K_POLICY_MODE:
		if (strcmp(val, "log") || !cli_policy(cli))
			return NULL;
		snprintf(prot, len, "--policy=%s", cli_policy(cli));
		return "lets every call the policy refuses through";
	default:
		return NULL;
	}
}

int cli_conf_trust(const struct sup_opts *cli, enum sup_key key, const char *raw, const char *val,
		   struct iso_err *e)
{
	_cleanup_free_ char *shown = iso_redact(raw), *quoted = iso_shell_quote(val);
	char prot[PATH_MAX + 32] = "", hint[sizeof(e->hint)];
	const char *what = widens(cli, key, raw, val, prot, sizeof(prot));

	if (!what)
		return 0;
	iso_err_set(e, 0, "%s = %s: %s (%s on the command line; a project file cannot widen it)",
		    cli_keys[key].name, shown ? shown : raw, what, prot);
	if (key == SUP_K_SETENV)
		snprintf(hint, sizeof(hint),
			 "to allow it, give --setenv NAME=VALUE on the command line");
	else
		snprintf(hint, sizeof(hint), "to allow it, give --%s %s on the command line",
			 cli_keys[key].name, quoted ? quoted : val);
	iso_err_hint(e, hint);
	return -EPERM;
}
