// SPDX-License-Identifier: MIT
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "launcher/evloop.h"

int sup_evloop_watch(struct sup_evloop *l, int fd, int src, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = (uint64_t)src };

	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int sup_evloop_add(struct sup_evloop *l, int fd, int src)
{
	return sup_evloop_watch(l, fd, src, EPOLLIN);
}

void sup_evloop_del(struct sup_evloop *l, int fd)
{
	(void)epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
}

int sup_evloop_open(struct sup_evloop *l, const sigset_t *mask, int sig_src, int timer_src,
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
	r = sup_evloop_add(l, l->sigfd, sig_src);
	if (r == 0)
		r = sup_evloop_add(l, l->timerfd, timer_src);
	if (r < 0)
		return iso_err_set(e, -r, "watch the signalfd and the timerfd");
	return 0;
}

static void set_timer(struct sup_evloop *l, uint64_t ms)
{
	struct itimerspec its = { 0 };

	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000;
	(void)timerfd_settime(l->timerfd, 0, &its, NULL);
}

void sup_evloop_arm(struct sup_evloop *l, uint64_t ms)
{
	/* a zero it_value would disarm the timer instead */
	set_timer(l, ms ? ms : 1);
}

void sup_evloop_disarm(struct sup_evloop *l)
{
	set_timer(l, 0);
}

bool sup_evloop_expired(struct sup_evloop *l)
{
	uint64_t ticks;

	return read(l->timerfd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks);
}

int sup_evloop_signals(struct sup_evloop *l, struct signalfd_siginfo *last)
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

int sup_evloop_wait(struct sup_evloop *l, struct epoll_event *ev, int max, int timeout_ms)
{
	int n = epoll_wait(l->epfd, ev, max, timeout_ms);

	return n < 0 && errno == EINTR ? 0 : n;
}

void sup_evloop_close(struct sup_evloop *l)
{
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->sigfd >= 0)
		close(l->sigfd);
	if (l->timerfd >= 0)
		close(l->timerfd);
	l->epfd = l->sigfd = l->timerfd = -1;
}
