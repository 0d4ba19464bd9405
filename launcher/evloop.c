// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "launcher/evloop.h"

int iso_evloop_watch(struct iso_evloop *l, int fd, int src, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)src };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int iso_evloop_add(struct iso_evloop *l, int fd, int src)
{
	return iso_evloop_watch(l, fd, src, EPOLLIN);
}

void iso_evloop_del(struct iso_evloop *l, int fd)
{
	(void)epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
}

int iso_evloop_open(struct iso_evloop *l, const sigset_t *mask, int sig_src, int timer_src,
		    struct iso_err *e)
{
	int r;

	l->sigfd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->sigfd < 0)
		return iso_err_set(e, errno, "create the event loop's signalfd");
	l->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (l->timerfd < 0)
		return iso_err_set(e, errno, "create the event loop's timerfd");
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return iso_err_set(e, errno, "create the event loop's epoll set");
	r = iso_evloop_add(l, l->sigfd, sig_src);
	if (r == 0)
		r = iso_evloop_add(l, l->timerfd, timer_src);
	if (r < 0)
		return iso_err_set(e, -r, "watch the signalfd and the timerfd");
	return 0;
}

static void set_timer(struct iso_evloop *l, uint64_t ms)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000;
	(void)timerfd_settime(l->timerfd, 0, &its, NULL);
}

void iso_evloop_arm(struct iso_evloop *l, uint64_t ms)
{
	/* a zero it_value would disarm the timer instead */
	set_timer(l, ms ? ms : 1);
}

void iso_evloop_disarm(struct iso_evloop *l)
{
	set_timer(l, 0);
}

bool iso_evloop_expired(struct iso_evloop *l)
{
	uint64_t ticks;

	return read(l->timerfd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks);
}

int iso_evloop_signals(struct iso_evloop *l, struct signalfd_siginfo *last)
{
	struct signalfd_siginfo si;
	int n = 0;

	memset(last, 0, sizeof(*last));
	while (read(l->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		*last = si;
		n++;
	}
	return n;
}

int iso_evloop_wait(struct iso_evloop *l, struct epoll_event *ev, int max, int timeout_ms)
{
	int n = epoll_wait(l->epfd, ev, max, timeout_ms);

	return n < 0 && errno == EINTR ? 0 : n;
}

void iso_evloop_close(struct iso_evloop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->sigfd >= 0)
		close(l->sigfd);
	if (l->timerfd >= 0)
		close(l->timerfd);
	l->epfd = l->sigfd = l->timerfd = -1;
}
