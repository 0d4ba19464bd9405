/* SPDX-License-Identifier: MIT */
/* Reading a descriptor whole, the one loop that retries EINTR. */
#ifndef ISO_IO_H
#define ISO_IO_H

#include <stddef.h>
#include <sys/types.h>

/*
 * read(2) into buf until len bytes or end of file, a read interrupted by a
 * signal retried: the count (short only at end of file), or -errno.  It waits
 * as long as fd does: open what the command can write O_NONBLOCK.
 */
ssize_t iso_read_all(int fd, void *buf, size_t len);

#endif
