// SPDX-License-Identifier: MIT
/*
 * fusestall DIR READY
 * fusestall DIR READY --bind SRC
 * fusestall DIR READY --here
 * fusestall DIR READY --file
 *
 * Root only.  Mounts a FUSE file system of its own on DIR, answers the
 * kernel's INIT and what it is asked until the scene is set (attributes and
 * entries never cached), then stops answering: any later request waits until
 * this process dies (closing /dev/fuse aborts the connection).  Creates READY
 * once the answers stopped.  SIGTERM ends it and its child.
 *
 * Default: a child sits with its cwd in DIR.  A stat() of its /proc/PID/cwd
 * then waits forever, as a hung network file system would make it.
 *
 * --bind: DIR has one directory, x; a child in a mount namespace of its own
 * bind-mounts SRC on DIR/x.  A walk of /proc/CHILD/root/DIR/x (looking for
 * mounts of some file system) then waits in the lookup of x.
 *
 * --here: no child; DIR itself is the stalled mount (put one in a tree: a
 * stat() of DIR, an opendir() of it, wait).
 *
 * --file: DIR has one file, f, of one page, that can be opened and mapped but
 * whose READ is never answered (every other request still is): a touch of
 * its mapping waits, as does a read of that page from another process.
 */
#include <linux/fuse.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define PROG  "fusestall"
#define USAGE PROG " DIR READY [--bind SRC | --here | --file]"
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

static struct fuse_attr dir_attr(uint64_t ino)
{
	return (struct fuse_attr){ .ino = ino, .mode = S_IFDIR | 0755, .nlink = 2 };
}

static struct fuse_attr file_attr(uint64_t ino)
{
	return (struct fuse_attr){
		.ino = ino, .mode = S_IFREG | 0644, .nlink = 1, .size = 4096, .blocks = 8
	};
}

static void answer_lookup(int fd, const struct fuse_in_header *in, const char *name)
{
	/* entry_valid 0: the next walk through x asks again */
	struct fuse_entry_out o = { .nodeid = 2, .generation = 1 };

	if (in->nodeid != 1 || (strcmp(name, "x") && strcmp(name, "f"))) {
		reply(fd, in, -ENOENT, NULL, 0);
		return;
	}
	o.attr = name[0] == 'x' ? dir_attr(2) : file_attr(2);
	reply(fd, in, 0, &o, sizeof(o));
}

/*
 * INIT, GETATTR (valid for no time: every stat asks again), LOOKUP of x (or f),
 * OPEN, FLUSH and RELEASE of f; READ never; ENOSYS to the rest.
 */
static void answer(int fd, const char *req, bool file)
{
	const struct fuse_in_header *in = (const void *)req;

	if (in->opcode == FUSE_INIT) {
		struct fuse_init_out o = { .major = FUSE_KERNEL_VERSION,
					   .minor = FUSE_KERNEL_MINOR_VERSION,
					   .max_write = 4096,
					   .time_gran = 1 };
		reply(fd, in, 0, &o, sizeof(o));
	} else if (in->opcode == FUSE_GETATTR) {
		struct fuse_attr_out o = { .attr = file && in->nodeid == 2 ? file_attr(2)
									   : dir_attr(in->nodeid) };
		reply(fd, in, 0, &o, sizeof(o));
	} else if (in->opcode == FUSE_LOOKUP) {
		answer_lookup(fd, in, req + sizeof(*in));
	} else if (file && in->opcode == FUSE_OPEN) {
		/* keep the cache: an open must not wait on a page whose READ never ends */
		struct fuse_open_out o = { .open_flags = FOPEN_KEEP_CACHE };
		reply(fd, in, 0, &o, sizeof(o));
	} else if (file && (in->opcode == FUSE_FLUSH || in->opcode == FUSE_RELEASE)) {
		reply(fd, in, 0, NULL, 0);
	} else if (in->opcode != FUSE_READ && in->opcode != FUSE_FORGET &&
		   in->opcode != FUSE_BATCH_FORGET && in->opcode != FUSE_INTERRUPT) {
		reply(fd, in, -ENOSYS, NULL, 0);
	}
}

/* --file: READY once INIT is answered; everything but READ answered for good. */
static _Noreturn void serve_file(int fd, const char *ready, char *req, size_t len)
{
	for (bool told = false;;) {
		ssize_t n = read(fd, req, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("read a request", "/dev/fuse");
		answer(fd, req, true);
		if (!told &&
		    ((const struct fuse_in_header *)(const void *)req)->opcode == FUSE_INIT) {
			int r = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			if (r < 0)
				die("create", ready);
			close(r);
			told = true;
		}
	}
}

/* The child's part of the scene; returns only when it is set. */
static void set_scene(const char *dir, const char *bind)
{
	char x[PATH_MAX];

	if (!bind) {
		if (chdir(dir) < 0)
			die("enter", dir);
		return;
	}
	snprintf(x, sizeof(x), "%s/x", dir);
	if (unshare(CLONE_NEWNS) < 0)
		die("unshare a mount namespace", NULL);
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) < 0)
		die("make the mounts slaves", NULL);
	if (mount(bind, x, NULL, MS_BIND, NULL) < 0)
		die("bind-mount on", x);
	if (chdir("/") < 0)
		die("enter", "/");
}

int main(int argc, char **argv)
{
	static char req[FUSE_MIN_READ_BUFFER + 65536];
	const char *bind = NULL;
	bool here = false, file = false;
	char opts[128];
	int fd, fd2, pipefd[2];
	pid_t child = 0;

	if (argc == 5 && !strcmp(argv[3], "--bind"))
		bind = argv[4];
	else if (argc == 4 && !strcmp(argv[3], "--here"))
		here = true;
	else if (argc == 4 && !strcmp(argv[3], "--file"))
		file = true;
	else if (argc != 3)
		usage();
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open", "/dev/fuse");
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fd);
	if (mount("fusestall", argv[1], "fuse.fusestall", MS_NOSUID | MS_NODEV, opts) < 0)
		die("mount fuse on", argv[1]);
	if (file)
		serve_file(fd, argv[2], req, sizeof(req));
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		die("pipe", NULL);
	if (!here) {
		child = fork();
		if (child < 0)
			die("fork", NULL);
	}
	if (child == 0 && !here) {
		char c = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(fd);
		set_scene(argv[1], bind);
		if (write(pipefd[1], &c, 1) != 1)
			die("tell the parent", NULL);
		pause();
		_exit(0);
	}
	if (here && write(pipefd[1], "", 1) != 1)
		die("tell myself", NULL);
	close(pipefd[1]);
	/* answer until the scene is set (--here: INIT only) */
	for (bool init = false;;) {
		struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
				       { .fd = pipefd[0], .events = POLLIN } };

		if (poll(p, 2, -1) < 0)
			die("poll", NULL);
		if (p[1].revents && (!here || init))
			break;
		if (p[0].revents && read(fd, req, sizeof(req)) > 0) {
			init |= ((const struct fuse_in_header *)(const void *)req)->opcode ==
				FUSE_INIT;
			answer(fd, req, false);
		}
	}
	fd2 = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd2 < 0)
		die("create", argv[2]);
	close(fd2);
	pause();
	return 0;
}
