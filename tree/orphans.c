// SPDX-License-Identifier: MIT
#include "tree/orphans.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/num.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "common/reader.h"
#include "tree/evidence.h"

/* Rounds of SIGSTOP and rescan before giving up on a tree that keeps forking. */
#define FREEZE_ROUNDS 1000

/* Matching state while an environment streams by. */
struct env_match {
	const char *entry;
	size_t len, at; /* bytes of the current variable matched so far */
	bool ok;	/* the current variable still matches */
	bool found;
};

static void env_feed(struct env_match *m, const char *buf, size_t n)
{
	for (size_t i = 0; i < n && !m->found; i++) {
		if (buf[i] == '\0') {
			m->found = m->ok && m->at == m->len;
			m->ok = true;
			m->at = 0;
		} else if (m->ok && m->at < m->len && buf[i] == m->entry[m->at]) {
			m->at++;
		} else {
			m->ok = false;
		}
	}
}

/* 1 when found, 0 when not, -errno when the environment cannot be read. */
static int environ_match(int fd, const char *entry)
{
	struct env_match m = { .entry = entry, .len = strlen(entry), .ok = true };
	char buf[8192];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		env_feed(&m, buf, (size_t)n);
		if (m.found)
			return 1;
	}
	/* the last variable may lack its NUL */
	return m.ok && m.at == m.len && m.len > 0;
}

bool tree_environ_has(int fd, const char *entry)
{
	return environ_match(fd, entry) == 1;
}

/*
 * The environment is the process's memory: a page it made wait (a FUSE
 * mapping) would hold the scan, so it is read on the reader, bounded.
 */
struct environ_job {
	char path[PATH_MAX];
	char *entry;
	int r;
};

static void environ_job_run(void *arg)
{
	struct environ_job *j = arg;
	_cleanup_close_ int fd = open(j->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	j->r = fd < 0 ? -errno : environ_match(fd, j->entry);
}

static void environ_job_free(void *arg)
{
	struct environ_job *j = arg;

	free(j->entry);
	free(j);
}

/* environ_match() of the file at path: 1, 0, -errno, -ETIMEDOUT past the deadline. */
static int environ_at(const char *path, const char *entry)
{
	struct environ_job *j = calloc(1, sizeof(*j));
	int r;

	if (!j || !(j->entry = strdup(entry))) {
		free(j);
		return -ENOMEM;
	}
	snprintf(j->path, sizeof(j->path), "%s", path);
	r = iso_reader_run(iso_reader_proc(), environ_job_run, j, environ_job_free);
	if (r == -ETIMEDOUT)
		return r;
	if (r == 0)
		r = j->r;
	environ_job_free(j);
	return r;
}

/* Whether the real or effective uid in PROC/PID/status is uid (readable for any process). */
static bool of_user(const char *proc, pid_t pid, uid_t uid)
{
	char path[PATH_MAX], line[256];
	unsigned long ruid, euid;
	bool yes = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/status", proc, (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %lu %lu", &ruid, &euid) == 2) {
			yes = ruid == uid || euid == uid;
			break;
		}
	fclose(f);
	return yes;
}

/*
 * For an ordinary user, a dumpable process of a third user costs two stats
 * (issue 25): the directory PROC/PID belongs to the process's effective uid, and
 * its `fd` to root when it is not dumpable.  Owned by neither q->uid nor root and
 * dumpable, it runs as someone else: its environment is not ours to read, and
 * it was never counted.  A non-dumpable one (a set-user-ID program of a third
 * user's run by the caller has the caller's real uid) is read as before.
 */
static bool third_users(const struct tree_orphan_query *q, pid_t pid)
{
	char path[PATH_MAX];
	struct stat st;

	if (q->uid == 0)
		return false;
	snprintf(path, sizeof(path), "%s/%d", q->proc, (int)pid);
	if (stat(path, &st) < 0 || st.st_uid == q->uid || st.st_uid == 0)
		return false;
	snprintf(path, sizeof(path), "%s/%d/fd", q->proc, (int)pid);
	return stat(path, &st) == 0 && st.st_uid != 0;
}

static bool held(const struct tree_orphan_scan *s, pid_t pid, uint64_t start)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].start == start)
			return true;
	return false;
}

static int add(struct tree_orphan_scan *s, const struct tree_orphan_query *q, pid_t pid,
	       uint64_t start)
{
	struct tree_orphan *o;

	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct tree_orphan *nv = reallocarray(s->v, cap, sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		s->v = nv;
		s->cap = cap;
	}
	o = &s->v[s->n++];
	*o = (struct tree_orphan){ .pid = pid, .start = start, .pidfd = -1 };
	/* the real /proc only: a fake one has no command lines to show */
	o->cmd = strcmp(q->proc, "/proc") ? strdup("?") : iso_proc_cmdline(pid, 80);
	return 0;
}

/*
 * The freeze's first try, the moment a process is found: the shorter the time
 * between reading it and stopping it, the fewer children it can start meanwhile.
 * Failures are left to the freeze's own pass, which reports them.
 */
static void stop_early(struct tree_orphan *o)
{
	struct iso_proc p = { .pid = o->pid, .start = o->start };
	int fd = iso_pidfd_open_checked(&p);

	if (fd < 0)
		return;
	o->pidfd = fd;
	(void)iso_pidfd_signal(fd, SIGSTOP);
}

/*
 * One process: 1 when it is added, 0 when not the tree's (or already held, or
 * gone), -ENOMEM.  Unreadable environments of this user's processes are counted.
 */
static int examine(const struct tree_orphan_query *q, const char *entry, pid_t pid,
		   struct tree_orphan_scan *s, int procfd, struct iso_userns_view *userns)
{
	char path[PATH_MAX], state = 0;
	uint64_t start = 0;
	int r;

	/* pid 1, init, is never started by a run (and its environment is often closed) */
	if (pid == q->exclude || pid == 1 || third_users(q, pid) ||
	    tree_pid_stat(q->proc, pid, &state, &start) < 0)
		return 0;
	if (held(s, pid, start))
		return 0;
	if (state == 'Z' || state == 'X') {
		/*
		 * a zombie is already dead, unless its main thread called
		 * pthread_exit() while others run on: its environment (empty
		 * through the leader, which has no mm) is read through one
		 */
		pid_t tid = iso_proc_live_thread_at(q->proc, pid);

		if (!tid)
			return 0;
		snprintf(path, sizeof(path), "%s/%d/task/%d/environ", q->proc, (int)pid, (int)tid);
	} else
		snprintf(path, sizeof(path), "%s/%d/environ", q->proc, (int)pid);
	r = environ_at(path, entry);
	if (r == -ETIMEDOUT) {
		s->stalled++;
		return 0;
	}
	if (r == -EACCES || r == -EPERM) {
		/*
		 * another user's (not ours to judge), or ours and not dumpable, or
		 * ours outside isorun's user namespace, whatever its dumpability:
		 * counted, each in its own words
		 */
		if (q->uid == 0 || of_user(q->proc, pid, q->uid)) {
			if (iso_userns_outside(userns, procfd, pid, q->uid))
				s->outside++;
			else
				s->unreadable++;
		}
		return 0;
	}
	if (r <= 0)
		return 0; /* gone meanwhile, or not the tree's */
	r = add(s, q, pid, start);
	if (r == 0 && s->stop_at_once)
		stop_early(&s->v[s->n - 1]);
	return r < 0 ? r : 1;
}

int tree_orphans_find(const struct tree_orphan_query *q, struct tree_orphan_scan *s)
{
	_cleanup_free_ char *entry = NULL;
	struct iso_userns_view userns = { 0 };
	struct dirent *de;
	int added = 0, r = 0;
	DIR *d;

	if (asprintf(&entry, "%s=%s", TREE_NAMESPACE_VAR, q->tree) < 0) {
		entry = NULL;
		return -ENOMEM;
	}
	d = opendir(q->proc);
	if (!d)
		return -errno;
	s->unreadable = 0;
	s->outside = 0;
	s->stalled = 0;
	while (r >= 0 && (de = readdir(d))) {
		long pid = iso_parse_pid(de->d_name);

		if (pid <= 0)
			continue;
		r = examine(q, entry, (pid_t)pid, s, dirfd(d), &userns);
		added += r > 0;
	}
	closedir(d);
	return r < 0 ? r : added;
}

static int signal_one(struct tree_orphan *o, int sig, char *why, size_t len)
{
	const char *name = sig == SIGKILL ? "SIGKILL" : "SIGSTOP";
	int r;

	if (o->gone)
		return 0;
	if (o->pidfd < 0) {
		struct iso_proc p = { .pid = o->pid, .start = o->start };

		r = iso_pidfd_open_checked(&p);
		if (r == -ESRCH) {
			o->gone = true; /* exited, or its pid now names another process */
			return 0;
		}
		if (r < 0) {
			snprintf(why, len, "pidfd_open pid %d `%s`: %s", (int)o->pid, o->cmd,
				 strerror(-r));
			return r;
		}
		o->pidfd = r;
	}
	r = iso_pidfd_signal(o->pidfd, sig);
	if (r == -ESRCH) {
		o->gone = true;
		return 0;
	}
	if (r < 0)
		snprintf(why, len, "send %s to pid %d `%s`: %s", name, (int)o->pid, o->cmd,
			 strerror(-r));
	return r;
}

/* SIGSTOP what is found until a scan finds nothing new. */
static int freeze(const struct tree_orphan_query *q, struct tree_orphan_scan *s, char *why,
		  size_t len)
{
	size_t done = 0;

	for (int round = 0; round < FREEZE_ROUNDS; round++) {
		int r = tree_orphans_find(q, s);

		if (r < 0) {
			snprintf(why, len, "list '%s': %s", q->proc, strerror(-r));
			return r;
		}
		if (r == 0)
			return 0;
		for (; done < s->n; done++) {
			r = signal_one(&s->v[done], SIGSTOP, why, len);
			if (r < 0)
				return r;
		}
	}
	snprintf(why, len, "new processes kept appearing after %d rounds of SIGSTOP",
		 FREEZE_ROUNDS);
	return -EAGAIN;
}

/* Wait on the pidfds (readable once the process has exited) until all are gone. */
static int wait_gone(struct tree_orphan_scan *s, int timeout_ms, char *why, size_t len)
{
	int64_t deadline = (int64_t)iso_now_ms() + timeout_ms;
	_cleanup_free_ struct pollfd *pfd = calloc(s->n ? s->n : 1, sizeof(*pfd));

	if (!pfd) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	for (;;) {
		size_t n = 0, first = 0;
		int64_t left = deadline - (int64_t)iso_now_ms();
		int r;

		for (size_t i = 0; i < s->n; i++)
			if (!s->v[i].gone && s->v[i].pidfd >= 0)
				pfd[n++] = (struct pollfd){ .fd = s->v[i].pidfd, .events = POLLIN };
		if (n == 0)
			return 0;
		for (size_t i = 0; i < s->n; i++)
			if (!s->v[i].gone && s->v[i].pidfd >= 0) {
				first = i;
				break;
			}
		if (left <= 0) {
			snprintf(why, len, "pid %d `%s` still alive %d ms after SIGKILL",
				 (int)s->v[first].pid, s->v[first].cmd, timeout_ms);
			return -ETIMEDOUT;
		}
		r = poll(pfd, n, (int)left);
		if (r < 0 && errno != EINTR) {
			snprintf(why, len, "poll on pidfds: %s", strerror(errno));
			return -errno;
		}
		for (size_t i = 0; i < n; i++)
			if (pfd[i].revents)
				for (size_t j = 0; j < s->n; j++)
					if (s->v[j].pidfd == pfd[i].fd)
						s->v[j].gone = true;
	}
}

int tree_orphans_stop(const struct tree_orphan_query *q, struct tree_orphan_scan *s, int timeout_ms,
		      struct iso_err *e)
{
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);
	size_t before;
	int r;

	s->stop_at_once = true;
	r = freeze(q, s, why, len);

	for (size_t i = 0; i < s->n && r == 0; i++)
		r = signal_one(&s->v[i], SIGKILL, why, len);
	if (r == 0)
		r = wait_gone(s, timeout_ms, why, len);
	if (r < 0)
		return r;
	/* frozen before the kill, none can have forked since: a new one means a bug or a race */
	before = s->n;
	r = tree_orphans_find(q, s);
	if (r > 0) {
		snprintf(why, len, "pid %d `%s` appeared after the others were killed",
			 (int)s->v[before].pid, s->v[before].cmd);
		return -EAGAIN;
	}
	return r < 0 ? r : 0;
}

void tree_orphans_free(struct tree_orphan_scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].cmd);
		if (s->v[i].pidfd >= 0)
			close(s->v[i].pidfd);
	}
	free(s->v);
	*s = (struct tree_orphan_scan){ 0 };
}
