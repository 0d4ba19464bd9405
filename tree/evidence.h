/* SPDX-License-Identifier: MIT */
/*
 * The rules `isorun gc` removes a tree by.  A tree is garbage only on proof:
 * its owner is gone (another boot, or its pid no longer names the process that
 * wrote the owner record), its lock can be taken, and no process has a file,
 * cwd or root in it.  Nothing is ever inferred from a tree's name or age.
 *
 * The owner check reads a /proc given by the caller and compares with a boot id
 * and PID namespace given by the caller, so the unit tests run it on a fake one.
 */
#ifndef ISO_EVIDENCE_H
#define ISO_EVIDENCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

/* What tree/tree.c writes to <id>/owner (JSON; members a reader does not know are ignored). */
struct tree_owner_rec {
	pid_t pid;
	uint64_t start_time; /* clock ticks after boot, /proc/PID/stat field 22 */
	char boot_id[64];
	uid_t uid;
	uint64_t pidns; /* inode of the owner's /proc/self/ns/pid; 0: not recorded */
	/* "lock": "owner": the record is its own lock; absent: an older tree's `lock` file */
	bool lock_is_record;
};

/*
 * Parse an owner record.  pid, start_time, boot_id and uid are required; a
 * record without them proves nothing.  Returns 0, or -EINVAL with e->msg saying
 * what is wrong ("not JSON (line 1: ...)", "no \"pid\"").
 */
int tree_owner_parse(const char *text, struct tree_owner_rec *ret, struct iso_err *e);

/* The system gc compares owner records with. */
struct tree_host {
	const char *proc; /* "/proc", or a fake one */
	char boot_id[64]; /* "" when unknown: then no boot comparison proves anything */
	uint64_t pidns;	  /* 0 when unknown */
	uid_t uid;
};

/* This system, seen from here.  What cannot be read stays empty (and proves nothing). */
void tree_host_current(struct tree_host *h);

enum tree_fate {
	TREE_FATE_ALIVE,      /* the owner still runs: never garbage */
	TREE_FATE_GONE,	      /* proven: another boot, pid gone or reused, or a zombie */
	TREE_FATE_UNPROVABLE, /* cannot tell from here (another PID namespace, unreadable) */
};

/* Whether the owner is gone; e->msg is the evidence, or why there is none. */
enum tree_fate tree_owner_fate(const struct tree_owner_rec *o, const struct tree_host *h,
			       struct iso_err *e);

enum tree_lock {
	TREE_LOCK_TAKEN,  /* we hold it now: nobody else does */
	TREE_LOCK_HELD,	  /* someone holds it: the owner, or another gc */
	TREE_LOCK_FAILED, /* missing, not a regular file, or flock failed */
};

/* Everything gc found out about one tree; strings are NULL when not applicable. */
struct tree_gc_facts {
	const char *owner_error; /* why the tree or its owner record proves nothing */
	enum tree_fate fate;
	const char *fate_why;
	enum tree_lock lock;
	const char *lock_why;
	int holders;		/* count, or -errno when the scan failed */
	const char *holder_why; /* the first holder, or the scan's error */
	size_t unreadable;	/* processes whose fds could not be read */
	bool note_unreadable;	/* name that count (gc -v): it never changes the verdict */
};

/*
 * The verdict: true when every rule holds, e->msg then being the evidence;
 * false with e->msg naming the first rule that does not.  Pure.
 */
bool tree_gc_verdict(const struct tree_gc_facts *f, struct iso_err *e);

/* State and start time of PID under PROC ("/proc", or a test's): 0, -ESRCH when it is
 * gone, -EIO unparsable, or -errno. */
int tree_pid_stat(const char *proc, pid_t pid, char *state, uint64_t *start);

#endif
