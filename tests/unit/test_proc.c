// SPDX-License-Identifier: MIT
/*
 * iso_proc_descendants(): a process tree three deep is found whole, from the
 * ancestor's own view of /proc, and nothing outside it is; iso_proc_children()
 * names only the first level; the _at readers under a procfs's directory fd
 * read what the /proc ones read.
 */
#include "tests/unit/unit.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>

#include "common/cleanup.h"
#include "common/proc.h"

static bool has(const struct iso_proc *v, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (v[i].pid == pid)
			return true;
	return false;
}

static bool has_pid(const pid_t *v, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (v[i] == pid)
			return true;
	return false;
}

/* the children file names our child and none of its descendants; a short table says so */
static void check_children(pid_t child, const pid_t kids[3])
{
	pid_t v[8];
	int n = iso_proc_children(getpid(), v, ELEMENTSOF(v));

	assert_int_equal(n, 1);
	assert_int_equal(v[0], child);
	for (int i = 0; i < 3; i++)
		if (kids[i] != child)
			assert_false(has_pid(v, n, kids[i]));
	assert_int_equal(iso_proc_children(getpid(), v, 0), -E2BIG);
	n = iso_proc_children(child, v, ELEMENTSOF(v));
	assert_int_equal(n, 1);
	assert_true(has_pid(kids, 3, v[0]));
}

/* child -> grandchild -> great-grandchild, each blocked on a pipe we hold */
static void test_descendants(void **state)
{
	int ready[2], hold[2];
	pid_t kids[3], child;
	struct iso_proc *v = NULL;
	int n;

	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe2(hold, O_CLOEXEC), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		pid_t me[3];
		char c;

		/* only the test may hold the write end, or the read below never ends */
		close(hold[1]);
		close(ready[0]);
		for (int depth = 0; depth < 3; depth++) {
			me[depth] = getpid();
			if (depth == 2 || fork() != 0)
				break;
		}
		/* every level reports its pid, then waits for the parent test to let go */
		me[0] = getpid();
		if (write(ready[1], &me[0], sizeof(me[0])) != sizeof(me[0]))
			_exit(1);
		if (read(hold[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	for (int i = 0; i < 3; i++)
		assert_int_equal(read(ready[0], &kids[i], sizeof(kids[i])), sizeof(kids[i]));
	n = iso_proc_descendants(getpid(), &v);
	assert_true(n >= 3);
	for (int i = 0; i < 3; i++)
		assert_true(has(v, n, kids[i]));
	assert_false(has(v, n, getpid()));
	assert_false(has(v, n, getppid()));
	assert_false(has(v, n, 1));
	free(v);
	check_children(child, kids);
	close(hold[1]);
	assert_int_equal(unit_wait(child), 0);
	close(ready[0]);
	close(ready[1]);
	close(hold[0]);
}

/* The _at readers under a directory fd of a procfs say what the /proc ones say. */
static void test_at_procfd(void **state)
{
	_cleanup_close_ int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ char *cmd = NULL, *cmd_at = NULL, *cwd = NULL, *cwd_at = NULL;
	struct iso_proc a, b;

	assert_true(proc >= 0);
	assert_int_equal(iso_proc_stat(getpid(), &a), 0);
	assert_int_equal(iso_proc_stat_at(proc, getpid(), &b), 0);
	assert_int_equal(a.ppid, b.ppid);
	assert_int_equal(a.sid, b.sid);
	assert_true(a.start == b.start);
	assert_true(iso_proc_alive_at(proc, &b));
	cmd = iso_proc_cmdline(getpid(), 200);
	cmd_at = iso_proc_cmdline_at(proc, getpid(), 200);
	assert_non_null(cmd_at);
	assert_string_equal(cmd, cmd_at);
	cwd = iso_proc_cwd(getpid());
	cwd_at = iso_proc_cwd_at(proc, getpid());
	assert_non_null(cwd_at);
	assert_string_equal(cwd, cwd_at);
	/* no such pid: ESRCH, as from /proc */
	assert_int_equal(iso_proc_stat_at(proc, 0x3ffffff, &b), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descendants),
		cmocka_unit_test(test_at_procfd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
