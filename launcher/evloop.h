/* SPDX-License-Identifier: MIT */
/*
 * One epoll set with its signalfd and its timerfd: the event loop of the
 * supervisor (supervise.c) and of the PID-namespace init (init.c).  Each loop names
 * its event sources with an enum of its own; the source is the epoll tag.
 */
#ifndef ISO_EVLOOP_H
#define ISO_EVLOOP_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>

#include "common/err.h"

struct sup_evloop {
	int epfd, sigfd, timerfd;
};

#define SUP_EVLOOP_INIT                                                                            \
	{                                                                                          \
		.epfd = -1, .sigfd = -1, .timerfd = -1                                             \
	}

/* The set, a signalfd for `mask` tagged sig_src and a timerfd tagged timer_src. */
int sup_evloop_open(struct sup_evloop *l, const sigset_t *mask, int sig_src, int timer_src,
		    struct iso_err *e);
/* Watch fd for input, tagged src. */
int sup_evloop_add(struct sup_evloop *l, int fd, int src);
/* Watch fd for these epoll events, tagged src. */
int sup_evloop_watch(struct sup_evloop *l, int fd, int src, uint32_t events);
void sup_evloop_del(struct sup_evloop *l, int fd);
/* One shot after ms (0 counts as 1 ms: "now, after the other events"). */
void sup_evloop_arm(struct sup_evloop *l, uint64_t ms);
void sup_evloop_disarm(struct sup_evloop *l);
/* Consume the timer's expiry; false when it had not expired (a stale wakeup). */
bool sup_evloop_expired(struct sup_evloop *l);
/* Drain the signalfd into *last (the last signal read, 0 if none); returns how many. */
int sup_evloop_signals(struct sup_evloop *l, struct signalfd_siginfo *last);
/* Wait for up to max events (timeout_ms -1: forever); EINTR is 0 events. */
int sup_evloop_wait(struct sup_evloop *l, struct epoll_event *ev, int max, int timeout_ms);
void sup_evloop_close(struct sup_evloop *l);

#endif
