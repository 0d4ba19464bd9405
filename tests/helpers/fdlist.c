// SPDX-License-Identifier: MIT
/*
 * fdlist
 *
 * Prints what a command inherits, one item a line:
 *
 *	fds: 0 1 2		open fds, ascending (from /proc/self/fd, without
 *				the directory fd used to read it)
 *	sigblk: 0000000000000000	SigBlk of /proc/self/status, as printed there
 *	sigign: 0000000000000000	SigIgn of /proc/self/status, as printed there
 *	sigpipe: default|ignored|handled	SIGPIPE disposition
 *	nnp: 0|1		NoNewPrivs of /proc/self/status
 *
 * The fd list is taken before anything else is opened.  Exits 0, or 1 when
 * something cannot be read or stdout cannot be written.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROG  "fdlist"
#define USAGE PROG
#include "common.h"

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The open fds, ascending, as " 0 1 2" (malloc()ed). */
static char *list_fds(void)
{
	int *fds = NULL, self;
	size_t n = 0, cap = 0, len = 0;
	struct dirent *de;
	char *out;
	DIR *d;

	d = opendir("/proc/self/fd"); /* O_DIRECTORY | O_CLOEXEC in glibc */
	if (!d)
		die("opendir", "/proc/self/fd");
	self = dirfd(d);
	for (;;) {
		char *end;
		long fd;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				die("readdir", "/proc/self/fd");
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		errno = 0;
		fd = strtol(de->d_name, &end, 10);
		if (errno || *end || fd < 0 || fd > 0x7fffffff) {
			errno = EINVAL;
			die("parse fd", de->d_name);
		}
		if (fd == self)
			continue;
		if (n == cap) {
			int *nfds;

			cap = cap ? cap * 2 : 64;
			nfds = realloc(fds, cap * sizeof(*fds));
			if (!nfds)
				die("realloc", "fd list");
			fds = nfds;
		}
		fds[n++] = (int)fd;
	}
	if (closedir(d) < 0)
		die("closedir", "/proc/self/fd");

	qsort(fds, n, sizeof(*fds), cmp_int);
	out = malloc(n * 12 + 1);
	if (!out)
		die("malloc", "fd list");
	out[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)sprintf(out + len, " %d", fds[i]);
	free(fds);
	return out;
}

/* The value of "KEY:\tVALUE" in /proc/self/status, copied into val. */
static void status_field(const char *text, const char *key, char *val, size_t size)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			const char *v = p + klen + 1, *e;

			v += strspn(v, " \t");
			e = strchr(v, '\n');
			if (!e)
				e = v + strlen(v);
			if ((size_t)(e - v) >= size)
				break;
			memcpy(val, v, (size_t)(e - v));
			val[e - v] = '\0';
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	errno = ENOENT;
	die("find field", key);
}

int main(int argc, char **argv)
{
	char status[8192], sigblk[64], sigign[64], nnp[16];
	const char *sigpipe;
	struct sigaction sa;
	size_t len = 0;
	char *fds;
	FILE *f;

	if (argc != 1)
		usage();

	fds = list_fds();

	f = fopen("/proc/self/status", "re");
	if (!f)
		die("open", "/proc/self/status");
	len = fread(status, 1, sizeof(status) - 1, f);
	if (ferror(f))
		die("read", "/proc/self/status");
	status[len] = '\0';
	fclose(f);

	status_field(status, "SigBlk", sigblk, sizeof(sigblk));
	status_field(status, "SigIgn", sigign, sizeof(sigign));
	status_field(status, "NoNewPrivs", nnp, sizeof(nnp));

	if (sigaction(SIGPIPE, NULL, &sa) < 0)
		die("sigaction", "SIGPIPE");
	if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL)
		sigpipe = "default";
	else if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN)
		sigpipe = "ignored";
	else
		sigpipe = "handled";

	printf("fds:%s\nsigblk: %s\nsigign: %s\nsigpipe: %s\nnnp: %s\n", fds, sigblk, sigign,
	       sigpipe, nnp);
	free(fds);
	if (fflush(stdout) == EOF || ferror(stdout))
		die("write", "stdout");
	return 0;
}
