/* SPDX-License-Identifier: MIT */
/*
 * Who exec'd what: a compact record, kept by the supervisor from the service guard's
 * exec notifications (it reads every execve's argv anyway), of each process's last
 * exec: its parent then and its argv.  A leaked daemon's ancestors are usually dead
 * when the leak gate finds it; this record is how it still says what started it.
 *
 * Keyed by pid, checked by identity (iso_proc_ident(): a reused pid overwrites a
 * dead one's record, and a record younger than the child asking is not its parent).  Bounded: when
 * the table is full, records of processes that are gone and are no living process's ancestor are
 * dropped; what still does not fit is counted, not kept.
 */
#ifndef ISO_EXECLOG_H
#define ISO_EXECLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Per exec at most this much argv is kept: enough to name a command, not to replay it. */
#define SUP_EXECLOG_ARGS  16
#define SUP_EXECLOG_BYTES 1024
/* Slots at most (a power of two); three quarters of them may hold records. */
#define SUP_EXECLOG_MAX 65536

struct sup_exec_rec {
	pid_t pid; /* 0: a free slot */
	pid_t ppid;
	uint64_t id;  /* its iso_ident id: creation order, never repeated */
	uint16_t len; /* bytes of args, each NUL-terminated */
	uint8_t argc;
	bool truncated;
	bool forked; /* seen as a child's parent that never exec'd: its argv then */
	char *args;
};

struct sup_execlog {
	struct sup_exec_rec *v;
	size_t cap; /* slots: 0 until the first record */
	size_t n;
	size_t dropped; /* records not kept: the table was full of live chains */
	bool on;	/* records are kept (the service guard notifies this isorun) */
	bool pidfs;	/* ids are pidfs inode numbers, not start times (iso_proc_ident_probe()) */
};

/*
 * Record that `pid` exec'd argv (called before the exec is let through, so a parent
 * that waits for its child's exec is still its parent).  When the parent has no record
 * and is not one of the `roots` (isorun, the namespace's init), the parent is
 * recorded too, with its argv as it is now: a process that forked without exec.
 */
void sup_execlog_add(struct sup_execlog *log, pid_t pid, char *const *argv, size_t argc,
		     const pid_t roots[2]);
/* The record of pid, or NULL; the caller checks its id. */
const struct sup_exec_rec *sup_execlog_get(const struct sup_execlog *log, pid_t pid);
void sup_execlog_free(struct sup_execlog *log);

#endif
