// SPDX-License-Identifier: MIT
#include "launcher/gitignore.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"

/* A .git that git itself would take: a directory with HEAD, or a file (a worktree's link). */
static bool is_git_here(const char *dir)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s/.git", dir);
	if (lstat(p, &st) < 0)
		return false;
	if (S_ISREG(st.st_mode))
		return true;
	snprintf(p, sizeof(p), "%s/.git/HEAD", dir);
	return S_ISDIR(st.st_mode) && lstat(p, &st) == 0;
}

/*
 * One rule file's identity in the stamp: an edit, a new one or a removed one
 * differs.  The kernel's cached attributes (a file system the command serves is
 * not asked), a symlink not followed.
 */
static void stamp_add(FILE *f, const char *path)
{
	struct statx st;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC, STATX_BASIC_STATS,
		  &st) < 0)
		return;
	fprintf(f, "%s %u:%u %llu %llu %lld.%u\n", path, st.stx_dev_major, st.stx_dev_minor,
		(unsigned long long)st.stx_ino, (unsigned long long)st.stx_size,
		(long long)st.stx_mtime.tv_sec, st.stx_mtime.tv_nsec);
}

/* The .gitignore files from dir up to the top, those the walk found, and info/exclude. */
static void take_stamp(const char *canon, const char *dir, char *const *paths, size_t n,
		       struct sup_git_rules *g)
{
	char p[PATH_MAX * 2], up[PATH_MAX];
	size_t len = 0, top = strlen(g->top);
	FILE *f = open_memstream(&g->stamp, &len);

	if (!f)
		return;
	snprintf(p, sizeof(p), "%s/.git/info/exclude", g->top);
	stamp_add(f, p);
	snprintf(up, sizeof(up), "%s", canon);
	while (strlen(up) > top) {
		snprintf(p, sizeof(p), "%s/.gitignore", up);
		stamp_add(f, p);
		*strrchr(up, '/') = '\0';
	}
	snprintf(p, sizeof(p), "%s/.gitignore", g->top);
	stamp_add(f, p);
	for (size_t i = 0; i < n; i++) {
		const char *b = strrchr(paths[i], '/');
		if (!strcmp(b ? b + 1 : paths[i], ".gitignore")) {
			snprintf(p, sizeof(p), "%s/%s", dir, paths[i]);
			stamp_add(f, p);
		}
	}
	fclose(f);
}

void sup_git_rules_take(const char *dir, char *const *paths, size_t n, struct sup_git_rules *g)
{
	char canon[PATH_MAX], p[PATH_MAX];

	*g = (struct sup_git_rules){ 0 };
	if (!realpath(dir, canon))
		return;
	snprintf(p, sizeof(p), "%s", canon);
	while (!is_git_here(p[0] ? p : "/")) {
		char *slash = strrchr(p, '/');

		if (!slash || !p[0])
			return;
		*slash = '\0';
	}
	g->in_repo = true;
	snprintf(g->top, sizeof(g->top), "%s", p);
	take_stamp(canon, dir, paths, n, g);
}

void sup_git_rules_free(struct sup_git_rules *g)
{
	free(g->stamp);
	*g = (struct sup_git_rules){ 0 };
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * git in PATH's absolute directories only: "." or an empty entry would be the
 * directory isorun runs in, often the checkout, whose ./git the command wrote.
 */
static bool find_git(const char *path, char *prog, size_t len)
{
	const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin";

	for (;;) {
		size_t n = strcspn(p, ":");

		if (n && p[0] == '/') {
			snprintf(prog, len, "%.*s/git", (int)n, p);
			if (access(prog, X_OK) == 0)
				return true;
		}
		if (!p[n])
			return false;
		p += n + 1;
	}
}

/*
 * git, made harmless to run in a checkout the command could write: no
 * fsmonitor (a program git would start), no hooks, no transport (a lazy fetch
 * of a partial clone runs ssh), no pager; the user's and the system's config and
 * excludes are not read, so the verdict does not depend on who runs it.
 */
static void exec_git(const char *dir, const char *ceiling, int in, int out, int err)
{
	char cd[PATH_MAX + 32], where[PATH_MAX];
	char *argv[] = { "git",		 "--no-pager",
			 "-c",		 "core.fsmonitor=false",
			 "-c",		 "core.useBuiltinFSMonitor=false",
			 "-c",		 "core.untrackedCache=false",
			 "-c",		 "core.hooksPath=/dev/null",
			 "-c",		 "core.excludesFile=/dev/null",
			 "-c",		 "protocol.allow=never",
			 "-C",		 where,
			 "check-ignore", "--stdin",
			 "-z",		 "-v",
			 "-n",		 NULL };
	const char *path = getenv("PATH");
	char pathvar[4096], prog[PATH_MAX];
	char *envp[] = { pathvar,
			 "HOME=/nonexistent",
			 "LC_ALL=C",
			 "GIT_CONFIG_NOSYSTEM=1",
			 "GIT_CONFIG_GLOBAL=/dev/null",
			 "GIT_TERMINAL_PROMPT=0",
			 "GIT_OPTIONAL_LOCKS=0",
			 "GIT_NO_LAZY_FETCH=1",
			 cd,
			 NULL };
	sigset_t none;

	snprintf(where, sizeof(where), "%s", dir);
	snprintf(pathvar, sizeof(pathvar), "PATH=%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
	snprintf(cd, sizeof(cd), "GIT_CEILING_DIRECTORIES=%s", ceiling);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setpgid(0, 0);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
		_exit(126);
	if (find_git(path, prog, sizeof(prog)))
		execve(prog, argv, envp);
	_exit(127);
}

struct git_io {
	const char *in;
	size_t in_len, in_off;
	char *out;
	size_t out_len, out_cap;
	char err[256];
	size_t err_len;
};

/* Read what is there into the buffer; false at the end or on an error. */
static bool drain(int fd, struct git_io *io, bool is_err)
{
	char buf[65536];
	ssize_t r = read(fd, buf, sizeof(buf));

	if (r <= 0)
		return r < 0 && (errno == EAGAIN || errno == EINTR);
	if (is_err) {
		size_t k = sizeof(io->err) - 1 - io->err_len;
		k = (size_t)r < k ? (size_t)r : k;
		memcpy(io->err + io->err_len, buf, k);
		io->err_len += k;
		io->err[io->err_len] = '\0';
		return true;
	}
	if (io->out_len + (size_t)r > io->out_cap) {
		size_t nc = (io->out_len + (size_t)r) * 2;
		char *nb = realloc(io->out, nc);
		if (!nb)
			return false;
		io->out = nb;
		io->out_cap = nc;
	}
	memcpy(io->out + io->out_len, buf, (size_t)r);
	io->out_len += (size_t)r;
	return true;
}

/* Feed stdin and read both outputs until git closes them or the deadline: -ETIMEDOUT. */
static int pump(int fds[3], struct git_io *io, uint64_t deadline)
{
	while (fds[1] >= 0 || fds[2] >= 0) {
		struct pollfd p[3] = { { fds[0], POLLOUT, 0 },
				       { fds[1], POLLIN, 0 },
				       { fds[2], POLLIN, 0 } };
		uint64_t now = now_ms();
		int r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(p, 3, (int)(deadline - now));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (fds[0] >= 0 && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = write(fds[0], io->in + io->in_off, io->in_len - io->in_off);
			if (w > 0)
				io->in_off += (size_t)w;
			if (w < 0 && errno != EAGAIN && errno != EINTR)
				io->in_off = io->in_len; /* git went away: its status says why */
			if (io->in_off == io->in_len) {
				close(fds[0]);
				fds[0] = -1;
			}
		}
		for (int i = 1; i < 3; i++)
			if (fds[i] >= 0 && (p[i].revents & (POLLIN | POLLERR | POLLHUP)) &&
			    !drain(fds[i], io, i == 2)) {
				close(fds[i]);
				fds[i] = -1;
			}
	}
	return 0;
}

/* Three pipes (git's stdin, stdout, stderr): ours non-blocking, every end close-on-exec. */
static int make_pipes(int mine[3], int theirs[3])
{
	for (int i = 0; i < 3; i++) {
		int p[2];

		if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
			return -errno;
		mine[i] = i == 0 ? p[1] : p[0];
		theirs[i] = i == 0 ? p[0] : p[1];
		/* git's ends block as a program expects */
		if (fcntl(theirs[i], F_SETFL, 0) < 0)
			return -errno;
	}
	return 0;
}

static void close_all(int fds[3])
{
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0) {
			close(fds[i]);
			fds[i] = -1;
		}
}

/* git check-ignore over io->in; its status, or -errno / -ETIMEDOUT (then it was killed). */
static int run_git(const char *dir, const char *ceiling, struct git_io *io)
{
	int mine[3] = { -1, -1, -1 }, theirs[3] = { -1, -1, -1 }, r, status = 0;
	pid_t pid;

	r = make_pipes(mine, theirs);
	if (r < 0) {
		close_all(mine);
		close_all(theirs);
		return r;
	}
	pid = fork();
	if (pid == 0)
		exec_git(dir, ceiling, theirs[0], theirs[1], theirs[2]);
	r = pid < 0 ? -errno : 0;
	close_all(theirs);
	if (r == 0)
		r = pump(mine, io, now_ms() + SUP_GIT_DEADLINE_MS);
	close_all(mine);
	if (pid < 0)
		return r;
	/* its group: what a git wrapper started goes with it */
	if (r < 0 && kill(-pid, SIGKILL) < 0)
		(void)kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return r < 0 ? r : -errno;
	return r < 0 ? r : status;
}

/* The records of -z -v -n: source, line, pattern, path; ignored when a pattern that is not a
 * negation matched. */
static int parse_out(const struct git_io *io, size_t n, char **by)
{
	const char *p = io->out, *end = io->out + io->out_len;

	for (size_t i = 0; i < n; i++) {
		const char *field[4];

		for (int k = 0; k < 4; k++) {
			const char *z = p < end ? memchr(p, '\0', (size_t)(end - p)) : NULL;
			if (!z)
				return -EPROTO;
			field[k] = p;
			p = z + 1;
		}
		if (field[0][0] && field[2][0] != '!' &&
		    asprintf(&by[i], "%s:%s:%s", field[0], field[1], field[2]) < 0)
			by[i] = NULL;
	}
	return 0;
}

static void say_failure(int r, const struct git_io *io, struct iso_err *e)
{
	char first[200];

	snprintf(first, sizeof(first), "%.*s", (int)strcspn(io->err, "\n"), io->err);
	if (r == -ETIMEDOUT)
		iso_err_set(e, 0, "git check-ignore did not answer in %d ms", SUP_GIT_DEADLINE_MS);
	else if (r < 0)
		iso_err_set(e, 0, "git check-ignore: %s", strerror(-r));
	else if (WIFEXITED(r) && WEXITSTATUS(r) == 127)
		iso_err_set(e, 0, "git not found in PATH");
	else if (WIFEXITED(r))
		iso_err_set(e, 0, "git check-ignore exited %d%s%s", WEXITSTATUS(r),
			    first[0] ? ": " : "", first);
	else
		iso_err_set(e, 0, "git check-ignore killed by signal %d", WTERMSIG(r));
}

/*
 * The paths, NUL-separated, as git reads them with -z, each after "./": a name
 * the command chose such as ":(top)prog" is pathspec magic to git (the top's
 * prog, which .gitignore may name), and check-ignore takes no :(literal).
 */
static char *join_paths(const char *const *paths, size_t n, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "./%s%c", paths[i], '\0');
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void free_by(char **by, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(by[i]);
		by[i] = NULL;
	}
}

int sup_git_check_ignore(const char *dir, const struct sup_git_rules *rules,
			 const char *const *paths, size_t n, char **by, struct iso_err *e)
{
	char ceiling[PATH_MAX];
	_cleanup_free_ char *in = NULL;
	struct git_io io = { 0 };
	const char *slash;
	int r;

	memset(by, 0, n * sizeof(*by));
	if (!n)
		return 0;
	in = join_paths(paths, n, &io.in_len);
	if (!in) {
		iso_err_set(e, 0, "out of memory");
		return -1;
	}
	io.in = in;
	/* git looks no higher than the top found here (GIT_CEILING_DIRECTORIES: its parent) */
	slash = strrchr(rules->top, '/');
	snprintf(ceiling, sizeof(ceiling), "%.*s", slash ? (int)(slash - rules->top) : 0,
		 rules->top);
	r = run_git(dir, ceiling[0] ? ceiling : "/", &io);
	if (r == 0 && parse_out(&io, n, by) < 0) {
		free_by(by, n);
		iso_err_set(e, 0, "git check-ignore answered %zu bytes for %zu paths", io.out_len,
			    n);
		r = -1;
	} else if (r != 0) {
		say_failure(r, &io, e);
		r = -1;
	}
	free(io.out);
	return r;
}
