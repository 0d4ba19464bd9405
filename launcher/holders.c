// SPDX-License-Identifier: MIT
#include "launcher/holders.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static int scan_pid(const struct iso_holder_query *q, struct found *f, int procfd, pid_t pid,
		    size_t *unreadable)
{
	char name[32];
	_cleanup_close_ int pfd = -1;
	int fdfd, r;
	DIR *d;
	struct dirent *de;

	snprintf(name, sizeof(name), "%d", pid);
	pfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd < 0)
		return 0;
	if (q->tree) {
		r = check_link(q, f, pfd, pid, "cwd", "cwd");
		if (r == 0)
			r = check_link(q, f, pfd, pid, "root", "root");
		if (r < 0)
			return r;
	}
	fdfd = openat(pfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdfd < 0) {
		if (errno == EACCES || errno == EPERM)
			(*unreadable)++;
		return 0;
	}
	d = fdopendir(fdfd);
	if (!d) {
		close(fdfd);
		return 0;
	}
	r = 0;
	while (r == 0 && (de = readdir(d))) {
		char what[24];
		if (de->d_name[0] == '.')
			continue;
		snprintf(what, sizeof(what), "fd %.16s", de->d_name);
		r = check_link(q, f, dirfd(d), pid, de->d_name, what);
	}
	closedir(d);
	return r;
}

int iso_find_holders(const struct iso_holder_query *q, struct iso_holder **ret,
		     size_t *ret_unreadable)
{
	struct found f = { 0 };
	size_t unreadable = 0;
	struct dirent *de;
	int procfd, r = 0;
	DIR *d;

	*ret = NULL;
	procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -errno;
	d = fdopendir(procfd);
	if (!d) {
		r = -errno;
		close(procfd);
		return r;
	}
	while (r == 0 && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || (pid_t)pid == q->exclude)
			continue;
		r = scan_pid(q, &f, dirfd(d), (pid_t)pid, &unreadable);
	}
	closedir(d);
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
