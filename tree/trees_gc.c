// SPDX-License-Identifier: MIT
/* gc's half of the trees: the holder scan, the verdict, and the removal. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/nowait.h"
#include "tree/holders.h"
#include "tree/release.h"
#include "tree/treeid.h"
#include "common/proc.h"
#include "tree/rmtree.h"
#include "tree/tree.h"
#include "tree/trees.h"

/* The first holder, in teardown's words; or why holders could not be ruled out. */
static int scan_holders(const char *tree, dev_t alias, struct tree_judging *how, char *why,
			size_t len, size_t *unreadable)
{
	/* ourselves excluded: we hold the tree's directory and its lock open */
	struct tree_holder_query q = { .tree = tree,
				       .exclude = getpid(),
				       .alias_dev = alias,
				       .only_mntns = how->only_mntns,
				       .n_only_mntns = how->n_only_mntns,
				       .n_read = &how->n_read };
	struct tree_holder *h = NULL;
	_cleanup_free_ char *cmd = NULL;
	const struct tree_holder *first;
	struct iso_err e = { 0 };
	int n = tree_find_holders(&q, &h, unreadable);

	how->scanned = true;
	if (n < 0) {
		tree_holders_strerror(n, &e);
		iso_err_format(&e, why, len);
		return n;
	}
	if (n == 0) {
		tree_holders_free(h, 0);
		if (!how->held)
			return 0;
		/* positive evidence stays: the kernel's hold, with what could be it */
		tree_release_unnamed(tree, how->held, &e);
		iso_err_format(&e, why, len);
		return -EBUSY;
	}
	first = tree_holder_first(h, (size_t)n);
	cmd = iso_proc_cmdline(first->pid, 80);
	tree_holder_describe(first, (size_t)n - (size_t)(first - h), cmd, &e);
	iso_err_format(&e, why, len);
	tree_holders_free(h, (size_t)n);
	return n;
}

bool tree_judge(const struct tree_view *v, struct tree_judging *how, struct iso_err *e)
{
	char holder_why[600] = "";
	struct tree_gc_facts f = {
		.owner_error = v->owner_ok ? NULL : v->reason,
		.fate = v->fate,
		.fate_why = v->fate_why,
		.lock = v->lock_probed ? v->lock : TREE_LOCK_FAILED,
		.lock_why = v->lock_why,
		.holders = -EAGAIN,
		.holder_why = "holders not looked for",
		.note_unreadable = how->verbose,
	};

	how->scanned = false;
	how->n_read = 0;
	/* the scan is a pass over every process: only once it can decide */
	if (v->owner_ok && v->fate == TREE_FATE_GONE && v->lock == TREE_LOCK_TAKEN) {
		if (how->refuse)
			snprintf(holder_why, sizeof(holder_why), "%s", how->refuse);
		f.holders = how->refuse	  ? -EPERM
			    : how->proven ? 0
					  : scan_holders(v->path, v->alias_dev, how, holder_why,
							 sizeof(holder_why), &f.unreadable);
		f.holder_why = holder_why;
	}
	return tree_gc_verdict(&f, e);
}

int tree_remove(int user_fd, const struct tree_view *v, struct iso_err *e)
{
	_cleanup_close_ int top = -1;
	struct stat held, now;

	if (v->fd < 0 || v->lock_fd < 0 || v->lock != TREE_LOCK_TAKEN)
		return iso_err_set(e, EPERM, "remove '%s': its lock is not held", v->path);
	/* what was examined, not whatever the name points at by now */
	if (fstat(v->fd, &held) < 0)
		return iso_err_set(e, errno, "stat '%s'", v->path);
	if (iso_stat_cached(user_fd, v->name, AT_SYMLINK_NOFOLLOW, &now) < 0)
		return iso_err_set(e, errno, "stat '%s'", v->path);
	if (held.st_dev != now.st_dev || held.st_ino != now.st_ino)
		return iso_err_set(e, 0, "'%s' was replaced while gc examined it", v->path);
	/*
	 * ls and gc hold the tree O_PATH only (never a holder of a live run); the removal
	 * needs a directory it can read and chmod: the same one, reopened through it.
	 */
	top = openat(v->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (top < 0 && errno == EACCES) {
		/* ours, its search permission taken away by the command: give it back */
		char self[64];

		snprintf(self, sizeof(self), "/proc/self/fd/%d", v->fd);
		if (chmod(self, 0700) == 0)
			top = openat(v->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (top < 0)
		return iso_err_set(e, errno, "open '%s'", v->path);
	/* a gc that fails midway leaves a tree the next gc can still judge */
	return tree_rmtree_last(user_fd, v->name, top, tree_records, v->path, NULL, e);
}
