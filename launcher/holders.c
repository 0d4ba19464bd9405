// SPDX-License-Identifier: MIT
#include "launcher/holders.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launcher/cleanup.h"

struct found {
	struct iso_holder *v;
	size_t n, cap;
};

static bool inside(const char *tree, size_t tlen, const char *target)
{
	return strncmp(target, tree, tlen) == 0 && (target[tlen] == '\0' || target[tlen] == '/');
}

static int match(const struct iso_holder_query *q, const char *target)
{
	unsigned long ino;

	if (q->n_pipes && sscanf(target, "pipe:[%lu]", &ino) == 1) {
		for (size_t i = 0; i < q->n_pipes; i++)
			if ((ino_t)ino == q->pipes[i])
				return (int)i;
		return -2;
	}
	if (q->tree && inside(q->tree, strlen(q->tree), target))
		return -1;
	return -2;
}

static int add(struct found *f, pid_t pid, const char *what, const char *target, int pipe_index)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		struct iso_holder *nv = realloc(f->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		f->v = nv;
		f->cap = cap;
	}
	f->v[f->n] = (struct iso_holder){ .pid = pid, .pipe_index = pipe_index };
	snprintf(f->v[f->n].what, sizeof(f->v[f->n].what), "%s", what);
	f->v[f->n].target = strdup(target);
	if (!f->v[f->n].target)
		return -ENOMEM;
	f->n++;
	return 0;
}

static int check_link(const struct iso_holder_query *q, struct found *f, int dirfd, pid_t pid,
		      const char *name, const char *what)
{
	char target[PATH_MAX];
	ssize_t n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	int m;

	if (n < 0)
		return 0;
	target[n] = '\0';
	m = match(q, target);
	return m == -2 ? 0 : add(f, pid, what, target, m);
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * Every kernel thread shares one files_struct, kthreadd's (init_files: kthreads
 * are made with CLONE_FILES); no user process does (init and the usermode
 * helpers get their own).  kcmp(KCMP_FILES) against kthreadd is one syscall
 * without a procfs lookup, about half the cost of the exe readlink below, and
 * most of a machine's pids are kernel threads.  The reference is used only when
 * pid 2 has no exe link: in a container's PID namespace pid 2 is an ordinary
 * process, and whatever shares its fd table would be skipped with it.
 */
#define KTHREADD 2

static bool kthreadd_is_reference(int procfd)
{
	char exe[8];
	char name[16];

	snprintf(name, sizeof(name), "%d/exe", KTHREADD);
	return readlinkat(procfd, name, exe, sizeof(exe)) < 0 && errno == ENOENT &&
	       syscall(SYS_kcmp, KTHREADD, KTHREADD, KCMP_FILES, 0, 0) == 0;
}

/*
 * The scan is O(every fd on the system) and sits on every run's clean path, so it
 * makes as few syscalls as it can: raw getdents64 into one buffer (no DIR, no fstat),
 * no per-process directory fd, and no second getdents when the first one left room
 * (procfs stops filling only at the end or when the buffer is full).
 *
 * It starts with the exe link, one call that sorts out most of the system cheaply.
 * ENOENT: a kernel thread or a zombie, which hold no fd, cwd or root of their own
 * (a task between exit_mm() and exit_files() is gone within the exit itself).
 * EACCES/EPERM: ptrace_may_access() refused us, and the cwd, root and every fd link
 * go through the same check; without this a process isorun may list but not read
 * (PID 1 here, with a capability our root lacks, holds 258 fds) costs one refused
 * readlink per fd.
 */
static int scan_pid(const struct iso_holder_query *q, struct found *f, int procfd, pid_t pid,
		    bool kcmp_ref, char *buf, size_t buflen, size_t *unreadable)
{
	char name[40], exe[8];
	int fdfd, r = 0;

	if (kcmp_ref) {
		long k = syscall(SYS_kcmp, KTHREADD, pid, KCMP_FILES, 0, 0);

		if (k == 0 || (k < 0 && errno == ESRCH))
			return 0;
		/*
		 * kcmp passed the ptrace check the links below make too (real
		 * instead of fs credentials: the same for isorun): no exe probe.
		 * A zombie gets here and finds no cwd, root or fd.
		 */
		if (k > 0)
			goto links;
	}
	snprintf(name, sizeof(name), "%d/exe", pid);
	if (readlinkat(procfd, name, exe, sizeof(exe)) < 0) {
		if (errno == EACCES || errno == EPERM)
			(*unreadable)++;
		return 0;
	}
links:
	if (q->tree) {
		snprintf(name, sizeof(name), "%d/cwd", pid);
		r = check_link(q, f, procfd, pid, name, "cwd");
		snprintf(name, sizeof(name), "%d/root", pid);
		if (r == 0)
			r = check_link(q, f, procfd, pid, name, "root");
		if (r < 0)
			return r;
	}
	snprintf(name, sizeof(name), "%d/fd", pid);
	fdfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdfd < 0) {
		if (errno == EACCES || errno == EPERM)
			(*unreadable)++;
		return 0;
	}
	for (;;) {
		long n = syscall(SYS_getdents64, fdfd, buf, buflen);
		if (n <= 0)
			break;
		for (long off = 0; off < n && r == 0;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			char what[24];
			off += d->d_reclen;
			if (d->d_name[0] == '.')
				continue;
			snprintf(what, sizeof(what), "fd %.16s", d->d_name);
			r = check_link(q, f, fdfd, pid, d->d_name, what);
		}
		if (r < 0 || (size_t)n + 512 < buflen)
			break;
	}
	close(fdfd);
	return r;
}

int iso_find_holders(const struct iso_holder_query *q, struct iso_holder **ret,
		     size_t *ret_unreadable)
{
	struct found f = { 0 };
	size_t unreadable = 0, npids = 0, cap = 0;
	bool kcmp_ref;
	_cleanup_free_ char *buf = malloc(65536);
	_cleanup_free_ pid_t *pids = NULL;
	_cleanup_close_ int procfd = -1;
	int r = 0;

	*ret = NULL;
	if (!buf)
		return -ENOMEM;
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -errno;
	/* the pid list first: the same buffer then serves every fd directory */
	for (;;) {
		long n = syscall(SYS_getdents64, procfd, buf, 65536);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			char *end;
			long pid = strtol(d->d_name, &end, 10);
			off += d->d_reclen;
			if (*end || pid <= 0 || (pid_t)pid == q->exclude)
				continue;
			if (npids == cap) {
				pid_t *np;
				cap = cap ? cap * 2 : 512;
				np = realloc(pids, cap * sizeof(*np));
				if (!np)
					return -ENOMEM;
				pids = np;
			}
			pids[npids++] = (pid_t)pid;
		}
	}
	kcmp_ref = kthreadd_is_reference(procfd);
	for (size_t i = 0; i < npids && r == 0; i++)
		r = scan_pid(q, &f, procfd, pids[i], kcmp_ref, buf, 65536, &unreadable);
	if (ret_unreadable)
		*ret_unreadable = unreadable;
	if (r < 0) {
		iso_holders_free(f.v, f.n);
		return r;
	}
	*ret = f.v;
	return (int)f.n;
}

void iso_holders_free(struct iso_holder *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(h[i].target);
	free(h);
}
