// SPDX-License-Identifier: MIT
/*
 * Namespace probes, each in a throwaway child: what isorun itself does for
 * --pidns, --protect-home and --net=isolated, one step at a time, so that the
 * line names the step that failed.  Like isorun, only a caller that is not root
 * creates a user namespace first (mapped to itself).  Every mount happens in a
 * mount namespace private to the child, after making "/" private in it, so
 * nothing reaches the host.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/io.h"
#include "common/err.h"
#include "ns/ns.h"
#include "selftest/selftest.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY 0x00000001
struct mount_attr {
	__u64 attr_set;
	__u64 attr_clr;
	__u64 propagation;
	__u64 userns_fd;
};
#endif

static void explain(struct st_probe *p, const struct iso_err *e, const char *prefix)
{
	char buf[400];

	p->err = e->errnum;
	st_set(p, ST_NO, "%s%s%s%s", prefix, iso_err_format(e, buf, sizeof(buf)),
	       e->hint[0] ? "; " : "", e->hint);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r = 0;
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		r = -errno;
	close(fd);
	return r;
}

const char *st_unshare_hint(int errnum)
{
	if (errnum != EPERM)
		return "";
	if (st_already_filtered()[0])
		return " (a seccomp filter, e.g. a container's default profile, may deny it: "
		       "Seccomp: "
		       "2 in /proc/self/status)";
	return geteuid() == 0 ? " (no CAP_SYS_ADMIN: a container?)" : "";
}

int st_enter_userns(struct st_probe *p)
{
	char map[64];
	struct iso_err e = { 0 };
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int r;

	if (uid == 0)
		return 0;
	if (unshare(CLONE_NEWUSER) < 0) {
		ns_userns_explain(errno, &e);
		explain(p, &e, "needs a user namespace: ");
		return -1;
	}
	r = write_file("/proc/self/setgroups", "deny");
	if (r < 0 && r != -ENOENT) {
		p->err = -r;
		st_set(p, ST_NO, "needs a user namespace: write /proc/self/setgroups: %s",
		       strerror(-r));
		return -1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	r = write_file("/proc/self/uid_map", map);
	if (r == 0) {
		snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
		r = write_file("/proc/self/gid_map", map);
	}
	if (r < 0) {
		p->err = -r;
		st_set(p, ST_NO, "needs a user namespace: write its id maps: %s%s", strerror(-r),
		       -r == EPERM ? " (a security module such as AppArmor?)" : "");
		return -1;
	}
	return 0;
}

/* --- user namespaces: the launcher's own diagnosis ---------------------------- */

void st_probe_userns(struct st_ctx *c)
{
	struct st_probe *p = &c->probes[ST_SP_USERNS];
	struct iso_err e = { 0 };

	if (ns_userns_diagnose(&e) == 0) {
		st_set(p, ST_YES,
		       "created by uid %u, id maps written, a mount namespace inside it can make "
		       "/ private%s",
		       (unsigned)geteuid(), geteuid() == 0 ? " (as root isorun needs none)" : "");
		return;
	}
	explain(p, &e, "");
	if (geteuid() == 0)
		snprintf(p->reason + strlen(p->reason), sizeof(p->reason) - strlen(p->reason),
			 " (as root isorun needs none)");
}

/* --- PID namespaces ------------------------------------------------------------ */

enum { PID_NOT_ONE = 1, PID_PRIVATE, PID_PROC };

static void pidns(struct st_probe *p, void *arg)
{
	const struct st_ctx *c = arg;
	int report[2], got[2] = { 0, 0 }, status;
	pid_t pid;

	if (st_enter_userns(p) < 0)
		return;
	if (unshare(CLONE_NEWPID | CLONE_NEWNS) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "unshare(CLONE_NEWPID|CLONE_NEWNS): %s%s", strerror(errno),
		       st_unshare_hint(errno));
		return;
	}
	if (pipe2(report, O_CLOEXEC) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "pipe: %s", strerror(errno));
		return;
	}
	pid = fork(); /* the first child of the new namespace is its PID 1 */
	if (pid < 0) {
		p->err = errno;
		st_set(p, ST_NO, "fork into the new PID namespace: %s", strerror(errno));
		close(report[0]);
		close(report[1]);
		return;
	}
	if (pid == 0) {
		int step = 0, err = 0;

		if (getpid() != 1)
			step = PID_NOT_ONE;
		else if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			step = PID_PRIVATE, err = errno;
		else if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			step = PID_PROC, err = errno;
		got[0] = step;
		got[1] = err;
		(void)!write(report[1], got, sizeof(got));
		_exit(0);
	}
	close(report[1]);
	if (iso_read_all(report[0], got, sizeof(got)) != (ssize_t)sizeof(got))
		got[0] = -1;
	close(report[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	p->err = got[1];
	switch (got[0]) {
	case 0:
		st_set(p, ST_YES,
		       "the first child of a new PID namespace is PID 1 and mounts "
		       "its own /proc");
		break;
	case PID_NOT_ONE:
		st_set(p, ST_NO, "the first child of the new PID namespace is not PID 1");
		break;
	case PID_PRIVATE:
		st_set(p, ST_PARTIAL, "PID namespace created, but making / private failed: %s",
		       strerror(got[1]));
		break;
	case PID_PROC:
		st_set(p, ST_PARTIAL,
		       "PID namespace created, but a new /proc cannot be mounted: %s (a partly "
		       "masked /proc, as in a container?); %s needs it",
		       strerror(got[1]), c->says[ST_SAY_PIDNS]);
		break;
	default:
		st_set(p, ST_NO, "PID 1 of the new namespace sent no report");
	}
}

void st_probe_pidns(struct st_ctx *c)
{
	st_probe_in_child(&c->probes[ST_SP_PIDNS], pidns, c);
}

/* --- mount namespaces: what --protect-home=ro does ---------------------------- */

static void mountns(struct st_probe *p, void *arg)
{
	const struct st_ctx *c = arg;
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	char dir[PATH_MAX + 8], file[PATH_MAX + 16];
	int fd;

	if (st_enter_userns(p) < 0)
		return;
	snprintf(dir, sizeof(dir), "%s/mnt", c->dir);
	snprintf(file, sizeof(file), "%s/probe", dir);
	if (unshare(CLONE_NEWNS) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "unshare(CLONE_NEWNS): %s%s", strerror(errno),
		       st_unshare_hint(errno));
		return;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "make / private in a new mount namespace: %s", strerror(errno));
		return;
	}
	if (mount(dir, dir, NULL, MS_BIND | MS_REC, NULL) < 0) {
		p->err = errno;
		st_set(p, ST_PARTIAL, "private mount namespace, but bind-mount '%s': %s", dir,
		       strerror(errno));
		return;
	}
	if (syscall(SYS_mount_setattr, AT_FDCWD, dir, AT_RECURSIVE, &attr, sizeof(attr)) < 0) {
		p->err = errno;
		st_set(p, ST_PARTIAL,
		       "private mount namespace and bind mounts, but a recursive read-only "
		       "mount_setattr: %s (needs Linux 5.12)",
		       strerror(errno));
		return;
	}
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		close(fd);
		st_set(p, ST_PARTIAL, "a read-only bind mount still let a file be created");
		return;
	}
	if (errno != EROFS) {
		p->err = errno;
		st_set(p, ST_PARTIAL,
		       "a write under a read-only bind mount failed with %s, not "
		       "EROFS",
		       strerror(errno));
		return;
	}
	st_set(p, ST_YES,
	       "a private mount namespace; a recursive read-only bind (what "
	       "%s makes) refuses a write with EROFS",
	       c->says[ST_SAY_HOME_RO]);
}

void st_probe_mountns(struct st_ctx *c)
{
	st_probe_in_child(&c->probes[ST_SP_MOUNTNS], mountns, c);
}

/* --- network namespaces: what --net=isolated does ------------------------------ */

static void netns(struct st_probe *p, void *arg)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	struct iso_err e = { 0 };
	int l, s;

	if (st_enter_userns(p) < 0)
		return;
	if (unshare(CLONE_NEWNET) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "unshare(CLONE_NEWNET): %s%s", strerror(errno),
		       st_unshare_hint(errno));
		return;
	}
	if (ns_loopback_up(&e) < 0) {
		explain(p, &e, "new network namespace, but loopback: ");
		p->verdict = ST_PARTIAL;
		return;
	}
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || s < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&sa, &len) < 0 ||
	    connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		p->err = errno;
		st_set(p, ST_PARTIAL, "loopback up, but a connection to 127.0.0.1 inside: %s",
		       strerror(errno));
		return;
	}
	st_set(p, ST_YES,
	       "a new network namespace with loopback up; 127.0.0.1 answers inside "
	       "it");
}

void st_probe_netns(struct st_ctx *c)
{
	st_probe_in_child(&c->probes[ST_SP_NETNS], netns, c);
}
