// SPDX-License-Identifier: MIT
/*
 * iso_proc_descendants(): a process tree three deep is found whole, from the
 * ancestor's own view of /proc, and nothing outside it is; iso_proc_children()
 * names only the first level.
 */
#include "tests/unit/unit.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_descendants),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
