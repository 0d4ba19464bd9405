/* SPDX-License-Identifier: MIT */
/*
 * Who still uses the tree: every process isorun can inspect whose cwd, root or an
 * open fd lies inside the tree, or that holds one of the relayed pipes.
 */
#ifndef ISO_HOLDERS_H
#define ISO_HOLDERS_H

#include <stddef.h>
#include <sys/types.h>

struct iso_holder {
	pid_t pid;
	char what[24];	/* "cwd", "root", "fd 5" */
	char *target;	/* the link's text; a pipe shows as "pipe:[ino]" */
	int pipe_index; /* which pipe of the query, or -1 */
};

struct iso_holder_query {
	const char *tree; /* absolute, canonical; NULL: do not look for it */
	const ino_t *pipes;
	size_t n_pipes;
	pid_t exclude; /* isorun itself: it holds the lock and the read ends */
};

/*
 * Returns the number of holders found (*ret malloc'ed, free with iso_holders_free)
 * or -errno; *ret_unreadable counts processes whose fds could not be read.
 */
int iso_find_holders(const struct iso_holder_query *q, struct iso_holder **ret,
		     size_t *ret_unreadable);
void iso_holders_free(struct iso_holder *h, size_t n);

#endif
