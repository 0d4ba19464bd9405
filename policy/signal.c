/* SPDX-License-Identifier: MIT */
/*
 * contain-signals: a signal from the command reaches only processes of the run.
 *
 * Without a PID namespace, kill(-1), kill(-pgid) or kill(pid) of the command
 * reach every process of its user, a CI runner among them.  The filter
 * notifies kill, tkill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and
 * pidfd_send_signal with a signal other than 0 (0 only probes; it passes in
 * the filter).  Here each is answered one of three ways:
 *
 *  - CONTINUE, when the kernel's own target cannot turn into a stranger before
 *    the call runs: the caller itself (kill/rt_sigqueueinfo of its own tgid,
 *    tgkill/rt_tgsigqueueinfo in its own thread group, tkill of its own tid),
 *    or a process group the caller is in whose every member is in the run.
 *    The caller is blocked in the call, so its pid and its group's number
 *    cannot be freed and reused meanwhile.
 *  - sent by us, through a pidfd opened before anything about the target was
 *    read, for a target inside the run: the signal reaches the process the
 *    pidfd pins or, when that one is gone, nobody (ESRCH), never a process
 *    that took its number since.  The kernel's permission rule is checked on
 *    the caller's credentials; the target sees si_pid and si_uid of the
 *    caller, with si_code SI_QUEUE (a process may forge no other code).
 *  - refused (EPERM, an event naming the call and the rule) when any target
 *    is outside the run, and always for kill(-1).
 *
 * Inside the run: in the run's cgroup (or below it), or a descendant of the
 * supervisor (a child subreaper).  Everything read from /proc or the caller's
 * memory is read on the reader (common/reader.h): the supervisor never waits
 * on what the command controls.
 */
#include "policy/signal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef PIDFD_SIGNAL_THREAD_GROUP
#define PIDFD_SIGNAL_THREAD_GROUP (1UL << 1)
#endif
#ifndef PIDFD_SIGNAL_PROCESS_GROUP
#define PIDFD_SIGNAL_PROCESS_GROUP (1UL << 2)
#endif
#ifndef SI_TKILL
#define SI_TKILL (-6)
#endif
#define CAP_KILL_BIT 5
#define CHAIN_MAX    4096

static const struct pol_call_name kinds[] = {
	{ "kill", POL_PSIG_KILL, SYS_kill },
	{ "tkill", POL_PSIG_TKILL, SYS_tkill },
	{ "tgkill", POL_PSIG_TGKILL, SYS_tgkill },
	{ "rt_sigqueueinfo", POL_PSIG_QUEUE, SYS_rt_sigqueueinfo },
	{ "rt_tgsigqueueinfo", POL_PSIG_TGQUEUE, SYS_rt_tgsigqueueinfo },
	{ "pidfd_send_signal", POL_PSIG_PIDFD, SYS_pidfd_send_signal },
};

static const char *kind_name(enum pol_sig_kind k)
{
	return pol_call_kind_name(kinds, ELEMENTSOF(kinds), (int)k);
}

/* What the call asks, from its registers. */
struct sig_call {
	enum pol_sig_kind kind;
	bool compat;
	pid_t caller; /* the calling thread */
	int pid;      /* kill/rt_sigqueueinfo: pid; tgkill/rt_tgsigqueueinfo: tgid */
	int tid;      /* tkill, tgkill, rt_tgsigqueueinfo */
	int sig;
	int fd; /* pidfd_send_signal */
	unsigned flags;
	uint64_t info_addr; /* 0: none */
};

struct sig_target {
	pid_t pid;
	int pidfd;
	bool group_scope; /* a thread's pidfd standing for its whole process */
	bool member;
	uid_t ruid, suid;
	pid_t tgid, sid, pgrp;
};

/* Everything the reader finds out for one call (owned by it when it overran). */
struct sig_job {
	struct sig_call c;
	struct pol_run run;
	pid_t c_tgid, c_pgrp, c_sid;
	uid_t c_ruid, c_euid;
	bool c_cap_kill;
	bool self;	   /* the kernel's own target is the caller: CONTINUE */
	bool group;	   /* kill(0) or kill(-pgid) */
	bool caller_group; /* ... of the caller's own group */
	pid_t pgrp;
	siginfo_t info;
	bool have_info;
	struct sig_target *t;
	size_t n;
	char comm[64];	 /* of the first target outside */
	bool unreadable; /* the caller's memory or descriptors refused us (not dumpable) */
	int r;
};

static void job_free(void *arg)
{
	struct sig_job *j = arg;

	for (size_t i = 0; i < j->n; i++)
		if (j->t[i].pidfd >= 0)
			close(j->t[i].pidfd);
	free(j->t);
	free(j);
}

static void jobp_free(struct sig_job **j)
{
	if (*j)
		job_free(*j);
}

/* "Name:\tA B C" of a /proc/PID/status text: the first `n` numbers. */
static int status_nums(const char *text, const char *name, unsigned long long *v, int n, int base)
{
	size_t len = strlen(name);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char *end;

		if (strncmp(l, name, len) || l[len] != ':')
			continue;
		l += len + 1;
		for (int i = 0; i < n; i++) {
			v[i] = strtoull(l, &end, base);
			if (end == l)
				return -EINVAL;
			l = end;
		}
		return 0;
	}
	return -ENOENT;
}

/* Tgid, real and saved uid, CapEff and session of pid. */
static int creds(pid_t pid, pid_t *tgid, uid_t *ruid, uid_t *euid, uid_t *suid, bool *cap_kill,
		 pid_t *sid, pid_t *pgrp)
{
	char buf[4096];
	unsigned long long tg, uid[3], cap;
	struct iso_proc st;
	ssize_t n = iso_proc_read(pid, "status", buf, sizeof(buf));
	int r;

	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	r = status_nums(buf, "Tgid", &tg, 1, 10);
	if (r == 0)
		r = status_nums(buf, "Uid", uid, 3, 10);
	if (r == 0)
		r = status_nums(buf, "CapEff", &cap, 1, 16);
	if (r < 0)
		return r;
	r = iso_proc_stat(pid, &st);
	if (r < 0)
		return r;
	*tgid = (pid_t)tg;
	*ruid = (uid_t)uid[0];
	if (euid)
		*euid = (uid_t)uid[1];
	*suid = (uid_t)uid[2];
	if (cap_kill)
		*cap_kill = cap & (1ULL << CAP_KILL_BIT);
	*sid = st.sid;
	if (pgrp)
		*pgrp = st.pgrp;
	return 0;
}

/*
 * The parent chain from pid up to the root (*at_root) or pid 1: its length, or
 * -errno.
 */
static int chain(pid_t pid, pid_t root, pid_t *v, uint64_t *start, size_t max, bool *at_root)
{
	size_t n = 0;

	while (n < max) {
		struct iso_proc st;
		int r = iso_proc_stat(pid, &st);

		if (r < 0)
			return r;
		v[n] = pid;
		start[n++] = st.start;
		*at_root = st.ppid == root;
		if (*at_root || st.ppid <= 1)
			return (int)n;
		pid = st.ppid;
	}
	return -ELOOP;
}

/*
 * A descendant of the root.  Walked twice: an ancestor that died meanwhile
 * (and whose number a stranger may have taken) shows as a changed chain,
 * since its children were reparented when it exited.
 */
static bool descends(const struct pol_run *run, pid_t pid)
{
	_cleanup_free_ pid_t *a = calloc(2 * CHAIN_MAX, sizeof(*a));
	_cleanup_free_ uint64_t *s = calloc(2 * CHAIN_MAX, sizeof(*s));
	bool at_root, again;
	int n, m;

	if (!a || !s || run->root <= 0)
		return false;
	for (int tries = 0; tries < 3; tries++) {
		n = chain(pid, run->root, a, s, CHAIN_MAX, &at_root);
		if (n <= 0 || !at_root)
			return false;
		m = chain(pid, run->root, a + CHAIN_MAX, s + CHAIN_MAX, CHAIN_MAX, &again);
		if (m == n && again && !memcmp(a, a + CHAIN_MAX, (size_t)n * sizeof(*a)) &&
		    !memcmp(s, s + CHAIN_MAX, (size_t)n * sizeof(*s)))
			return true;
	}
	return false;
}

/*
 * Descent alone decides: every process of the run descends from the subreaper
 * that started it, and the run's cgroup is not evidence, since whoever may
 * write the delegated parent's cgroup.procs (the command too) can move a
 * stranger of the same user into it.
 */
static bool member(const struct pol_run *run, pid_t pid)
{
	return pid != run->root && descends(run, pid);
}

/*
 * What the process behind `pidfd` (ours, opened before this) is: appended to
 * the targets, 0; or -errno with pidfd closed.
 */
static int pin_target(struct sig_job *j, pid_t pid, int pidfd, bool group_scope)
{
	struct sig_target t = { .pid = pid, .pidfd = pidfd, .group_scope = group_scope };
	struct sig_target *v;
	uid_t euid;
	int r = creds(pid, &t.tgid, &t.ruid, &euid, &t.suid, NULL, &t.sid, &t.pgrp);

	if (r == 0)
		t.member = member(&j->run, pid);
	if (r == 0 && !t.member && !j->comm[0] &&
	    iso_proc_read(pid, "comm", j->comm, sizeof(j->comm)) > 0)
		j->comm[strcspn(j->comm, "\n")] = '\0';
	v = r == 0 ? realloc(j->t, (j->n + 1) * sizeof(*v)) : NULL;
	if (!v) {
		close(pidfd);
		return r < 0 ? r : -ENOMEM;
	}
	j->t = v;
	j->t[j->n++] = t;
	return 0;
}

/* The target pinned (pidfd first), then what it is: 0, or -errno (ESRCH: gone). */
static int add_target(struct sig_job *j, pid_t pid, bool thread)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, thread ? PIDFD_THREAD : 0);
	bool group_scope = false;

	if (fd < 0 && errno == EINVAL && !thread) {
		/* kill() of a thread that does not lead its group: its whole process */
		fd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
		group_scope = true;
	}
	if (fd < 0)
		return -errno;
	return pin_target(j, pid, fd, group_scope);
}

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

/* Every process of group pg; none: -ESRCH. */
static int add_group(struct sig_job *j, pid_t pg)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		struct iso_proc st;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || iso_proc_stat((pid_t)pid, &st) < 0 || st.pgrp != pg)
			continue;
		if (add_target(j, (pid_t)pid, false) < 0)
			continue; /* gone */
		/* pinned now: still in the group? */
		if (iso_proc_stat((pid_t)pid, &st) < 0 || st.pgrp != pg) {
			close(j->t[--j->n].pidfd);
			continue;
		}
	}
	return j->n ? 0 : -ESRCH;
}

/*
 * The pid behind a /proc/PID directory of our own /proc (the kernel takes one
 * for a pidfd): its name.  Sending through that very descriptor later reaches
 * the process it was opened on or nobody, whoever has the number by then.
 */
static pid_t procdir_pid(int fd)
{
	char path[64], link[PATH_MAX];
	struct stat st, proc;
	ssize_t n;
	long pid;
	char *end;

	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || stat("/proc", &proc) < 0 ||
	    st.st_dev != proc.st_dev)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -EBADF;
	link[n] = '\0';
	if (strncmp(link, "/proc/", 6))
		return -EBADF;
	pid = strtol(link + 6, &end, 10);
	return *end || pid <= 0 ? -EBADF : (pid_t)pid;
}

/* The pid a pidfd of ours stands for (/proc/self/fdinfo): -EBADF when it is none, -ESRCH gone. */
static pid_t pidfd_pid(int fd)
{
	char path[64], buf[2048];
	unsigned long long pid;
	_cleanup_close_ int info = -1;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	info = open(path, O_RDONLY | O_CLOEXEC);
	n = info >= 0 ? read(info, buf, sizeof(buf) - 1) : -1;
	buf[n > 0 ? n : 0] = '\0';
	if (status_nums(buf, "Pid", &pid, 1, 10) < 0)
		return procdir_pid(fd);
	/* -1: gone; 0: outside our pid namespace */
	return (long long)pid <= 0 ? -ESRCH : (pid_t)pid;
}

/*
 * The pidfd the caller passed, copied into ours (pidfd_getfd): the very process
 * it names, whatever the caller's descriptor table says by the time we answer.
 */
static int add_pidfd(struct sig_job *j)
{
	_cleanup_close_ int caller = (int)syscall(SYS_pidfd_open, j->c.caller, PIDFD_THREAD);
	int fd, r;
	pid_t pid;

	if (caller < 0)
		return -errno;
	fd = (int)syscall(SYS_pidfd_getfd, caller, j->c.fd, 0);
	if (fd < 0) {
		j->unreadable = errno == EPERM || errno == EACCES;
		return -errno;
	}
	pid = pidfd_pid(fd);
	if (pid < 0) {
		close(fd);
		return pid;
	}
	r = pin_target(j, pid, fd, false);
	if (r == 0 && (j->c.flags & PIDFD_SIGNAL_PROCESS_GROUP)) {
		/* the pinned process's whole group: every member must be inside */
		j->group = true;
		j->pgrp = j->t[0].pgrp;
		r = add_group(j, j->pgrp);
	}
	return r;
}

/* The caller's siginfo: native, or a 32-bit ABI's rt fields moved into place. */
static int read_info(struct sig_job *j)
{
	unsigned char raw[128];
	struct iovec local = { raw, sizeof(raw) },
		     remote = { (void *)(uintptr_t)j->c.info_addr, 128 };
	ssize_t n = process_vm_readv(j->c.caller, &local, 1, &remote, 1, 0);

	if (n < 0 && (errno == EPERM || errno == ENOSYS)) {
		char path[64];
		_cleanup_close_ int mem = -1;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)j->c.caller);
		mem = open(path, O_RDONLY | O_CLOEXEC);
		if (mem < 0) {
			j->unreadable = errno == EPERM || errno == EACCES;
			return -errno;
		}
		n = pread(mem, raw, sizeof(raw), (off_t)j->c.info_addr);
		if (n < 0 && errno == EIO)
			return -EFAULT;
	}
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(raw))
		return -EFAULT;
	memset(&j->info, 0, sizeof(j->info));
	if (!j->c.compat) {
		memcpy(&j->info, raw, sizeof(raw));
	} else {
		int32_t w[6];

		memcpy(w, raw, sizeof(w));
		j->info.si_signo = w[0];
		j->info.si_errno = w[1];
		j->info.si_code = w[2];
		j->info.si_pid = w[3];
		j->info.si_uid = (uid_t)w[4];
		j->info.si_value.sival_int = w[5];
	}
	j->have_info = true;
	return 0;
}

static int find_targets(struct sig_job *j)
{
	const struct sig_call *c = &j->c;

	switch (c->kind) {
	case POL_PSIG_KILL:
	case POL_PSIG_QUEUE:
		if (c->kind == POL_PSIG_KILL && c->pid <= 0) {
			j->group = true;
			j->pgrp = c->pid == 0 ? j->c_pgrp : -c->pid;
			j->caller_group = j->pgrp == j->c_pgrp;
			return add_group(j, j->pgrp);
		}
		if (c->pid == j->c_tgid) {
			j->self = true;
			return 0;
		}
		return c->pid <= 0 ? -ESRCH : add_target(j, c->pid, false);
	case POL_PSIG_TKILL:
		if (c->tid == c->caller) {
			j->self = true;
			return 0;
		}
		return c->tid <= 0 ? -EINVAL : add_target(j, c->tid, true);
	case POL_PSIG_TGKILL:
	case POL_PSIG_TGQUEUE:
		if (c->pid <= 0 || c->tid <= 0)
			return -EINVAL;
		if (c->pid == j->c_tgid) {
			j->self = true; /* the kernel checks that tid is in it */
			return 0;
		}
		if (add_target(j, c->tid, true) < 0)
			return -ESRCH;
		return j->t[0].tgid == c->pid ? 0 : -ESRCH;
	case POL_PSIG_PIDFD:
		return add_pidfd(j);
	default:
		return -EINVAL;
	}
}

static void job_run(void *arg)
{
	struct sig_job *j = arg;
	uid_t suid;

	j->r = creds(j->c.caller, &j->c_tgid, &j->c_ruid, &j->c_euid, &suid, &j->c_cap_kill,
		     &j->c_sid, &j->c_pgrp);
	if (j->r == 0 && j->c.info_addr)
		j->r = read_info(j);
	if (j->r == 0)
		j->r = find_targets(j);
}

static struct sig_call call_of(const struct seccomp_notif *req, enum pol_sig_kind kind, bool compat)
{
	const __u64 *a = req->data.args;
	struct sig_call c = { .kind = kind, .compat = compat, .caller = (pid_t)req->pid };

	switch (kind) {
	case POL_PSIG_KILL:
		c.pid = (int)a[0];
		c.sig = (int)a[1];
		break;
	case POL_PSIG_TKILL:
		c.tid = (int)a[0];
		c.sig = (int)a[1];
		break;
	case POL_PSIG_TGKILL:
		c.pid = (int)a[0];
		c.tid = (int)a[1];
		c.sig = (int)a[2];
		break;
	case POL_PSIG_QUEUE:
		c.pid = (int)a[0];
		c.sig = (int)a[1];
		c.info_addr = compat ? a[2] & UINT32_MAX : a[2];
		break;
	case POL_PSIG_TGQUEUE:
		c.pid = (int)a[0];
		c.tid = (int)a[1];
		c.sig = (int)a[2];
		c.info_addr = compat ? a[3] & UINT32_MAX : a[3];
		break;
	case POL_PSIG_PIDFD:
		c.fd = (int)a[0];
		c.sig = (int)a[1];
		c.info_addr = compat ? a[2] & UINT32_MAX : a[2];
		c.flags = (unsigned)a[3];
		break;
	default:
		break;
	}
	return c;
}

/*
 * The caller's own process, known without reading anything of it: the caller's
 * tid is /proc/PID/task/TID (a lookup of pids, which nothing of the command's
 * can make wait).  The caller is blocked in the call, so neither its tid nor its
 * process's pid can be freed meanwhile.
 */
static bool caller_in(pid_t pid, pid_t caller)
{
	char path[64];
	struct stat st;

	if (pid == caller)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)caller);
	return pid > 0 && stat(path, &st) == 0;
}

/*
 * The caller itself: its own tid, or its own process (raise(), kill(getpid()),
 * and the runtimes that signal their own threads with tgkill, Go's preemption
 * among them, are answered without the reader).
 */
static bool to_caller(const struct sig_call *c)
{
	switch (c->kind) {
	case POL_PSIG_KILL:
	case POL_PSIG_QUEUE:
		return c->pid > 0 && caller_in(c->pid, c->caller);
	case POL_PSIG_TKILL:
		return c->tid == c->caller;
	case POL_PSIG_TGKILL:
	case POL_PSIG_TGQUEUE:
		return c->pid > 0 && caller_in(c->pid, c->caller); /* the kernel checks tid */
	default:
		return false;
	}
}

/*
 * A caller in a PID namespace made inside the run (NSpid names it at more than
 * one level): the numbers it passes are that namespace's, and every process it
 * can name lives there, all of them the run's.  A process's own PID namespace
 * never changes, and the run's are all ours or below it.
 */
static bool caller_nested(pid_t caller)
{
	char buf[4096];
	unsigned long long v[2];

	return iso_proc_read(caller, "status", buf, sizeof(buf)) > 0 &&
	       status_nums(buf, "NSpid", v, 2, 10) == 0;
}

/* The kernel's kill permission (kill_ok_by_cred), on the caller's credentials. */
static bool permitted(const struct sig_job *j, const struct sig_target *t)
{
	if (j->c.sig == SIGCONT && t->sid == j->c_sid)
		return true;
	return j->c_cap_kill || j->c_euid == t->suid || j->c_euid == t->ruid ||
	       j->c_ruid == t->suid || j->c_ruid == t->ruid;
}

/* Send to every target ourselves: 0 when one got it, else the first error. */
static int deliver(const struct sig_job *j)
{
	siginfo_t info;
	int first = 0, ok = 0;

	if (j->have_info) {
		info = j->info;
		/* the kernel refuses a forged code to anyone but oneself */
		if (info.si_code >= 0 || info.si_code == SI_TKILL)
			return -EPERM;
	} else {
		memset(&info, 0, sizeof(info));
		info.si_code = SI_QUEUE;
		info.si_pid = j->c_tgid;
		info.si_uid = j->c_ruid;
	}
	info.si_signo = j->c.sig;
	/* pidfd_send_signal(PIDFD_SIGNAL_PROCESS_GROUP): once, the kernel reaches the group */
	size_t n = j->c.kind == POL_PSIG_PIDFD && j->group ? 1 : j->n;

	for (size_t i = 0; i < n; i++) {
		const struct sig_target *t = &j->t[i];
		unsigned flags = j->c.kind == POL_PSIG_PIDFD ? j->c.flags
				 : t->group_scope	     ? PIDFD_SIGNAL_THREAD_GROUP
							     : 0;
		long r;

		if (!permitted(j, t)) {
			first = first ? first : -EPERM;
			continue;
		}
		r = syscall(SYS_pidfd_send_signal, t->pidfd, j->c.sig, &info, flags);
		if (r == 0)
			ok++;
		else if (!first)
			first = -errno;
	}
	return ok ? 0 : first ? first : -ESRCH;
}

static void describe(const struct sig_job *j, char *out, size_t len)
{
	const char *abbrev = sigabbrev_np(j->c.sig);
	pid_t outside = 0;
	char sig[24], who[96] = "";

	if (abbrev)
		snprintf(sig, sizeof(sig), "SIG%s", abbrev);
	else
		snprintf(sig, sizeof(sig), "signal %d", j->c.sig);
	if (j->c.kind == POL_PSIG_KILL && j->c.pid == -1) {
		snprintf(out, len, "%s to every process it may signal (pid -1)", sig);
		return;
	}
	for (size_t i = 0; i < j->n && !outside; i++)
		if (!j->t[i].member)
			outside = j->t[i].pid;
	if (j->comm[0])
		snprintf(who, sizeof(who), " (%s)", j->comm);
	if (j->group)
		snprintf(out, len, "%s to process group %d (pid %d%s in it), outside the run", sig,
			 (int)j->pgrp, (int)outside, who);
	else
		snprintf(out, len, "%s to pid %d%s, outside the run", sig, (int)outside, who);
}

static bool all_members(const struct sig_job *j)
{
	for (size_t i = 0; i < j->n; i++)
		if (!j->t[i].member)
			return false;
	return true;
}

/* EPERM and the event: detail NULL describes the call's target. */
static int refuse(const struct pol_notif *n, const struct sig_job *j, const char *origin,
		  const char *detail)
{
	char what[sizeof(n->ret->detail)];

	if (!detail)
		describe(j, what, sizeof(what));
	return pol_notif_refuse(n, kind_name(j->c.kind), origin ? origin : n->p->signals_origin,
				detail ? detail : what);
}

int pol_signal_handle(const struct pol_notif *n)
{
	_cleanup_(jobp_free) struct sig_job *j = NULL;
	enum pol_sig_kind kind = (enum pol_sig_kind)pol_call_kind(n, kinds, ELEMENTSOF(kinds));
	int r;

	if (kind == POL_PSIG_NONE)
		return POL_NOTIF_NOT_MINE;
	if (!n->run || !n->p->contain_signals)
		return pol_notif_answer(n, 0, true);
	j = calloc(1, sizeof(*j));
	if (!j)
		return pol_notif_answer(n, -ENOMEM, false);
	j->c = call_of(n->req, kind, n->compat);
	j->run = *n->run;
	if (j->c.sig == 0) /* a 0 with bits above it: the kernel reads an int */
		return pol_notif_answer(n, 0, true);
	/* a pidfd may name any process, whatever the namespace: read as always */
	if (j->c.kind != POL_PSIG_PIDFD && caller_nested(j->c.caller))
		return pol_notif_answer(n, 0, true);
	if (to_caller(&j->c))
		return pol_notif_answer(n, 0, true);
	if (j->c.kind == POL_PSIG_KILL && j->c.pid == -1) /* whatever it would reach */
		return refuse(n, j, NULL, NULL);
	r = iso_reader_run(n->rd, job_run, j, job_free);
	if (r == -ETIMEDOUT) {
		j = NULL; /* the reader's now, and may be freed by now */
		return pol_notif_overran(n, kind_name(kind), "/proc or the caller's memory");
	}
	r = r < 0 ? r : j->r;
	if (pol_notif_id_valid(n) < 0)
		return -ENOENT;
	if (r < 0 && j->unreadable)
		return refuse(n, j, pol_unreadable_origin,
			      "(the caller refused to be read: not dumpable)");
	if (r < 0)
		/* gone (ESRCH), a bad descriptor or pointer: the kernel's own answer */
		return pol_notif_answer(n, r, false);
	if (j->self)
		return pol_notif_answer(n, 0, true);
	if (!all_members(j))
		return refuse(n, j, NULL, NULL);
	if (j->group && j->caller_group)
		return pol_notif_answer(n, 0, true);
	return pol_notif_answer(n, deliver(j), false);
}

/* For policy/reach.c: the same rules, for the calls that reach a process otherwise. */
bool pol_signal_member(const struct pol_run *run, pid_t pid)
{
	return member(run, pid);
}

pid_t pol_signal_pidfd_pid(int fd)
{
	return pidfd_pid(fd);
}

bool pol_signal_caller_in(pid_t pid, pid_t caller)
{
	return caller_in(pid, caller);
}

bool pol_signal_caller_nested(pid_t caller)
{
	return caller_nested(caller);
}
