// SPDX-License-Identifier: MIT
/*
 * Running one control: the real isorun binary as a child with the private
 * --root, its stdout and stderr captured, its exit code decoded.  The end of a
 * run is the child's exit (a pidfd), not EOF on its pipes: a broken guard may
 * leave a process that holds them, and the selftest must still finish and then
 * name and kill that process itself (it is a subreaper for exactly that).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "tree/rmtree.h"
#include "tree/shield.h"
#include "common/text.h"
#include "selftest/selftest.h"

volatile int st_child_pid;

void st_result(struct st_control *ctl, int result, const char *fmt, ...)
{
	va_list ap;

	ctl->result = result;
	va_start(ap, fmt);
	vsnprintf(ctl->detail, sizeof(ctl->detail), fmt, ap);
	va_end(ap);
}

void st_append(struct st_control *ctl, const char *fmt, ...)
{
	size_t used = strlen(ctl->detail);
	va_list ap;

	if (used + 3 >= sizeof(ctl->detail))
		return;
	if (used)
		used += (size_t)snprintf(ctl->detail + used, sizeof(ctl->detail) - used, "; ");
	va_start(ap, fmt);
	vsnprintf(ctl->detail + used, sizeof(ctl->detail) - used, fmt, ap);
	va_end(ap);
}

void st_run_init(struct st_run *r, const struct st_ctx *c, const char *const *opts,
		 const char *const *mode)
{
	size_t n = 0;

	memset(r, 0, sizeof(*r));
	r->stdin_fd = -1;
	r->code = -1;
#define PUSH(s)                                                                                    \
	do {                                                                                       \
		if (n < ELEMENTSOF(r->argv) - 1)                                                   \
			r->argv[n++] = (s);                                                        \
	} while (0)
	PUSH(c->self);
	PUSH("--no-config");
	PUSH("--root");
	PUSH(c->root);
	/* "/" exists everywhere, is never inside a hidden home, and holds nothing */
	PUSH("--chdir");
	PUSH("/");
	/* a safety net, not a synchronisation: a hung control fails, it never hangs */
	PUSH("--timeout");
	PUSH("120s");
	for (size_t i = 0; opts && opts[i]; i++)
		PUSH(opts[i]);
	/* after the control's own options: the user's weakening wins */
	for (size_t i = 0; i < c->fwd.n; i++)
		PUSH(c->fwd.argv[i]);
	PUSH("--");
	PUSH(c->cmd);
	PUSH("selftest");
	for (size_t i = 0; mode && mode[i]; i++)
		PUSH(mode[i]);
#undef PUSH
	r->argv[n] = NULL;
	r->argc = n;
}

static void exec_child(struct st_run *r, int in, int out, int err)
{
	char *args[ELEMENTSOF(r->argv)];
	sigset_t none;

	/* execv's prototype predates const; the strings are not written */
	for (size_t i = 0; i <= r->argc; i++)
		args[i] = (char *)(uintptr_t)r->argv[i];
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(125);
	execv(args[0], args);
	dprintf(2, "isorun: selftest: execute '%s': %s\n", r->argv[0], strerror(errno));
	_exit(127);
}

/* Append what is readable; false at EOF or error. */
static bool drain(int fd, char *buf, size_t *n)
{
	char scratch[4096];
	ssize_t got;

	for (;;) {
		size_t room = ST_CAPTURE - 1 - *n;
		char *to = room ? buf + *n : scratch;

		got = read(fd, to, room ? room : sizeof(scratch));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 && errno == EAGAIN;
		if (room)
			*n += (size_t)got;
		buf[*n] = '\0';
	}
}

/* Hand each complete new stdout line to on_line. */
static void lines(struct st_run *r, size_t *seen)
{
	char line[ST_CAPTURE];
	char *nl;

	while ((nl = memchr(r->out + *seen, '\n', r->n_out - *seen))) {
		size_t len = (size_t)(nl - (r->out + *seen));

		memcpy(line, r->out + *seen, len);
		line[len] = '\0';
		*seen += len + 1;
		if (r->on_line)
			r->on_line(r, line);
	}
}

/* The child's stdin and our capture of its stdout and stderr. */
struct st_pipes {
	int in[2], out[2], err[2];
};

static void close_pipes(struct st_pipes *c)
{
	int *fds[] = { c->in, c->out, c->err };

	for (size_t i = 0; i < 3; i++)
		for (int k = 0; k < 2; k++)
			if (fds[i][k] >= 0) {
				close(fds[i][k]);
				fds[i][k] = -1;
			}
}

static int open_pipes(const struct st_run *r, struct st_pipes *c, struct iso_err *e)
{
	*c = (struct st_pipes){ { -1, -1 }, { -1, -1 }, { -1, -1 } };
	if (r->with_stdin ? pipe2(c->in, O_CLOEXEC) < 0
			  : (c->in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		return iso_err_set(e, errno, "stdin for isorun");
	}
	if (pipe2(c->out, O_CLOEXEC) < 0 || pipe2(c->err, O_CLOEXEC) < 0) {
		iso_err_set(e, errno, "pipe");
		close_pipes(c);
		return -1;
	}
	/* only our ends: isorun's stdout and stderr stay blocking, as a terminal's would */
	if (fcntl(c->out[0], F_SETFL, O_NONBLOCK) < 0 ||
	    fcntl(c->err[0], F_SETFL, O_NONBLOCK) < 0) {
		iso_err_set(e, errno, "make the capture pipes non-blocking");
		close_pipes(c);
		return -1;
	}
	return 0;
}

/* Until isorun has exited (its pidfd), or without pidfds (before 5.3) both pipes' EOF. */
static void capture(struct st_run *r, int pidfd, int out, int err, size_t *seen)
{
	bool out_open = true, err_open = true, exited = false;
	struct pollfd pfd[3];

	while (!exited && (out_open || err_open || pidfd >= 0)) {
		int np = 0, ip = -1, io = -1, ie = -1;

		if (pidfd >= 0)
			pfd[ip = np++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		if (out_open)
			pfd[io = np++] = (struct pollfd){ .fd = out, .events = POLLIN };
		if (err_open)
			pfd[ie = np++] = (struct pollfd){ .fd = err, .events = POLLIN };
		if (poll(pfd, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (io >= 0 && pfd[io].revents) {
			out_open = drain(out, r->out, &r->n_out);
			lines(r, seen);
		}
		if (ie >= 0 && pfd[ie].revents)
			err_open = drain(err, r->err, &r->n_err);
		if (ip >= 0 && pfd[ip].revents)
			exited = true;
		if (pidfd < 0 && !out_open && !err_open)
			break;
	}
	/* isorun has exited: all it wrote is in the pipes */
	drain(out, r->out, &r->n_out);
	lines(r, seen);
	drain(err, r->err, &r->n_err);
}

int st_run(struct st_run *r, struct iso_err *e)
{
	struct st_pipes c;
	int status, pidfd;
	size_t seen = 0;
	pid_t pid;

	r->code = -1;
	if (open_pipes(r, &c, e) < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid == 0)
		exec_child(r, c.in[0], c.out[1], c.err[1]);
	close(TAKE_FD(c.in[0]));
	close(TAKE_FD(c.out[1]));
	close(TAKE_FD(c.err[1]));
	if (pid < 0) {
		iso_err_set(e, errno, "fork");
		close_pipes(&c);
		return -1;
	}
	st_child_pid = pid;
	r->stdin_fd = TAKE_FD(c.in[1]);
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	capture(r, pidfd, c.out[0], c.err[0], &seen);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	st_child_pid = 0;
	if (pidfd >= 0)
		close(pidfd);
	close_pipes(&c);
	if (r->stdin_fd >= 0)
		close(r->stdin_fd);
	r->stdin_fd = -1;
	r->code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

bool st_err_line(const struct st_run *r, char *buf, size_t len, ...)
{
	const char *p = r->err;

	while (*p) {
		size_t n = strcspn(p, "\n");
		bool all = true;
		const char *needle;
		va_list ap;

		va_start(ap, len);
		while ((needle = va_arg(ap, const char *)))
			if (!memmem(p, n, needle, strlen(needle)))
				all = false;
		va_end(ap);
		if (all) {
			if (buf)
				snprintf(buf, len, "%.*s", (int)n, p);
			return true;
		}
		p += n;
		if (*p)
			p++;
	}
	return false;
}

void st_describe(const struct st_run *r, char *buf, size_t len)
{
	const char *end = r->err + r->n_err, *last;

	while (end > r->err && end[-1] == '\n')
		end--;
	last = end;
	while (last > r->err && last[-1] != '\n')
		last--;
	if (r->code < 0)
		snprintf(buf, len, "isorun did not run");
	else if (last == end)
		snprintf(buf, len, "exit %d, nothing on stderr", r->code);
	else
		snprintf(buf, len, "exit %d; stderr ends: %.*s", r->code, (int)(end - last), last);
}

void st_sweep(struct st_control *ctl)
{
	for (int round = 0; round < 100; round++) {
		_cleanup_free_ struct iso_proc *ps = NULL;
		int n = iso_proc_descendants(getpid(), &ps);

		if (n <= 0)
			return;
		for (int i = 0; i < n; i++) {
			_cleanup_free_ char *cmd = iso_proc_cmdline(ps[i].pid, 200);
			_cleanup_close_ int fd = iso_pidfd_open_checked(&ps[i]);

			if (ps[i].state != 'Z') {
				st_append(ctl, "pid %d `%s` outlived the control; killed",
					  (int)ps[i].pid, cmd ? cmd : "?");
				ctl->result = ST_NOT_OK;
			}
			if (fd >= 0)
				iso_pidfd_signal(fd, SIGKILL);
			else
				kill(ps[i].pid, SIGKILL);
			if (ps[i].ppid == getpid())
				while (waitpid(ps[i].pid, NULL, 0) < 0 && errno == EINTR)
					;
		}
	}
}

static bool is_mark_of(const char *name, const char *tree)
{
	const char *base = strrchr(tree, '/');
	char mark[NAME_MAX + 1];

	snprintf(mark, sizeof(mark), ".%s%s", base ? base + 1 : tree, TREE_NEST_MARK);
	return !strcmp(name, mark);
}

void st_check_trees(const struct st_ctx *c, struct st_control *ctl, const char *expect)
{
	_cleanup_close_ int fd = open(c->user_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return; /* no run got as far as creating it */
	d = fdopendir(fd);
	if (!d)
		return;
	fd = -1; /* the DIR owns it */
	while ((de = readdir(d))) {
		char path[PATH_MAX * 2];
		struct iso_err e = { 0 };
		struct stat st, parent;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", c->user_root, de->d_name);
		/*
		 * the shields' shared lower layer stays, as the per-user directory
		 * does; a retained nested tree keeps its tmpfs's mark (tree/nest.h)
		 */
		if (strcmp(de->d_name, TREE_SHIELD_LOWER) &&
		    (!expect || (strcmp(path, expect) != 0 && !is_mark_of(de->d_name, expect)))) {
			st_append(ctl, "left its tree %s behind", path);
			ctl->result = ST_NOT_OK;
		}
		/* a nested tree's tmpfs (the holder control's tree is retained), mark or no mark */
		if (fstat(dirfd(d), &parent) == 0 &&
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_dev != parent.st_dev)
			(void)umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
		if (tree_rmtree(dirfd(d), de->d_name, path, NULL, &e) < 0) {
			char buf[512];

			st_append(ctl, "could not remove %s", iso_err_format(&e, buf, sizeof(buf)));
			ctl->result = ST_NOT_OK;
		}
	}
	closedir(d);
}

int st_run_control(struct st_run *r, struct st_control *ctl, char *desc, size_t len)
{
	struct iso_err e = { 0 };
	char why[512];

	if (st_run(r, &e) < 0) {
		st_result(ctl, ST_NOT_OK, "could not start isorun: %s",
			  iso_err_format(&e, why, sizeof(why)));
		return -1;
	}
	ctl->exit_code = r->code;
	st_describe(r, desc, len);
	return 0;
}
