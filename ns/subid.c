// SPDX-License-Identifier: MIT
/*
 * --map-users: the caller's subordinate id ranges (/etc/subuid, /etc/subgid) and
 * the setuid helpers that alone may map them (newuidmap, newgidmap from shadow).
 * The helpers check the ranges again against the files they trust; what isorun
 * reads here only decides whether to ask.
 */
#include "ns/ns.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/fault.h"
#include "common/num.h"

static void close_file(FILE **f)
{
	if (*f)
		fclose(*f);
}

/* "NAME:START:COUNT" for `name` or the uid in digits; false for another or a bad line. */
static bool subid_line(char *line, const char *name, uid_t uid, struct ns_subid *ret)
{
	char *save = NULL, *who = strtok_r(line, ":\n", &save);
	char *start = strtok_r(NULL, ":\n", &save), *count = strtok_r(NULL, ":\n", &save);
	uint64_t s, c, u;

	if (!who || !start || !count)
		return false;
	if (!(name && !strcmp(who, name)) &&
	    !(iso_parse_u64(who, NULL, 0, UINT32_MAX, &u) == 0 && u == uid))
		return false;
	if (iso_parse_u64(start, NULL, 0, UINT32_MAX, &s) < 0 ||
	    iso_parse_u64(count, NULL, 1, UINT32_MAX, &c) < 0 || s + c > UINT32_MAX)
		return false;
	*ret = (struct ns_subid){ (uint32_t)s, (uint32_t)c };
	return true;
}

int ns_subid_find(const char *file, const char *name, uid_t uid, struct ns_subid *ret,
		  struct iso_err *e)
{
	__attribute__((cleanup(close_file))) FILE *f = fopen(file, "re");
	char line[512];

	if (!f)
		return errno == ENOENT ? 0 : iso_err_set(e, errno, "read '%s'", file);
	while (fgets(line, sizeof(line), f))
		if (subid_line(line, name, uid, ret))
			return 1;
	if (ferror(f))
		return iso_err_set(e, EIO, "read '%s'", file);
	return 0;
}

size_t ns_idmap_lines(uint32_t inside, uint32_t outside, const struct ns_subid *range,
		      struct ns_idmap_line out[3])
{
	size_t n = 0;

	out[n++] = (struct ns_idmap_line){ inside, outside, 1 };
	/* the range from 0 up, around the caller's own inside id */
	if (inside >= range->count) {
		out[n++] = (struct ns_idmap_line){ inside ? 0 : 1, range->start, range->count };
		return n;
	}
	if (inside > 0)
		out[n++] = (struct ns_idmap_line){ 0, range->start, inside };
	out[n++] =
		(struct ns_idmap_line){ inside + 1, range->start + inside, range->count - inside };
	return n;
}

/* Root's, and only root can change it: owned by root, no write bit for group or others. */
static bool root_only(const char *path, bool want_dir)
{
	struct stat st;

	return lstat(path, &st) == 0 && st.st_uid == 0 &&
	       (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

int ns_find_tool(const char *name, char *buf, size_t len)
{
	const char *dirs = iso_test_fault("no-uidmap") ? "" : NS_TOOL_DIRS;

	while (*dirs) {
		size_t l = strcspn(dirs, ":");
		char dir[64];

		snprintf(dir, sizeof(dir), "%.*s", (int)l, dirs);
		if ((size_t)snprintf(buf, len, "%s/%s", dir, name) < len && root_only(dir, true) &&
		    root_only(buf, false) && access(buf, X_OK) == 0)
			return 0;
		dirs += l;
		if (*dirs == ':')
			dirs++;
	}
	buf[0] = '\0';
	return -ENOENT;
}

/*
 * The helper's first line of complaint, for our message: what is there now, as
 * a child it left behind may hold the pipe open.
 */
static void first_line(int fd, char *buf, size_t len)
{
	ssize_t n = fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ? -1 : read(fd, buf, len - 1);

	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

/*
 * Whether the helper exited within `timeout_ms`: its pidfd polled, or without
 * one (before Linux 5.3) waitpid(WNOHANG) every 10 ms.  Signals do not extend it.
 */
static bool exited_in_time(pid_t pid, int timeout_ms)
{
	_cleanup_close_ int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	long long end = (long long)iso_now_ms() + timeout_ms;
	siginfo_t si;

	for (long long left = timeout_ms; left > 0; left = end - (long long)iso_now_ms()) {
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		struct timespec tick = { 0, 10 * 1000 * 1000 };

		if (pfd >= 0 && poll(&p, 1, (int)left) > 0)
			return true;
		si.si_pid = 0;
		if (pfd < 0 && (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
				si.si_pid == pid))
			return true;
		if (pfd < 0)
			(void)nanosleep(&tick, NULL);
	}
	return false;
}

/* Wait for the helper at most `timeout_ms`; then it is killed.  -ETIMEDOUT then. */
static int wait_bounded(pid_t pid, int timeout_ms, int *status)
{
	bool in_time = exited_in_time(pid, timeout_ms);

	if (!in_time)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return in_time ? 0 : -ETIMEDOUT;
}

static int run_mapper(const char *tool, pid_t child, const struct ns_idmap_line *l, size_t n,
		      int timeout_ms, struct iso_err *e)
{
	char words[1 + 3 * 3][16], out[256] = "", prog[256];
	char *argv[2 + 3 * 3 + 1] = { prog, words[0] };
	_cleanup_close_ int rd = -1;
	int fds[2], status = 0, r;
	size_t a = 2;
	pid_t pid;

	snprintf(prog, sizeof(prog), "%s", tool);
	snprintf(words[0], sizeof(words[0]), "%d", (int)child);
	for (size_t i = 0; i < n && i < 3; i++) {
		uint32_t v[3] = { l[i].inside, l[i].outside, l[i].count };

		for (int j = 0; j < 3; j++, a++) {
			snprintf(words[a - 1], sizeof(words[0]), "%" PRIu32, v[j]);
			argv[a] = words[a - 1];
		}
	}
	argv[a] = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return iso_err_set(e, errno, "create a pipe for '%s'", tool);
	rd = fds[0];
	pid = fork();
	if (pid < 0) {
		r = iso_err_set(e, errno, "start '%s'", tool);
		close(fds[1]);
		return r;
	}
	if (pid == 0) {
		/* the caller's environment is not the helper's: nothing it needs is in it */
		char *envp[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

		if (dup2(fds[1], 2) >= 0 && dup2(fds[1], 1) >= 0)
			execve(tool, argv, envp);
		_exit(127);
	}
	close(fds[1]);
	r = wait_bounded(pid, timeout_ms, &status);
	first_line(rd, out, sizeof(out));
	/* the helper's words say why: no strerror after them */
	if (r == -ETIMEDOUT) {
		iso_err_set(e, 0, "map the ids of pid %d: '%s' did not finish in %d ms", (int)child,
			    tool, timeout_ms);
		return r;
	}
	if (r < 0)
		return iso_err_set(e, -r, "wait for '%s'", tool);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		iso_err_set(e, 0, "map the ids of pid %d: '%s' killed by signal %d", (int)child,
			    tool, WTERMSIG(status));
	else
		iso_err_set(e, 0, "map the ids of pid %d: '%s' exited %d%s%s", (int)child, tool,
			    WEXITSTATUS(status), out[0] ? ": " : "", out);
	return -EPERM;
}

int ns_userns_write_ranges(pid_t child, const struct ns_idmaps *m, int timeout_ms,
			   struct iso_err *e)
{
	int r = run_mapper(m->newuidmap, child, m->uid, m->n_uid, timeout_ms, e);

	if (r < 0)
		return r;
	return run_mapper(m->newgidmap, child, m->gid, m->n_gid, timeout_ms, e);
}
