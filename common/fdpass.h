/* SPDX-License-Identifier: MIT */
/* One record, and optionally one fd, over an AF_UNIX SOCK_SEQPACKET socket. */
#ifndef ISO_FDPASS_H
#define ISO_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

/* fd < 0: the record alone.  0 or -errno. */
int iso_send_record(int sock, const void *buf, size_t len, int fd);
/*
 * Bytes received (0 on EOF) or -errno; *ret_fd gets a passed fd (CLOEXEC) or -1.
 * A record of another length than `len` is -EPROTO.
 */
ssize_t iso_recv_record(int sock, void *buf, size_t len, int *ret_fd);

#endif
