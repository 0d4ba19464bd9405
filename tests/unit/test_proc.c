// SPDX-License-Identifier: MIT
/*
 * iso_proc_descendants(): a process tree three deep is found whole, from the
 * ancestor's own view of /proc, and nothing outside it is.
 */
#include "tests/unit/unit.h"

#include <signal.h>
#include <sys/wait.h>

#include "common/proc.h"

static bool has(const struct iso_proc *v, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (v[i].pid == pid)
			return true;
	return false;
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
