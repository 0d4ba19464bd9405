/* SPDX-License-Identifier: MIT */
/*
 * The trees under $ROOT/isorun-$UID as `isorun ls` and `isorun gc` see them:
 * each one's records, its lock, its owner's fate, and its size.  Every file is
 * opened relative to the tree's directory fd, never through a symbolic link,
 * never blocking (the command could have put a FIFO where a record belongs).
 */
#ifndef ISO_TREES_H
#define ISO_TREES_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "common/err.h"
#include "tree/evidence.h"

/* What ls shows in its STATE column. */
enum tree_seen {
	TREE_SEEN_RUNNING,    /* the lock is held */
	TREE_SEEN_KEPT,	      /* the owner recorded `kept` and let go of the lock */
	TREE_SEEN_RETAINED,   /* the owner recorded `retained` */
	TREE_SEEN_ORPHANED,   /* the owner is gone without recording anything */
	TREE_SEEN_UNKNOWN,    /* lock free, nothing recorded, the owner not proven gone */
	TREE_SEEN_UNREADABLE, /* not a tree isorun can read: the reason says why */
};

const char *tree_seen_name(enum tree_seen s);

struct tree_view {
	char name[NAME_MAX + 1];
	char path[PATH_MAX];
	int fd;	     /* the tree's directory, or -1 */
	int lock_fd; /* open; flock'ed by us when lock == TREE_LOCK_TAKEN and kept */
	bool owner_ok;
	struct tree_owner_rec owner;
	char owner_why[200];
	time_t created; /* the owner record's mtime; 0 when unknown */
	enum tree_fate fate;
	char fate_why[320];
	bool lock_probed;
	enum tree_lock lock;
	char lock_why[200];
	enum tree_seen seen;
	char reason[600];
	/*
	 * The other device the tree shows through: the disk's while a crashed
	 * run's shield still covers it, the shield's once gc took it off (holders
	 * through either are matched, tree/shield.h).  0: none.
	 */
	dev_t alias_dev;
	/* the tree lies below its gate (tree/gate.h): fd is its `.t`, its run may live */
	bool gated;
};

/*
 * A record of the tree at dirfd (at most 64 KiB, a regular file, opened without
 * following a link or blocking, no NUL byte), malloc'ed into *ret.  0, or
 * -errno with e->msg saying what was refused: "missing", "a symbolic link, not
 * isorun's file", "not a regular file", "N bytes, too large to be isorun's"...
 */
int tree_read_record(int dirfd, const char *name, char **ret, struct iso_err *e);

/*
 * Look at <user_dir>/<name>: open it, read `owner`, probe the lock (only once
 * the owner record exists, which the owner writes after it holds the lock, so
 * a tree being created is never disturbed), read `state`, judge the owner.
 * With keep_lock a lock we could take stays held until tree_view_close.
 */
void tree_view(int user_fd, const char *user_path, const char *name, const struct tree_host *h,
	       bool keep_lock, struct tree_view *v);
void tree_view_close(struct tree_view *v);

/* What gc knows of a tree's holders before it judges it, and what the judgement read. */
struct tree_judging {
	bool verbose; /* name the count of processes whose fds could not be read */
	/* the kernel proved that nothing holds the tree (its shield's end): no process is read */
	bool proven;
	/* the kernel said the tree is held: a scan that names nobody keeps it, saying this */
	const char *held;
	/* not judged at all: kept, saying this (no process is read) */
	const char *refuse;
	/* only these mount namespaces' processes (the shield's end proved the others); 0: all */
	const ino_t *only_mntns;
	size_t n_only_mntns;
	bool scanned;  /* out: the holder scan ran */
	size_t n_read; /* out: how many processes it read */
};

/*
 * gc's verdict on a tree viewed with keep_lock: the holder scan runs (with the
 * lock held) only when the owner is proven gone, and not when the kernel
 * proved the tree unheld.  True when removable, e->msg then being the
 * evidence; otherwise why not.
 */
bool tree_judge(const struct tree_view *v, struct tree_judging *how, struct iso_err *e);
/* Remove a judged tree, its lock still held, unless the name now means another directory. */
int tree_remove(int user_fd, const struct tree_view *v, struct iso_err *e);

/*
 * du-like: the blocks of everything below fd, without following symbolic links
 * or entering another mount, stopping after a bounded number of entries and
 * levels (*partial then true, and the size is a lower bound).
 */
uint64_t tree_size(int fd, bool *partial);

/*
 * The entry names of the user directory, sorted (for a stable listing only:
 * nothing is inferred from them).  Returns the count or -errno; free with
 * tree_names_free.
 */
int tree_names(int user_fd, char ***ret);
void tree_names_free(char **names, size_t n);

#endif
