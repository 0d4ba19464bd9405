/* SPDX-License-Identifier: MIT */
/*
 * contain-signals beyond the signal calls: the other ways a command reaches a
 * process outside the run without a PID namespace.
 *
 *  - fcntl F_SETOWN / F_SETOWN_EX and ioctl FIOSETOWN / SIOCSPGRP name the
 *    owner the kernel later sends SIGIO (or the F_SETSIG signal, dnotify's
 *    F_NOTIFY signal) to: any signal, to any process or group of the user.
 *  - setpgid into a group with a process outside the run: a kill(0) of the
 *    caller's own group, let through as its own, then reaches it.
 *  - ptrace PTRACE_ATTACH / PTRACE_SEIZE, process_vm_writev and pidfd_getfd:
 *    stop, write into, or take the files of a process outside (left to the
 *    kernel where it scopes them, policy/scope.c);
 *  - prlimit64, setpriority, ioprio_set, sched_set*, migrate_pages,
 *    move_pages, process_madvise and perf_event_open: change its limits (an
 *    RLIMIT_CPU of 0 kills it), priority, scheduling or memory, or watch it.
 *    isorun itself is outside the run: its command cannot do this to it.
 *
 * The filter notifies only these requests (F_SETOWN with an owner other than
 * 0, setpgid into a group other than its own new one); every other fcntl,
 * ioctl or ptrace passes in the filter.  The target is judged by the rules of
 * signal.c (pol_signal_member()); an outside target is refused with EPERM and
 * an event.  Inside:
 *
 *  - a value in a register (F_SETOWN, setpgid, ptrace, process_vm_writev)
 *    continues: the kernel looks the number up again, a few microseconds later;
 *  - a value in the caller's memory (F_SETOWN_EX, the ioctls) or a descriptor
 *    of the caller's (pidfd_getfd) could be changed by another thread of it
 *    between our read and the kernel's, so the call is made here, on our copy
 *    of the caller's open file (the owner is a property of the open file, shared
 *    with the caller) with the value we judged, and its result is the caller's
 *    answer.  The kernel records the caller's uid as the owner's: done here
 *    only when ours are the caller's real and effective uids, else refused.
 */
#include "policy/reach.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "policy/signal.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#ifndef SECCOMP_ADDFD_FLAG_SEND
#define SECCOMP_ADDFD_FLAG_SEND (1UL << 1)
#endif

static const struct pol_call_name kinds[] = {
	{ "fcntl", POL_PREACH_FCNTL, SYS_fcntl },
	{ "fcntl64", POL_PREACH_FCNTL, -1 },
	{ "ioctl", POL_PREACH_IOCTL, SYS_ioctl },
	{ "setpgid", POL_PREACH_SETPGID, SYS_setpgid },
	{ "ptrace", POL_PREACH_PTRACE, SYS_ptrace },
	{ "process_vm_writev", POL_PREACH_VMWRITE, SYS_process_vm_writev },
	{ "pidfd_getfd", POL_PREACH_GETFD, SYS_pidfd_getfd },
	{ "prlimit64", POL_PREACH_PRLIMIT, SYS_prlimit64 },
	{ "setpriority", POL_PREACH_SETPRIO, SYS_setpriority },
	{ "ioprio_set", POL_PREACH_IOPRIO, SYS_ioprio_set },
	{ "sched_setaffinity", POL_PREACH_AFFINITY, SYS_sched_setaffinity },
	{ "sched_setscheduler", POL_PREACH_SETSCHED, SYS_sched_setscheduler },
	{ "sched_setparam", POL_PREACH_SETPARAM, SYS_sched_setparam },
	{ "sched_setattr", POL_PREACH_SETATTR, SYS_sched_setattr },
	{ "migrate_pages", POL_PREACH_MIGRATE, SYS_migrate_pages },
	{ "move_pages", POL_PREACH_MOVEPAGES, SYS_move_pages },
	{ "process_madvise", POL_PREACH_MADVISE, SYS_process_madvise },
	{ "perf_event_open", POL_PREACH_PERF, SYS_perf_event_open },
};

/* setpriority's and ioprio_set's `which`: a process, a group, or every process of a user */
enum { PRIO_WHICH_PROCESS, PRIO_WHICH_PGRP, PRIO_WHICH_USER };
enum { IOPRIO_WHICH_PROCESS = 1, IOPRIO_WHICH_PGRP, IOPRIO_WHICH_USER };

static const char *kind_name(enum pol_reach_kind k)
{
	return pol_call_kind_name(kinds, ELEMENTSOF(kinds), (int)k);
}

enum aim { AIM_NONE, AIM_PID, AIM_PGRP };

struct reach_job {
	/* from the registers */
	enum pol_reach_kind kind;
	pid_t caller;
	uint64_t a[6];
	struct pol_run run;
	/* found out on the reader */
	pid_t c_tgid;
	uid_t c_ruid, c_euid;
	bool indirect;	      /* the value was in memory: done here */
	struct f_owner_ex ex; /* F_SETOWN_EX as read */
	int owner;	      /* the ioctls' int as read */
	enum aim aim;	      /* what the call reaches */
	pid_t id;	      /* its pid or group */
	pid_t outside;	      /* a process outside among them, 0 none */
	char comm[64];
	int copy; /* our copy of the caller's fd (indirect, getfd) */
	int pin;  /* a pidfd of the target pid (indirect) */
	int r;
};

static void job_free(void *arg)
{
	struct reach_job *j = arg;

	if (j->copy >= 0)
		close(j->copy);
	if (j->pin >= 0)
		close(j->pin);
	free(j);
}

static void jobp_free(struct reach_job **j)
{
	if (*j)
		job_free(*j);
}

/* "Name:\tN" of /proc/PID/status: 0, or -errno. */
static int status_ids(pid_t pid, pid_t *tgid, uid_t *ruid, uid_t *euid)
{
	char buf[4096];
	ssize_t n = iso_proc_read(pid, "status", buf, sizeof(buf));
	const char *t, *u;
	unsigned r, e;
	int tg;

	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	t = strstr(buf, "\nTgid:");
	u = strstr(buf, "\nUid:");
	if (!t || !u || sscanf(t, "\nTgid: %d", &tg) != 1 || sscanf(u, "\nUid: %u %u", &r, &e) != 2)
		return -EINVAL;
	*tgid = tg;
	*ruid = r;
	*euid = e;
	return 0;
}

/* len bytes of the caller's memory at addr: 0, or -errno (EFAULT: not there). */
static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);

	if (n < 0 && (errno == EPERM || errno == ENOSYS)) {
		char path[64];
		_cleanup_close_ int mem = -1;

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		mem = open(path, O_RDONLY | O_CLOEXEC);
		if (mem < 0)
			return -errno;
		n = pread(mem, buf, len, (off_t)addr);
		if (n < 0 && errno == EIO)
			return -EFAULT;
	}
	if (n < 0)
		return -errno;
	return n == (ssize_t)len ? 0 : -EFAULT;
}

/* Our copy of the caller's descriptor fd: it or -errno. */
static int copy_fd(pid_t caller, int fd)
{
	_cleanup_close_ int pfd = (int)syscall(SYS_pidfd_open, caller, PIDFD_THREAD);
	int r;

	if (pfd < 0)
		return -errno;
	r = (int)syscall(SYS_pidfd_getfd, pfd, fd, 0);
	return r < 0 ? -errno : r;
}

static void note_outside(struct reach_job *j, pid_t pid)
{
	if (j->outside)
		return;
	j->outside = pid;
	if (iso_proc_read(pid, "comm", j->comm, sizeof(j->comm)) > 0)
		j->comm[strcspn(j->comm, "\n")] = '\0';
	else
		j->comm[0] = '\0';
}

static void closedirp(DIR **d)
{
	if (*d)
		closedir(*d);
}

/*
 * Every process of group pg, and the process whose pid is pg (it may make
 * that group later, with setsid or setpgid): the first outside the run.
 */
static void judge_group(struct reach_job *j, pid_t pg)
{
	_cleanup_(closedirp) DIR *d = opendir("/proc");
	struct iso_proc st;
	struct dirent *de;

	if (iso_proc_stat(pg, &st) == 0 && !pol_signal_caller_in(pg, j->caller) &&
	    !pol_signal_member(&j->run, pg))
		note_outside(j, pg);
	if (!d) {
		j->r = -errno;
		return;
	}
	while (!j->outside && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || iso_proc_stat((pid_t)pid, &st) < 0 || st.pgrp != pg)
			continue;
		if (!pol_signal_caller_in((pid_t)pid, j->caller) &&
		    !pol_signal_member(&j->run, (pid_t)pid))
			note_outside(j, (pid_t)pid);
	}
}

/* An F_SETOWN-like owner: > 0 a process, < 0 a group, 0 none. */
static void aim_owner(struct reach_job *j, int owner)
{
	if (owner > 0) {
		j->aim = AIM_PID;
		j->id = owner;
	} else if (owner < 0 && owner != INT32_MIN) {
		j->aim = AIM_PGRP;
		j->id = -owner;
	}
}

/*
 * The pid a call that changes one process names in a register: 0 for the
 * caller itself (and perf_event_open's -1, every process on a CPU, which only
 * counts: the host's perf_event_paranoid decides).
 */
static pid_t reg_target(const struct reach_job *j)
{
	pid_t pid = (pid_t)(j->kind == POL_PREACH_PERF ? j->a[1] : j->a[0]);

	return pid > 0 ? pid : 0;
}

/* setpriority's and ioprio_set's target: 0 is the caller's own (process or group). */
static void prio_aim(struct reach_job *j)
{
	int which = (int)j->a[0], who = (int)j->a[1];
	bool io = j->kind == POL_PREACH_IOPRIO;

	if (who <= 0)
		return;
	if (which == (io ? IOPRIO_WHICH_PROCESS : PRIO_WHICH_PROCESS))
		j->aim = AIM_PID;
	else if (which == (io ? IOPRIO_WHICH_PGRP : PRIO_WHICH_PGRP))
		j->aim = AIM_PGRP;
	j->id = who;
}

/* Every process of a user (PRIO_USER, IOPRIO_WHO_USER): outside the run whoever it is. */
static bool to_user(const struct reach_job *j)
{
	int which = (int)j->a[0];

	return (j->kind == POL_PREACH_SETPRIO && which == PRIO_WHICH_USER) ||
	       (j->kind == POL_PREACH_IOPRIO && which == IOPRIO_WHICH_USER);
}

/* What the call reaches, from its registers and the caller's memory. */
static int find_aim(struct reach_job *j)
{
	const uint64_t *a = j->a;
	int r;

	switch (j->kind) {
	case POL_PREACH_FCNTL:
		if ((unsigned)a[1] == F_SETOWN) {
			aim_owner(j, (int)a[2]);
			return 0;
		}
		j->indirect = true;
		r = read_mem(j->caller, a[2], &j->ex, sizeof(j->ex));
		if (r < 0 || j->ex.pid <= 0)
			return r;
		j->aim = j->ex.type == F_OWNER_PGRP ? AIM_PGRP : AIM_PID;
		j->id = j->ex.pid;
		return 0;
	case POL_PREACH_IOCTL:
		j->indirect = true;
		r = read_mem(j->caller, a[2], &j->owner, sizeof(j->owner));
		if (r == 0)
			aim_owner(j, j->owner);
		return r;
	case POL_PREACH_SETPGID: {
		pid_t pid = (pid_t)a[0] ? (pid_t)a[0] : j->c_tgid, pg = (pid_t)a[1];

		/* its own new group, or what the kernel refuses anyway */
		if (pg > 0 && pg != pid) {
			j->aim = AIM_PGRP;
			j->id = pg;
		}
		return 0;
	}
	case POL_PREACH_PTRACE:
		j->aim = AIM_PID;
		j->id = (pid_t)a[1];
		return 0;
	case POL_PREACH_VMWRITE:
		j->aim = AIM_PID;
		j->id = (pid_t)a[0];
		return 0;
	case POL_PREACH_SETPRIO:
	case POL_PREACH_IOPRIO:
		prio_aim(j);
		return 0;
	case POL_PREACH_PRLIMIT:
	case POL_PREACH_AFFINITY:
	case POL_PREACH_SETSCHED:
	case POL_PREACH_SETPARAM:
	case POL_PREACH_SETATTR:
	case POL_PREACH_MIGRATE:
	case POL_PREACH_MOVEPAGES:
	case POL_PREACH_PERF:
		j->id = reg_target(j);
		j->aim = j->id > 0 ? AIM_PID : AIM_NONE;
		return 0;
	case POL_PREACH_GETFD:
	case POL_PREACH_MADVISE:
		/* our copy pins the process the caller's pidfd names */
		j->copy = copy_fd(j->caller, (int)a[0]);
		if (j->copy < 0)
			return j->copy;
		j->id = pol_signal_pidfd_pid(j->copy);
		if (j->id < 0)
			return j->id;
		j->aim = AIM_PID;
		return 0;
	default:
		return -EINVAL;
	}
}

static void job_run(void *arg)
{
	struct reach_job *j = arg;

	j->r = status_ids(j->caller, &j->c_tgid, &j->c_ruid, &j->c_euid);
	if (j->r == 0)
		j->r = find_aim(j);
	if (j->r < 0)
		return;
	if (j->indirect && j->aim == AIM_PID) {
		/* pinned before it is judged: done here, a reused number is seen */
		j->pin = (int)syscall(SYS_pidfd_open, j->id, PIDFD_THREAD);
		if (j->pin < 0) {
			j->r = -ESRCH;
			return;
		}
	}
	if (j->aim == AIM_PID && !pol_signal_caller_in(j->id, j->caller) &&
	    !pol_signal_member(&j->run, j->id))
		note_outside(j, j->id);
	else if (j->aim == AIM_PGRP)
		judge_group(j, j->id);
	if (!j->outside && j->indirect && j->kind != POL_PREACH_GETFD)
		j->copy = copy_fd(j->caller, (int)j->a[0]);
}

/* A call that changes another process: what it changes. */
static const char *what_changed(enum pol_reach_kind k)
{
	switch (k) {
	case POL_PREACH_PRLIMIT:
		return "the resource limits of";
	case POL_PREACH_SETPRIO:
		return "the nice value of";
	case POL_PREACH_IOPRIO:
		return "the I/O priority of";
	case POL_PREACH_AFFINITY:
		return "the CPU affinity of";
	case POL_PREACH_SETSCHED:
	case POL_PREACH_SETPARAM:
	case POL_PREACH_SETATTR:
		return "the scheduling of";
	case POL_PREACH_MIGRATE:
	case POL_PREACH_MOVEPAGES:
		return "the memory placement of";
	case POL_PREACH_MADVISE:
		return "memory advice to";
	case POL_PREACH_PERF:
		return "a perf event on";
	default:
		return "?";
	}
}

static const char *what(const struct reach_job *j)
{
	switch (j->kind) {
	case POL_PREACH_FCNTL:
		return (unsigned)j->a[1] == F_SETOWN ? "F_SETOWN owner" : "F_SETOWN_EX owner";
	case POL_PREACH_IOCTL:
		return (unsigned)j->a[1] == FIOSETOWN ? "FIOSETOWN owner" : "SIOCSPGRP owner";
	case POL_PREACH_SETPGID:
		return "into";
	case POL_PREACH_PTRACE:
		return j->a[0] == PTRACE_ATTACH ? "PTRACE_ATTACH of" : "PTRACE_SEIZE of";
	case POL_PREACH_VMWRITE:
		return "into the memory of";
	case POL_PREACH_GETFD:
		return "a descriptor of";
	default:
		return what_changed(j->kind);
	}
}

static void describe(const struct reach_job *j, char *out, size_t len)
{
	char who[96] = "";

	if (j->comm[0])
		snprintf(who, sizeof(who), " (%s)", j->comm);
	if (j->aim == AIM_PGRP)
		snprintf(out, len, "%s process group %d (pid %d%s in it), outside the run", what(j),
			 (int)j->id, (int)j->outside, who);
	else
		snprintf(out, len, "%s pid %d%s, outside the run", what(j), (int)j->outside, who);
}

/* EPERM and the event: detail NULL describes the call's target. */
static int refuse(const struct pol_notif *n, const struct reach_job *j, const char *detail)
{
	char what_[sizeof(n->ret->detail)];

	if (!detail)
		describe(j, what_, sizeof(what_));
	return pol_notif_refuse(n, kind_name(j->kind), n->p->signals_origin,
				detail ? detail : what_);
}

/* The pinned target still holds its number (a zombie does too): the kernel found it. */
static bool still_there(const struct reach_job *j)
{
	return j->pin < 0 || syscall(SYS_pidfd_send_signal, j->pin, 0, NULL, 0) == 0;
}

/* The call made here, on our copy, with the value judged: the caller's answer. */
static int do_here(const struct pol_notif *n, const struct reach_job *j)
{
	int owner = j->owner;
	long r;

	if (j->kind == POL_PREACH_GETFD) {
		struct seccomp_notif_addfd add = {
			.id = n->req->id,
			.flags = SECCOMP_ADDFD_FLAG_SEND,
			.newfd_flags = O_CLOEXEC,
		};
		_cleanup_close_ int fd =
			(int)syscall(SYS_pidfd_getfd, j->copy, (int)j->a[1], (unsigned)j->a[2]);

		if (fd < 0)
			return pol_notif_answer(n, -errno, false);
		add.srcfd = (unsigned)fd;
		return ioctl(n->listener, SECCOMP_IOCTL_NOTIF_ADDFD, &add) < 0 ? -errno : 0;
	}
	if (j->kind == POL_PREACH_FCNTL)
		r = fcntl(j->copy, F_SETOWN_EX, &j->ex);
	else
		r = ioctl(j->copy, (unsigned long)(unsigned)j->a[1], &owner);
	if (r < 0)
		return pol_notif_answer(n, -errno, false);
	if (!still_there(j)) {
		/* the number went to another process meanwhile: no owner, as for a gone pid */
		(void)fcntl(j->copy, F_SETOWN, 0);
		return pol_notif_answer(n, -ESRCH, false);
	}
	return pol_notif_answer(n, 0, false);
}

/* The job for a call from its registers: NULL when out of memory. */
static struct reach_job *job_new(const struct pol_notif *n, enum pol_reach_kind kind)
{
	struct reach_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->kind = kind;
	j->caller = (pid_t)n->req->pid;
	j->run = *n->run;
	j->copy = j->pin = -1;
	for (size_t i = 0; i < 6; i++)
		j->a[i] = n->compat ? n->req->data.args[i] & UINT32_MAX : n->req->data.args[i];
	return j;
}

/* Nothing to judge: the caller itself or 0 (F_SETOWN), its own new group (setpgid). */
static bool nothing_to_read(const struct reach_job *j)
{
	switch (j->kind) {
	case POL_PREACH_FCNTL:
		return (unsigned)j->a[1] == F_SETOWN &&
		       ((int)j->a[2] == 0 || pol_signal_caller_in((int)j->a[2], j->caller));
	case POL_PREACH_SETPGID:
		return (int)j->a[1] == 0;
	case POL_PREACH_SETPRIO:
	case POL_PREACH_IOPRIO:
		return !to_user(j) && (int)j->a[1] <= 0;
	case POL_PREACH_IOCTL:
	case POL_PREACH_PTRACE:
	case POL_PREACH_VMWRITE:
	case POL_PREACH_GETFD:
	case POL_PREACH_MADVISE:
		return false;
	default:
		/* the caller itself, or a thread of its own process */
		return reg_target(j) == 0 || pol_signal_caller_in(reg_target(j), j->caller);
	}
}

int pol_reach_handle(const struct pol_notif *n)
{
	_cleanup_(jobp_free) struct reach_job *j = NULL;
	enum pol_reach_kind kind = (enum pol_reach_kind)pol_call_kind(n, kinds, ELEMENTSOF(kinds));
	char why[160];
	int r;

	if (kind == POL_PREACH_NONE)
		return POL_NOTIF_NOT_MINE;
	if (!n->run || !n->p->contain_signals)
		return pol_notif_answer(n, 0, true);
	j = job_new(n, kind);
	if (!j)
		return pol_notif_answer(n, -ENOMEM, false);
	/*
	 * a caller in a PID namespace made inside the run names processes by that
	 * namespace's numbers, all of them the run's; a pidfd may name any process
	 */
	if (to_user(j)) {
		/* uids know no namespace: every process of the user, inside or not */
		if ((int)j->a[1] == 0)
			snprintf(why, sizeof(why), "%s every process of its own uid", what(j));
		else
			snprintf(why, sizeof(why), "%s every process of uid %d", what(j),
				 (int)j->a[1]);
		return refuse(n, j, why);
	}
	if (kind != POL_PREACH_GETFD && kind != POL_PREACH_MADVISE &&
	    pol_signal_caller_nested(j->caller))
		return pol_notif_answer(n, 0, true);
	if (nothing_to_read(j))
		return pol_notif_answer(n, 0, true);
	r = iso_reader_run(n->rd, job_run, j, job_free);
	if (r == -ETIMEDOUT) {
		j = NULL; /* the reader's now, and may be freed by now */
		return pol_notif_overran(n, kind_name(kind), "/proc or the caller's memory");
	}
	r = r < 0 ? r : j->r;
	if (pol_notif_id_valid(n) < 0)
		return -ENOENT;
	if (r < 0)
		/* gone (ESRCH), a bad descriptor or pointer: the kernel's own answer */
		return pol_notif_answer(n, r, false);
	if (j->outside)
		return refuse(n, j, NULL);
	if (!j->indirect && j->kind != POL_PREACH_GETFD)
		return pol_notif_answer(n, 0, true);
	if (j->c_ruid != getuid() || j->c_euid != geteuid()) {
		snprintf(why, sizeof(why),
			 "%s (uid %u/%u: isorun, uid %u/%u, would make it for the caller)",
			 kind_name(j->kind), (unsigned)j->c_ruid, (unsigned)j->c_euid,
			 (unsigned)getuid(), (unsigned)geteuid());
		return refuse(n, j, why);
	}
	if (j->copy < 0) {
		snprintf(why, sizeof(why), "%s (isorun cannot take the caller's descriptor: %s)",
			 what(j), strerror(-j->copy));
		return refuse(n, j, why);
	}
	return do_here(n, j);
}
