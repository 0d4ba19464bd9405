// SPDX-License-Identifier: MIT
/*
 * sup_outputs_shared(): when the caller's stdout and stderr are one ordered stream
 * (`>log 2>&1`, `2>&1 | cat`, `1>&2`), the command must get one pipe for both, or
 * the relay reorders its lines.  Each spelling of "the same destination" is built
 * here from real descriptors, and so are the look-alikes that must stay apart;
 * then again with kcmp refused, as a container's seccomp profile may.
 */
#include "tests/unit/unit.h"

#include <limits.h>
#include <poll.h>
#include <seccomp.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/kcmp.h>

#include "launcher/relay.h"

struct fx {
	char dir[PATH_MAX];
	char file[PATH_MAX + 16];
	char other[PATH_MAX + 16];
};

static int setup(void **state)
{
	static struct fx fx;

	if (unit_mkdtemp(fx.dir, sizeof(fx.dir), "isorun-relay-XXXXXX") < 0)
		return -1;
	snprintf(fx.file, sizeof(fx.file), "%s/log", fx.dir);
	snprintf(fx.other, sizeof(fx.other), "%s/other", fx.dir);
	*state = &fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	unlink(fx->file);
	unlink(fx->other);
	return rmdir(fx->dir);
}

static int open_log(const struct fx *fx, int flags)
{
	int fd = open(fx->file, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);

	assert_true(fd >= 0);
	return fd;
}

/* A second open of what `fd` is, through /proc: a new file description. */
static int reopen(int fd, int flags)
{
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = open(path, flags | O_CLOEXEC);
	assert_true(r >= 0);
	return r;
}

static void expect(int a, int b, bool shared)
{
	assert_int_equal(sup_outputs_shared(a, b), shared);
	assert_int_equal(sup_outputs_shared(b, a), shared);
	close(a);
	close(b);
}

static void test_pipes(void **state)
{
	int p[2], q[2];

	(void)state;
	/* `2>&1 | cat`: one description */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	expect(p[1], dup(p[1]), true);
	close(p[0]);
	/* one pipe opened twice (a FIFO named twice): still one ordered buffer */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	expect(p[1], reopen(p[1], O_WRONLY), true);
	close(p[0]);
	/* `>(cat) 2>(cat)`: two pipes */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_int_equal(pipe2(q, O_CLOEXEC), 0);
	expect(p[1], q[1], false);
	close(p[0]);
	close(q[0]);
}

static void test_sockets(void **state)
{
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	expect(sv[0], dup(sv[0]), true);
	close(sv[1]);
	/* the two ends are two sockets */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	expect(sv[0], sv[1], false);
}

static void test_files(void **state)
{
	const struct fx *fx = *state;
	int a, b;

	/* `>log 2>&1` and `2>log 1>&2` */
	a = open_log(fx, O_TRUNC);
	expect(a, dup(a), true);
	/* `>log 2>log`: two offsets, the bare command's lines overwrite each other */
	a = open_log(fx, O_TRUNC);
	expect(a, open_log(fx, 0), false);
	/* `>log 2>>log`: one offset and one append, no order either */
	a = open_log(fx, O_TRUNC);
	expect(a, open_log(fx, O_APPEND), false);
	/* `>>log 2>>log`: every write lands at the end, in the order written */
	a = open_log(fx, O_APPEND);
	expect(a, open_log(fx, O_APPEND), true);
	/* `>log 2>other` */
	a = open_log(fx, O_APPEND);
	b = open(fx->other, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	assert_true(b >= 0);
	expect(a, b, false);
}

static void test_dev_null(void **state)
{
	int a = open("/dev/null", O_WRONLY | O_CLOEXEC);

	(void)state;
	assert_true(a >= 0);
	/* `>/dev/null 2>&1` keeps no order: the report keeps both tails apart */
	expect(a, dup(a), false);
}

static int deny_kcmp(void)
{
	scmp_filter_ctx ctx;
	int r = -1;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -1;
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kcmp), 0) == 0 &&
	    seccomp_load(ctx) == 0)
		r = 0;
	seccomp_release(ctx);
	return r;
}

static int no_kcmp_child(const struct fx *fx)
{
	pid_t self = getpid();
	int a, b;

	CHILD_CHECK(deny_kcmp() == 0);
	CHILD_CHECK(syscall(SYS_kcmp, self, self, KCMP_FILE, 0, 0) < 0 && errno == EPERM);
	a = open(fx->file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHILD_CHECK(a >= 0);
	b = dup(a);
	CHILD_CHECK(b >= 0);
	CHILD_CHECK(write(a, "x\n", 2) == 2);
	/* one description: one offset, whichever fd moved it */
	CHILD_CHECK(sup_outputs_shared(a, b));
	close(b);
	b = open(fx->file, O_WRONLY | O_CLOEXEC);
	CHILD_CHECK(b >= 0);
	/* a second open, at another offset */
	CHILD_CHECK(!sup_outputs_shared(a, b));
	close(b);
	/* `>>log 2>>log` needs no kcmp */
	close(a);
	a = open(fx->file, O_WRONLY | O_APPEND | O_CLOEXEC);
	b = open(fx->file, O_WRONLY | O_APPEND | O_CLOEXEC);
	CHILD_CHECK(a >= 0 && b >= 0);
	CHILD_CHECK(sup_outputs_shared(a, b));
	close(a);
	close(b);
	return 0;
}

/* Without kcmp, the flags and offset stand in for the description's identity. */
static void test_without_kcmp(void **state)
{
	const struct fx *fx = *state;
	pid_t pid = unit_fork(30);

	if (pid == 0)
		_exit(no_kcmp_child(fx));
	assert_int_equal(unit_wait(pid), 0);
}

/* The command: a counting pattern, 64 KiB a write; a byte on `filled` once both pipes are full. */
static _Noreturn void write_pattern(int wr, size_t total, size_t both, int filled)
{
	static unsigned char buf[65536 + 251];
	size_t sent = 0;

	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i % 251);
	while (sent < total) {
		if (write(wr, buf + sent % 251, 65536) != 65536)
			_exit(1);
		sent += 65536;
		if (sent == both && write(filled, "", 1) != 1)
			_exit(1);
	}
	_exit(0);
}

/* Every byte of `total` read from `rd`, in order: fails the test otherwise. */
static void read_pattern(int rd, size_t total)
{
	size_t got = 0;

	for (;;) {
		unsigned char buf[4096];
		ssize_t n = read(rd, buf, sizeof(buf));
		assert_true(n >= 0);
		if (n == 0)
			break;
		for (ssize_t i = 0; i < n; i++)
			if (buf[i] != (unsigned char)((got + (size_t)i) % 251))
				fail_msg("byte %zu out of order", got + (size_t)i);
		got += (size_t)n;
	}
	assert_int_equal(got, total);
}

/*
 * The supervisor's way: the pump never waits for our output; a full output is
 * waited for here, and input is not looked at meanwhile.  0 when every byte
 * went through and the output was full at least once (3 when it never was).
 */
static int relay_loop(struct sup_stream *st, size_t total)
{
	st->out_watched = true;
	while (!st->eof) {
		struct pollfd p = { .fd = st->out_full ? st->out : st->rd,
				    .events = st->out_full ? POLLOUT : POLLIN };
		if (!st->more && poll(&p, 1, -1) < 0)
			return 1;
		st->out_full = false;
		if (sup_stream_pump(st) < 0)
			return 1;
	}
	return st->bytes != total ? 2 : st->fulls == 0 ? 3 : 0;
}

/*
 * 3 MiB from a command through the relay to a reader that starts once the
 * command has written both pipes' worth: the output is full then and the
 * command's pipe holds the rest.  Everything arrives, in order; returns
 * whether the relay found its output full, which a relay that is descheduled
 * until the reader made room never does.
 */
static bool relay_through_full_output(int *big_out)
{
	struct sup_stream *st = calloc(1, sizeof(*st));
	int out[2], filled[2], big, code;
	size_t total = 3u << 20;
	pid_t pid, relay;
	char c;

	assert_non_null(st);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(fcntl(out[1], F_GETPIPE_SZ), 65536);
	assert_int_equal(sup_stream_open(st, "stdout", out[1], false), 0);
	assert_int_equal(fcntl(out[1], F_GETPIPE_SZ), fcntl(st->wr, F_GETPIPE_SZ));
	big = *big_out = fcntl(out[1], F_GETPIPE_SZ);
	assert_true(big >= 65536 && total > 2 * (size_t)big);
	assert_int_equal(pipe2(filled, O_CLOEXEC), 0);
	pid = unit_fork(60);
	if (pid == 0) {
		close(out[0]);
		close(st->rd);
		close(filled[0]);
		write_pattern(st->wr, total, 2 * (size_t)big, filled[1]);
	}
	close(st->wr);
	st->wr = -1;
	close(filled[1]);
	relay = unit_fork(60);
	if (relay == 0) {
		/* the relay, in a process of its own so that the reader below runs beside it */
		close(out[0]);
		close(filled[0]);
		_exit(relay_loop(st, total));
	}
	close(out[1]);
	sup_stream_close(st);
	free(st);
	assert_int_equal(read(filled[0], &c, 1), 1);
	close(filled[0]);
	read_pattern(out[0], total);
	close(out[0]);
	assert_int_equal(unit_wait(pid), 0);
	code = unit_wait(relay);
	assert_true(code == 0 || code == 3);
	return code == 0;
}

/*
 * The relay's pipe to the caller (`isorun ... | cat`) grows to the command's
 * pipe size, so one splice moves a whole buffer; a larger one is never shrunk.
 * Through a full output the bytes arrive whole and in order, the pump stops at
 * a full output and goes on when it has room: that happens in one of five tries
 * at least (the last step, the relay's splice before the reader starts, is the
 * scheduler's to order).  A wakeup lost on the way hangs the relay: unit_fork's
 * alarm fails the test.
 */
static void test_output_pipe_grows_and_order_holds(void **state)
{
	int big = 0, out[2];
	bool waited = false;

	(void)state;
	for (int try = 0; try < 5 && !waited; try++)
		waited = relay_through_full_output(&big);
	assert_true(waited);

	/* a pipe already larger than the command's stays as it is */
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	if (fcntl(out[1], F_SETPIPE_SZ, 2 * big) >= 2 * big) {
		struct sup_stream *again = calloc(1, sizeof(*again));
		assert_non_null(again);
		assert_int_equal(sup_stream_open(again, "stdout", out[1], false), 0);
		assert_int_equal(fcntl(out[1], F_GETPIPE_SZ), 2 * big);
		sup_stream_close(again);
		free(again);
	}
	close(out[0]);
	close(out[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pipes),
		cmocka_unit_test(test_sockets),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_dev_null),
		cmocka_unit_test(test_without_kcmp),
		cmocka_unit_test(test_output_pipe_grows_and_order_holds),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
