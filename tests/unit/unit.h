/* SPDX-License-Identifier: MIT */
/*
 * What the unit tests share: a scratch directory under $TMPDIR, a forked child
 * that reports through its exit status, a user namespace mapped to root, and
 * the one place that decides whether a missing kernel feature is a skip or a
 * failure.  Each test file is built alone against build/libiso.a, so all of it
 * is static; __attribute__((unused)) because no file uses every piece.
 *
 * The Makefile's rule for build/unit/NAME does not list this header: after
 * changing it, remove the binaries (or touch the tests) to rebuild them.
 */
#ifndef ISORUN_TESTS_UNIT_H
#define ISORUN_TESTS_UNIT_H

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Exit status of a child that could not get the namespaces it needs. */
#define NO_NAMESPACE 77

/*
 * In a child: never cmocka's assert_*, whose longjmp would resume the runner
 * there.  The child says what failed and exits 1; the parent's check fails.
 */
#define CHILD_CHECK(c)                                                                             \
	do {                                                                                       \
		if (!(c)) {                                                                        \
			fprintf(stderr, "%s:%d: in child: %s (errno %s)\n", __FILE__, __LINE__,    \
				#c, strerror(errno));                                              \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

/*
 * `feature` is missing on this host.  Locally that is a skip: the tests must
 * run on kernels and containers without it.  In CI (CI=true) the machine is
 * known to have every feature the tests use, so a skip there can only hide a
 * regression (a broken namespace setup looks just like a missing one): fail.
 */
static __attribute__((unused)) void unit_missing(const char *feature)
{
	const char *ci = getenv("CI");

	if (ci && !strcmp(ci, "true"))
		fail_msg("%s not available; CI=true, where a skip of it is a failure", feature);
	fprintf(stderr, "# skip: %s not available\n", feature);
	skip();
}

/*
 * mkdtemp() of "$TMPDIR/<name>" (/tmp without TMPDIR); `name` ends in XXXXXX.
 * Under TMPDIR rather than the working directory, which an ordinary user may
 * not be able to write.  0, or -1 with nothing created.
 */
static __attribute__((unused)) int unit_mkdtemp(char *buf, size_t len, const char *name)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(buf, len, "%s/%s", tmp, name);
	if (n < 0 || (size_t)n >= len || !mkdtemp(buf))
		return -1;
	return 0;
}

/* The whole of `text` into an existing file (a /proc knob); 0 or -1. */
static __attribute__((unused)) int unit_write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/*
 * unshare(CLONE_NEWUSER | flags) and map `inside` to `uid`/`gid` of the parent
 * namespace.  The caller passes its ids: after unshare() geteuid() already
 * answers the overflow id.  setgroups is denied first, or an unprivileged
 * process may not write gid_map.
 */
static __attribute__((unused)) int unit_enter_userns(int flags, unsigned inside, uid_t uid,
						     gid_t gid)
{
	char map[64];

	if (unshare(CLONE_NEWUSER | flags) < 0)
		return -1;
	if (unit_write_file("/proc/self/setgroups", "deny") < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1", inside, (unsigned)uid);
	if (unit_write_file("/proc/self/uid_map", map) < 0)
		return -1;
	snprintf(map, sizeof(map), "%u %u 1", inside, (unsigned)gid);
	return unit_write_file("/proc/self/gid_map", map);
}

/*
 * The namespaces `flags`: as root directly, otherwise inside a new user
 * namespace mapped to root, which is what lets an ordinary user create them.
 */
static __attribute__((unused)) int unit_enter_ns(int flags)
{
	if (geteuid() == 0)
		return unshare(flags);
	return unit_enter_userns(flags, 0, geteuid(), getegid());
}

/*
 * fork(), returning in both.  stdio is flushed first, or the child's exit
 * would write the parent's buffered output a second time.  The child gets an
 * alarm of `watchdog` seconds: a hung child becomes a failure (SIGALRM), not a
 * hung suite.
 */
static __attribute__((unused)) pid_t unit_fork(unsigned watchdog)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		alarm(watchdog);
	return pid;
}

/* The exit code in a wait status; death by a signal fails the test, naming `who`. */
static __attribute__((unused)) int unit_exit_code(int status, const char *who)
{
	if (WIFSIGNALED(status))
		fail_msg("%s killed by signal %d", who, WTERMSIG(status));
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* Reap a child of unit_fork(); its exit code. */
static __attribute__((unused)) int unit_wait(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return unit_exit_code(status, "child");
}

/*
 * A child's exit code: 0 passes; NO_NAMESPACE means it could not get
 * `feature` (see unit_missing()); anything else fails.
 */
static __attribute__((unused)) void unit_child_ok(int code, const char *feature)
{
	if (code == NO_NAMESPACE)
		unit_missing(feature);
	assert_int_equal(code, 0);
}

#endif /* ISORUN_TESTS_UNIT_H */
