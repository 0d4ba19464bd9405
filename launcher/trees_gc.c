// SPDX-License-Identifier: MIT
/* gc's half of the trees: the holder scan, the verdict, and the removal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher/cleanup.h"
#include "launcher/holders.h"
#include "launcher/proc.h"
#include "launcher/rmtree.h"
#include "launcher/trees.h"

/* The first holder, in teardown's words; or why holders could not be ruled out. */
static int scan_holders(const char *tree, char *why, size_t len, size_t *unreadable)
{
	/* ourselves excluded: we hold the tree's directory and its lock open */
	struct iso_holder_query q = { .tree = tree, .exclude = getpid() };
	struct iso_holder *h = NULL;
	_cleanup_free_ char *cmd = NULL;
	int n = iso_find_holders(&q, &h, unreadable);

	if (n < 0) {
		snprintf(why, len, "cannot inspect /proc for holders: %s", strerror(-n));
		return n;
	}
	if (n == 0) {
		iso_holders_free(h, 0);
		return 0;
	}
	cmd = iso_proc_cmdline(h[0].pid, 80);
	if (!strcmp(h[0].what, "cwd") || !strcmp(h[0].what, "root"))
		snprintf(why, len, "pid %d `%s` has its %s in it (%s)", h[0].pid, cmd ? cmd : "?",
			 h[0].what, h[0].target);
	else
		snprintf(why, len, "pid %d `%s` holds %s open (%s)", h[0].pid, cmd ? cmd : "?",
			 h[0].target, h[0].what);
	iso_holders_free(h, (size_t)n);
	return n;
}

bool iso_tree_judge(const struct iso_tree_view *v, bool verbose, char *why, size_t len)
{
	char holder_why[600] = "";
	struct iso_gc_facts f = {
		.owner_error = v->owner_ok ? NULL : v->reason,
		.fate = v->fate,
		.fate_why = v->fate_why,
		.lock = v->lock_probed ? v->lock : ISO_LOCK_FAILED,
		.lock_why = v->lock_why,
		.holders = -EAGAIN,
		.holder_why = "holders not looked for",
		.note_unreadable = verbose,
	};

	/* the scan is a pass over every process: only once it can decide */
	if (v->owner_ok && v->fate == ISO_FATE_GONE && v->lock == ISO_LOCK_TAKEN) {
		f.holders = scan_holders(v->path, holder_why, sizeof(holder_why), &f.unreadable);
		f.holder_why = holder_why;
	}
	return iso_gc_verdict(&f, why, len);
}

int iso_tree_remove(int user_fd, const struct iso_tree_view *v, struct iso_err *e)
{
	struct stat held, now;

	if (v->fd < 0 || v->lock_fd < 0 || v->lock != ISO_LOCK_TAKEN)
		return iso_err_set(e, EPERM, "remove '%s': its lock is not held", v->path);
	/* what was examined, not whatever the name points at by now */
	if (fstat(v->fd, &held) < 0)
		return iso_err_set(e, errno, "stat '%s'", v->path);
	if (fstatat(user_fd, v->name, &now, AT_SYMLINK_NOFOLLOW) < 0)
		return iso_err_set(e, errno, "stat '%s'", v->path);
	if (held.st_dev != now.st_dev || held.st_ino != now.st_ino)
		return iso_err_set(e, 0, "'%s' was replaced while gc examined it", v->path);
	return iso_rmtree(user_fd, v->name, v->path, NULL, e);
}
