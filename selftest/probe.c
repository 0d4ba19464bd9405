// SPDX-License-Identifier: MIT
/*
 * Host probes that need no namespace: subreaper, seccomp filters and user
 * notification, pidfds, close_range, cgroup v2.  A probe that changes process
 * state (a filter cannot be unloaded, subreaper is sticky) runs in a throwaway
 * child.  Syscalls are made with harmless invalid arguments (fd -1, a NULL
 * pointer, an empty range), so an allowed call fails with the kernel's
 * EBADF/EFAULT/EINVAL and a refused one with the filter's errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/io.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"
#include "selftest/selftest.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* --- subreaper -------------------------------------------------------------- */

static void subreaper(struct st_probe *p, void *arg)
{
	const struct st_ctx *c = arg;
	int on = 0;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		p->err = errno;
		st_set(p, ST_NO,
		       "prctl(PR_SET_CHILD_SUBREAPER): %s; without %s the leak gate cannot "
		       "adopt orphans",
		       strerror(errno), c->says[ST_SAY_PIDNS]);
		return;
	}
	if (prctl(PR_GET_CHILD_SUBREAPER, &on, 0, 0, 0) < 0 || on != 1) {
		p->err = errno;
		st_set(p, ST_NO, "PR_SET_CHILD_SUBREAPER accepted but not in effect");
		return;
	}
	st_set(p, ST_YES,
	       "PR_SET_CHILD_SUBREAPER in effect: orphans of the command come back "
	       "to isorun");
}

/* --- seccomp ---------------------------------------------------------------- */

/*
 * A filter sending fchdir to `action`, everything else allowed.  No arch
 * check: the probe child only makes native calls, and an x32 number (bit 30
 * set) never equals the native one.
 */
static long load_filter(unsigned int action, unsigned int flags)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_fchdir, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = ELEMENTSOF(insns), .filter = insns };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

static void seccomp_filters(struct st_probe *p, void *arg)
{
	const struct st_ctx *c = arg;
	const char *outer = st_already_filtered();
	int before, after;

	before = syscall(SYS_fchdir, -1) < 0 ? errno : 0;
	if (load_filter(SECCOMP_RET_ERRNO | EPERM, 0) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "load a filter with no_new_privs: %s; %s cannot work here",
		       strerror(errno), c->says[ST_SAY_POLICY]);
		return;
	}
	after = syscall(SYS_fchdir, -1) < 0 ? errno : 0;
	if (after != EPERM) {
		st_set(p, ST_NO, "a filter loaded, but fchdir(-1) then failed with %s, not EPERM",
		       strerrorname_np(after) ? strerrorname_np(after) : "success");
		return;
	}
	st_set(p, ST_YES,
	       "a filter loads; fchdir(-1) fails with %s without it and with EPERM "
	       "under it%s",
	       strerrorname_np(before) ? strerrorname_np(before) : "success", outer);
}

static int notif_sizes(struct seccomp_notif_sizes *s)
{
	return (int)syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, s);
}

/* A filter whose every fchdir is notified, and its listener; -1 with p set when none. */
static int notify_listener(struct st_probe *p)
{
	int listener = (int)load_filter(SECCOMP_RET_USER_NOTIF, SECCOMP_FILTER_FLAG_NEW_LISTENER);

	if (listener >= 0)
		return listener;
	p->err = errno;
	if (errno == EBUSY)
		st_set(p, ST_PARTIAL,
		       "a listener already exists above this process (EBUSY): an "
		       "enclosing isorun or container holds it, so an isorun started here "
		       "loads its deny-list alone and the enclosing one decides its execs");
	else
		st_set(p, ST_NO,
		       "load a filter with a listener: %s; isorun's service guard needs "
		       "Linux 5.5",
		       strerror(errno));
	return -1;
}

/* The caller's notified fchdir(-1): received, answered CONTINUE, its result read from rd. */
static void continue_one(struct st_probe *p, int listener, int rd, struct seccomp_notif *req,
			 struct seccomp_notif_resp *resp)
{
	struct pollfd pfd[2] = { { .fd = listener, .events = POLLIN },
				 { .fd = rd, .events = POLLIN } };
	int err = 0;

	while (poll(pfd, 2, -1) < 0 && errno == EINTR)
		;
	if (!(pfd[0].revents & POLLIN)) {
		st_set(p, ST_NO, "the notified call never reached the listener");
		return;
	}
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, req) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "SECCOMP_IOCTL_NOTIF_RECV: %s", strerror(errno));
		return;
	}
	resp->id = req->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0) {
		p->err = errno;
		st_set(p, ST_PARTIAL,
		       "notifications arrive, but answering CONTINUE fails (%s): Linux 5.5 is "
		       "needed for the service guard",
		       strerror(errno));
		return;
	}
	if (read(rd, &err, sizeof(err)) != (ssize_t)sizeof(err))
		st_set(p, ST_NO, "the notified caller sent no result");
	else if (err != EBADF)
		st_set(p, ST_NO, "a continued fchdir(-1) failed with %s instead of EBADF",
		       strerrorname_np(err) ? strerrorname_np(err) : "success");
	else
		st_set(p, ST_YES,
		       "a listener was created; a notified fchdir(-1) reached it and, "
		       "answered CONTINUE, failed with EBADF from the kernel");
}

/*
 * A listener, and one notified call answered CONTINUE: what isorun's service
 * guard does with each exec.  The caller runs in a grandchild; the listener
 * stays with this child, which is under the filter too and so must not call
 * fchdir itself.
 */
static void seccomp_notify(struct st_probe *p, void *arg)
{
	struct seccomp_notif_sizes sizes = { 0 };
	_cleanup_free_ struct seccomp_notif *req = NULL;
	_cleanup_free_ struct seccomp_notif_resp *resp = NULL;
	_cleanup_close_ int listener = -1, rd = -1, wr = -1;
	int report[2], err = 0, status;
	pid_t pid;

	listener = notify_listener(p);
	if (listener < 0)
		return;
	if (notif_sizes(&sizes) < 0 || pipe2(report, O_CLOEXEC) < 0) {
		p->err = errno;
		st_set(p, ST_NO, "SECCOMP_GET_NOTIF_SIZES or pipe: %s", strerror(errno));
		return;
	}
	rd = report[0];
	wr = report[1];
	req = calloc(1, sizes.seccomp_notif > sizeof(*req) ? sizes.seccomp_notif : sizeof(*req));
	resp = calloc(1, sizes.seccomp_notif_resp > sizeof(*resp) ? sizes.seccomp_notif_resp
								  : sizeof(*resp));
	if (!req || !resp) {
		st_set(p, ST_NO, "out of memory");
		return;
	}
	pid = fork();
	if (pid < 0) {
		p->err = errno;
		st_set(p, ST_NO, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		close(listener); /* a stray copy would keep the listener alive */
		close(rd);
		err = syscall(SYS_fchdir, -1) < 0 ? errno : 0;
		(void)!write(wr, &err, sizeof(err));
		_exit(0);
	}
	close(TAKE_FD(wr));
	continue_one(p, listener, rd, req, resp);
	/* closed before the wait: a caller still parked in fchdir then fails and exits */
	close(TAKE_FD(listener));
	close(TAKE_FD(rd));
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* --- pidfd, close_range ----------------------------------------------------- */

static void probe_pidfd(struct st_probe *p)
{
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0);

	if (fd < 0) {
		p->err = errno;
		st_set(p, errno == ENOSYS ? ST_NO : ST_PARTIAL, "pidfd_open(self): %s%s",
		       strerror(errno), errno == ENOSYS ? " (needs Linux 5.3)" : "");
		return;
	}
	if (syscall(SYS_pidfd_send_signal, fd, 0, NULL, 0) < 0) {
		p->err = errno;
		st_set(p, ST_PARTIAL, "pidfd_open works, pidfd_send_signal(fd, 0): %s",
		       strerror(errno));
	} else {
		st_set(p, ST_YES,
		       "pidfd_open and pidfd_send_signal work: signals cannot hit a "
		       "reused pid");
	}
	close(fd);
}

static void probe_close_range(struct st_probe *p)
{
	/* first > last is invalid: EINVAL proves the call exists and closes nothing */
	if (syscall(SYS_close_range, 1U, 0U, 0U) == 0 || errno != EINVAL) {
		p->err = errno;
		st_set(p, ST_NO, "close_range(1, 0, 0): %s, not EINVAL (needs Linux 5.9)",
		       strerror(errno));
		return;
	}
	/* an fd that cannot exist: the flag is checked, nothing is touched */
	if (syscall(SYS_close_range, ~0U, ~0U, CLOSE_RANGE_CLOEXEC) < 0) {
		p->err = errno;
		st_set(p, ST_PARTIAL, "close_range exists, CLOSE_RANGE_CLOEXEC: %s (needs 5.11)",
		       strerror(errno));
		return;
	}
	st_set(p, ST_YES, "close_range with CLOSE_RANGE_CLOEXEC");
}

/* --- cgroup v2: a cgroup per run, and the ceilings' controllers ------------- */

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == (typeof(sf.f_type))CGROUP2_SUPER_MAGIC;
}

/* The "0::/path" line of /proc/self/cgroup. */
static int own_cgroup(char *buf, size_t len)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/self/cgroup", "re");
	int r = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line + 3);
		r = 0;
	}
	fclose(f);
	return r;
}

static void probe_cgroup2(const struct st_ctx *c, struct st_probe *p)
{
	const char *mnt = NULL, *layout;
	char cg[512], dir[1024], controllers[256] = "", path[1100];
	bool writable;
	ssize_t n;
	int fd;

	if (is_cgroup2("/sys/fs/cgroup")) {
		mnt = "/sys/fs/cgroup";
		layout = "unified";
	} else if (is_cgroup2("/sys/fs/cgroup/unified")) {
		mnt = "/sys/fs/cgroup/unified";
		layout = "hybrid, v1 controllers beside it";
	} else {
		st_set(p, ST_NO,
		       "no cgroup2 mount at /sys/fs/cgroup or /sys/fs/cgroup/unified: runs have "
		       "no cgroup of their own; %s only as try:",
		       c->says[ST_SAY_CEILINGS_TRY]);
		return;
	}
	if (own_cgroup(cg, sizeof(cg)) < 0) {
		st_set(p, ST_PARTIAL, "cgroup2 at %s (%s), but /proc/self/cgroup has no 0:: line",
		       mnt, layout);
		return;
	}
	snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(cg, "/") == 0 ? "" : cg);
	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, controllers, sizeof(controllers) - 1);
		controllers[n > 0 ? n : 0] = '\0';
		controllers[strcspn(controllers, "\n")] = '\0';
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	/* a delegated subtree: the directory (for sub-cgroups) and its procs file */
	writable = access(dir, W_OK) == 0 && access(path, W_OK) == 0;
	st_set(p, writable ? ST_YES : ST_PARTIAL,
	       "cgroup2 at %s (%s); this process is in %s, controllers: %s; %s by uid %u: %s", mnt,
	       layout, cg, controllers[0] ? controllers : "none",
	       writable ? (getuid() ? "writable (delegated)" : "writable") : "not writable",
	       (unsigned)getuid(),
	       writable ? "each run gets a cgroup of its own (freeze, kill, CPU accounting)"
			: "runs have no cgroup of their own (not delegated)");
}

/* --- all -------------------------------------------------------------------- */

void st_probe_all(struct st_ctx *c, void (*done)(const struct st_ctx *, int id))
{
	st_probe_in_child(&c->probes[ST_SP_SUBREAPER], subreaper, c);
	done(c, ST_SP_SUBREAPER);
	st_probe_userns(c);
	done(c, ST_SP_USERNS);
	st_probe_pidns(c);
	done(c, ST_SP_PIDNS);
	st_probe_mountns(c);
	done(c, ST_SP_MOUNTNS);
	st_probe_netns(c);
	done(c, ST_SP_NETNS);
	st_probe_in_child(&c->probes[ST_SP_SECCOMP], seccomp_filters, c);
	done(c, ST_SP_SECCOMP);
	st_probe_in_child(&c->probes[ST_SP_NOTIFY], seccomp_notify, NULL);
	done(c, ST_SP_NOTIFY);
	probe_pidfd(&c->probes[ST_SP_PIDFD]);
	done(c, ST_SP_PIDFD);
	probe_close_range(&c->probes[ST_SP_CLOSE_RANGE]);
	done(c, ST_SP_CLOSE_RANGE);
	probe_cgroup2(c, &c->probes[ST_SP_CGROUP2]);
	done(c, ST_SP_CGROUP2);
}
