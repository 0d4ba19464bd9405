// SPDX-License-Identifier: MIT
/* Unit tests: the settle's line (launcher/waitline.h) and the walk of the run's processes. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "launcher/waitline.h"

static char *line(const struct sup_still *st, const struct sup_still_wait *w)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	sup_still_line(f, st, w);
	fclose(f);
	return buf;
}

static void test_one(void **state)
{
	struct sup_still st = { .n = 1, .pid = { 42 }, .comm = { "sleep" } };
	struct sup_still_wait w = { .how = "exited 0", .wait_ms = 3000, .words = "--settle" };
	char *s = line(&st, &w);

	assert_string_equal(s,
			    "isorun: command exited 0; 1 process still running (pid 42 `sleep`); "
			    "waiting up to 3s (--settle)\n");
	free(s);
}

static void test_bounded_and_escaped(void **state)
{
	struct sup_still st = { .n = 5, .pid = { 1, 2, 3 }, .comm = { "a", "b\033[31m", "c" } };
	struct sup_still_wait w = { .how = "killed by SIGTERM",
				    .wait_ms = 500,
				    .words = "--settle, cut short by --timeout",
				    .ctrl_c = true };
	char *s = line(&st, &w);

	assert_string_equal(s,
			    "isorun: command killed by SIGTERM; 5 processes still running (pid 1 "
			    "`a`, pid 2 `b\\x1b[31m`, pid 3 `c`, ...); waiting up to 500ms "
			    "(--settle, cut short by --timeout); Ctrl-C stops them now\n");
	free(s);
	st.more = true;
	s = line(&st, &w);
	assert_non_null(strstr(s, "; more than 5 processes still running ("));
	free(s);
}

static void test_nothing_said_for_none(void **state)
{
	struct sup_still st = { 0 };
	struct sup_still_wait w = { .how = "exited 0", .wait_ms = 3000, .words = "--settle" };
	char *s = line(&st, &w);

	assert_string_equal(s, "");
	free(s);
}

/* The walk finds a child and its child; a zombie is not counted. */
static void test_walk(void **state)
{
	int p[2];
	pid_t kid, dead;
	char c;
	siginfo_t si;
	struct sup_still st;

	/* the grandchild comes back to us when its parent dies, to be reaped */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(pipe(p), 0);
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {
		pid_t parent = getpid();

		close(p[0]);
		if (fork() == 0) {
			/*
			 * dies with its parent: nothing of the test outlives it.  Ready
			 * only once that holds: a parent killed before the prctl would
			 * leave it paused for good (seen once, ppid 1)
			 */
			(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			(void)!write(p[1], "x", 1);
			pause();
			_exit(0);
		}
		close(p[1]);
		pause();
		_exit(0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	/* a zombie once waitid says it exited (WNOWAIT leaves it unreaped) */
	assert_int_equal(waitid(P_PID, (id_t)dead, &si, WEXITED | WNOWAIT), 0);
	assert_int_equal(sup_still_running(getpid(), &st), 0);
	assert_int_equal(st.n, 2);
	assert_int_equal(st.pid[0], kid);
	assert_string_equal(st.comm[0], "test_waitline");
	assert_false(st.more);
	kill(kid, SIGKILL);
	(void)waitpid(kid, NULL, 0);
	(void)waitpid(dead, NULL, 0);
	/* its grandchild, killed by its parent-death signal: the test ends after it */
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	(void)prctl(PR_SET_CHILD_SUBREAPER, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_bounded_and_escaped),
		cmocka_unit_test(test_nothing_said_for_none),
		cmocka_unit_test(test_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
