// SPDX-License-Identifier: MIT
#include "launcher/leak.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launcher/cleanup.h"
#include "launcher/proc.h"

int iso_reap_ready(iso_reap_fn fn, void *arg)
{
	int n = 0, status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (fn)
			fn(pid, status, arg);
		n++;
	}
	return n;
}

bool iso_no_children(void)
{
	siginfo_t si = { 0 };

	/* every descendant whose parent died was reparented to us, the subreaper */
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
}

static bool is_dead(const struct iso_proc *p)
{
	return !iso_proc_alive(p);
}

int iso_signal_tree(pid_t self, int sig, pid_t skip_pgrp)
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

/* One stop pass: returns how many new members were found and stopped. */
static int stop_pass(pid_t self, pid_t cmd_pgid, struct set *s)
{
	struct iso_proc *list = NULL;
	int n = iso_proc_descendants(self, &list), added = 0;

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

static int describe(const struct set *s, size_t from, struct iso_leak **ret, size_t *ret_n)
{
	struct iso_leak *l;

	if (s->n == from)
		return 0;
	l = realloc(*ret, (*ret_n + s->n - from) * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = from; i < s->n; i++)
		l[(*ret_n)++] = (struct iso_leak){
			.pid = s->v[i].p.pid,
			.sid = s->v[i].p.sid,
			.start = s->v[i].p.start,
			.cmdline = iso_proc_cmdline(s->v[i].p.pid, 512),
			.cwd = iso_proc_cwd(s->v[i].p.pid),
		};
	*ret = l;
	return 0;
}

int iso_freeze_kill(pid_t self, pid_t cmd_pgid, struct iso_leak **ret_leaks, size_t *ret_n,
		    iso_reap_fn fn, void *arg)
{
	struct set s = { 0 };
	size_t killed = 0;
	int r = 0;

	if (ret_leaks) {
		*ret_leaks = NULL;
		*ret_n = 0;
	}
	for (;;) {
		size_t from = s.n;
		int added;

		do
			added = stop_pass(self, cmd_pgid, &s);
		while (added > 0);
		if (added < 0) {
			r = added;
			break;
		}
		if (ret_leaks && describe(&s, from, ret_leaks, ret_n) < 0) {
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
		(void)iso_reap_ready(fn, arg);
		if (iso_no_children())
			break;
		{
			struct iso_proc *list = NULL;
			int n = iso_proc_descendants(self, &list);
			bool fresh = false;
			for (int i = 0; i < n && !fresh; i++)
				fresh = !is_dead(&list[i]) && !known(&s, &list[i]);
			free(list);
			if (fresh)
				continue;
		}
		{
			int status;
			pid_t pid = waitpid(-1, &status, 0);
			if (pid > 0 && fn)
				fn(pid, status, arg);
			if (pid < 0 && errno != EINTR && errno != ECHILD) {
				r = -errno;
				break;
			}
		}
	}
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i].fd >= 0)
			close(s.v[i].fd);
	free(s.v);
	return r < 0 ? r : (int)killed;
}

void iso_leaks_free(struct iso_leak *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].cmdline);
		free(l[i].cwd);
	}
	free(l);
}
