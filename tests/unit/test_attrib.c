// SPDX-License-Identifier: MIT
/*
 * Unit tests: the exec record's bounds, the short chain's words, and reading a live
 * process's runner (PYTEST_CURRENT_TEST from its environment, a Go test binary from
 * its argv) with no guess where nothing is there.
 */
#include "unit.h"

#include <signal.h>

#include "launcher/attrib.h"
#include "launcher/execlog.h"

static const pid_t no_roots[2] = { 0, 0 };

static void test_execlog_keeps_the_last_exec(void **state)
{
	struct sup_execlog log = { 0 };
	char *const first[] = { "sh", "-c", "x" }, *const second[] = { "sleep", "1" };
	const struct sup_exec_rec *r;

	const pid_t roots[2] = { getppid(), 0 };

	sup_execlog_add(&log, getpid(), first, 3, roots);
	sup_execlog_add(&log, getpid(), second, 2, roots);
	r = sup_execlog_get(&log, getpid());
	assert_non_null(r);
	assert_int_equal(log.n, 1);
	assert_int_equal(r->argc, 2);
	assert_int_equal(r->ppid, getppid());
	assert_memory_equal(r->args,
			    "sleep\0"
			    "1\0",
			    8);
	assert_null(sup_execlog_get(&log, getpid() + 1));
	sup_execlog_free(&log);
}

static void test_execlog_bounds_argv(void **state)
{
	struct sup_execlog log = { 0 };
	char *many[40], *long_arg = malloc(4000);
	const struct sup_exec_rec *r;

	assert_non_null(long_arg);
	for (int i = 0; i < 40; i++)
		many[i] = "a";
	sup_execlog_add(&log, getpid(), many, 40, no_roots);
	r = sup_execlog_get(&log, getpid());
	assert_int_equal(r->argc, SUP_EXECLOG_ARGS);
	assert_true(r->truncated);
	memset(long_arg, 'x', 3999);
	long_arg[3999] = '\0';
	many[1] = long_arg;
	sup_execlog_add(&log, getpid(), many, 2, no_roots);
	r = sup_execlog_get(&log, getpid());
	/* the argument that does not fit is cut, not dropped */
	assert_int_equal(r->argc, 2);
	assert_int_equal(r->len, SUP_EXECLOG_BYTES);
	assert_true(r->truncated);
	sup_execlog_free(&log);
	free(long_arg);
}

static struct sup_argv argv_of(char **v, size_t n)
{
	struct sup_argv a = { calloc(n, sizeof(char *)), n };

	for (size_t i = 0; i < n; i++)
		a.v[i] = strdup(v[i]);
	return a;
}

static void test_chain_text(void **state)
{
	char *pytest[] = { "/usr/bin/python3", "-m", "pytest", "-n", "2" };
	char *worker[] = { "/usr/bin/python3", "-u", "-c",
			   "import sys;exec(eval(sys.stdin.readline()))" };
	char *node[] = { "/usr/bin/node", "/home/me/a/very/long/path/to/the/tests/leak.test.js" };
	char *go[] = { "/tmp/go-build1/b001/words.test",
		       "-test.testlogfile=/tmp/go-build1/b001/testlog.txt" };
	struct sup_attrib a = { .chain_known = true };
	char *text;

	a.chain = calloc(7, sizeof(*a.chain));
	a.chain[a.n_chain++] = argv_of(pytest, 5);
	a.chain[a.n_chain++] = argv_of(worker, 4);
	text = sup_attrib_chain_text(&a);
	assert_string_equal(text, "python3 -m pytest -n 2 → python3 -u -c ...");
	free(text);
	a.chain[a.n_chain++] = argv_of(node, 2);
	a.chain[a.n_chain++] = argv_of(go, 2);
	text = sup_attrib_chain_text(&a);
	assert_string_equal(text,
			    "python3 -m pytest -n 2 → python3 -u -c ... → node .../leak.test.js → "
			    "words.test -test.testlogfile=.../testlog.txt");
	free(text);
	/* deep: the outermost and the three nearest */
	a.chain[a.n_chain++] = argv_of(pytest, 1);
	a.chain[a.n_chain++] = argv_of(node, 1);
	text = sup_attrib_chain_text(&a);
	assert_string_equal(text, "python3 -m pytest -n 2 → ... → "
				  "words.test -test.testlogfile=.../testlog.txt → python3 → node");
	free(text);
	sup_attrib_free(&a);
}

/* A child exec'd with argv and envp, waiting on stdin; returns once it exec'd. */
static pid_t spawn(char *const argv[], char *const envp[], int *ret_wr)
{
	int sync[2], in[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe2(sync, O_CLOEXEC), 0);
	assert_int_equal(pipe(in), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(in[0], 0);
		execve("/bin/sh", argv, envp);
		_exit(127);
	}
	close(sync[1]);
	close(in[0]);
	/* EOF: the CLOEXEC end went with the exec */
	assert_int_equal(read(sync[0], &c, 1), 0);
	close(sync[0]);
	*ret_wr = in[1];
	return pid;
}

static void reap(pid_t pid, int wr)
{
	close(wr);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static void attribute(pid_t pid, struct sup_attrib *a, const struct sup_attrib_ctx *c)
{
	char path[64], buf[1024];
	FILE *f;
	unsigned long long start = 0;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_int_equal(sscanf(strrchr(buf, ')') + 2,
				"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
				"%*d %*d %*d %llu",
				&start),
			 1);
	sup_attrib_find(a, c, pid, start);
}

static void test_pytest_from_environment(void **state)
{
	struct sup_execlog log = { 0 };
	/* the chain ends at this test, as it does at isorun */
	struct sup_attrib_ctx c = { .log = &log,
				    .roots = { getpid(), 0 },
				    .no_record = "none kept here" };
	char *const argv[] = { "sh", "-c", "read x", NULL };
	char *const envp[] = { "PYTEST_CURRENT_TEST=tests/t.py::test_a[1 (x)] (teardown)", NULL };
	char *const none[] = { NULL };
	struct sup_attrib a;
	int wr;
	pid_t pid = spawn(argv, envp, &wr);

	attribute(pid, &a, &c);
	reap(pid, wr);
	assert_string_equal(a.runner, "pytest");
	assert_string_equal(a.test, "tests/t.py::test_a[1 (x)]");
	assert_string_equal(a.phase, "teardown");
	assert_string_equal(a.why_not, "no exec record: none kept here");
	sup_attrib_free(&a);
	/* control: nothing in the environment, no test */
	pid = spawn(argv, none, &wr);
	attribute(pid, &a, &c);
	reap(pid, wr);
	assert_null(a.runner);
	assert_null(a.test);
	sup_attrib_free(&a);
}

static void test_go_binary_from_argv(void **state)
{
	struct sup_execlog log = { 0 };
	struct sup_attrib_ctx c = { .log = &log };
	char *const argv[] = {
		"/tmp/b001/words.test", "-c", "read x", "sh", "-test.run=TestA", NULL
	};
	char *const not_go[] = { "/tmp/b001/words.test", "-c", "read x", NULL };
	char *const none[] = { NULL };
	struct sup_attrib a;
	int wr;
	pid_t pid = spawn(argv, none, &wr);

	attribute(pid, &a, &c);
	reap(pid, wr);
	assert_string_equal(a.runner, "go test");
	assert_string_equal(a.test, "words.test -test.run=TestA");
	sup_attrib_free(&a);
	/* control: a name ending in .test without -test.* flags is no Go test binary */
	pid = spawn(not_go, none, &wr);
	attribute(pid, &a, &c);
	reap(pid, wr);
	assert_null(a.runner);
	sup_attrib_free(&a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_execlog_keeps_the_last_exec),
		cmocka_unit_test(test_execlog_bounds_argv),
		cmocka_unit_test(test_chain_text),
		cmocka_unit_test(test_pytest_from_environment),
		cmocka_unit_test(test_go_binary_from_argv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
