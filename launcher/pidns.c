// SPDX-License-Identifier: MIT
/* The outer side of --pidns: clone init, write its maps, hand it the go. */
#include "launcher/pidns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/num.h"
#include "common/cleanup.h"
#include "common/fault.h"
#include "common/fdpass.h"
#include "common/proc.h"
#include "common/text.h"
#include "launcher/init.h"
#include "launcher/mapusers.h"
#include "ns/ns.h"

/* The NSpid fields of pid as isorun reads them: one per namespace, outermost first. */
static int nspids(pid_t pid, pid_t *v, int max)
{
	char buf[512], *tok, *save = NULL;
	int n = 0, r = iso_proc_status(pid, "NSpid", buf, sizeof(buf));

	if (r < 0)
		return r;
	for (tok = strtok_r(buf, " \t", &save); tok && n < max; tok = strtok_r(NULL, " \t", &save))
		v[n++] = (pid_t)iso_parse_pid(tok);
	return n;
}

int sup_pidns_outer_pids(pid_t init, const pid_t *inner, pid_t *outer, size_t n)
{
	struct iso_proc *list = NULL;
	pid_t v[32];
	int level = nspids(init, v, (int)ELEMENTSOF(v)), count, alive = 0;

	for (size_t j = 0; j < n; j++)
		outer[j] = 0;
	/*
	 * init's own NSpid ends at its namespace: that field's index is the level a
	 * survivor's pid was read at by init, whatever nested namespaces lie below.
	 */
	if (level < 2)
		return -1;
	count = iso_proc_descendants(init, &list);
	for (int i = 0; i < count; i++) {
		int k = nspids(list[i].pid, v, (int)ELEMENTSOF(v));

		alive += iso_proc_alive(&list[i]);
		if (k < level)
			continue;
		for (size_t j = 0; j < n; j++)
			if (!outer[j] && v[level - 1] == inner[j])
				outer[j] = list[i].pid;
	}
	free(list);
	return count < 0 ? -1 : alive;
}

/*
 * Init's next word, or -ETIMEDOUT past `end`: whatever init waits on while it
 * starts the command (its setup, the child's exec and the word that says it
 * passed), the outer does not wait on it without a bound.
 */
static int await_word(int sock, uint64_t end, struct iso_err *e)
{
	struct pollfd p = { .fd = sock, .events = POLLIN };
	char dur[32];

	for (;;) {
		uint64_t now = iso_now_ms();
		int r = poll(&p, 1, now >= end ? 0 : (int)(end - now));

		if (r > 0)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return iso_err_set(e, errno, "wait for the namespace's init");
		iso_format_duration(SUP_START_DEADLINE_MS, dur, sizeof(dur));
		iso_err_set(e, 0,
			    "the namespace's init did not start the command within %s; killed it",
			    dur);
		return -ETIMEDOUT;
	}
}

/*
 * Init's messages until the command started or failed: policy events on the way,
 * then the final one, which carries the seccomp listener (or says that an
 * enclosing isorun guards instead).  Returns 0 with *m the final message, or
 * -EIO when init died meanwhile.
 */
static int await_start(int sock, struct sup_ns_msg *m, const struct sup_ns_events *ev,
		       struct sup_ns_started *st, struct iso_err *e)
{
	/* ISORUN_TEST_FAULT=stalled-start: init never answers, the deadline is now */
	uint64_t end = iso_test_fault("stalled-start") ? iso_now_ms()
						       : iso_now_ms() + SUP_START_DEADLINE_MS;

	for (;;) {
		int fd = -1, r = await_word(sock, end, e);

		if (r < 0)
			return r;
		r = sup_ns_recv_fd(sock, m, &fd);

		if (r <= 0) {
			iso_err_set(e, r < 0 ? -r : 0,
				    "the namespace's init died while setting up");
			return -EIO;
		}
		if (m->type != SUP_NS_POLICY_EVENT) {
			st->listener = fd;
			st->guard_elsewhere = m->sig == EBUSY;
			return 0;
		}
		if (fd >= 0)
			close(fd);
		if (ev && ev->fn)
			ev->fn((const struct sup_ns_event_wire *)m->event, ev->arg);
	}
}

/*
 * A fork with namespace flags: the child is PID 1 of the new PID namespace.  The
 * raw call, as glibc's clone() wants a new stack; its first two arguments are
 * swapped on s390 and CRIS (stack, then flags), and the three after them are 0
 * here, whatever their order on the architecture.
 */
static pid_t clone_init(struct sup_ns_plan *p, int inner, int outer, struct iso_err *e)
{
	unsigned long flags = CLONE_NEWPID | CLONE_NEWNS;
	pid_t pid;

	if (p->userns)
		flags |= CLONE_NEWUSER;
	if (p->mounts.net_isolated)
		flags |= CLONE_NEWNET;
#if defined(__s390__) || defined(__CRIS__)
	pid = (pid_t)syscall(SYS_clone, NULL, flags | SIGCHLD, NULL, NULL, 0);
#else
	pid = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, 0);
#endif
	if (pid < 0) {
		int err = errno;
		/* the same causes refuse a PID or mount namespace to root: name them */
		ns_userns_explain(err, e);
		if (!e->msg[0])
			iso_err_set(e, err, "create the namespaces (clone)");
		return -err;
	}
	if (pid == 0) {
		close(outer);
		sup_init_main(p, inner);
	}
	return pid;
}

int sup_pidns_start(struct sup_ns_plan *p, const struct sup_ns_events *ev,
		    struct sup_ns_started *st, struct iso_err *e)
{
	_cleanup_close_ int outer = -1, inner = -1;
	struct sup_ns_msg m = { .type = SUP_NS_GO };
	int sv[2], r;
	pid_t pid;

	*st = (struct sup_ns_started){ .sock = -1, .listener = -1 };
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return iso_err_set(e, errno, "create the namespace control socket");
	outer = sv[0];
	inner = sv[1];
	pid = clone_init(p, inner, outer, e);
	if (pid < 0)
		return pid;
	close(TAKE_FD(inner));
	st->init = pid;
	if (p->userns) {
		/* init waits for GO: no command runs yet, and the helpers are bounded */
		if (p->ranged) {
			r = ns_userns_write_ranges(pid, &p->idmaps, SUP_MAPPER_TIMEOUT_MS, e);
			p->map_failed = r < 0;
		} else
			r = ns_userns_write_maps(pid, p->inside_uid, p->inside_gid, getuid(),
						 getgid(), e);
		if (r < 0)
			goto kill_init;
	}
	r = sup_ns_send(outer, &m);
	if (r < 0) {
		iso_err_set(e, -r, "start the namespace's init");
		goto kill_init;
	}
	r = await_start(outer, &m, ev, st, e);
	if (r < 0)
		goto kill_init;
	if (m.type == SUP_NS_FAILED && m.stage == SUP_STAGE_EXEC) {
		st->fail = (struct sup_exec_failure){ .errnum = m.err.errnum, .stage = m.stage };
	} else if (m.type == SUP_NS_FAILED) {
		/* init's message names the step (setup, caps, seccomp, chdir); keep it whole */
		*e = m.err;
		if (!e->msg[0])
			iso_err_set(e, m.err.errnum, "start the command in the namespace");
		r = -(m.err.errnum ? m.err.errnum : EIO);
		goto kill_init;
	}
	/* init's word on the tree's gate rides on STARTED: empty when its overlay is up */
	if (m.type == SUP_NS_STARTED)
		snprintf(p->gate_why, sizeof(p->gate_why), "%.199s", m.err.msg);
	st->sock = TAKE_FD(outer);
	return 0;

kill_init:
	if (st->listener >= 0)
		close(TAKE_FD(st->listener));
	(void)kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
	st->init = 0;
	return r < 0 ? r : -EIO;
}
