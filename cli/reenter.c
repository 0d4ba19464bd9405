// SPDX-License-Identifier: MIT
#include "cli/reenter.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/conf.h"
#include "cli/keys.h"
#include "common/cleanup.h"
#include "common/exit.h"
#include "common/text.h"
#include "tree/tree.h"
#include "tree/trees.h"

/* Where the tree is: the root its per-user directory is in, and its name there. */
struct reentry {
	const char *arg;
	char root[PATH_MAX];
	char name[NAME_MAX + 1];
	char user_path[PATH_MAX];
	int user_fd;
};

static int refuse(struct iso_err *e, const struct reentry *r, const char *why)
{
	return iso_err_set(e, 0, "--tree %s: %s", r->arg, why);
}

/* A path: its directory must be isorun-UID, whose directory is the root. */
static int split_path(struct reentry *r, struct iso_err *e)
{
	_cleanup_free_ char *canon = realpath(r->arg, NULL), *d1 = NULL, *d2 = NULL;
	char want[32];

	if (!canon)
		return iso_err_set(e, errno, "--tree %s: no such tree", r->arg);
	d1 = strdup(canon);
	d2 = d1 ? strdup(dirname(d1)) : NULL;
	if (!d2)
		return iso_err_set(e, ENOMEM, "--tree %s", r->arg);
	snprintf(want, sizeof(want), "isorun-%u", (unsigned)geteuid());
	snprintf(r->name, sizeof(r->name), "%s", basename(canon));
	if (strcmp(basename(d2), want) != 0)
		return refuse(
			e, r,
			"not a tree of yours (a tree is ROOT/isorun-UID/ID; isorun ls lists them)");
	snprintf(r->user_path, sizeof(r->user_path), "%s", d2);
	snprintf(r->root, sizeof(r->root), "%s", dirname(d2));
	return 0;
}

/* The caller's own per-user directory, checked as ls and gc check it, and the entry in it. */
static int locate(struct reentry *r, const char *root, struct iso_err *e)
{
	char upath[PATH_MAX];
	struct stat st;
	int fd;

	if (strchr(r->arg, '/') && split_path(r, e) < 0)
		return -EINVAL;
	if (!strchr(r->arg, '/')) {
		snprintf(r->root, sizeof(r->root), "%s", root);
		snprintf(r->name, sizeof(r->name), "%s", r->arg);
	}
	if (!r->name[0] || r->name[0] == '.' || strlen(r->arg) > PATH_MAX / 2)
		return refuse(e, r,
			      "not a tree (a tree is ROOT/isorun-UID/ID; isorun ls lists them)");
	fd = tree_open_user_dir(r->root, false, upath, sizeof(upath), e);
	if (fd == -ENOENT)
		return refuse(e, r, "no such tree (isorun ls lists the kept ones)");
	if (fd < 0) {
		char pre[PATH_MAX / 2 + 16];

		snprintf(pre, sizeof(pre), "--tree %s", r->arg);
		iso_err_prefix(e, pre, ": ");
		return -EINVAL;
	}
	r->user_fd = fd;
	if (strchr(r->arg, '/') && strcmp(upath, r->user_path) != 0)
		return refuse(e, r, "not a tree of yours (a tree is ROOT/isorun-UID/ID)");
	snprintf(r->user_path, sizeof(r->user_path), "%s", upath);
	if (fstatat(fd, r->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT
			       ? refuse(e, r, "no such tree (isorun ls lists the kept ones)")
			       : iso_err_set(e, errno, "--tree %s", r->arg);
	if (!S_ISDIR(st.st_mode))
		return refuse(e, r, "not a tree (not a directory)");
	return 0;
}

/* Only a tree its run left kept or retained, with a record of the current layout. */
static int judge(const struct reentry *r, const struct tree_view *v, struct iso_err *e)
{
	char why[700];

	switch (v->seen) {
	case TREE_SEEN_KEPT:
	case TREE_SEEN_RETAINED:
		break;
	case TREE_SEEN_RUNNING:
		snprintf(why, sizeof(why),
			 "its run is still alive (pid %d holds the tree); re-enter it once that "
			 "run has ended",
			 (int)v->owner.pid);
		return refuse(e, r, why);
	case TREE_SEEN_UNREADABLE:
		snprintf(why, sizeof(why), "not a tree isorun can re-enter: %s", v->reason);
		return refuse(e, r, why);
	default:
		snprintf(why, sizeof(why),
			 "its run did not keep it (%s: %s); isorun ls says more, isorun gc "
			 "removes it",
			 tree_seen_name(v->seen), v->reason);
		return refuse(e, r, why);
	}
	if (!v->owner_ok || !v->owner.lock_is_record)
		return refuse(e, r,
			      "made by an older isorun (its lock is a file of its own): "
			      "it cannot be re-entered");
	return 0;
}

/* The run's settings under the command line; a tree without a record gets the command line's. */
static int apply_settings(struct sup_opts *o, const struct reentry *r, const struct tree_view *v,
			  struct iso_err *e)
{
	_cleanup_free_ char *text = NULL;
	char why[200], *path = NULL;
	struct iso_err re;

	if (o->no_config)
		return 0;
	if (tree_read_record(v->fd, TREE_SETTINGS, &text, &re) < 0) {
		iso_err_format(&re, why, sizeof(why));
		if (strcmp(why, "missing") != 0) {
			char msg[300];

			snprintf(msg, sizeof(msg), "its settings record is refused (%s)", why);
			return refuse(e, r, msg);
		}
		if (o->verbosity >= 0)
			fprintf(stderr,
				"isorun: warning: --tree %s: the tree records no settings (made "
				"by an older isorun): only the command line's apply\n",
				r->arg);
		return 0;
	}
	if (asprintf(&path, "%s/%s", v->path, TREE_SETTINGS) < 0)
		return iso_err_set(e, ENOMEM, "--tree %s", r->arg);
	return cli_conf_apply(o, path, text, e);
}

int cli_reenter_load(struct sup_opts *o, struct iso_err *e)
{
	struct reentry r = { .arg = o->tree_arg, .user_fd = -1 };
	struct tree_view v = { .fd = -1, .lock_fd = -1 };
	struct tree_host h;
	int ret;

	if (o->config_arg)
		return iso_err_set(e, 0,
				   "--tree %s: --config %s cannot be combined: the tree's settings "
				   "are its configuration (--no-config: the command line's alone)",
				   o->tree_arg, o->config_arg);
	ret = locate(&r, tree_root(o->root), e);
	if (ret >= 0) {
		tree_host_current(&h);
		tree_view(r.user_fd, r.user_path, r.name, &h, false, &v);
		ret = judge(&r, &v, e);
	}
	if (ret >= 0)
		ret = apply_settings(o, &r, &v, e);
	if (ret >= 0) {
		o->root = sup_opts_keep(o, strdup(r.root));
		o->reenter = sup_opts_keep(o, strdup(r.name));
		if (!o->root || !o->reenter)
			ret = iso_err_set(e, ENOMEM, "--tree %s", r.arg);
	}
	tree_view_close(&v);
	if (r.user_fd >= 0)
		close(r.user_fd);
	return ret < 0 ? ret : 0;
}

/* What one invocation decides alone, never taken from a tree's record. */
static bool per_invocation(enum sup_key k)
{
	if (cli_key_output(k))
		return true;
	switch (k) {
	case SUP_K_ROOT:
	case SUP_K_KEEP:
	case SUP_K_QUIET:
	case SUP_K_VERBOSE:
	case SUP_K_COLOR:
	case SUP_K_PASS_FD:
	case SUP_K_CHDIR:
	case SUP_K_TIMEOUT:
		return true;
	default:
		return false;
	}
}

/* A value that reads back the same from a line (libinih trims; setenv expands ~ and ${}). */
static bool carried(enum sup_key k, const char *val)
{
	size_t n = strlen(val);
	_cleanup_free_ char *red = NULL;

	if (strpbrk(val, "\r\n") || (n && (val[0] == ' ' || val[0] == '\t')) ||
	    (n && (val[n - 1] == ' ' || val[n - 1] == '\t')))
		return false;
	if (k != SUP_K_SETENV)
		return true;
	/* a value that looks like a secret stays out of a file that outlives the run */
	red = iso_redact(val);
	return red && strcmp(red, val) == 0 && !strpbrk(val, "$~");
}

char *cli_settings_record(const struct sup_opts *o)
{
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputs("# the settings of the run that made this tree, read by isorun shell --tree\n", f);
	for (size_t i = 0; i < o->n_settings; i++) {
		const struct sup_setting *s = &o->settings[i];
		const struct cli_key_info *k = &cli_keys[s->key];
		_cleanup_free_ char *abs = NULL;
		const char *val = s->val ? s->val : "true";

		/* --bind and its kin are the command line's alone (isorun.conf may not
		 * name them, nor may this record): --tree takes them again from it */
		if (per_invocation(s->key) || k->cli_only || !carried(s->key, val))
			continue;
		/* the command line's relative path, as it meant it: from where isorun started */
		if (k->path && s->line == SUP_FROM_CLI && val[0] != '/' && cwd &&
		    (s->key != SUP_K_POLICY || strpbrk(val, "/.")))
			val = abs = cli_conf_resolve(cwd, val);
		if (val)
			fprintf(f, "%s = %s\n", k->name, val);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
