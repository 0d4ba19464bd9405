// SPDX-License-Identifier: MIT
/*
 * fusestall DIR READY
 *
 * Root only.  Mounts a FUSE file system of its own on DIR, answers the
 * kernel's INIT and what a chdir() into DIR asks (root's attributes, never
 * cached), forks a child whose cwd is DIR, then stops answering: any later
 * request waits until this process dies (closing /dev/fuse aborts the
 * connection).  Creates READY once the child sits in DIR and the answers
 * stopped.  A stat() of the child's /proc/PID/cwd then waits forever, as a
 * hung network file system would make it.  SIGTERM ends both.
 */
#include <linux/fuse.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define PROG  "fusestall"
#define USAGE PROG " DIR READY"
#include "common.h"

static void reply(int fd, const struct fuse_in_header *in, int error, const void *body, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header out = { .len = (uint32_t)(sizeof(out) + len),
				       .error = error,
				       .unique = in->unique };

	memcpy(buf, &out, sizeof(out));
	if (len)
		memcpy(buf + sizeof(out), body, len);
	if (write(fd, buf, out.len) != (ssize_t)out.len)
		die("answer the kernel", "/dev/fuse");
}

/* INIT, GETATTR of the root (valid for no time: every stat asks again), ENOSYS to the rest. */
static void answer(int fd, const char *req)
{
	const struct fuse_in_header *in = (const void *)req;

	if (in->opcode == FUSE_INIT) {
		struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
					   .minor = FUSE_KERNEL_MINOR_VERSION,
					   .max_write = 4096,
					   .time_gran = 1 };
		reply(fd, in, 0, &o, sizeof(o));
	} else if (in->opcode == FUSE_GETATTR) {
		struct fuse_attr_out o = { .attr = {
						   .ino = 1, .mode = S_IFDIR | 0755, .nlink = 2 } };
		reply(fd, in, 0, &o, sizeof(o));
	} else {
		reply(fd, in, -ENOSYS, NULL, 0);
	}
}

int main(int argc, char **argv)
{
	static char req[FUSE_MIN_READ_BUFFER + 65536];
	char opts[128];
	int fd, fd2, pipefd[2];
	pid_t child;

	if (argc != 3)
		usage();
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open", "/dev/fuse");
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("fusestall", argv[1], "fuse.fusestall", MS_NOSUID | MS_NODEV, opts) < 0)
		die("mount fuse on", argv[1]);
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die("pipe", NULL);
	child = fork();
	if (child < 0)
		die("fork", NULL);
	if (child == 0) {
		char c = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fd);
		if (chdir(argv[1]) < 0)
			die("enter", argv[1]);
		if (write(pipefd[1], &c, 1) != 1)
			die("tell the parent", NULL);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	/* answer until the child is in */
	for (;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = pipefd[0], .events = POLLIN } };

		if (poll(p, 2, -1) < 0)
			die("poll", NULL);
		if (p[1].revents)
			break;
		if (read(fd, req, sizeof(req)) > 0)
			answer(fd, req);
	}
	fd2 = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd2 < 0)
		die("create", argv[2]);
	close(fd2);
	pause();
	return 0;
}
