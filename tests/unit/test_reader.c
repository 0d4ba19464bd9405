// SPDX-License-Identifier: MIT
/*
 * Unit tests: glibc's own signals 32 and 33 sent to the process while a thread
 * glibc starts has them unblocked reach the signalfd of the thread that reads
 * them (common/reader.h, iso_reader_keep_reserved), as the supervisor's loop
 * reads every signal it passes on.  glibc's handler of 33, or SIG_IGN for 32,
 * would drop them: `kill -33` to isorun then never reached the command.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/reader.h"

#define BIT(sig) (1ULL << ((sig)-1))

struct window {
	int ready, took, quit; /* eventfds */
};

/*
 * A thread in glibc's start window, as the kernel sees it: 32 and 33 unblocked
 * while it waits (ppoll's mask), so one sent before the wait is taken there too.
 */
static void *in_window(void *p)
{
	struct window *w = p;
	uint64_t m = BIT(32) | BIT(33), open_mask, one = 1;
	struct pollfd q = { .fd = w->quit, .events = POLLIN };

	(void)syscall(SYS_rt_sigprocmask, SIG_BLOCK, &m, &open_mask, sizeof(m));
	open_mask &= ~m;
	(void)!write(w->ready, &one, sizeof(one));
	/* each signal taken here ends the wait with EINTR */
	while (syscall(SYS_ppoll, &q, 1, NULL, &open_mask, sizeof(open_mask)) < 0 && errno == EINTR)
		(void)!write(w->took, &one, sizeof(one));
	return NULL;
}

/*
 * Send SIG to the process, wait until the thread in its window took it (else
 * the signalfd could be read first, and the window proves nothing), then read
 * what reached the signalfd.
 */
static int through_window(struct window *w, int sfd, int sig)
{
	struct pollfd took = { .fd = w->took, .events = POLLIN };
	struct pollfd p = { .fd = sfd, .events = POLLIN };
	struct signalfd_siginfo si;
	uint64_t n;

	if (kill(getpid(), sig) < 0)
		return -1;
	/* safety nets: the thread takes it at once; the signal is pending at once, or lost */
	if (poll(&took, 1, 5000) != 1 || read(w->took, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return -2;
	if (poll(&p, 1, 2000) != 1 || read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return -3;
	return (int)si.ssi_signo;
}

/* One thread in its window takes SIG; what reaches the signalfd. */
static int one_window(int sfd, int sig)
{
	uint64_t n, one = 1;
	struct window w;
	pthread_t t;
	int got;

	w.ready = eventfd(0, EFD_CLOEXEC);
	w.took = eventfd(0, EFD_CLOEXEC);
	w.quit = eventfd(0, EFD_CLOEXEC);
	assert_true(w.ready >= 0 && w.took >= 0 && w.quit >= 0);
	assert_int_equal(pthread_create(&t, NULL, in_window, &w), 0);
	assert_int_equal(read(w.ready, &n, sizeof(n)), (ssize_t)sizeof(n));
	got = through_window(&w, sfd, sig);
	(void)!write(w.quit, &one, sizeof(one));
	assert_int_equal(pthread_join(t, NULL), 0);
	close(w.ready);
	close(w.took);
	close(w.quit);
	return got;
}

static void test_reserved_reach_the_signalfd(void **state)
{
	uint64_t all = ~0ULL, want = BIT(32) | BIT(33);
	int sfd;

	(void)state;
	assert_int_equal(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all)), 0);
	assert_int_equal(iso_reader_keep_reserved(), 0);
	sfd = (int)syscall(SYS_signalfd4, -1, &want, sizeof(want), SFD_CLOEXEC);
	assert_true(sfd >= 0);
	/* the only thread that takes them is the one in its window */
	assert_int_equal(one_window(sfd, 32), 32);
	assert_int_equal(one_window(sfd, 33), 33);
	close(sfd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserved_reach_the_signalfd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
