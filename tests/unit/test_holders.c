// SPDX-License-Identifier: MIT
/*
 * The holder scan against real processes: a child whose cwd is in the tree, one
 * that holds only an fd there, and a zombie (no exe link, so skipped) must each
 * be judged right.  The scan skips whatever has no exe link; these tests are what
 * goes red if that shortcut ever skips a live process.
 */
#include "tests/unit/unit.h"

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "tree/holders.h"

struct kid {
	pid_t pid;
	int go; /* write end: closing it lets the child exit */
};

/* A child that enters `how` with `dir` and then waits for EOF on a pipe. */
static struct kid hold(const char *dir, int how)
{
	int ready[2], go[2];
	struct kid k = { -1, -1 };
	char c;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(go, O_CLOEXEC) < 0)
		return k;
	k.pid = fork();
	if (k.pid == 0) {
		int fd = -1;
		close(ready[0]);
		close(go[1]);
		if (how == 0 && chdir(dir) < 0)
			_exit(1);
		if (how == 1 || how == 2) {
			fd = open(dir, how == 1 ? O_RDONLY | O_DIRECTORY : O_PATH | O_DIRECTORY);
			if (fd < 0)
				_exit(1);
		}
		if (how == 3) {
			char lock[PATH_MAX];
			snprintf(lock, sizeof(lock), "%s/lock", dir);
			fd = open(lock, O_RDONLY);
			if (fd < 0)
				_exit(1);
		}
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (k.pid < 0 || read(ready[0], &c, 1) != 1) {
		close(ready[0]);
		close(go[1]);
		k.pid = -1;
		return k;
	}
	close(ready[0]);
	k.go = go[1];
	return k;
}

static void release(struct kid *k)
{
	close(k->go);
	waitpid(k->pid, NULL, 0);
}

static bool found(pid_t pid, const char *what_prefix, const char *tree)
{
	struct tree_holder_query q = { .tree = tree, .exclude = getpid() };
	struct tree_holder *h = NULL;
	int n = tree_find_holders(&q, &h, NULL);
	bool hit = false;

	assert_true(n >= 0);
	for (int i = 0; i < n; i++)
		if (h[i].pid == pid && !strncmp(h[i].what, what_prefix, strlen(what_prefix)))
			hit = true;
	tree_holders_free(h, (size_t)n);
	return hit;
}

/* canonical, as the scan compares link text with the tree's path */
static void make_dir(char *dir)
{
	char tmpl[PATH_MAX];

	assert_int_equal(unit_mkdtemp(tmpl, sizeof(tmpl), "holders.XXXXXX"), 0);
	assert_non_null(realpath(tmpl, dir));
}

static void test_cwd_holder_found(void **state)
{
	char dir[PATH_MAX];
	struct kid k;

	make_dir(dir);
	k = hold(dir, 0);
	assert_true(k.pid > 0);
	assert_true(found(k.pid, "cwd", dir));
	release(&k);
	assert_false(found(k.pid, "cwd", dir));
	rmdir(dir);
}

static void test_fd_holder_found(void **state)
{
	char dir[PATH_MAX];
	struct kid k;

	make_dir(dir);
	k = hold(dir, 1);
	assert_true(k.pid > 0);
	assert_true(found(k.pid, "fd ", dir));
	assert_false(found(k.pid, "cwd", dir));
	release(&k);
	rmdir(dir);
}

/*
 * How isorun ls and gc look at a live run's tree: an O_PATH fd on its top
 * directory and its records.  Neither may be taken for a holder (issue 11
 * item 8); the same directory opened for reading is one.
 */
static void test_own_inspection_not_a_holder(void **state)
{
	char dir[PATH_MAX], lock[PATH_MAX + 8];
	struct kid k;
	int fd;

	make_dir(dir);
	snprintf(lock, sizeof(lock), "%s/lock", dir);
	fd = open(lock, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	k = hold(dir, 2);
	assert_true(k.pid > 0);
	assert_false(found(k.pid, "fd ", dir));
	release(&k);
	k = hold(dir, 3);
	assert_true(k.pid > 0);
	assert_false(found(k.pid, "fd ", dir));
	release(&k);
	unlink(lock);
	rmdir(dir);
}

/* A zombie has given back its files and has no exe link: nothing to report. */
static void test_zombie_skipped(void **state)
{
	char dir[PATH_MAX];
	struct kid k;
	siginfo_t si;

	make_dir(dir);
	k = hold(dir, 0);
	assert_true(k.pid > 0);
	close(k.go);
	assert_int_equal(waitid(P_PID, (id_t)k.pid, &si, WEXITED | WNOWAIT), 0);
	assert_false(found(k.pid, "cwd", dir));
	waitpid(k.pid, NULL, 0);
	rmdir(dir);
}

/*
 * In a PID namespace of our own, pid 2 is an ordinary process, not kthreadd: the
 * scan must not take it as the kernel threads' reference, or kcmp would call pid
 * 2 itself (and whatever shares its fd table) a kernel thread and skip it.  PID 1
 * of a new namespace, with its own /proc, scans while pid 2 holds the directory.
 */
static int pid2_in_namespace(const char *dir)
{
	struct kid k;
	bool hit;

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return NO_NAMESPACE;
	k = hold(dir, 1);
	if (k.pid != 2)
		return 3;
	{
		struct tree_holder_query q = { .tree = dir, .exclude = getpid() };
		struct tree_holder *h = NULL;
		int n = tree_find_holders(&q, &h, NULL);

		hit = false;
		for (int i = 0; i < n; i++)
			if (h[i].pid == 2 && !strncmp(h[i].what, "fd ", 3))
				hit = true;
		tree_holders_free(h, n > 0 ? (size_t)n : 0);
	}
	close(k.go);
	waitpid(k.pid, NULL, 0);
	return hit ? 0 : 1;
}

static void test_pid2_not_kthreadd_in_a_namespace(void **state)
{
	char dir[PATH_MAX];
	pid_t pid;

	make_dir(dir);
	pid = unit_fork(60);
	if (pid == 0) {
		pid_t init;
		int status;

		if (unit_enter_ns(CLONE_NEWPID | CLONE_NEWNS) < 0)
			_exit(NO_NAMESPACE);
		init = fork();
		if (init == 0)
			_exit(pid2_in_namespace(dir));
		if (init < 0 || waitpid(init, &status, 0) != init || !WIFEXITED(status))
			_exit(2);
		_exit(WEXITSTATUS(status));
	}
	unit_child_ok(unit_wait(pid), "PID and mount namespaces");
	rmdir(dir);
}

/* A failed scan in the error record: the errno carried, formatted as the reason always read. */
static void test_scan_error_record(void **state)
{
	struct iso_err e;
	char buf[300];

	(void)state;
	tree_holders_strerror(-EACCES, &e);
	assert_int_equal(e.errnum, EACCES);
	assert_string_equal(iso_err_format(&e, buf, sizeof(buf)),
			    "cannot inspect /proc for holders: Permission denied");
	tree_holders_strerror(-E2BIG, &e);
	assert_int_equal(e.errnum, 0);
	assert_non_null(
		strstr(iso_err_format(&e, buf, sizeof(buf)), "holders not measurable: more than "));
}

/*
 * Many processes that could not be read: the lists are cut short ("..."), never
 * the words that say what to do; with every kind at once each list gets a share.
 */
static void test_unseen_keeps_its_advice(void **state)
{
	static struct tree_holder h[300];
	static const int kinds[] = { TREE_HOLDER_UNREADABLE, TREE_HOLDER_OUTSIDE,
				     TREE_HOLDER_STALLED };
	const char *tail = "(run isorun outside that namespace to measure them)";
	struct iso_err e;

	(void)state;
	for (size_t i = 0; i < 300; i++)
		h[i] = (struct tree_holder){ .pid = 10000 + (pid_t)i,
					     .what = "outside userns",
					     .target = "bash",
					     .pipe_index = TREE_HOLDER_OUTSIDE };
	tree_holder_describe(h, 100, "x", &e);
	assert_true(strlen(e.msg) < sizeof(e.msg) - 1);
	assert_non_null(strstr(e.msg, "..."));
	assert_non_null(strstr(e.msg, tail));
	for (size_t i = 0; i < 300; i++)
		h[i].pipe_index = kinds[i % 3];
	tree_holder_describe(h, 300, "x", &e);
	assert_non_null(strstr(e.msg, "cannot be inspected (not dumpable"));
	assert_non_null(strstr(e.msg, tail));
	assert_non_null(strstr(e.msg, "part of the tree may be mounted there"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cwd_holder_found),
		cmocka_unit_test(test_fd_holder_found),
		cmocka_unit_test(test_zombie_skipped),
		cmocka_unit_test(test_own_inspection_not_a_holder),
		cmocka_unit_test(test_pid2_not_kthreadd_in_a_namespace),
		cmocka_unit_test(test_scan_error_record),
		cmocka_unit_test(test_unseen_keeps_its_advice),
	};
	return cmocka_run_group_tests_name("holders", tests, NULL, NULL);
}
