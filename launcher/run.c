// SPDX-License-Identifier: MIT
/*
 * Process roles.
 *
 * isorun (this process) is the outer supervisor: a child subreaper, so every
 * process the command starts, however it detaches, stays a descendant of isorun
 * until it is reaped.  It relays the command's output, enforces the timeout and
 * cancellation, and after the command exits runs the leak gate:
 *
 *   RUNNING --command exits--> SETTLE --window over / tree empty--> JOINED
 *   RUNNING --signal/timeout--> CANCEL --grace over / tree empty--> JOINED
 *   JOINED --pipes at EOF, or deadline--> teardown, report, exit
 *
 * "The tree is empty" has positive evidence: isorun has no child left.  Every
 * live descendant whose parent died was reparented to isorun, so no child means
 * no descendant.  Everything is driven by one epoll: a signalfd (SIGCHLD and the
 * cancel signals), the output pipes and one timerfd for whichever deadline is next.
 */
#include "launcher/run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <pwd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "launcher/capsplan.h"
#include "launcher/cleanup.h"
#include "launcher/env.h"
#include "launcher/exit.h"
#include "launcher/holders.h"
#include "launcher/leak.h"
#include "launcher/outcome.h"
#include "launcher/pidns.h"
#include "launcher/proc.h"
#include "launcher/relay.h"
#include "launcher/report.h"
#include "launcher/residue.h"
#include "launcher/rmtree.h"
#include "launcher/shell.h"
#include "launcher/spawn.h"
#include "launcher/summary.h"
#include "launcher/text.h"
#include "launcher/tree.h"
#include "ns/ns.h"
#include "policy/policy.h"

extern char **environ;

enum phase { RUNNING, SETTLE, CANCEL, JOINED, DONE };

struct sup {
	const struct iso_opts *o;
	struct iso_outcome *out;
	pid_t self;
	pid_t cmd;
	int epfd, sigfd, timerfd;
	enum phase phase;
	struct iso_stream streams[2];
	bool relayed[2];
	bool tty_handed;
	int tty_fd;
	uint64_t cmd_exit_ms; /* monotonic, when the command's status came in */
	/* --pidns: s->cmd is the namespace's init, the command's status comes by message */
	bool pidns;
	int nsock;
	bool init_gone;
	const struct pol *pol;
	int listener; /* seccomp notifications, -1 when none */
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* The time since *mark, and *mark moved to now: consecutive phases leave no gap. */
static uint64_t lap(uint64_t *mark)
{
	uint64_t now = now_us(), d = now - *mark;

	*mark = now;
	return d;
}

static void arm(struct sup *s, uint64_t ms)
{
	struct itimerspec its = { 0 };

	/* 0 would disarm: a zero-length window still has to fire */
	if (ms == 0)
		ms = 1;
	its.it_value.tv_sec = (time_t)(ms / 1000);
	its.it_value.tv_nsec = (long)(ms % 1000) * 1000000;
	(void)timerfd_settime(s->timerfd, 0, &its, NULL);
}

static void disarm(struct sup *s)
{
	struct itimerspec its = { 0 };

	(void)timerfd_settime(s->timerfd, 0, &its, NULL);
}

static void record_status(struct sup *s, int status)
{
	if (s->out->exited)
		return;
	s->out->exited = true;
	s->cmd_exit_ms = now_ms();
	if (WIFEXITED(status))
		s->out->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		s->out->term_signal = WTERMSIG(status);
}

static void on_reaped(pid_t pid, int status, void *arg)
{
	struct sup *s = arg;

	if (pid != s->cmd)
		return;
	if (s->pidns) {
		s->init_gone = true;
		return;
	}
	record_status(s, status);
}

static bool streams_done(const struct sup *s)
{
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && !s->streams[i].eof)
			return false;
	return true;
}

static void enter_joined(struct sup *s)
{
	disarm(s);
	if (streams_done(s)) {
		s->phase = DONE;
		return;
	}
	/* The tree is gone; whoever still holds a pipe is outside it.  Bounded wait. */
	s->phase = JOINED;
	arm(s, s->o->settle_ms);
}

static void kill_all(struct sup *s, bool as_leaks)
{
	struct iso_leak *leaks = NULL;
	size_t n = 0;
	(void)iso_freeze_kill(s->self, s->cmd, as_leaks ? &leaks : NULL, as_leaks ? &n : NULL,
			      on_reaped, s);
	if (as_leaks && n) {
		s->out->leaks = leaks;
		s->out->n_leaks = n;
		s->out->leak_alive_ms = now_ms() - s->cmd_exit_ms;
	} else {
		iso_leaks_free(leaks, n);
	}
}

/* The command's status is in: survivors get --settle to go by themselves. */
static void after_command(struct sup *s)
{
	if (iso_no_children()) {
		enter_joined(s);
		return;
	}
	s->phase = SETTLE;
	arm(s, s->o->settle_ms);
}

/*
 * --pidns: init does the signalling inside; the outer's last word is SIGKILL to
 * init, after which the kernel kills everything in the namespace.
 */
static void cancel_pidns(struct sup *s, int sig)
{
	struct iso_ns_msg m = { .type = sig ? ISO_NS_CANCEL : ISO_NS_TIMEOUT, .sig = sig };

	if (s->phase == CANCEL) {
		(void)kill(s->cmd, SIGKILL);
		return;
	}
	if (sig)
		s->out->cancelled_by = sig;
	(void)iso_ns_send(s->nsock, &m);
	s->phase = CANCEL;
	arm(s, s->o->grace_ms);
}

static void cancel(struct sup *s, int sig, bool from_terminal)
{
	int stop = s->o->stop_signal;

	if (s->pidns) {
		if (s->phase != JOINED && s->phase != DONE)
			cancel_pidns(s, sig);
		return;
	}

	if (s->phase == CANCEL) {
		/* a second signal: no more grace */
		kill_all(s, false);
		enter_joined(s);
		return;
	}
	if (sig)
		s->out->cancelled_by = sig;
	if (s->phase == SETTLE || s->phase == JOINED) {
		/* the command is gone; what remains is leaked, cancelled or not */
		if (s->phase == SETTLE)
			kill_all(s, true);
		enter_joined(s);
		return;
	}
	/*
	 * The command's process group gets the caught signal itself (a Ctrl-C'd test
	 * runner should see SIGINT and print its summary), unless the terminal already
	 * delivered it there; the rest of the tree gets --stop-signal.  A timeout sends
	 * --stop-signal to all.  SIGKILL follows after --grace either way.
	 */
	if (sig && !s->out->exited) {
		if (!(from_terminal && s->tty_handed))
			(void)kill(-s->cmd, sig);
		(void)iso_signal_tree(s->self, stop, s->cmd);
	} else {
		if (!s->out->exited)
			(void)kill(-s->cmd, stop);
		(void)iso_signal_tree(s->self, stop, 0);
	}
	s->phase = CANCEL;
	arm(s, s->o->grace_ms);
}

/*
 * Job control, as sudo does it: when the command is stopped from the terminal
 * (Ctrl-Z), take the terminal back and stop isorun too, so the caller's shell
 * sees its job stop and gets its prompt; on `fg` (SIGCONT) hand the terminal back
 * and continue the command.
 */
static void follow_stop(struct sup *s)
{
	int status;

	if (!s->tty_handed || s->out->exited)
		return;
	if (waitpid(s->cmd, &status, WUNTRACED | WNOHANG) != s->cmd)
		return;
	if (!WIFSTOPPED(status)) {
		/* it exited instead: this call reaped it, so keep its status */
		on_reaped(s->cmd, status, s);
		return;
	}
	(void)tcsetpgrp(s->tty_fd, getpgrp());
	(void)kill(getpid(), SIGSTOP);
	/* running again: the shell continued us */
	(void)tcsetpgrp(s->tty_fd, s->cmd);
	(void)kill(-s->cmd, SIGCONT);
}

static void on_signal(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD) {
			follow_stop(s);
			continue;
		}
		if (si.ssi_signo == SIGCONT)
			continue; /* only job control's business, handled in follow_stop() */
		cancel(s, (int)si.ssi_signo, si.ssi_code == SI_KERNEL);
	}
	(void)iso_reap_ready(on_reaped, s);
	if (s->pidns) {
		/* init's end is the kernel's proof that the namespace is empty */
		if (s->init_gone && s->phase != JOINED && s->phase != DONE)
			enter_joined(s);
		return;
	}
	if (!s->out->exited)
		return;
	if (s->phase == RUNNING)
		after_command(s);
	else if ((s->phase == SETTLE || s->phase == CANCEL) && iso_no_children())
		enter_joined(s);
}

static void on_timer(struct sup *s)
{
	uint64_t ticks;

	if (read(s->timerfd, &ticks, sizeof(ticks)) != (ssize_t)sizeof(ticks))
		return;
	switch (s->phase) {
	case RUNNING:
		s->out->timed_out = true;
		cancel(s, 0, false);
		break;
	case SETTLE:
		kill_all(s, true);
		enter_joined(s);
		break;
	case CANCEL:
		if (s->pidns) {
			(void)kill(s->cmd, SIGKILL);
			break;
		}
		kill_all(s, false);
		enter_joined(s);
		break;
	case JOINED:
		s->phase = DONE;
		break;
	case DONE:
		break;
	}
}

static void add_policy_event(struct sup *s, pid_t pid, const char *call, const char *detail,
			     const char *origin, bool refused)
{
	struct iso_outcome *o = s->out;
	struct iso_policy_event *v;

	/* a shell tries the name in each PATH directory: one refusal, reported once */
	for (size_t i = 0; i < o->n_policy_events; i++)
		if (o->policy_events[i].pid == pid && !strcmp(o->policy_events[i].call, call) &&
		    o->policy_events[i].detail && !strcmp(o->policy_events[i].detail, detail))
			return;
	v = realloc(o->policy_events, (o->n_policy_events + 1) * sizeof(*v));
	if (!v)
		return;
	o->policy_events = v;
	v[o->n_policy_events] = (struct iso_policy_event){ .pid = pid,
							   .detail = strdup(detail),
							   .origin = strdup(origin ? origin : ""),
							   .refused = refused };
	snprintf(v[o->n_policy_events].call, sizeof(v->call), "%s", call);
	o->n_policy_events++;
}

static void on_policy_event(const struct pol_event *ev, void *arg)
{
	add_policy_event(arg, ev->pid, ev->call, ev->detail, ev->origin, ev->refused);
}

static void on_wire_event(const struct iso_ns_event_wire *w, void *arg)
{
	add_policy_event(arg, w->pid, w->call, w->detail, w->origin, w->refused);
}

static void on_notification(struct sup *s, uint32_t events)
{
	struct pol_event ev;

	if (pol_notify_handle(s->listener, s->pol, s->o->policy_log, &ev) == 1)
		on_policy_event(&ev, s);
	else if (events & (EPOLLHUP | EPOLLERR))
		/* no process uses the filter any more */
		(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->listener, NULL);
}

static int add_leak(struct sup *s, const struct iso_ns_msg *m)
{
	struct iso_leak *l = realloc(s->out->leaks, (s->out->n_leaks + 1) * sizeof(*l));
	pid_t outer;

	if (!l)
		return -ENOMEM;
	s->out->leaks = l;
	/* stopped, so still there to be found by their innermost pid */
	outer = iso_pidns_outer_pid(s->cmd, m->pid);
	l[s->out->n_leaks++] = (struct iso_leak){
		.pid = outer ? outer : m->pid,
		.inner_pid = m->pid,
		.sid = m->sid,
		.start = m->start,
		.cmdline = strdup(m->cmdline),
		.cwd = m->cwd[0] ? strdup(m->cwd) : NULL,
	};
	s->out->leak_alive_ms = now_ms() - s->cmd_exit_ms;
	return 0;
}

static void on_init_message(struct sup *s)
{
	struct iso_ns_msg m, ok = { .type = ISO_NS_KILL_OK };
	int r = iso_ns_recv(s->nsock, &m);

	if (r <= 0) {
		(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->nsock, NULL);
		return;
	}
	switch (m.type) {
	case ISO_NS_EXITED:
		record_status(s, m.status);
		break;
	case ISO_NS_LEAK:
		(void)add_leak(s, &m);
		break;
	case ISO_NS_LEAKS_DONE:
		(void)iso_ns_send(s->nsock, &ok);
		break;
	case ISO_NS_STOPPED:
		if (s->tty_handed) {
			/* as follow_stop(), with init doing the inside half */
			struct iso_ns_msg cont = { .type = ISO_NS_CONTINUE };
			(void)tcsetpgrp(s->tty_fd, getpgrp());
			(void)kill(getpid(), SIGSTOP);
			(void)iso_ns_send(s->nsock, &cont);
		}
		break;
	default:
		break;
	}
}

static int add_fd(int epfd, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

static void loop(struct sup *s)
{
	struct epoll_event evs[8];

	while (s->phase != DONE) {
		int n = epoll_wait(s->epfd, evs, ELEMENTSOF(evs), -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < n && s->phase != DONE; i++) {
			uint64_t tag = evs[i].data.u64;
			if (tag == 0)
				on_signal(s);
			else if (tag == 1)
				on_timer(s);
			else if (tag == 4)
				on_init_message(s);
			else if (tag == 5)
				on_notification(s, evs[i].events);
			else {
				struct iso_stream *st = &s->streams[tag - 2];
				(void)iso_stream_pump(st);
				if (st->eof) {
					(void)epoll_ctl(s->epfd, EPOLL_CTL_DEL, st->rd, NULL);
					if (s->phase == JOINED && streams_done(s))
						s->phase = DONE;
				}
			}
		}
	}
	/* what is still buffered in a pipe belongs to the output, even past the deadline */
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && !s->streams[i].eof)
			(void)iso_stream_pump(&s->streams[i]);
}

/* Why the tree cannot be removed, or "" when nothing is in the way. */
static void find_obstacle(struct sup *s, char *why, size_t len)
{
	struct iso_holder_query q = { .exclude = s->self };
	struct iso_holder *h = NULL;
	ino_t pipes[2];
	const char *names[2];
	int n;

	why[0] = '\0';
	if (!s->out->subreaper && !s->pidns) {
		snprintf(why, len, "leak check not measurable, so the join cannot be proven (%s)",
			 s->out->subreaper_why);
		return;
	}
	q.pipes = pipes;
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && !s->streams[i].eof) {
			names[q.n_pipes] = s->streams[i].name;
			pipes[q.n_pipes++] = s->streams[i].ino;
		}
	q.tree = s->out->tree_path;
	n = iso_find_holders(&q, &h, NULL);
	if (n < 0) {
		snprintf(why, len, "cannot inspect /proc for holders: %s", strerror(-n));
		return;
	}
	if (n > 0) {
		_cleanup_free_ char *cmd = iso_proc_cmdline(h[0].pid, 80);
		if (h[0].pipe_index >= 0)
			snprintf(why, len, "pipe still open (pid %d `%s` holds %s)", h[0].pid,
				 cmd ? cmd : "?", names[h[0].pipe_index]);
		else if (!strcmp(h[0].what, "cwd") || !strcmp(h[0].what, "root"))
			snprintf(why, len, "pid %d `%s` has its %s in it (%s)", h[0].pid,
				 cmd ? cmd : "?", h[0].what, h[0].target);
		else
			snprintf(why, len, "pid %d `%s` holds %s open (%s)", h[0].pid,
				 cmd ? cmd : "?", h[0].target, h[0].what);
		iso_holders_free(h, (size_t)n);
		return;
	}
	iso_holders_free(h, 0);
	if (q.n_pipes)
		snprintf(why, len, "pipe still open (%s; its holder is not visible to isorun)",
			 names[0]);
}

static void teardown(struct sup *s, struct iso_tree *tree)
{
	struct iso_outcome *out = s->out;
	struct iso_err e = { 0 };
	char why[sizeof(out->tree_reason)];
	uint64_t t;
	int r;

	if (s->o->keep) {
		out->tree_state = ISO_TREE_KEPT;
		return;
	}
	t = now_us();
	find_obstacle(s, why, sizeof(why));
	out->timing.scan = lap(&t);
	if (why[0]) {
		out->tree_state = ISO_TREE_RETAINED;
		snprintf(out->tree_reason, sizeof(out->tree_reason), "%s", why);
		return;
	}
	r = iso_rmtree(tree->user_fd, tree->id, tree->path, NULL, &e);
	out->timing.removal = lap(&t);
	if (r < 0) {
		char buf[400];
		out->tree_state = ISO_TREE_RETAINED;
		snprintf(out->tree_reason, sizeof(out->tree_reason), "removal failed: %s",
			 iso_err_format(&e, buf, sizeof(buf)));
		return;
	}
	out->tree_state = ISO_TREE_REMOVED;
}

/* `path`, under the watched directory `canon` (canonical), is the tree or holds it. */
static bool holds_tree(const char *canon, const char *path, const char *tree)
{
	char full[PATH_MAX * 2];
	size_t len;

	if (!tree[0] || !canon[0])
		return false;
	snprintf(full, sizeof(full), "%s/%s", canon, path);
	len = strlen(full);
	if (len && full[len - 1] == '/') /* a new directory is named with a slash */
		full[--len] = '\0';
	return strncmp(tree, full, len) == 0 && (tree[len] == '\0' || tree[len] == '/');
}

/* Residue in the watched directories; isorun's own tree (a --root inside one) is not. */
static void collect_residue(struct iso_snapshot *before, size_t n, struct iso_outcome *out)
{
	char tree[PATH_MAX] = "", canon[PATH_MAX];

	if (!realpath(out->tree_path, tree))
		tree[0] = '\0';
	for (size_t w = 0; w < n; w++) {
		struct iso_snapshot after;
		const char **fresh = NULL;
		size_t nf = 0;
		struct iso_err e = { 0 };

		if (before[w].truncated) {
			out->residue_unmeasurable = true;
			continue;
		}
		if (iso_snapshot_take(before[w].dir, &after, &e) < 0)
			continue;
		if (after.truncated)
			out->residue_unmeasurable = true;
		if (!realpath(before[w].dir, canon))
			canon[0] = '\0';
		if (iso_snapshot_new(&before[w], &after, &fresh, &nf) == 0 && nf) {
			struct iso_residue_entry *v =
				realloc(out->residue, (out->n_residue + nf) * sizeof(*v));
			if (v) {
				out->residue = v;
				for (size_t i = 0; i < nf; i++)
					if (!holds_tree(canon, fresh[i], tree))
						v[out->n_residue++] = (struct iso_residue_entry){
							.dir = before[w].dir,
							.path = strdup(fresh[i])
						};
			}
		}
		free(fresh);
		iso_snapshot_free(&after);
	}
}

static int setup_signals(sigset_t *mask)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(mask);
	sigaddset(mask, SIGCHLD);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGQUIT);
	sigaddset(mask, SIGCONT);
	{
		/* SIGTTOU too: isorun hands the terminal back from whatever group it is in */
		sigset_t block = *mask;
		sigaddset(&block, SIGTTOU);
		if (sigprocmask(SIG_BLOCK, &block, NULL) < 0)
			return -errno;
	}
	/* a reader that goes away must not kill the supervisor of a live tree */
	if (sigaction(SIGPIPE, &ign, NULL) < 0)
		return -errno;
	return 0;
}

/*
 * The command's output pipes.  A terminal passes through untouched, so isatty()
 * in the command holds.  When fds 1 and 2 are one stream (`>log 2>&1`,
 * `2>&1 | cat`) the command gets one pipe for both, relayed to fd 1: two pipes
 * would interleave at the relay's pace, not in the order the command wrote.
 */
static int open_streams(struct sup *s, struct iso_err *e)
{
	for (int i = 0; i < 2; i++) {
		int fd = i + 1, r;

		if (isatty(fd))
			continue;
		if (i == 1 && s->relayed[0] && iso_outputs_shared(1, 2)) {
			s->streams[0].name = "stdout and stderr";
			s->out->output_merged = true;
			continue;
		}
		r = iso_stream_open(&s->streams[i], i ? "stderr" : "stdout", fd,
				    s->o->report != NULL);
		if (r < 0)
			return iso_err_set(e, -r, "create the %s pipe", i ? "stderr" : "stdout");
		s->relayed[i] = true;
		s->out->streams[i] = &s->streams[i];
	}
	return 0;
}

/* Our copy of a write end would keep EOF from ever arriving. */
static void close_write_ends(struct sup *s)
{
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && s->streams[i].wr >= 0) {
			close(s->streams[i].wr);
			s->streams[i].wr = -1;
		}
}

/*
 * What --protect-home leaves as it is: the tree (TMPDIR may lie in the home) and each
 * --writable DIR, canonical.  Reachable from the static plan for the whole run.
 */
static int home_keeps(const struct iso_opts *o, const struct iso_tree *t, struct iso_ns_plan *p,
		      struct iso_err *e)
{
	static char **keep;
	size_t n = 0;

	keep = calloc(o->writable.n + 1, sizeof(*keep));
	if (!keep)
		return iso_err_set(e, ENOMEM, "--writable");
	keep[n] = realpath(t->path, NULL);
	if (!keep[n])
		return iso_err_set(e, errno, "resolve '%s'", t->path);
	n++;
	for (size_t i = 0; i < o->writable.n; i++, n++) {
		keep[n] = realpath(o->writable.v[i], NULL);
		if (!keep[n])
			return iso_err_set(e, errno, "--writable '%s'", o->writable.v[i]);
	}
	p->keep = (const char *const *)keep;
	p->n_keep = n;
	return 0;
}

/*
 * The command's capabilities for this start (with or without init): the mode
 * for spawn and the record for the report (and -v, once the command started).
 */
static void plan_caps(struct sup *s, struct iso_spawn *sp, bool pidns, bool userns)
{
	struct iso_caps_plan *c = &s->out->caps;
	/* init covers the deny-socket paths only under --pidns */
	bool masks = pidns && s->pol && s->pol->n_socket > 0;

	iso_caps_plan(c, s->o, pidns, userns, masks);
	sp->caps_mode = c->mode;
	sp->caps_keep = c->keep;
	sp->caps_drop = c->protect;
}

/* The plan for init, then init itself; on success s->cmd is init, s->nsock its socket. */
static int start_pidns(struct sup *s, struct iso_tree *t, const struct iso_spawn *sp,
		       struct iso_exec_failure *fail, int *ret_listener, bool *ret_elsewhere,
		       struct iso_err *e)
{
	const struct iso_opts *o = s->o;
	static char tmp[PATH_MAX + 16], empty[PATH_MAX + 16];
	static struct iso_ns_plan p;
	struct passwd *pw;
	int r;

	p = (struct iso_ns_plan){
		.o = o,
		.spawn = *sp,
		.userns = getuid() != 0 || geteuid() != 0,
		.inside_uid = o->map_root ? 0 : getuid(),
		.inside_gid = o->map_root ? 0 : getgid(),
		.tree = t->path,
		.tree_tmp = tmp,
		.empty_dir = empty,
	};
	plan_caps(s, &p.spawn, true, p.userns);
	/* init leaves for "/" before it mounts: the command names its directory */
	if (!p.spawn.cwd)
		p.spawn.cwd = s->out->cwd;
	snprintf(tmp, sizeof(tmp), "%s/tmp", t->path);
	if (o->protect_home) {
		/* HOME points into the tree by now: the real one is the passwd entry's */
		errno = 0;
		pw = getpwuid(getuid());
		if (!pw || !pw->pw_dir || !*pw->pw_dir)
			return iso_err_set(e, errno ? errno : ENOENT,
					   "--protect-home: find the home of uid %u in the passwd "
					   "database",
					   (unsigned)getuid());
		p.real_home = pw->pw_dir;
		r = home_keeps(o, t, &p, e);
		if (r < 0)
			return r;
		if (o->protect_home == NS_HOME_HIDE) {
			snprintf(empty, sizeof(empty), "%s/empty", t->path);
			if (mkdirat(t->fd, "empty", 0700) < 0)
				return iso_err_set(e, errno, "create '%s'", empty);
			r = ns_home_skeleton(p.real_home, empty, p.keep, p.n_keep, e);
			if (r < 0)
				return r;
			/* the hidden home takes no files */
			if (fchmodat(t->fd, "empty", 0500, 0) < 0)
				return iso_err_set(e, errno, "make '%s' read-only", empty);
		}
	}
	r = iso_pidns_start(&p, &s->cmd, &s->nsock, fail, ret_listener, ret_elsewhere,
			    on_wire_event, s, e);
	if (r < 0)
		return r;
	s->pidns = true;
	if (add_fd(s->epfd, s->nsock, 4) < 0)
		return iso_err_set(e, errno, "watch the namespace control socket");
	return 0;
}

/*
 * The namespace explanations end in "use --pidns=try", which cannot help an option
 * that needs the namespace itself: say that instead of a hint that would fail again.
 */
static void hint_no_fallback(const struct iso_opts *o, struct iso_err *e)
{
	const char *opt = o->protect_home  ? "--protect-home"
			  : o->private_tmp ? "--private-tmp"
					   : "--net=isolated";
	char *cut = strstr(e->hint, "use --pidns=try");
	char kept[sizeof(e->hint)];

	if (!cut)
		return;
	while (cut > e->hint && strchr(" ,;", cut[-1]))
		cut--;
	if (cut - e->hint >= 2 && !strncmp(cut - 2, "or", 2))
		cut -= 2;
	while (cut > e->hint && strchr(" ,;", cut[-1]))
		cut--;
	*cut = '\0';
	memcpy(kept, e->hint, sizeof(kept));
	/* a hint cut short still says what to do first */
	if (snprintf(e->hint, sizeof(e->hint),
		     "%s%s--pidns=try cannot help: %s needs a namespace of its own", kept,
		     kept[0] ? "; " : "", opt) >= (int)sizeof(e->hint))
		e->hint[sizeof(e->hint) - 1] = '\0';
}

static void print_setup_error(const struct iso_err *e)
{
	char buf[512];

	fprintf(stderr, "isorun: %s\n", iso_err_format(e, buf, sizeof(buf)));
	if (e->hint[0])
		fprintf(stderr, "  (hint: %s)\n", e->hint);
}

/*
 * --report, and its close: a report that is not all there is no evidence, so the
 * run fails (summary.c), and what was written of it is cut off, never half read.
 */
static void write_report(int *fd, const char *path, struct iso_outcome *out)
{
	int r = iso_report_write(*fd, out);

	if (r == 0 && close(*fd) < 0 && errno != EINTR)
		r = -errno;
	else if (r < 0) {
		(void)!ftruncate(*fd, 0);
		close(*fd);
	}
	*fd = -1;
	if (r < 0)
		snprintf(out->report_error, sizeof(out->report_error), "--report: write '%s': %s",
			 path, strerror(-r));
}

static int check_pass_fds(const struct iso_opts *o, struct iso_err *e)
{
	for (size_t i = 0; i < o->n_pass_fds; i++)
		if (fcntl(o->pass_fds[i], F_GETFD) < 0)
			return iso_err_set(e, errno, "--pass-fd %d", o->pass_fds[i]);
	return 0;
}

static int check_chdir(const struct iso_opts *o, struct iso_err *e)
{
	_cleanup_close_ int fd = -1;

	if (!o->chdir)
		return 0;
	fd = open(o->chdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return iso_err_set(e, errno, "--chdir '%s'", o->chdir);
	return 0;
}

int iso_run(const struct iso_opts *o)
{
	struct iso_outcome out = {
		.argv = o->argv,
		.argc = o->argc,
		.timing = { ISO_TIMING_NONE, ISO_TIMING_NONE, ISO_TIMING_NONE, ISO_TIMING_NONE,
			    ISO_TIMING_NONE },
	};
	struct sup s = {
		.o = o, .out = &out, .epfd = -1, .sigfd = -1, .timerfd = -1, .listener = -1
	};
	struct pol pol = { 0 };
	bool policy_on = strcmp(o->policy, "off") != 0, elsewhere = false;
	int listener = -1;
	struct iso_tree tree = { .user_fd = -1, .fd = -1, .lock_fd = -1 };
	struct iso_snapshot *snaps = NULL;
	struct iso_exec_failure fail = { 0 };
	struct iso_err e = { 0 };
	_cleanup_close_ int report_fd = -1;
	char **env = NULL;
	_cleanup_free_ char *cmd_path = NULL;
	struct termios saved_tty;
	sigset_t mask;
	int tty_fd = -1, code, r;
	uint64_t t_start = now_us(), t_us = t_start;

	clock_gettime(CLOCK_REALTIME, &out.started);
	out.cwd = getcwd(NULL, 0);
	s.self = getpid();

	/* a policy mistake is reported before anything exists */
	if (policy_on) {
		struct pol_error perr = { 0 };
		char buf[1024];
		if (pol_load(o->policy, &pol, &perr) < 0) {
			fprintf(stderr, "isorun: --policy: %s\n",
				pol_error_format(&perr, buf, sizeof(buf)));
			fprintf(stderr, "isorun: FAILED (exit %d): bad policy\n", ISO_EXIT_SETUP);
			free(out.cwd);
			return ISO_EXIT_SETUP;
		}
		s.pol = &pol;
		out.policy_name = pol.name[0] ? pol.name : o->policy;
		out.policy_log = o->policy_log;
	}
	r = setup_signals(&mask);
	if (r < 0) {
		iso_err_set(&e, -r, "block signals");
		goto setup_failed;
	}
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0) {
		out.subreaper = true;
	} else {
		snprintf(out.subreaper_why, sizeof(out.subreaper_why),
			 "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
	}
	if (o->report) {
		report_fd = open(o->report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (report_fd < 0) {
			iso_err_set(&e, errno, "--report: open '%s'", o->report);
			goto setup_failed;
		}
	}
	if (check_chdir(o, &e) < 0 || check_pass_fds(o, &e) < 0)
		goto setup_failed;
	if (o->watch.n) {
		snaps = calloc(o->watch.n, sizeof(*snaps));
		if (!snaps) {
			iso_err_set(&e, ENOMEM, "--watch");
			goto setup_failed;
		}
		for (size_t i = 0; i < o->watch.n; i++)
			if (iso_snapshot_take(o->watch.v[i], &snaps[i], &e) < 0)
				goto setup_failed;
	}
	if (iso_tree_create(&tree, iso_tree_root(o->root), o->argv, &e) < 0) {
		if (e.errnum == EACCES || e.errnum == EROFS)
			iso_err_hint(&e, "choose a writable place with --root DIR or ISORUN_ROOT");
		goto setup_failed;
	}
	snprintf(out.tree_path, sizeof(out.tree_path), "%s", tree.path);
	if (iso_env_build(o, &tree, environ, &env, &e) < 0)
		goto setup_failed_tree;
	out.env = env;
	if (o->shell)
		iso_shell_banner(stderr, o, tree.path);

	if (open_streams(&s, &e) < 0)
		goto setup_failed_tree;
	s.sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	s.timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	s.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s.sigfd < 0 || s.timerfd < 0 || s.epfd < 0 || add_fd(s.epfd, s.sigfd, 0) < 0 ||
	    add_fd(s.epfd, s.timerfd, 1) < 0) {
		iso_err_set(&e, errno, "set up the event loop");
		goto setup_failed_tree;
	}
	for (int i = 0; i < 2; i++)
		if (s.relayed[i] && add_fd(s.epfd, s.streams[i].rd, (uint64_t)(2 + i)) < 0) {
			iso_err_set(&e, errno, "watch the %s pipe", s.streams[i].name);
			goto setup_failed_tree;
		}
	if (isatty(0) && tcgetpgrp(0) == getpgrp() && tcgetattr(0, &saved_tty) == 0)
		tty_fd = 0;

	r = iso_resolve_command(o->argv[0], env, &cmd_path);
	if (r == -ENOENT) {
		close_write_ends(&s);
		fail = (struct iso_exec_failure){ .errnum = ENOENT, .stage = ISO_STAGE_EXEC };
		goto exec_failed;
	}
	if (r < 0) {
		iso_err_set(&e, -r, "look up the command '%s'", o->argv[0]);
		goto setup_failed_tree;
	}
	{
		struct iso_spawn sp = {
			.path = cmd_path,
			.argv = o->argv,
			.envp = env,
			.cwd = o->chdir,
			.out_fd = s.relayed[0] ? s.streams[0].wr : -1,
			.err_fd = out.output_merged ? s.streams[0].wr
				  : s.relayed[1]    ? s.streams[1].wr
						    : -1,
			.pass_fds = o->pass_fds,
			.n_pass_fds = o->n_pass_fds,
			.tty_fd = tty_fd,
			.pol = policy_on ? &pol : NULL,
			.pol_log = o->policy_log,
			.on_event = on_policy_event,
			.event_arg = &s,
		};
		bool need_ns = o->net_isolated || o->private_tmp || o->protect_home;

		out.timing.setup = lap(&t_us);

		if (o->pidns || need_ns) {
			r = start_pidns(&s, &tree, &sp, &fail, &listener, &elsewhere, &e);
			if (r < 0 && o->pidns == ISO_PIDNS_TRY && !need_ns) {
				/* fall back, and say so: the report carries the reason */
				char buf[300];
				snprintf(out.pidns_why, sizeof(out.pidns_why), "%s",
					 iso_err_format(&e, buf, sizeof(buf)));
				fprintf(stderr,
					"isorun: pidns: not available (%s); using the subreaper "
					"gate\n",
					out.pidns_why);
				e = (struct iso_err){ 0 };
				r = 1;
			}
			if (r < 0 && need_ns)
				hint_no_fallback(o, &e);
		} else {
			r = 1;
		}
		if (r == 1) {
			plan_caps(&s, &sp, false, false);
			r = iso_spawn(&sp, &s.cmd, &fail, &listener, &elsewhere, &e);
		}
	}
	close_write_ends(&s);
	out.timing.start = lap(&t_us);
	out.guard_elsewhere = elsewhere;
	if (listener >= 0) {
		s.listener = listener;
		if (add_fd(s.epfd, listener, 5) < 0) {
			iso_err_set(&e, errno, "watch the seccomp listener");
			goto setup_failed_tree;
		}
	}
	if (elsewhere && o->verbosity >= 0)
		fprintf(stderr, "isorun: policy: service guard enforced by the enclosing isorun\n");
	/* after a --pidns=try fallback: the plan the command really started with */
	if (r >= 0 && o->verbosity > 0)
		iso_caps_say(&out.caps, stderr);
	if (r < 0)
		goto setup_failed_tree;
	if (tty_fd >= 0) {
		/* with --pidns the command took the terminal itself: s.cmd is init */
		if (!s.pidns)
			(void)tcsetpgrp(tty_fd, s.cmd);
		s.tty_handed = true;
		s.tty_fd = tty_fd;
	}
	if (fail.errnum) {
		/* the child never became the command: reap it, keep the reason */
		(void)waitpid(s.cmd, NULL, 0);
exec_failed:
		/* only the exec itself is the command's failure; every step before it is ours */
		if (fail.stage != ISO_STAGE_EXEC) {
			e = fail.err;
			if (fail.stage == ISO_STAGE_CHDIR && o->chdir)
				iso_err_set(&e, fail.errnum, "--chdir '%s'", o->chdir);
			if (!e.msg[0])
				iso_err_set(&e, fail.errnum, "prepare the command");
			goto setup_failed_tree;
		}
		out.exec_failed = true;
		snprintf(out.exec_error, sizeof(out.exec_error), "%s: %s", o->argv[0],
			 strerror(fail.errnum));
		out.exit = fail.errnum == ENOENT ? ISO_EXIT_NOT_FOUND : ISO_EXIT_CANNOT_EXEC;
		/* the pipes' only writer is gone: their EOF is at hand */
		enter_joined(&s);
		loop(&s);
	} else {
		out.started_cmd = true;
		if (o->timeout_ms)
			arm(&s, o->timeout_ms);
		loop(&s);
	}
	if (!fail.errnum)
		out.timing.command = lap(&t_us);
	if (s.tty_handed) {
		/* the caller's shell gets its terminal back as it was */
		(void)tcsetpgrp(tty_fd, getpgrp());
		(void)tcsetattr(tty_fd, TCSADRAIN, &saved_tty);
	}
	out.pidns = s.pidns;
	if (snaps)
		collect_residue(snaps, o->watch.n, &out);
	teardown(&s, &tree);
	iso_tree_record_outcome(&tree, &out, o->shell);
	out.duration_ms = (now_us() - t_start) / 1000;
	/* the report before the verdict: a report that could not be written is part of it */
	out.exit = iso_exit_code(o, &out, NULL);
	if (report_fd >= 0)
		write_report(&report_fd, o->report, &out);
	code = iso_summarize(o, &out);
	goto finish;

setup_failed_tree:
	/* nothing of a failed setup stays behind */
	if (tree.fd >= 0) {
		struct iso_err ignored = { 0 };
		(void)iso_rmtree(tree.user_fd, tree.id, tree.path, NULL, &ignored);
		out.tree_state = ISO_TREE_REMOVED;
	}
setup_failed:
	print_setup_error(&e);
	out.exit = code = ISO_EXIT_SETUP;
	fprintf(stderr, "isorun: FAILED (exit %d): setup failed before the command ran\n", code);
	if (report_fd >= 0) {
		write_report(&report_fd, o->report, &out);
		if (out.report_error[0])
			fprintf(stderr, "isorun: %s\n", out.report_error);
	}
finish:
	for (int i = 0; i < 2; i++)
		if (s.relayed[i])
			iso_stream_close(&s.streams[i]);
	for (size_t i = 0; snaps && i < o->watch.n; i++)
		iso_snapshot_free(&snaps[i]);
	free(snaps);
	for (size_t i = 0; i < out.n_residue; i++)
		free(out.residue[i].path);
	free(out.residue);
	iso_leaks_free(out.leaks, out.n_leaks);
	iso_env_free(env);
	free(out.cwd);
	if (s.pidns && s.nsock >= 0)
		close(s.nsock);
	if (s.listener >= 0)
		close(s.listener);
	for (size_t i = 0; i < out.n_policy_events; i++) {
		free(out.policy_events[i].detail);
		free(out.policy_events[i].origin);
	}
	free(out.policy_events);
	if (s.epfd >= 0)
		close(s.epfd);
	if (s.sigfd >= 0)
		close(s.sigfd);
	if (s.timerfd >= 0)
		close(s.timerfd);
	iso_tree_close(&tree);
	if (policy_on)
		pol_free(&pol);
	return code;
}
