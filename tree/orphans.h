/* SPDX-License-Identifier: MIT */
/*
 * The live processes of a tree whose owner is gone, found by their environment:
 * every process a run starts carries ISORUN_NAMESPACE=<tree> (launcher/env.c),
 * so after a kill -9 of an isorun without a PID namespace, `ls` and `gc` find
 * what is left by scanning /proc for that exact entry.  This is weaker evidence
 * than a PID namespace or a cgroup: a process that exec'd with another
 * environment is not found, and one whose environment cannot be read is only
 * counted.  A process is never signalled unless its environment names the tree.
 *
 * A cgroup-based finder, where the run had a cgroup, is separate and comes first.
 */
#ifndef ISO_ORPHANS_H
#define ISO_ORPHANS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

/* The variable launcher/env.c sets to the tree's path. */
#define TREE_NAMESPACE_VAR "ISORUN_NAMESPACE"

struct tree_orphan_query {
	const char *proc; /* "/proc", or a fake one (find only) */
	const char *tree; /* the tree's absolute path */
	uid_t uid;	  /* only processes whose real or effective uid is this; 0: all */
	pid_t exclude;	  /* ourselves */
};

struct tree_orphan {
	pid_t pid;
	uint64_t start; /* /proc/PID/stat field 22: (pid, start) names it */
	char *cmd;	/* redacted command line, for messages */
	int pidfd;	/* -1 until stopped */
	bool gone;	/* exited (or was gone before it could be signalled) */
};

struct tree_orphan_scan {
	struct tree_orphan *v;
	size_t n, cap;
	/* processes of this user whose environment could not be read: they could be the run's */
	size_t unreadable;
	/* of those, the ones outside isorun's user namespace (not counted in unreadable) */
	size_t outside;
	/* ones whose environment did not come within the reader's deadline (not in unreadable) */
	size_t stalled;
	/* tree_orphans_stop: SIGSTOP each one the moment it is found, not after the scan */
	bool stop_at_once;
};

/*
 * True when the NUL-separated environment on fd has the exact entry NAME=VALUE
 * (ISORUN_NAMESPACE=<tree>); read as a stream, whatever its size.
 */
bool tree_environ_has(int fd, const char *entry);

/*
 * Add to s every live process whose environment names q->tree and that s does
 * not hold yet; s->unreadable, s->outside and s->stalled are recounted.  Each
 * environment is read through iso_reader_proc() when there is one (bounded).  Returns how many were
 * added, or -errno when /proc cannot be listed.
 */
int tree_orphans_find(const struct tree_orphan_query *q, struct tree_orphan_scan *s);

/*
 * Stop every process of q->tree: SIGSTOP each one found (through a pidfd that is
 * checked to name the process that was read), rescan until a scan finds nothing
 * new (they may fork meanwhile), then SIGKILL them all and wait, on their
 * pidfds, until each is gone or timeout_ms passed; a last scan must find
 * nothing.  s lists the processes found.  Returns 0, or -errno with e->msg
 * naming what failed and which process.
 */
int tree_orphans_stop(const struct tree_orphan_query *q, struct tree_orphan_scan *s, int timeout_ms,
		      struct iso_err *e);

void tree_orphans_free(struct tree_orphan_scan *s);

#endif
