// SPDX-License-Identifier: MIT
#include "launcher/leak.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/io.h"
#include "common/num.h"
#include "common/cleanup.h"
#include "common/proc.h"

int sup_reap_ready(sup_reap_fn fn, void *arg)
{
	int n = 0, status;
	pid_t pid;

	/* bounded: a fork storm never drains, and the timers must still get their turn */
	while (n < SUP_REAP_BATCH && (pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (fn)
			fn(pid, status, arg);
		n++;
	}
	return n;
}

bool sup_no_children(void)
{
	siginfo_t si = { 0 };

	/* every descendant whose parent died was reparented to us, the subreaper */
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
}

/* readlink /proc/PID/exe: bytes or -errno */
static ssize_t readlink_proc(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, buf, len);
	return n < 0 ? -errno : n;
}

static bool is_dead(const struct iso_proc *p)
{
	return !iso_proc_alive(p);
}

int sup_signal_tree(pid_t self, int sig, pid_t skip_pgrp)
{
	struct iso_proc *list = NULL;
	int n = iso_proc_descendants(self, &list), hit = 0;

	for (int i = 0; i < n; i++) {
		_cleanup_close_ int fd = -1;
		if (is_dead(&list[i]) || (skip_pgrp && list[i].pgrp == skip_pgrp))
			continue;
		fd = iso_pidfd_open_checked(&list[i]);
		if (fd >= 0 && iso_pidfd_signal(fd, sig) == 0)
			hit++;
	}
	free(list);
	return n < 0 ? n : hit;
}

/* /proc/self/task/TID/children read at most this far: 64 KiB is some 9,000 pids */
#define CHILDREN_MAX 65536

struct member {
	struct iso_proc p;
	int fd;
};

struct set {
	struct member *v;
	size_t n, cap;
};

static bool known(const struct set *s, const struct iso_proc *p)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].p.pid == p->pid && s->v[i].p.start == p->start)
			return true;
	return false;
}

static bool group_is_ours(const struct set *s, pid_t pgrp, pid_t cmd_pgid)
{
	if (pgrp <= 1 || pgrp == getpgrp())
		return false;
	if (pgrp == cmd_pgid)
		return true;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].p.pid == pgrp)
			return true;
	return false;
}

/*
 * SIGSTOP isorun's own children, from /proc/self/task/TID/children: one read, so a
 * fork-and-exit chain (each step reparented to isorun) is hit before it moves on,
 * where a whole /proc scan is slower than a step.  A child cannot be reaped
 * meanwhile (only isorun reaps it, and not between this read and the kill), so its
 * pid cannot be reused: kill() is safe.  Zombies are reaped first, so the list is
 * the live children, not a storm's dead.
 */
static void stop_children(pid_t self, sup_reap_fn fn, void *arg)
{
	char path[64];
	_cleanup_free_ char *buf = malloc(CHILDREN_MAX);
	_cleanup_close_ int fd = -1;
	size_t len = 0;
	ssize_t r;

	/* bounded too: what a storm adds meanwhile waits for the next pass */
	for (int i = 0; i < 16 && sup_reap_ready(fn, arg) == SUP_REAP_BATCH; i++)
		;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", self, self);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0)
		return; /* CONFIG_PROC_CHILDREN missing: the scan after this finds them */
	r = iso_read_all(fd, buf, CHILDREN_MAX - 1);
	len = r > 0 ? (size_t)r : 0;
	buf[len] = '\0';
	/* an entry that is no pid ends the list: the scan after this finds the rest */
	for (const char *q = buf;;) {
		int pid = iso_next_pid(&q);
		if (pid <= 0)
			break;
		(void)kill((pid_t)pid, SIGSTOP);
	}
}

/* One stop pass: returns how many new members were found and stopped. */
static int stop_pass(pid_t self, pid_t cmd_pgid, struct set *s, sup_reap_fn fn, void *arg)
{
	struct iso_proc *list = NULL;
	int n, added = 0;

	stop_children(self, fn, arg);
	n = iso_proc_descendants(self, &list);

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int fd;
		if (is_dead(&list[i]) || known(s, &list[i]))
			continue;
		fd = iso_pidfd_open_checked(&list[i]);
		if (fd < 0)
			continue; /* exited meanwhile */
		if (s->n == s->cap) {
			size_t cap = s->cap ? s->cap * 2 : 32;
			struct member *nv = realloc(s->v, cap * sizeof(*nv));
			if (!nv) {
				close(fd);
				free(list);
				return -ENOMEM;
			}
			s->v = nv;
			s->cap = cap;
		}
		(void)iso_pidfd_signal(fd, SIGSTOP);
		s->v[s->n++] = (struct member){ .p = list[i], .fd = fd };
		added++;
	}
	for (int i = 0; i < n; i++)
		if (group_is_ours(s, list[i].pgrp, cmd_pgid))
			(void)kill(-list[i].pgrp, SIGSTOP);
	free(list);
	return added;
}

void sup_leak_describe(struct sup_leak *l, const struct sup_attrib_ctx *c)
{
	struct iso_proc p;
	char exe[4096];
	ssize_t n;
	uint64_t start_ms = l->start * 1000 / (uint64_t)iso_proc_ticks_per_sec(),
		 now = sup_boottime_ms();

	l->ppid = iso_proc_stat(l->pid, &p) == 0 ? p.ppid : 0;
	l->argv = sup_argv_read(l->pid);
	n = readlink_proc(l->pid, exe, sizeof(exe));
	l->exe = n > 0 ? strndup(exe, (size_t)n) : NULL;
	l->started_ms = c ? sup_attrib_started_ms(c, l->start) : SUP_STARTED_UNKNOWN;
	l->alive_ms = now > start_ms ? now - start_ms : 0;
	if (c)
		sup_attrib_find(&l->at, c, l->pid, l->start);
}

static int describe(const struct set *s, size_t from, struct sup_leak_list *found,
		    const struct sup_attrib_ctx *c)
{
	struct sup_leak *l;

	if (s->n == from)
		return 0;
	l = realloc(found->v, (found->n + s->n - from) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = from; i < s->n; i++)
		l[found->n++] = (struct sup_leak){
			.pid = s->v[i].p.pid,
			.sid = s->v[i].p.sid,
			.start = s->v[i].p.start,
			.cmdline = iso_proc_cmdline(s->v[i].p.pid, 512),
			.cwd = iso_proc_cwd(s->v[i].p.pid),
		};
	for (size_t i = found->n - (s->n - from); i < found->n; i++)
		sup_leak_describe(&l[i], c);
	found->v = l;
	return 0;
}

/* Anything alive below isorun that the set does not hold yet. */
static bool fresh_descendant(pid_t self, const struct set *s)
{
	struct iso_proc *list = NULL;
	int n = iso_proc_descendants(self, &list);
	bool fresh = false;

	for (int i = 0; i < n && !fresh; i++)
		fresh = !is_dead(&list[i]) && !known(s, &list[i]);
	free(list);
	return fresh;
}

/*
 * Until a child changes state or the deadline passes.  SIGCHLD is blocked in
 * isorun (it is read from a signalfd), so it stays pending for this wait.
 */
static int wait_child(uint64_t deadline, sup_reap_fn fn, void *arg)
{
	uint64_t now = iso_now_ms(), left = deadline > now ? deadline - now : 0;
	struct timespec ts = { .tv_sec = (time_t)(left / 1000),
			       .tv_nsec = (long)(left % 1000) * 1000000 };
	sigset_t chld;

	if (!left)
		return -ETIME;
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigtimedwait(&chld, NULL, &ts) < 0 && errno != EAGAIN && errno != EINTR)
		return -errno;
	(void)sup_reap_ready(fn, arg);
	return 0;
}

int sup_freeze_kill(pid_t self, pid_t cmd_pgid, struct sup_leak_list *found,
		    const struct sup_reaper *reap, uint64_t deadline,
		    const struct sup_attrib_ctx *attrib)
{
	sup_reap_fn fn = reap->fn;
	void *arg = reap->arg;
	struct set s = { 0 };
	size_t killed = 0;
	int r = 0;

	if (found)
		*found = (struct sup_leak_list){ 0 };
	for (;;) {
		size_t from = s.n;
		int added;

		do
			added = stop_pass(self, cmd_pgid, &s, fn, arg);
		while (added > 0 && iso_now_ms() < deadline);
		if (added < 0) {
			r = added;
			break;
		}
		if (found && describe(&s, from, found, attrib) < 0) {
			r = -ENOMEM;
			break;
		}
		for (size_t i = from; i < s.n; i++) {
			(void)iso_pidfd_signal(s.v[i].fd, SIGKILL);
			close(s.v[i].fd);
			s.v[i].fd = -1;
		}
		killed += s.n - from;
		/*
		 * Wait for one child at a time; when isorun has none left the tree is empty.
		 * Before blocking, look once more: a process that slipped past the last stop
		 * pass is alive and unkilled, and would keep us waiting forever.
		 */
		(void)sup_reap_ready(fn, arg);
		if (sup_no_children())
			break;
		if (iso_now_ms() >= deadline) {
			r = -ETIME;
			break;
		}
		if (fresh_descendant(self, &s))
			continue;
		r = wait_child(deadline, fn, arg);
		if (r < 0)
			break;
	}
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].fd >= 0)
			close(s.v[i].fd);
	free(s.v);
	return r < 0 ? r : (int)killed;
}

void sup_leaks_free(struct sup_leak *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].cmdline);
		free(l[i].cwd);
		free(l[i].exe);
		sup_argv_free(&l[i].argv);
		sup_attrib_free(&l[i].at);
	}
	free(l);
}
