// SPDX-License-Identifier: MIT
/*
 * Unit tests: iso_read_all (common/io.c), the one read loop: to the end of
 * file or the buffer's, across short reads and a signal that interrupts it.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/io.h"

/* a writer child: each piece a write of its own, then its end closed */
static pid_t writer(int fd[2], const char *const *pieces)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		for (; *pieces; pieces++)
			if (write(fd[1], *pieces, strlen(*pieces)) < 0)
				_exit(1);
		_exit(0);
	}
	close(fd[1]);
	return pid;
}

static void test_reads_to_the_end(void **state)
{
	static const char *const pieces[] = { "abc", "de", "fgh", NULL };
	char buf[64] = { 0 };
	int fd[2], status;
	pid_t pid;

	assert_int_equal(pipe2(fd, O_CLOEXEC), 0);
	pid = writer(fd, pieces);
	assert_int_equal(iso_read_all(fd[0], buf, sizeof(buf)), 8);
	assert_string_equal(buf, "abcdefgh");
	close(fd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

static void test_stops_at_the_buffers_end(void **state)
{
	char buf[4];
	int fd[2];

	assert_int_equal(pipe2(fd, O_CLOEXEC), 0);
	assert_int_equal(write(fd[1], "abcdefgh", 8), 8);
	assert_int_equal(iso_read_all(fd[0], buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "abcd", 4);
	/* the rest stays for the next read; nothing is waited for past the buffer */
	assert_int_equal(iso_read_all(fd[0], buf, 2), 2);
	assert_memory_equal(buf, "ef", 2);
	close(fd[0]);
	close(fd[1]);
	assert_int_equal(iso_read_all(fd[0], buf, sizeof(buf)), -EBADF);
}

static int ack[2];

static void on_usr1(int sig)
{
	(void)sig;
	(void)!write(ack[1], "!", 1);
}

/* the parent's state letter in /proc/PID/stat */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return '?';
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] ? p[2] : '?';
}

/*
 * A handler without SA_RESTART interrupts the read it waits in (EINTR): the
 * loop reads on.  The child signals once the parent sleeps in the read, and
 * writes only once the handler has run (its byte on ack).
 */
static void test_a_signal_does_not_end_it(void **state)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	char buf[16] = { 0 };
	pid_t parent = getpid(), pid;
	int fd[2], status;

	assert_int_equal(pipe2(fd, O_CLOEXEC), 0);
	assert_int_equal(pipe2(ack, O_CLOEXEC), 0);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		close(fd[0]);
		while (state_of(parent) != 'S')
			sched_yield();
		kill(parent, SIGUSR1);
		if (read(ack[0], &c, 1) != 1 || write(fd[1], "late", 4) != 4)
			_exit(1);
		_exit(0);
	}
	close(fd[1]);
	assert_int_equal(iso_read_all(fd[0], buf, sizeof(buf)), 4);
	assert_string_equal(buf, "late");
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	sigaction(SIGUSR1, &old, NULL);
	close(fd[0]);
	close(ack[0]);
	close(ack[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_to_the_end),
		cmocka_unit_test(test_stops_at_the_buffers_end),
		cmocka_unit_test(test_a_signal_does_not_end_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
