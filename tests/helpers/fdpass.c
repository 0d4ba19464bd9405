// SPDX-License-Identifier: MIT
/*
 * fdpass hold SOCKPATH READYFILE
 * fdpass send SOCKPATH FD
 *
 * Hands an open fd to a process outside isorun's tree over an AF_UNIX stream
 * socket (SCM_RIGHTS), so that something outside the tree holds a file inside
 * it.
 *
 * hold: listens on SOCKPATH, writes its pid to READYFILE atomically
 * (READYFILE.tmp + rename) once listening, accepts one connection (then stops
 * listening; the socket file is left in place), receives one fd, writes
 * "PID\ngot\n" to SOCKPATH.got atomically, sends a one-byte ack 'A', and then
 * keeps the fd open until its stdin reaches EOF (exit 0) or it gets SIGTERM or
 * SIGINT (exit 0).  With stdin closed it waits for the signal alone.  SIGPIPE
 * is ignored.
 *
 * send: connects to SOCKPATH, sends fd FD with one data byte 'F', and returns
 * only once the holder has acked, i.e. holds the fd and SOCKPATH.got exists
 * (exit 0).  The holder closing without an ack is an error (exit 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define PROG  "fdpass"
#define USAGE PROG " hold SOCKPATH READYFILE\n       " PROG " send SOCKPATH FD"
#include "common.h"

/* A failure without an errno: "fdpass: WHAT 'OBJ'". */
static void __attribute__((noreturn)) diex(const char *what, const char *obj)
{
	fprintf(stderr, PROG ": %s '%s'\n", what, obj);
	exit(1);
}

/*
 * Fill closed fds 0, 1, 2 with /dev/null so that no fd of ours lands on them
 * (a received fd on 0 would be "stdin").  Returns whether stdin was open.
 */
static int plug_stdio(void)
{
	int stdin_open = fcntl(STDIN_FILENO, F_GETFD) >= 0;

	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		if (fcntl(fd, F_GETFD) >= 0)
			continue;
		/* Not O_CLOEXEC: it stands in for an inherited fd. */
		if (open("/dev/null", O_RDWR) != fd)
			die("open", "/dev/null");
	}
	return stdin_open;
}

static socklen_t make_addr(struct sockaddr_un *sun, const char *path)
{
	size_t len = strlen(path);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (len == 0 || len >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		die("socket address", path);
	}
	memcpy(sun->sun_path, path, len);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + 1);
}

static void __attribute__((noreturn)) hold(const char *sockpath, const char *readyfile)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	char got[PATH_MAX], data[64], byte, ack = 'A';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct sockaddr_un sun;
	struct cmsghdr *cmsg;
	socklen_t alen;
	int lfd, cfd, held = -1, n, stdin_open;
	ssize_t r;

	stdin_open = plug_stdio();

	n = snprintf(got, sizeof(got), "%s.got", sockpath);
	if (n < 0 || (size_t)n >= sizeof(got)) {
		errno = ENAMETOOLONG;
		die("open", sockpath);
	}
	alen = make_addr(&sun, sockpath);

	set_signal(SIGPIPE, SIG_IGN);
	exit_on_stop_signals();

	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket", sockpath);
	if (bind(lfd, (struct sockaddr *)&sun, alen) < 0)
		die("bind", sockpath);
	if (listen(lfd, 1) < 0)
		die("listen", sockpath);

	write_pidfile(AT_FDCWD, readyfile, die);

	do
		cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	while (cfd < 0 && errno == EINTR);
	if (cfd < 0)
		die("accept", sockpath);
	close(lfd);

	do
		r = recvmsg(cfd, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		die("recvmsg", sockpath);
	if (msg.msg_flags & MSG_CTRUNC)
		diex("more than one fd (control data truncated) on", sockpath);
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
		if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(int)))
			memcpy(&held, CMSG_DATA(cmsg), sizeof(int));
	}
	if (held < 0)
		diex("no fd received on", sockpath);

	snprintf(data, sizeof(data), "%d\ngot\n", (int)getpid());
	write_atomic(AT_FDCWD, got, data, die);

	/* The holder's job is to hold: a sender that went away is only reported. */
	do
		r = send(cfd, &ack, 1, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		print_error(errno, "send ack", sockpath);
	close(cfd);

	wait_stdin_eof(stdin_open);
}

static void __attribute__((noreturn)) send_fd(const char *sockpath, const char *fdarg)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	char byte = 'F';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	struct sockaddr_un sun;
	struct cmsghdr *cmsg;
	socklen_t alen;
	int fd, sfd;
	ssize_t r;

	fd = (int)parse_ulong(fdarg, 0, INT_MAX);
	if (fcntl(fd, F_GETFD) < 0)
		die("fcntl F_GETFD", fdarg);
	alen = make_addr(&sun, sockpath);
	set_signal(SIGPIPE, SIG_IGN);

	sfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sfd < 0)
		die("socket", sockpath);
	if (connect(sfd, (struct sockaddr *)&sun, alen) < 0)
		die("connect", sockpath);

	memset(&ctl, 0, sizeof(ctl));
	cmsg = &ctl.align; /* == CMSG_FIRSTHDR(&msg), never NULL here */
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	do
		r = sendmsg(sfd, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		die("sendmsg", sockpath);

	do
		r = read(sfd, &byte, 1);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		die("read ack", sockpath);
	if (r == 0 || byte != 'A')
		diex("no ack from the holder on", sockpath);
	close(sfd);
	exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 4)
		usage();
	if (!strcmp(argv[1], "hold"))
		hold(argv[2], argv[3]);
	if (!strcmp(argv[1], "send"))
		send_fd(argv[2], argv[3]);
	usage();
}
