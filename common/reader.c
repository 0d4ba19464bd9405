// SPDX-License-Identifier: MIT
#include "common/reader.h"
#include "common/clock.h"
#include "common/ksig.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

struct iso_reader_job {
	void (*fn)(void *);
	void *arg;
	void (*free_fn)(void *);
	bool done, abandoned;
};

/*
 * What the thread touches.  Never freed under a stuck thread: it may return
 * long after the supervisor's frame is gone.
 */
struct iso_reader_core {
	pthread_mutex_t lock;
	int req_fd, done_fd;	    /* eventfds: a job waits / a job is done */
	struct iso_reader_job *job; /* the one in flight */
	bool quit;
	bool recovered; /* an abandoned job returned: the thread serves again */
};

/* The reader for procfs reads of the command (set by the supervisor while it runs). */
static struct iso_reader *proc_reader;

void iso_reader_set_proc(struct iso_reader *r)
{
	proc_reader = r;
}

struct iso_reader *iso_reader_proc(void)
{
	return proc_reader;
}

static void kick(int fd)
{
	uint64_t one = 1;

	(void)!write(fd, &one, sizeof(one));
}

/* Runs one job; one the caller had given up on is freed here. */
static void run_job(struct iso_reader_core *c, struct iso_reader_job *j)
{
	bool abandoned;

	j->fn(j->arg);
	pthread_mutex_lock(&c->lock);
	j->done = true;
	abandoned = j->abandoned;
	if (abandoned)
		c->recovered = true;
	pthread_mutex_unlock(&c->lock);
	if (!abandoned) {
		kick(c->done_fd);
		return;
	}
	if (j->free_fn)
		j->free_fn(j->arg);
	free(j);
}

/* glibc's own real-time signals: SIGCANCEL (32) and SIGSETXID (33). */
static const int reserved[] = { 32, 33 };

static void add_reserved(unsigned long *words)
{
	const unsigned bits = 8 * sizeof(unsigned long);

	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		words[(reserved[i] - 1) / bits] |= 1UL << ((reserved[i] - 1) % bits);
}

/*
 * glibc unblocks 32 and 33 in every thread it makes, and in the process's
 * first thread when it makes the second; the supervisor reads them from its
 * signalfd (kill -32 would otherwise end isorun through this thread), so they
 * are blocked again first thing.
 */
static void block_reserved(void)
{
	unsigned long m[1024 / (8 * sizeof(unsigned long))] = { 0 };

	add_reserved(m);
	(void)syscall(SYS_rt_sigprocmask, SIG_BLOCK, m, NULL, 8);
}

/*
 * A 32 or 33 for the process taken by a thread glibc is still starting (where
 * both are unblocked): blocked in that thread from the handler's return on
 * (glibc's sigaddset() refuses them, hence the mask's words) and sent to the
 * process again, where only a thread that reads them from a signalfd has them
 * blocked.  Not lost, as glibc's handler (33) or SIG_IGN (32) would lose it.
 */
static void requeue_reserved(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;
	int saved = errno;

	(void)si;
	if (sig != 32 && sig != 33)
		return; /* SIGRTMAX while it was lent: nothing to pass on */
	add_reserved((unsigned long *)&uc->uc_sigmask);
	(void)kill(getpid(), sig);
	errno = saved;
}

/*
 * The handler as glibc would install it (its restorer, which returning from a
 * handler needs and which no header exports), read back from SIGRTMAX lent
 * for the moment and given back as it was: every catchable signal is blocked
 * by then, and a handler in its place discards nothing pending.
 */
static int requeue_action(struct iso_ksigaction *out)
{
	struct sigaction sa = { .sa_sigaction = requeue_reserved, .sa_flags = SA_SIGINFO };
	struct iso_ksigaction old;
	int lent = SIGRTMAX, err;

	if ((err = iso_rt_sigaction(lent, NULL, &old)) < 0)
		return err;
	if (sigaction(lent, &sa, NULL) < 0)
		return -errno;
	if ((err = iso_rt_sigaction(lent, NULL, out)) < 0 ||
	    (err = iso_rt_sigaction(lent, &old, NULL)) < 0)
		return err;
	out->mask = 0;
	add_reserved(&out->mask);
	return 0;
}

static void *first_thread(void *p)
{
	return p;
}

/*
 * Once, before anything can send isorun a 32 or 33: glibc's first
 * pthread_create() installs its own handler for 33 and unblocks both in the
 * caller, so a thread is made and joined first; then both get the handler
 * that passes them on to the signalfd, and are blocked again.
 */
int iso_reader_keep_reserved(void)
{
	struct iso_ksigaction act;
	pthread_t t;
	int err;

	/*
	 * glibc's set-up runs before its clone: a thread refused (EAGAIN at the
	 * process limit) still leaves it done, and the run goes on without one
	 */
	if (pthread_create(&t, NULL, first_thread, NULL) == 0)
		(void)pthread_join(t, NULL);
	block_reserved();
	err = requeue_action(&act);
	if (err < 0)
		return err;
	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if ((err = iso_rt_sigaction(reserved[i], &act, NULL)) < 0)
			return err;
	return 0;
}

static void *reader_main(void *p)
{
	struct iso_reader_core *c = p;
	uint64_t n;

	block_reserved();
	for (;;) {
		struct iso_reader_job *j;
		bool quit;

		if (read(c->req_fd, &n, sizeof(n)) < 0 && errno == EINTR)
			continue;
		pthread_mutex_lock(&c->lock);
		j = c->job;
		c->job = NULL;
		quit = c->quit;
		pthread_mutex_unlock(&c->lock);
		if (quit)
			return NULL;
		if (j)
			run_job(c, j);
	}
}

static void core_free(struct iso_reader_core *c)
{
	if (c->req_fd >= 0)
		close(c->req_fd);
	if (c->done_fd >= 0)
		close(c->done_fd);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int iso_reader_start(struct iso_reader *r, unsigned deadline_ms, struct iso_err *e)
{
	struct iso_reader_core *c = calloc(1, sizeof(*c));
	int err;

	*r = (struct iso_reader){ .deadline_ms = deadline_ms };
	if (!c)
		return iso_err_set(e, ENOMEM, "start the reader of the command's memory");
	pthread_mutex_init(&c->lock, NULL);
	c->req_fd = eventfd(0, EFD_CLOEXEC);
	c->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->req_fd < 0 || c->done_fd < 0) {
		err = errno;
		core_free(c);
		return iso_err_set(e, err,
				   "create the eventfds of the reader of the command's memory");
	}
	err = pthread_create(&r->thread, NULL, reader_main, c);
	/* the first pthread_create() unblocks them in the caller too */
	block_reserved();
	if (err) {
		core_free(c);
		return iso_err_set(e, err, "start the thread that reads the command's memory");
	}
	r->core = c;
	r->running = true;
	return 0;
}

/* Whether the job that overran has returned since: then the thread serves again. */
static bool back(struct iso_reader *r)
{
	struct iso_reader_core *c = r->core;

	pthread_mutex_lock(&c->lock);
	if (c->recovered) {
		c->recovered = false;
		r->stuck = false;
	}
	pthread_mutex_unlock(&c->lock);
	return !r->stuck;
}

void iso_reader_stop(struct iso_reader *r)
{
	struct iso_reader_core *c = r->core;

	if (!r->running)
		return;
	r->running = false;
	if (r->stuck && !back(r)) {
		/* its wait is the command's: the process's exit ends the thread */
		pthread_detach(r->thread);
		return;
	}
	pthread_mutex_lock(&c->lock);
	c->quit = true;
	pthread_mutex_unlock(&c->lock);
	kick(c->req_fd);
	pthread_join(r->thread, NULL);
	core_free(c);
	r->core = NULL;
}

/* Wait for the job's end, at most the deadline; false when it overran. */
static bool wait_done(struct iso_reader *r, struct iso_reader_job *j)
{
	struct iso_reader_core *c = r->core;
	struct pollfd p = { .fd = c->done_fd, .events = POLLIN };
	uint64_t n, now, end = iso_now_ms() + r->deadline_ms;

	for (;;) {
		bool done;

		/* a count is only a wake-up: the job's own flag says whose end it was */
		(void)!read(c->done_fd, &n, sizeof(n));
		pthread_mutex_lock(&c->lock);
		done = j->done;
		pthread_mutex_unlock(&c->lock);
		if (done)
			return true;
		now = iso_now_ms();
		if (now >= end)
			return false;
		(void)poll(&p, 1, end - now > INT_MAX ? INT_MAX : (int)(end - now));
	}
}

int iso_reader_run(struct iso_reader *r, void (*fn)(void *), void *arg, void (*free_fn)(void *))
{
	struct iso_reader_core *c;
	struct iso_reader_job *j;
	bool overran;

	if (!r || !r->running) {
		fn(arg);
		return 0;
	}
	if (r->stuck && !back(r)) {
		/* ours to free as after an overrun: the caller never frees on -ETIMEDOUT */
		if (free_fn)
			free_fn(arg);
		return -ETIMEDOUT;
	}
	c = r->core;
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	*j = (struct iso_reader_job){ .fn = fn, .arg = arg, .free_fn = free_fn };
	pthread_mutex_lock(&c->lock);
	c->job = j;
	pthread_mutex_unlock(&c->lock);
	kick(c->req_fd);
	overran = !wait_done(r, j);
	pthread_mutex_lock(&c->lock);
	if (overran && !j->done) {
		j->abandoned = true;
		r->stuck = true;
	} else {
		overran = false;
	}
	pthread_mutex_unlock(&c->lock);
	if (overran)
		return -ETIMEDOUT;
	free(j);
	return 0;
}

struct stat_job {
	int dirfd; /* a copy: the caller's may be closed while an abandoned job runs */
	char *path;
	int flags, r;
	struct stat st;
};

static void stat_job_run(void *arg)
{
	struct stat_job *j = arg;

	j->r = fstatat(j->dirfd, j->path, &j->st, j->flags) < 0 ? -errno : 0;
}

static void stat_job_free(void *arg)
{
	struct stat_job *j = arg;

	if (j->dirfd >= 0)
		close(j->dirfd);
	free(j->path);
	free(j);
}

int iso_reader_fstatat(struct iso_reader *r, int dirfd, const char *path, struct stat *st,
		       int flags)
{
	struct stat_job *j = calloc(1, sizeof(*j));
	int rc;

	if (!j)
		return -ENOMEM;
	j->flags = flags;
	j->path = strdup(path);
	j->dirfd = dirfd == AT_FDCWD ? AT_FDCWD : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (!j->path || j->dirfd == -1) {
		rc = j->path ? -errno : -ENOMEM;
		stat_job_free(j);
		return rc;
	}
	rc = iso_reader_run(r, stat_job_run, j, stat_job_free);
	if (rc == -ETIMEDOUT)
		return rc;
	if (rc == 0) {
		rc = j->r;
		if (rc == 0)
			*st = j->st;
	}
	stat_job_free(j);
	return rc;
}
