/* SPDX-License-Identifier: MIT */
/* The per-invocation tree: $ROOT/isorun-$UID/<id>/ with its owner record and the command's dirs. */
#ifndef ISO_TREE_H
#define ISO_TREE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "common/err.h"

/* Descriptors a removal needs beyond the tree's own (a listing, a level, its dup, the next). */
#define TREE_RESERVE 4

/* The directories made before the command starts (home/, tmp/, run/), and their modes. */
struct tree_dir {
	const char *sub;
	mode_t mode;
};
extern const struct tree_dir tree_dirs[];

/*
 * The variables that point into the tree, and where: the XDG base directories
 * are home/.cache, home/.config, ... (the spec's defaults), made by whatever
 * first writes there, as in a fresh account's home.
 */
struct tree_var {
	const char *name;
	const char *sub;
};
extern const struct tree_var tree_vars[];

/*
 * iso_err.cause from tree/: the failure is about an option's value, which only
 * the caller can name (iso_err_prefix()); msg then holds the rest, or nothing.
 * Numbered apart from ns/'s and cgroup/'s causes, which share the field.
 */
enum tree_cause {
	TREE_CAUSE_ROOT = 0x100, /* the place asked for the trees; msg: "'PATH'" */
	TREE_CAUSE_ENV_DIR,	 /* a variable's directory in the tree; msg: "" */
};

struct tree_tree {
	int user_fd; /* $ROOT/isorun-$UID, verified */
	int fd;	     /* the invocation's directory */
	int lock_fd; /* the owner record, flock'ed for the whole run */
	/*
	 * Descriptors set aside at creation (on /dev/null) and given back just
	 * before removal: a run that hit the descriptor limit can still remove its
	 * tree.  0 when not held (fd 0 is always taken).
	 */
	int reserve[TREE_RESERVE];
	/*
	 * While parked (tree_park), `fd` holds /dev/null and the tree's own
	 * descriptor sits in flight in this socket.  -1 / false otherwise.
	 */
	bool parked;
	int park;
	/*
	 * The device of a shield that still lives after its unmount (tree/shield.h):
	 * written into the outcome record, so that gc matches holders through it.  0: none.
	 */
	dev_t shield_dev;
	/*
	 * A tree re-entered (tree_adopt): why it was first kept, from its outcome
	 * record, and how many runs re-entered it, this one included; its outcome
	 * says both, not only the last run's reason.  0 / "": a tree of this run.
	 */
	unsigned reentries;
	char first_reason[400];
	/* why a tree inside another root run's shield has no tmpfs of its own ("": none needed) */
	char nest_why[200];
	/* the watch on that tmpfs's root, added at its mount, until its shield takes it; -1 */
	int nest_watch;
	char id[64];
	char path[PATH_MAX]; /* absolute */
	char user_path[PATH_MAX];
};

/* Random characters in a tree's name, after its UTC stamp: 100 bits. */
#define TREE_ID_RANDOM 20

/* 0711 for root (other uids reach $TMPDIR, list nothing), 0700 otherwise. */
mode_t tree_dir_mode(void);

/* $ISORUN_ROOT, else $TMPDIR, else /tmp; `root` (from --root) wins. */
const char *tree_root(const char *root);

/*
 * Open $root/isorun-$UID (made first when `create`) and verify it: ours, a real
 * directory, not group or world writable.  Its absolute, canonical path goes to
 * `path`.  Returns the fd, or -errno (-ENOENT when absent and not `create`).
 */
int tree_open_user_dir(const char *root, bool create, char *path, size_t len, struct iso_err *e);

/*
 * Names inside <id>/ that isorun itself writes.  The owner record is also the
 * run's lock (an flock on its descriptor); trees made by an earlier isorun have
 * a separate `lock` file instead, which ls and gc still read, and whose owner
 * record has no "lock" member.
 */
#define TREE_OWNER   "owner"
#define TREE_LOCK    "lock"    /* the older layout's lock file */
#define TREE_OUTCOME "outcome" /* JSON {"state": "kept"|"retained", "reason": "..."} */
/* the outcome record while it is written, renamed over `outcome` once whole */
#define TREE_OUTCOME_TMP TREE_OUTCOME ".tmp"
/* the path of the run's cgroup, one line, when it had one: ls and gc find its processes */
#define TREE_CGROUP "cgroup"
/*
 * The run's settings as isorun.conf text (cli/reenter.c), for `isorun shell
 * --tree`, which reads them as input under its own command line (0600).
 */
#define TREE_SETTINGS "settings"
/*
 * isorun's own records, in the order a removal deletes them, after everything
 * else: THE list of names at the top of a tree that are isorun's, not the
 * command's.  Removal, the holder scan and every check of a name the caller
 * gives inside the tree (--env-dir) read it.
 */
extern const char *const tree_records[];
/*
 * The record SUB (a relative path inside the tree) would land in or below: its
 * first component is one of tree_records or a name an earlier layout kept
 * at the top (`empty`).  NULL when SUB is the command's to use.
 */
const char *tree_reserved(const char *sub);

/*
 * Create and verify $root/isorun-$UID (ours, a real directory, not group or world
 * writable; made tree_dir_mode()), then a fresh <id> (tree_dir_mode(),
 * named stamp-random) with the command's directories (tmp/ 1777, home/ and run/
 * 0700) and `owner`, locked.  On failure nothing of <id> is left behind.
 */
int tree_create(struct tree_tree *t, const char *root, char *const *argv, struct iso_err *e);
/*
 * The same, named id (made by tree_new_id()) where that name is free: a run names
 * its output files before its tree is made.  NULL or "": a name made here.
 * may_nest: inside another root run's shield the tree may be a tmpfs of its
 * own (tree/nest.h); a tree that may be kept is not, as the tmpfs ends
 * with the outer run's namespace.
 */
int tree_create_as(struct tree_tree *t, const char *root, const char *id, char *const *argv,
		   bool may_nest, struct iso_err *e);
/* A new tree's name: its UTC stamp, then TREE_ID_RANDOM random characters. */
int tree_new_id(char *buf, size_t len, struct iso_err *e);
/*
 * Take over the kept tree <user dir of root>/<name> for a new run (`isorun shell
 * --tree`): a real directory of ours with an owner record of the current layout
 * whose lock is free; the lock is taken and the record rewritten in place for
 * this run, the old outcome removed, a missing home/, tmp/ or run/ made again.
 * A tree whose lock is held (its run lives) is -EBUSY; one with a `cgroup`
 * record (a run cgroup that may still hold processes) is -EEXIST.  Nothing of
 * the tree is changed when it is refused.
 */
int tree_adopt(struct tree_tree *t, const char *root, const char *name, char *const *argv,
	       struct iso_err *e);
/* Write <id>/NAME (0600, made anew: whatever was at the name goes) with `text`: a record of
 * isorun's. */
int tree_write_record(struct tree_tree *t, const char *name, const char *text, struct iso_err *e);
/* Make <id>/SUB (and its parents) for --env-dir. */
int tree_mkdir_sub(struct tree_tree *t, const char *sub, struct iso_err *e);
/*
 * At teardown, while the lock is still held: a kept or retained tree records
 * why in <id>/outcome, for `isorun ls`.  Nothing for a tree that no longer exists.
 */
int tree_record_state(struct tree_tree *t, bool kept, const char *reason, struct iso_err *e);
/*
 * While the tree wears its shield (tree/shield.h), isorun's own descriptor of
 * the tree on disk would be a way past it: another root process can walk into
 * /proc/ISORUN/fd/N.  Parking sends it in flight into a socket of ours
 * (SCM_RIGHTS: out of the descriptor table, so out of /proc) and leaves
 * /dev/null at its number; unparking takes it back, before the shield comes off.
 */
int tree_park(struct tree_tree *t, struct iso_err *e);
int tree_unpark(struct tree_tree *t, struct iso_err *e);
/* Give back the reserved descriptors, so that the removal that follows has them. */
void tree_release_reserve(struct tree_tree *t);
/*
 * A nested tree's tmpfs is the tree (tree/shield.h): the run's own
 * descriptors in it, its lock's too, would refuse its unmount.  tree_let_go()
 * closes them before the proof; tree_reopen() opens whatever is at the
 * tree's name afterwards (the tmpfs, still mounted, or the directory below).
 */
void tree_let_go(struct tree_tree *t);
int tree_reopen(struct tree_tree *t, struct iso_err *e);
void tree_close(struct tree_tree *t);

#endif
