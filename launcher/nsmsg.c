// SPDX-License-Identifier: MIT
/* The --pidns socket's messages, one record each (launcher/nsmsg.h). */
#include "launcher/nsmsg.h"

#include <unistd.h>

#include "common/fdpass.h"

int sup_ns_send(int sock, const struct sup_ns_msg *m)
{
	return iso_send_record(sock, m, sizeof(*m), -1);
}

int sup_ns_send_fd(int sock, const struct sup_ns_msg *m, int fd)
{
	return iso_send_record(sock, m, sizeof(*m), fd);
}

int sup_ns_recv_fd(int sock, struct sup_ns_msg *m, int *ret_fd)
{
	int fd = -1;
	ssize_t n = iso_recv_record(sock, m, sizeof(*m), &fd);

	if (ret_fd)
		*ret_fd = fd;
	else if (fd >= 0)
		close(fd);
	if (n < 0)
		return (int)n;
	return n == 0 ? 0 : 1;
}

int sup_ns_recv(int sock, struct sup_ns_msg *m)
{
	return sup_ns_recv_fd(sock, m, NULL);
}
