// SPDX-License-Identifier: MIT
/*
 * Unit tests of the selftest's own safety net and judging: the sweep that
 * names and kills whatever a broken guard let escape to the selftest, and the
 * matching of isorun's stderr lines.
 */
#include "unit.h"

#include <signal.h>
#include <sys/prctl.h>

#include "selftest/selftest.h"

/* A setsid'd grandchild whose parent is gone: adopted by us, the subreaper. */
static pid_t escapee(void)
{
	int fds[2];
	pid_t pid, gc = 0;

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = unit_fork(30);
	if (pid == 0) {
		gc = fork();
		if (gc == 0) {
			setsid();
			close(fds[1]);
			for (;;)
				pause();
		}
		(void)!write(fds[1], &gc, sizeof(gc));
		_exit(gc > 0 ? 0 : 1);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &gc, sizeof(gc)), (ssize_t)sizeof(gc));
	close(fds[0]);
	assert_int_equal(unit_wait(pid), 0);
	return gc;
}

static void test_sweep_names_and_kills_an_escapee(void **state)
{
	struct st_control ctl = { .result = ST_OK };
	char want[64];
	pid_t gc;

	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	gc = escapee();
	assert_true(gc > 0);
	assert_int_equal(kill(gc, 0), 0);
	st_sweep(&ctl);
	assert_int_equal(ctl.result, ST_NOT_OK);
	snprintf(want, sizeof(want), "pid %d `", (int)gc);
	assert_non_null(strstr(ctl.detail, want));
	assert_non_null(strstr(ctl.detail, "outlived the control; killed"));
	/* killed and reaped: the pid names nothing of ours any more */
	assert_int_equal(waitpid(gc, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

/* The control of the sweep: with nothing left it finds nothing. */
static void test_sweep_without_escapee_changes_nothing(void **state)
{
	struct st_control ctl = { .result = ST_OK };

	st_sweep(&ctl);
	assert_int_equal(ctl.result, ST_OK);
	assert_string_equal(ctl.detail, "");
}

static void set_err(struct st_run *r, const char *text)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->err, sizeof(r->err), "%s", text);
	r->n_err = strlen(r->err);
	r->code = 122;
}

static void test_err_line_needs_every_needle_on_one_line(void **state)
{
	struct st_run *r = calloc(1, sizeof(*r));
	char line[256];

	assert_non_null(r);
	set_err(r, "isorun: leaked: pid 7 `x --internal-daemon` (cwd /, session 7, alive 1s)\n"
		   "isorun: FAILED (exit 122): 1 process outlived the command\n");
	assert_true(st_err_line(r, line, sizeof(line), "leaked: pid ", "--internal-daemon`",
				"session 7,", NULL));
	assert_string_equal(
		line, "isorun: leaked: pid 7 `x --internal-daemon` (cwd /, session 7, alive 1s)");
	/* the needles must meet on one line, not across two */
	assert_false(st_err_line(r, NULL, 0, "leaked: pid ", "FAILED", NULL));
	assert_false(st_err_line(r, NULL, 0, "session 70,", NULL));
	st_describe(r, line, sizeof(line));
	assert_string_equal(line,
			    "exit 122; stderr ends: isorun: FAILED (exit 122): 1 process outlived "
			    "the command");
	set_err(r, "");
	st_describe(r, line, sizeof(line));
	assert_string_equal(line, "exit 122, nothing on stderr");
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sweep_without_escapee_changes_nothing),
		cmocka_unit_test(test_sweep_names_and_kills_an_escapee),
		cmocka_unit_test(test_err_line_needs_every_needle_on_one_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
