// SPDX-License-Identifier: MIT
/*
 * How a probe runs (selftest/probe.c, selftest/probe_ns.c): its verdict set,
 * in a throwaway child where it changes process state, and whether the
 * process is already under a seccomp filter.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/io.h"
#include "common/proc.h"
#include "common/text.h"
#include "selftest/selftest.h"

void st_set(struct st_probe *p, int verdict, const char *fmt, ...)
{
	va_list ap;

	p->verdict = verdict;
	va_start(ap, fmt);
	vsnprintf(p->reason, sizeof(p->reason), fmt, ap);
	va_end(ap);
}

void st_probe_in_child(struct st_probe *ret, void (*fn)(struct st_probe *, void *), void *arg)
{
	struct st_probe p = { .verdict = ST_NO };
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		ret->err = errno;
		st_set(ret, ST_NO, "create a pipe for the probe: %s", strerror(errno));
		return;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		ret->err = errno;
		st_set(ret, ST_NO, "fork the probe: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		fn(&p, arg);
		n = write(fds[1], &p, sizeof(p));
		_exit(n == (ssize_t)sizeof(p) ? 0 : 1);
	}
	close(fds[1]);
	n = iso_read_all(fds[0], &p, sizeof(p));
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(p)) {
		char sig[32];

		if (WIFSIGNALED(status))
			st_set(ret, ST_NO, "the probe was killed by %s",
			       iso_signal_name(WTERMSIG(status), sig, sizeof(sig)));
		else
			st_set(ret, ST_NO, "the probe sent no report (exit %d)",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return;
	}
	p.reason[sizeof(p.reason) - 1] = '\0';
	*ret = p;
}

const char *st_already_filtered(void)
{
	char mode[16];

	if (iso_proc_status(0, "Seccomp", mode, sizeof(mode)) == 0 && atoi(mode) == 2)
		return "; this process is already under a filter (Seccomp: 2)";
	return "";
}
