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
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <pwd.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "launcher/attrib.h"
#include "launcher/capsplan.h"
#include "launcher/ceiling.h"
#include "common/cleanup.h"
#include "launcher/env.h"
#include "launcher/evloop.h"
#include "launcher/execlog.h"
#include "launcher/finding.h"
#include "common/exit.h"
#include "tree/holders.h"
#include "tree/shield.h"
#include "tree/treeid.h"
#include "launcher/leak.h"
#include "launcher/outcome.h"
#include "common/num.h"
#include "launcher/pidns.h"
#include "launcher/mapusers.h"
#include "common/proc.h"
#include "common/reader.h"
#include "launcher/relay.h"
#include "launcher/residue.h"
#include "tree/rmtree.h"
#include "launcher/shell.h"
#include "launcher/sigtable.h"
#include "launcher/spawn.h"
#include "launcher/sinks.h"
#include "common/text.h"
#include "tree/tree.h"
#include "ns/ns.h"
#include "policy/policy.h"

extern char **environ;

enum phase { RUNNING, SETTLE, CANCEL, JOINED, DONE };

/* The supervisor's event sources, the tags of its epoll set. */
enum sup_source {
	SRC_SIGNAL,
	SRC_TIMER,
	SRC_STDOUT,
	SRC_STDERR,
	SRC_STDOUT_ROOM, /* our own output took bytes again */
	SRC_STDERR_ROOM,
	SRC_INIT,
	SRC_LISTENER,
	SRC_CGROUP,
};

struct sup {
	const struct iso_opts *o;
	struct iso_reader reader; /* reads of the command's memory and /proc files, bounded */
	bool slow_record;	  /* ISORUN_TEST_FAULT=slow-exec-record */
	struct iso_outcome *out;
	pid_t self;
	pid_t cmd;
	struct iso_evloop loop;
	enum phase phase;
	struct iso_stream streams[2];
	bool relayed[2];
	bool tty_handed;
	int tty_fd;
	uint64_t cmd_exit_ms; /* monotonic, when the command's status came in */
	uint64_t started_ms;  /* monotonic, when the command started: --timeout counts from it */
	bool reap_more;	      /* the last reap hit its bound: more may wait without a new SIGCHLD */
	bool join_unproven;   /* the kill did not converge by its deadline */
	bool sweep_sent;      /* --pidns: init was told to end its settle (or does so itself) */
	/* --pidns: s->cmd is the namespace's init, the command's status comes by message */
	bool pidns;
	int nsock;
	bool init_gone;
	bool init_killed; /* by the outer itself: the end of a cancel, not a loss */
	const struct pol *pol;
	int listener;	     /* seccomp notifications, -1 when none */
	struct pol_run prun; /* contain-signals: who is inside the run */

	/* what a run sets up and frees: every piece of state of iso_run() lives here */
	struct pol policy; /* loaded when --policy is not off; s->pol points at it */
	struct iso_tree tree;
	struct iso_shield shield;    /* as root, the tree's own mount (tree/shield.h) */
	enum iso_shield_proof proof; /* what lowering it proved */
	dev_t shield_dev;	     /* its device, which a holder through it shows */
	char proof_why[300];
	struct iso_ceilings ceil;   /* the run's cgroup, its ceilings and accounting */
	struct iso_snapshot *snaps; /* --watch, one per directory */
	char **env;
	char *cmd_path;
	char *cmd_hidden;	  /* PATH's match the run's mounts hide (when none is seen) */
	struct iso_hidden hidden; /* what --private-tmp and --protect-home=hide hide */
	struct iso_sinks outputs; /* --report, --junit */
	sigset_t mask;
	struct termios saved_tty;
	struct iso_exec_failure fail;
	struct iso_err err; /* the setup failure, printed once */
	bool guard_elsewhere;
	uint64_t t_start, t_us;	     /* monotonic µs: the run's start, the last lap */
	uint64_t remove_deadline_ms; /* monotonic; 0 while no removal runs */
	bool remove_overdue;
	/* --pidns: init's plan, its paths and the --writable list live as long as the run */
	struct iso_ns_plan plan;
	char tree_tmp[PATH_MAX + 16], empty_dir[PATH_MAX + 16];
	char **keep;
	size_t n_keep;
	/* who exec'd what, from the guard's notifications, and what findings are attributed from */
	struct iso_execlog execlog;
	/* the namespace's id filter (launcher/mapusers.h), freed with the rest */
	struct sock_filter *id_filter;
	struct iso_attrib_ctx actx;
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
	iso_evloop_arm(&s->loop, ms);
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

/* The outer's last word under --pidns: the kernel kills the namespace with init. */
static void kill_init(struct sup *s)
{
	s->init_killed = true;
	(void)kill(s->cmd, SIGKILL);
}

/*
 * init exits 0 only after it emptied the namespace.  Any other end not of our doing
 * killed the command and every survivor unseen: the run cannot pass.
 */
static void init_ended(struct sup *s, int status)
{
	struct iso_outcome *o = s->out;
	char sig[32];

	s->init_gone = true;
	if (s->init_killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
		return;
	o->init_lost = true;
	if (WIFSIGNALED(status)) {
		o->init_signal = WTERMSIG(status);
		snprintf(o->gate_unmeasurable, sizeof(o->gate_unmeasurable),
			 "the namespace's init (pid %d) was killed by %s", s->cmd,
			 iso_signal_name(o->init_signal, sig, sizeof(sig)));
	} else {
		o->init_status = WEXITSTATUS(status);
		snprintf(o->gate_unmeasurable, sizeof(o->gate_unmeasurable),
			 "the namespace's init (pid %d) exited %d", s->cmd, o->init_status);
	}
}

static void on_reaped(pid_t pid, int status, void *arg)
{
	struct sup *s = arg;

	if (pid != s->cmd)
		return;
	if (s->pidns) {
		init_ended(s, status);
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
	iso_evloop_disarm(&s->loop);
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
	char dur[32];
	uint64_t deadline = now_ms() + ISO_KILL_DEADLINE_MS;
	int r;

	/* with a cgroup, nothing in it can fork while the survivors are listed and named */
	(void)iso_ceilings_freeze(&s->ceil, deadline);
	r = iso_freeze_kill(s->self, s->cmd, as_leaks ? &leaks : NULL, as_leaks ? &n : NULL,
			    on_reaped, s, deadline, &s->actx);
	/* and what the /proc walk could not see goes in one stroke */
	iso_ceilings_kill(&s->ceil, deadline);

	if (r < 0) {
		/* what could not be stopped may still run: the join is not proven */
		s->join_unproven = true;
		iso_format_duration(ISO_KILL_DEADLINE_MS, dur, sizeof(dur));
		if (r == -ETIME)
			snprintf(s->out->gate_unmeasurable, sizeof(s->out->gate_unmeasurable),
				 "the tree was still changing %s after the kill began", dur);
		else
			snprintf(s->out->gate_unmeasurable, sizeof(s->out->gate_unmeasurable),
				 "stopping the tree failed: %s", strerror(-r));
	}
	if (as_leaks && n) {
		s->out->leaks = leaks;
		s->out->n_leaks = n;
		s->out->leak_alive_ms = now_ms() - s->cmd_exit_ms;
	} else {
		iso_leaks_free(leaks, n);
	}
}

/*
 * The settle window: --settle, cut short by --timeout, which covers the whole run up
 * to the leak gate (survivors of a command that ended in time are leaks, not a timeout).
 */
static uint64_t settle_left(const struct sup *s)
{
	uint64_t now = now_ms(), end;

	if (!s->o->timeout_ms)
		return s->o->settle_ms;
	end = s->started_ms + s->o->timeout_ms;
	if (end <= now)
		return 0;
	return end - now < s->o->settle_ms ? end - now : s->o->settle_ms;
}

/* The command's status is in: survivors get --settle to go by themselves. */
static void after_command(struct sup *s)
{
	if (iso_no_children()) {
		enter_joined(s);
		return;
	}
	s->phase = SETTLE;
	arm(s, settle_left(s));
}

/*
 * --pidns: init runs the settle and the sweep itself.  The outer tells it to end the
 * settle early when --timeout comes first, and keeps a watchdog for the rest: past the
 * settle plus the kill deadline, it kills init and with it the namespace.
 */
static void after_command_pidns(struct sup *s)
{
	uint64_t left = settle_left(s);

	s->phase = SETTLE;
	s->sweep_sent = left >= s->o->settle_ms;
	arm(s, s->sweep_sent ? left + ISO_KILL_DEADLINE_MS : left);
}

static void settle_timer_pidns(struct sup *s)
{
	struct iso_ns_msg m = { .type = ISO_NS_SWEEP };
	char dur[32];

	if (!s->sweep_sent) {
		s->sweep_sent = true;
		(void)iso_ns_send(s->nsock, &m);
		arm(s, ISO_KILL_DEADLINE_MS);
		return;
	}
	iso_format_duration(ISO_KILL_DEADLINE_MS, dur, sizeof(dur));
	snprintf(s->out->gate_unmeasurable, sizeof(s->out->gate_unmeasurable),
		 "the namespace's init did not finish the leak gate within %s of the settle; "
		 "killed it and the namespace with it",
		 dur);
	kill_init(s);
}

/*
 * The tree as it is when --timeout fires or a cancel comes, before any signal: what
 * hung, said at once (a CI job may be killed during the grace) and kept for the report.
 */
static void take_hung(struct sup *s, int sig)
{
	struct iso_hung_tree *t = &s->out->hung;

	if (t->taken || !s->out->started_cmd)
		return;
	iso_hung_take(t, s->pidns ? s->cmd : s->self, &s->actx);
	t->after_ms = now_ms() - s->started_ms;
	t->signal = s->o->stop_signal;
	t->grace_ms = s->o->grace_ms;
	iso_hung_text(stderr, s->out, sig != 0, "isorun: ");
}

/* The grace is over (or a second signal cut it): name who outlived it, then kill. */
static void grace_over(struct sup *s)
{
	struct iso_hung_tree *t = &s->out->hung;

	if (!t->taken || t->survived)
		return;
	iso_hung_survivors(t, s->pidns ? s->cmd : s->self);
	iso_survived_text(stderr, t, "isorun: ");
}

/*
 * What the command's group gets on a cancel by sig: the signal itself when it
 * asks a program to stop (a Ctrl-C'd test runner prints its summary), else
 * --stop-signal (a SIGSEGV sent to isorun is no fault of the command's).
 */
static int to_command(const struct sup *s, int sig)
{
	return iso_sig_class(sig) == ISO_SIG_CANCEL ? sig : s->o->stop_signal;
}

/*
 * --pidns: init does the signalling inside; the outer's last word is SIGKILL to
 * init, after which the kernel kills everything in the namespace.
 */
static void cancel_pidns(struct sup *s, int sig)
{
	struct iso_ns_msg m = { .type = sig ? ISO_NS_CANCEL : ISO_NS_TIMEOUT,
				.sig = to_command(s, sig) };

	if (s->phase == CANCEL) {
		grace_over(s);
		kill_init(s);
		return;
	}
	if (sig)
		s->out->cancelled_by = sig;
	if (s->phase == RUNNING)
		take_hung(s, sig);
	(void)iso_ns_send(s->nsock, &m);
	s->phase = CANCEL;
	arm(s, s->o->grace_ms);
}

static void cancel(struct sup *s, int sig, bool from_terminal)
{
	int stop = s->o->stop_signal;
	int mine = to_command(s, sig);

	if (s->pidns) {
		if (s->phase != JOINED && s->phase != DONE)
			cancel_pidns(s, sig);
		return;
	}

	if (s->phase == CANCEL) {
		/* a second signal: no more grace */
		grace_over(s);
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
	take_hung(s, sig);
	if (sig && !s->out->exited) {
		if (!(from_terminal && s->tty_handed))
			(void)kill(-s->cmd, mine);
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

/* Reap a batch, then see what the tree's state means for the phase. */
static void drain_init(struct sup *s);

static void on_children(struct sup *s)
{
	s->reap_more = iso_reap_ready(on_reaped, s) == ISO_REAP_BATCH;
	if (s->pidns) {
		/* init's end is the kernel's proof that the namespace is empty */
		if (s->init_gone && s->phase != JOINED && s->phase != DONE) {
			drain_init(s);
			enter_joined(s);
		}
		return;
	}
	if (!s->out->exited)
		return;
	if (s->phase == RUNNING)
		after_command(s);
	else if ((s->phase == SETTLE || s->phase == CANCEL) && iso_no_children())
		enter_joined(s);
}

/*
 * A signal meant for the command (launcher/sigtable.h), passed on while it runs:
 * job control to its process group, the rest to the command alone, as sudo and
 * tini do.  Once it has exited there is no one to pass it to.
 */
static void forward(struct sup *s, int sig)
{
	bool group = iso_sig_class(sig) == ISO_SIG_GROUP;

	if (s->pidns) {
		struct iso_ns_msg m = { .type = ISO_NS_FORWARD, .sig = sig, .status = group };

		if (s->phase != JOINED && s->phase != DONE)
			(void)iso_ns_send(s->nsock, &m);
		return;
	}
	if (s->cmd > 0 && !s->out->exited)
		(void)kill(group ? -s->cmd : s->cmd, sig);
}

static void on_signal(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->loop.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		switch (iso_sig_class(sig)) {
		case ISO_SIG_REAP:
			follow_stop(s);
			break;
		case ISO_SIG_CANCEL:
		case ISO_SIG_ABORT:
			/* a terminal's signal already reached the foreground group */
			cancel(s, sig, si.ssi_code == SI_KERNEL);
			break;
		case ISO_SIG_GROUP:
		case ISO_SIG_FORWARD:
			forward(s, sig);
			break;
		default:
			break;
		}
	}
	on_children(s);
}

static void on_timer(struct sup *s)
{
	if (!iso_evloop_expired(&s->loop))
		return;
	switch (s->phase) {
	case RUNNING:
		s->out->timed_out = true;
		cancel(s, 0, false);
		break;
	case SETTLE:
		if (s->pidns) {
			settle_timer_pidns(s);
			break;
		}
		kill_all(s, true);
		enter_joined(s);
		break;
	case CANCEL:
		grace_over(s);
		if (s->pidns) {
			kill_init(s);
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
							   .refused = refused,
							   .started_ms = ISO_STARTED_UNKNOWN };
	snprintf(v[o->n_policy_events].call, sizeof(v->call), "%s", call);
	o->n_policy_events++;
}

/* The refused process still lives (the call failed, it goes on): attribute it now. */
static void on_policy_event(const struct pol_event *ev, void *arg)
{
	struct sup *s = arg;
	struct iso_outcome *o = s->out;
	size_t n = o->n_policy_events;

	add_policy_event(s, ev->pid, ev->call, ev->detail, ev->origin, ev->refused);
	if (o->n_policy_events > n)
		iso_policy_event_attribute(&o->policy_events[n], &s->actx);
}

/*
 * A failure or a slow phase on purpose, for the paths no real run reaches on
 * demand (design.md, "Architecture"): "after-start", "slow-removal",
 * "slow-exec-record", "no-children-file".
 */
static bool test_fault(const char *name)
{
	const char *f = getenv("ISORUN_TEST_FAULT");

	return f && strcmp(f, name) == 0;
}

static void on_exec_seen(pid_t pid, char *const *argv, size_t argc, void *arg)
{
	struct sup *s = arg;

	if (s->slow_record) {
		/* a loaded machine's late record: the caller's parent must still be there */
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		(void)nanosleep(&ts, NULL);
	}
	iso_execlog_add(&s->execlog, pid, argv, argc, s->actx.roots);
}

static void on_wire_event(const struct iso_ns_event_wire *w, void *arg)
{
	struct sup *s = arg;
	struct iso_outcome *o = s->out;
	size_t n = o->n_policy_events;

	add_policy_event(s, w->pid, w->call, w->detail, w->origin, w->refused);
	/* init answered it before the outer had the listener: its pid is init's */
	if (o->n_policy_events > n)
		snprintf(o->policy_events[n].at.why_not, sizeof(o->policy_events[n].at.why_not),
			 "decided by the namespace's init while the command started");
}

static void on_notification(struct sup *s, uint32_t events)
{
	struct pol_event ev;

	if (pol_notify_handle_run(s->listener, s->pol, s->o->policy_log, &ev, on_exec_seen, s,
				  &s->reader, &s->prun) == 1)
		on_policy_event(&ev, s);
	else if (events & (EPOLLHUP | EPOLLERR))
		/* no process uses the filter any more */
		iso_evloop_del(&s->loop, s->listener);
}

static int add_leak(struct sup *s, const struct iso_ns_msg *m)
{
	struct iso_leak *l = realloc(s->out->leaks, (s->out->n_leaks + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	s->out->leaks = l;
	/* the pid outside is looked up for all at once, at ISO_NS_LEAKS_DONE */
	l[s->out->n_leaks++] = (struct iso_leak){
		.pid = m->pid,
		.inner_pid = m->pid,
		.sid = m->sid,
		.start = m->start,
		.cmdline = strdup(m->cmdline),
		.cwd = m->cwd[0] ? strdup(m->cwd) : NULL,
	};
	s->out->leak_alive_ms = now_ms() - s->cmd_exit_ms;
	return 0;
}

/* The survivors are stopped, so still there to be found by their pid at init's level. */
static void map_leaks(struct sup *s)
{
	struct iso_outcome *o = s->out;
	pid_t *inner = calloc(o->n_leaks ? o->n_leaks : 1, sizeof(*inner));
	pid_t *outer = calloc(o->n_leaks ? o->n_leaks : 1, sizeof(*outer));

	if (inner && outer) {
		for (size_t i = 0; i < o->n_leaks; i++)
			inner[i] = o->leaks[i].inner_pid;
		iso_pidns_outer_pids(s->cmd, inner, outer, o->n_leaks);
		for (size_t i = 0; i < o->n_leaks; i++) {
			o->leaks[i].started_ms = ISO_STARTED_UNKNOWN;
			if (!outer[i]) {
				snprintf(o->leaks[i].at.why_not, sizeof(o->leaks[i].at.why_not),
					 "not found from outside the namespace");
				continue;
			}
			o->leaks[i].pid = outer[i];
			/* stopped and visible from here: described as the subreaper gate does */
			iso_leak_describe(&o->leaks[i], &s->actx);
		}
	}
	free(inner);
	free(outer);
}

/* One message from init: 1, or 0 at its end (EOF or an error: the socket leaves the loop). */
static int on_init_message(struct sup *s)
{
	struct iso_ns_msg m, ok = { .type = ISO_NS_KILL_OK };
	int r = iso_ns_recv(s->nsock, &m);

	if (r <= 0) {
		iso_evloop_del(&s->loop, s->nsock);
		return 0;
	}
	switch (m.type) {
	case ISO_NS_EXITED:
		record_status(s, m.status);
		if (s->phase == RUNNING)
			after_command_pidns(s);
		break;
	case ISO_NS_LEAK:
		(void)add_leak(s, &m);
		break;
	case ISO_NS_LEAKS_DONE:
		map_leaks(s);
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
	return 1;
}

/*
 * init writes its last messages (the command's status among them) before it
 * exits, so once it is reaped they are all in the socket: read them before
 * the join, whichever event (SIGCHLD, the cgroup's populated 0) came first.
 */
static void drain_init(struct sup *s)
{
	struct pollfd p = { .fd = s->nsock, .events = POLLIN };

	while (s->nsock >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN) &&
	       on_init_message(s) > 0)
		;
}

static void on_output(struct sup *s, struct iso_stream *st)
{
	(void)iso_stream_pump(st);
	if (st->eof) {
		iso_evloop_del(&s->loop, st->rd);
		if (st->out_watched)
			iso_evloop_del(&s->loop, st->out);
		st->out_watched = false;
		if (s->phase == JOINED && streams_done(s))
			s->phase = DONE;
	}
}

static void on_room(struct sup *s, struct iso_stream *st)
{
	if (!st->out_full)
		return;
	st->out_full = false;
	on_output(s, st);
}

/* A stream whose pump spent its budget with input left: the loop comes back at once. */
static bool streams_more(const struct sup *s)
{
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && s->streams[i].more)
			return true;
	return false;
}

static void dispatch(struct sup *s, enum sup_source src, uint32_t events)
{
	switch (src) {
	case SRC_SIGNAL:
		on_signal(s);
		break;
	case SRC_TIMER:
		on_timer(s);
		break;
	case SRC_STDOUT:
	case SRC_STDERR:
		on_output(s, &s->streams[src - SRC_STDOUT]);
		break;
	case SRC_STDOUT_ROOM:
	case SRC_STDERR_ROOM:
		on_room(s, &s->streams[src - SRC_STDOUT_ROOM]);
		break;
	case SRC_INIT:
		(void)on_init_message(s);
		break;
	case SRC_LISTENER:
		on_notification(s, events);
		break;
	case SRC_CGROUP:
		/* the kernel's own witness changed (populated 0): see where the tree is */
		(void)cg_run_on_event(&s->ceil.run);
		on_children(s);
		break;
	}
}

static void loop(struct sup *s)
{
	struct epoll_event evs[8];

	while (s->phase != DONE) {
		/*
		 * Zombies left by a bounded reap, output left by a pump's budget: look
		 * again once the other events had a turn.
		 */
		bool more = s->reap_more || streams_more(s);
		int n = iso_evloop_wait(&s->loop, evs, ELEMENTSOF(evs), more ? 0 : -1);

		if (n < 0)
			break;
		for (int i = 0; i < n && s->phase != DONE; i++)
			dispatch(s, (enum sup_source)evs[i].data.u64, evs[i].events);
		if (s->reap_more && s->phase != DONE)
			on_children(s);
		for (int i = 0; i < 2 && s->phase != DONE; i++)
			if (s->relayed[i] && s->streams[i].more)
				on_output(s, &s->streams[i]);
	}
	/* what is still buffered in a pipe belongs to the output, even past the deadline */
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && !s->streams[i].eof)
			(void)iso_stream_drain(&s->streams[i]);
}

/*
 * Edge-triggered both ways.  The pump runs until the input is empty, the output
 * is full or its budget is spent (then the loop comes back at once), so no level
 * is left unreported; and while the output is full, input it cannot move must
 * not wake the loop.  Waiting for room here, not in the pump, keeps a reader that
 * stopped reading from stopping the supervisor: the timeout and the signals still
 * act.  A regular file cannot be watched (EPERM) and never fills: the pump writes it.
 */
static int watch_stream(struct sup *s, int i)
{
	struct iso_stream *st = &s->streams[i];
	int r = iso_evloop_watch(&s->loop, st->rd, SRC_STDOUT + i, EPOLLIN | EPOLLET);

	if (r < 0)
		return r;
	st->out_watched =
		iso_evloop_watch(&s->loop, st->out, SRC_STDOUT_ROOM + i, EPOLLOUT | EPOLLET) == 0;
	return 0;
}

/*
 * Processes outside isorun's user namespace (bwrap --unshare-user, unshare -U,
 * a rootless container that shares the host's PIDs around isorun) cannot be
 * read from inside it, whatever their dumpability.  They are not holders of
 * the tree: it was made during the run, 0700, by isorun inside that
 * namespace.  What was not measured is said (`unseen`), never passed over.
 */
static void note_outside(const struct iso_holder *h, size_t n, char *unseen, size_t len)
{
	char list[300];

	iso_holders_list(h, n, list, sizeof(list));
	snprintf(unseen, len,
		 "holders not measured in %zu process%s outside isorun's user namespace, which "
		 "cannot read %s (%s); not holders of a tree made inside it (isorun run outside "
		 "that namespace measures %s)",
		 n, n > 1 ? "es" : "", n > 1 ? "them" : "it", list, n > 1 ? "them" : "it");
}

/*
 * Why the tree cannot be removed, or "" when nothing is in the way; `unseen`
 * says which processes were not measured, or is "".
 */
static void find_obstacle(struct sup *s, char *why, size_t len, char *unseen, size_t ulen)
{
	struct iso_holder_query q = { .exclude = s->self };
	struct iso_holder *h = NULL;
	ino_t pipes[2];
	const char *names[2];
	size_t held;
	int n;

	why[0] = '\0';
	unseen[0] = '\0';
	if (s->join_unproven) {
		snprintf(why, len, "leak check not measurable, so the join cannot be proven (%s)",
			 s->out->gate_unmeasurable);
		return;
	}
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
	q.tree = s->proof == ISO_SHIELD_UNUSED ? NULL : s->out->tree_path;
	q.alias_dev = s->shield_dev;
	/* the kernel proved the tree unused and the pipes saw their EOF: nothing to look for */
	if (!q.tree && !q.n_pipes)
		return;
	n = iso_find_holders(&q, &h, NULL);
	if (n < 0) {
		iso_holders_strerror(n, why, len);
		return;
	}
	held = iso_holders_split_outside(h, (size_t)n);
	if (held < (size_t)n)
		note_outside(h + held, (size_t)n - held, unseen, ulen);
	if (held > 0) {
		const struct iso_holder *first = iso_holder_first(h, held);
		_cleanup_free_ char *cmd = iso_proc_cmdline(first->pid, 80);
		if (first->pipe_index >= 0)
			snprintf(why, len, "pipe still open (pid %d `%s` holds %s)", first->pid,
				 cmd ? cmd : "?", names[first->pipe_index]);
		else
			iso_holder_describe(first, held - (size_t)(first - h), cmd, why, len);
		iso_holders_free(h, (size_t)n);
		return;
	}
	iso_holders_free(h, (size_t)n);
	if (q.n_pipes)
		snprintf(why, len, "pipe still open (%s; its holder is not visible to isorun)",
			 names[0]);
}

enum tree_whereabouts { TREE_HERE, TREE_GONE, TREE_MOVED, TREE_REPLACED };

/*
 * Is the tree still the directory isorun made, at its path?  The command may
 * have deleted it (gone is gone: nothing left to remove), renamed it, or put
 * something else at its path; those two are not ours to remove.  Identity is
 * the (dev, ino) of the directory fd held since creation, not the path.
 */
static enum tree_whereabouts tree_whereabouts(const struct iso_tree *tree, dev_t shield)
{
	struct stat held, at_path;

	if (fstat(tree->fd, &held) < 0)
		return TREE_HERE; /* cannot tell: let the removal find out and say why */
	if (fstatat(tree->user_fd, tree->id, &at_path, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return TREE_HERE;
		/* a deleted directory has no links left; a renamed one still has its own */
		return held.st_nlink == 0 ? TREE_GONE : TREE_MOVED;
	}
	/* a shield still on the tree (held, its holders not named yet) shows its own inode */
	if ((at_path.st_dev != held.st_dev && (!shield || at_path.st_dev != shield)) ||
	    at_path.st_ino != held.st_ino)
		return TREE_REPLACED; /* even if ours is gone: what is there now is not ours */
	return TREE_HERE;
}

/*
 * Settles the outcome when the tree is no longer isorun's to remove: gone is
 * removed (exit unchanged); moved or replaced is retained, a finding, with
 * where it went when that can be told.  Returns false when the tree is here.
 */
static bool tree_gone_or_foreign(const struct iso_tree *tree, dev_t shield, struct iso_outcome *out)
{
	char fdpath[64], where[PATH_MAX];
	ssize_t n;

	switch (tree_whereabouts(tree, shield)) {
	case TREE_HERE:
		return false;
	case TREE_GONE:
		out->tree_state = ISO_TREE_REMOVED;
		return true;
	case TREE_REPLACED:
		out->tree_state = ISO_TREE_RETAINED;
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "the tree was replaced by something else at its path; "
			 "not removed, not isorun's");
		return true;
	case TREE_MOVED:
		break;
	}
	out->tree_state = ISO_TREE_RETAINED;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", tree->fd);
	n = readlink(fdpath, where, sizeof(where) - 1);
	if (n > 0) {
		where[n] = '\0';
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "the tree was moved away (now at %.400s); not removed", where);
	} else {
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "the tree was moved away; not removed");
	}
	return true;
}

/*
 * Asked now and then while the tree is removed: a signal that cancels
 * (launcher/sigtable.h) then cancels the run (128+N, as at any other time) and stops the
 * removal; so does the removal's deadline.  The rest of the tree is retained
 * with its records, for gc.
 */
static bool teardown_cancelled(void *arg)
{
	struct sup *s = arg;
	struct signalfd_siginfo si;

	if (s->remove_deadline_ms && now_ms() >= s->remove_deadline_ms) {
		s->remove_overdue = true;
		return true;
	}

	while (read(s->loop.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (iso_sig_cancels(iso_sig_class(sig))) {
			if (!s->out->cancelled_by)
				s->out->cancelled_by = sig;
			return true;
		}
	}
	return false;
}

/*
 * A setup that failed after the tree was made: remove it with the descriptors
 * set aside for this, and say `removed` only when it is.  What stays keeps its
 * records, so gc can take it.
 */
static void remove_after_setup_failure(struct iso_tree *tree, struct iso_outcome *out)
{
	struct iso_err e = { 0 };
	char buf[400];
	_cleanup_free_ char *path = NULL, *reason = NULL;

	iso_tree_release_reserve(tree);
	if (iso_rmtree_last(tree->user_fd, tree->id, tree->fd, iso_tree_records, tree->path, NULL,
			    &e) == 0) {
		out->tree_state = ISO_TREE_REMOVED;
		return;
	}
	out->tree_state = ISO_TREE_RETAINED;
	snprintf(out->tree_reason, sizeof(out->tree_reason), "removal failed: %s",
		 iso_err_format(&e, buf, sizeof(buf)));
	/* the failure names an entry of the tree: a name the command chose */
	path = iso_shell_quote(tree->path);
	reason = iso_escape(out->tree_reason);
	fprintf(stderr, "isorun: namespace retained at %s: %s\n", path ? path : "?",
		reason ? reason : "?");
}

/* After the holders were named through a held shield: the tree shows on disk again. */
static void finish_shield(struct sup *s)
{
	struct iso_tree *t = &s->tree;
	struct iso_err e = { 0 };
	char buf[400];

	if (s->shield.up)
		iso_shield_off(t->path);
	s->shield.up = false;
	if (!s->shield.work)
		return;
	if (iso_shield_remove_work(t->user_fd, t->id, t->user_path, &e) < 0 && s->o->verbosity >= 0)
		fprintf(stderr, "isorun: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	s->shield.work = false;
}

/*
 * As root the tree wears its shield from just before the command starts: at
 * teardown the kernel then says whether anything holds the tree, and no
 * process is read unless something does (tree/shield.h).
 */
static void raise_shield(struct sup *s)
{
	struct iso_err e = { 0 };

	if (test_fault("no-shield")) {
		snprintf(s->shield.why, sizeof(s->shield.why), "turned off (ISORUN_TEST_FAULT)");
		return;
	}
	(void)iso_shield_raise(&s->shield, s->tree.user_fd, s->tree.fd, s->tree.id, s->tree.path,
			       ISO_TREE_OWNER);
	if (s->shield.up && iso_tree_park(&s->tree, &e) < 0) {
		char buf[400];

		/* a shield with a way past it in our own table proves nothing */
		snprintf(s->shield.why, sizeof(s->shield.why), "%.199s",
			 iso_err_format(&e, buf, sizeof(buf)));
		iso_shield_unlock(&s->shield);
		finish_shield(s);
	}
}

static const char *proof_words(const struct sup *s)
{
	switch (s->proof) {
	case ISO_SHIELD_UNUSED:
		return "proven by the kernel, no process read: the tree's shield ended with its "
		       "unmount";
	case ISO_SHIELD_HELD:
		return "every process read: the tree's shield is held through its mount";
	case ISO_SHIELD_ELSEWHERE:
		return "every process read: the tree's shield lives on after its unmount (another "
		       "mount of it, or a copy in a mount namespace)";
	case ISO_SHIELD_EXPOSED:
	case ISO_SHIELD_NONE:
		break;
	}
	return NULL;
}

/*
 * The shield comes off before anything looks at the tree's path, which then
 * shows the tree on disk, and the work directory goes with it.  A kept tree
 * needs no proof.
 */
static void lower_shield(struct sup *s, bool prove)
{
	struct iso_tree *t = &s->tree;
	struct iso_err e = { 0 };

	s->proof = ISO_SHIELD_NONE;
	iso_shield_unlock(&s->shield);
	/* the tree's descriptor comes back first: teardown knows the tree by it */
	if (iso_tree_unpark(t, &e) < 0 && s->o->verbosity >= 0) {
		char buf[400];
		fprintf(stderr, "isorun: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	}
	if (!s->shield.up)
		snprintf(s->proof_why, sizeof(s->proof_why), "%s", s->shield.why);
	else if (prove)
		s->proof = iso_shield_prove(t->user_fd, t->user_path, t->id, t->path, s->shield.dev,
					    &s->shield_dev, s->proof_why, sizeof(s->proof_why));
	/*
	 * A shield gone before the proof (a root command unmounted it, lazily) may
	 * live on detached: holders through it still show the device it had.
	 */
	if (s->shield.up && !s->shield_dev)
		s->shield_dev = s->shield.dev;
	/* a held shield stays until the holders are named through it */
	if (s->proof != ISO_SHIELD_HELD)
		finish_shield(s);
	if (prove && s->o->verbosity > 0) {
		/* the scan's words name processes of the run */
		_cleanup_free_ char *why = iso_escape(s->proof_why);

		fprintf(stderr, "isorun: holders: %s%s\n",
			proof_words(s) ? "" : "every process read: ",
			proof_words(s) ? proof_words(s)
			: why	       ? why
				       : "?");
	}
}

static void teardown(struct sup *s, struct iso_tree *tree)
{
	struct iso_outcome *out = s->out;
	struct iso_err e = { 0 };
	struct iso_rm_stop stop = { teardown_cancelled, s };
	char why[sizeof(out->tree_reason)], unseen[sizeof(out->tree_reason)];
	uint64_t t;
	int r;

	/* the proof, and a scan, may need the descriptors a full table left no room for */
	iso_tree_release_reserve(tree);
	/* the shield's proof is the holder scan's first step, and timed with it */
	t = now_us();
	lower_shield(s, !s->o->keep);
	if (s->o->keep) {
		out->tree_state = ISO_TREE_KEPT;
		return;
	}
	if (tree_gone_or_foreign(tree, s->shield_dev, out))
		return;
	find_obstacle(s, why, sizeof(why), unseen, sizeof(unseen));
	if (unseen[0] && s->o->verbosity >= 0)
		fprintf(stderr, "isorun: %s\n", unseen);
	/*
	 * Once the holders are named, the shield comes off (a retained tree is a
	 * plain directory); one that may still be in use is recorded by device, for
	 * gc to match.
	 */
	if (s->proof != ISO_SHIELD_UNUSED)
		tree->shield_dev = s->shield_dev;
	if (s->proof == ISO_SHIELD_HELD)
		finish_shield(s);
	out->timing.scan = lap(&t);
	if (why[0]) {
		out->tree_state = ISO_TREE_RETAINED;
		snprintf(out->tree_reason, sizeof(out->tree_reason), "%s", why);
		return;
	}
	iso_tree_release_reserve(tree);
	if (s->o->verbosity > 0)
		fprintf(stderr, "isorun: removing %s\n", tree->path);
	s->remove_deadline_ms =
		now_ms() + (test_fault("slow-removal") ? 0 : ISO_REMOVE_DEADLINE_MS);
	r = iso_rmtree_last(tree->user_fd, tree->id, tree->fd, iso_tree_records, tree->path, &stop,
			    &e);
	s->remove_deadline_ms = 0;
	out->timing.removal = lap(&t);
	/* deleted or moved by someone else while we removed it: say so, not the failure */
	if (r < 0 && tree_gone_or_foreign(tree, s->shield_dev, out))
		return;
	if (r == -ECANCELED) {
		char sig[32], dur[32];
		out->tree_state = ISO_TREE_RETAINED;
		iso_format_duration(ISO_REMOVE_DEADLINE_MS, dur, sizeof(dur));
		if (s->remove_overdue)
			snprintf(out->tree_reason, sizeof(out->tree_reason),
				 "removal still running after %s; the rest of the tree stays for "
				 "isorun gc",
				 dur);
		else
			snprintf(out->tree_reason, sizeof(out->tree_reason),
				 "removal stopped by %s; the rest of the tree stays",
				 iso_signal_name(out->cancelled_by, sig, sizeof(sig)));
		return;
	}
	if (r < 0) {
		char buf[400];
		out->tree_state = ISO_TREE_RETAINED;
		snprintf(out->tree_reason, sizeof(out->tree_reason), "removal failed: %s",
			 iso_err_format(&e, buf, sizeof(buf)));
		return;
	}
	out->tree_state = ISO_TREE_REMOVED;
	/* removed, and what was not measured on the way: the report's tree.reason */
	snprintf(out->tree_reason, sizeof(out->tree_reason), "%s", unseen);
	/* a signal in the last stretch of the removal still cancels: 128+N, never swallowed */
	(void)teardown_cancelled(s);
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

static void residue_gap(struct iso_outcome *out, const char *dir, const char *why)
{
	struct iso_residue_gap *v =
		realloc(out->residue_gaps, (out->n_residue_gaps + 1) * sizeof(*v));

	if (!v)
		return;
	out->residue_gaps = v;
	v[out->n_residue_gaps] = (struct iso_residue_gap){ .dir = dir };
	snprintf(v[out->n_residue_gaps++].why, sizeof(v->why), "%s", why);
}

/*
 * Residue in the watched directories; isorun's own tree (a --root inside one) is
 * not.  A directory whose walks cannot be compared is a gap, never an empty list.
 */
static void collect_residue(struct iso_snapshot *before, size_t n, struct iso_outcome *out)
{
	char tree[PATH_MAX] = "", canon[PATH_MAX];

	if (!realpath(out->tree_path, tree))
		tree[0] = '\0';
	for (size_t w = 0; w < n; w++) {
		struct iso_snapshot after = { 0 };
		const char **fresh = NULL;
		size_t nf = 0;
		char why[384];

		if (iso_snapshot_compare(&before[w], &after, tree[0] ? tree : NULL, &fresh, &nf, why,
					 sizeof(why)) < 0)
			snprintf(why, sizeof(why), "out of memory comparing the walks");
		if (why[0])
			residue_gap(out, before[w].dir, why);
		if (!realpath(before[w].dir, canon))
			canon[0] = '\0';
		if (nf) {
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

/*
 * Every catchable signal is the supervisor's to decide (launcher/sigtable.h),
 * blocked before anything is made, so one that comes while the tree is made is
 * read by the loop, never a default action that orphans the tree.
 */
static int setup_signals(sigset_t *mask)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	int r;

	iso_sig_supervised(mask);
	r = iso_sig_block(mask);
	if (r < 0)
		return r;
	/* a reader that goes away must not kill the supervisor of a live tree */
	if (sigaction(SIGPIPE, &ign, NULL) < 0)
		return -errno;
	/* before the command exists: made later, it would drop a 32 sent to us meanwhile */
	iso_reader_ignore_reserved();
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
static int home_keeps(struct sup *s, struct iso_ns_plan *p, struct iso_err *e)
{
	const struct iso_opts *o = s->o;

	s->keep = calloc(o->writable.n + 1, sizeof(*s->keep));
	if (!s->keep)
		return iso_err_set(e, ENOMEM, "--writable");
	s->keep[0] = realpath(s->tree.path, NULL);
	if (!s->keep[0])
		return iso_err_set(e, errno, "resolve '%s'", s->tree.path);
	s->n_keep = 1;
	for (size_t i = 0; i < o->writable.n; i++, s->n_keep++) {
		s->keep[s->n_keep] = realpath(o->writable.v[i], NULL);
		if (!s->keep[s->n_keep])
			return iso_err_set(e, errno, "--writable '%s'", o->writable.v[i]);
	}
	p->keep = (const char *const *)s->keep;
	p->n_keep = s->n_keep;
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
	bool masks = pidns && pol_masked_path(s->pol, 0);

	iso_caps_plan(c, s->o, pidns, userns, masks);
	sp->caps_mode = c->mode;
	sp->caps_keep = c->keep;
	sp->caps_drop = c->protect;
}

enum covered { COVERED_NONE, COVERED_CWD, COVERED_CHDIR, COVERED_WATCH };

/*
 * The first directory the command works in (--chdir or the working directory,
 * then each --watch) that the covered home (canonical) makes read-only,
 * canonical into buf.
 */
static enum covered home_covered_dir(const struct sup *s, const struct iso_ns_plan *p,
				     const char *home, char *buf)
{
	const struct iso_opts *o = s->o;
	const char *cwd = o->chdir ? o->chdir : s->out->cwd;

	if (cwd && realpath(cwd, buf) && ns_home_covers(home, p->keep, p->n_keep, buf))
		return o->chdir ? COVERED_CHDIR : COVERED_CWD;
	for (size_t i = 0; i < o->watch.n; i++)
		if (realpath(o->watch.v[i], buf) && ns_home_covers(home, p->keep, p->n_keep, buf))
			return COVERED_WATCH;
	return COVERED_NONE;
}

/*
 * Where isorun knows the fix, it says so before the start: the kernel refuses a
 * write to the covered home before anything isorun could watch sees it
 * (docs/use/guard-home.md), so the suite's own "Read-only file system" would be
 * all the user gets.  One line, not with -q.
 */
static const char *const covered_what[] = {
	[COVERED_CWD] = "the working directory",
	[COVERED_CHDIR] = "the --chdir directory",
	[COVERED_WATCH] = "the --watch directory",
};

static void home_hint(const struct sup *s, const struct iso_ns_plan *p)
{
	const struct iso_opts *o = s->o;
	/* a home reached through a symlink: the directories are compared canonical */
	_cleanup_free_ char *q = NULL, *home = realpath(p->real_home, NULL);
	char dir[PATH_MAX];
	enum covered c =
		o->verbosity < 0 || !home ? COVERED_NONE : home_covered_dir(s, p, home, dir);
	const char *shown, *what;

	if (c == COVERED_NONE)
		return;
	q = iso_shell_quote(dir);
	shown = q ? q : dir;
	what = o->protect_home == NS_HOME_HIDE
		       ? "hidden home; the command can neither see nor write it"
		       : "protected home; writes there will fail with \"Read-only file system\"";
	/* --writable refuses the home itself: a hint must work when followed */
	if (strcmp(home, dir) == 0) {
		fprintf(stderr,
			"isorun: %s %s is the %s; --writable cannot keep the whole home: add "
			"--protect-home=off, or use a directory below the home with --writable "
			"DIR\n",
			covered_what[c], shown, what);
		return;
	}
	fprintf(stderr, "isorun: %s %s lies under the %s; add --writable %s%s\n", covered_what[c],
		shown, what, shown, c == COVERED_CWD ? " (or --writable .)" : "");
}

/* --protect-home: the real home from the passwd entry, and what stays writable. */
static int plan_home(struct sup *s, struct iso_ns_plan *p, struct iso_err *e)
{
	struct iso_tree *t = &s->tree;
	struct passwd *pw;
	int r;

	/* HOME points into the tree by now: the real one is the passwd entry's */
	errno = 0;
	pw = getpwuid(getuid());
	if (!pw || !pw->pw_dir || !*pw->pw_dir)
		return iso_err_set(e, errno ? errno : ENOENT,
				   "--protect-home: find the home of uid %u in the passwd database",
				   (unsigned)getuid());
	p->real_home = pw->pw_dir;
	free(s->out->home);
	s->out->home = strdup(pw->pw_dir); /* for the failure's note; none without memory */
	r = home_keeps(s, p, e);
	if (r == 0)
		home_hint(s, p);
	if (r < 0 || s->o->protect_home != NS_HOME_HIDE)
		return r;
	snprintf(s->empty_dir, sizeof(s->empty_dir), "%s/empty", t->path);
	/* by path: the tree's descriptor is parked while its shield is up */
	if (mkdir(s->empty_dir, 0700) < 0)
		return iso_err_set(e, errno, "create '%s'", s->empty_dir);
	r = ns_home_skeleton(p->real_home, s->empty_dir, p->keep, p->n_keep, e);
	if (r < 0)
		return r;
	/* the hidden home takes no files */
	if (chmod(s->empty_dir, 0500) < 0)
		return iso_err_set(e, errno, "make '%s' read-only", s->empty_dir);
	return 0;
}

/* The plan for init, then init itself; on success s->cmd is init, s->nsock its socket. */
static int start_pidns(struct sup *s, const struct iso_spawn *sp, int *ret_listener,
		       struct iso_err *e)
{
	const struct iso_opts *o = s->o;
	struct iso_ns_plan *p = &s->plan;
	int r;

	*p = (struct iso_ns_plan){
		.o = o,
		.spawn = *sp,
		.userns = getuid() != 0 || geteuid() != 0,
		.inside_uid = o->map_root ? 0 : getuid(),
		.inside_gid = o->map_root ? 0 : getgid(),
		.tree = s->tree.path,
		.tree_tmp = s->tree_tmp,
		.empty_dir = s->empty_dir,
	};
	plan_caps(s, &p->spawn, true, p->userns);
	r = iso_map_users_plan(p, &s->id_filter, e);
	if (r < 0) {
		p->map_failed = true;
		return r;
	}
	/* init leaves for "/" before it mounts: the command names its directory */
	if (!p->spawn.cwd)
		p->spawn.cwd = s->out->cwd;
	snprintf(s->tree_tmp, sizeof(s->tree_tmp), "%s/tmp", s->tree.path);
	if (o->protect_home) {
		r = plan_home(s, p, e);
		if (r < 0)
			return r;
	}
	r = iso_pidns_start(p, &s->cmd, &s->nsock, &s->fail, ret_listener, &s->guard_elsewhere,
			    on_wire_event, s, e);
	if (r < 0)
		return r;
	s->pidns = true;
	if (iso_evloop_add(&s->loop, s->nsock, SRC_INIT) < 0)
		return iso_err_set(e, errno, "watch the namespace control socket");
	return 0;
}

/*
 * Keep the failure for the verdict, the report and the JUnit file, then print the
 * module's hint and the command line's advice for its cause (the options to use).
 */
static void setup_error(struct sup *s, const struct iso_err *e)
{
	struct iso_outcome *out = s->out;
	char buf[512];

	out->setup_err = *e;
	if (e->cause && s->o->advise)
		s->o->advise(s->o, e->cause, out->setup_advice, sizeof(out->setup_advice));
	fprintf(stderr, "isorun: %s\n", iso_err_format(e, buf, sizeof(buf)));
	if (e->hint[0] || out->setup_advice[0])
		fprintf(stderr, "  (hint: %s%s%s)\n", e->hint,
			e->hint[0] && out->setup_advice[0] ? "; " : "", out->setup_advice);
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

/* A policy mistake is reported before anything exists. */
static int load_policy(struct sup *s)
{
	struct pol_error perr = { 0 };
	char buf[1024];

	if (strcmp(s->o->policy, "off") == 0)
		return 0;
	if (pol_load(s->o->policy, &s->policy, &perr) < 0) {
		fprintf(stderr, "isorun: --policy: %s\n",
			pol_error_format(&perr, buf, sizeof(buf)));
		/* kept for the report, the JUnit file and the annotation: file:line:col */
		iso_err_set(&s->out->setup_err, 0, "--policy: %s", perr.msg);
		if (perr.file[0]) {
			snprintf(s->out->setup_file, sizeof(s->out->setup_file), "%s", perr.file);
			s->out->setup_line = perr.line;
			s->out->setup_col = perr.col;
		}
		return -EINVAL;
	}
	s->pol = &s->policy;
	s->out->policy_name = s->policy.name[0] ? s->policy.name : s->o->policy;
	s->out->policy_log = s->o->policy_log;
	s->out->rlimits = s->o->rlimits;
	return 0;
}

/* The command will run in a user namespace of the run's own (start_pidns()). */
static bool will_have_userns(const struct iso_opts *o)
{
	return o->plan.namespaces && (getuid() != 0 || geteuid() != 0);
}

/* Before the tree: the subreaper, the checks, the ceilings, --watch. */
static int prepare(struct sup *s, struct iso_err *e)
{
	const struct iso_opts *o = s->o;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
		s->out->subreaper = true;
	else
		snprintf(s->out->subreaper_why, sizeof(s->out->subreaper_why),
			 "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
	if (check_chdir(o, e) < 0 || check_pass_fds(o, e) < 0)
		return -EINVAL;
	if (iso_ceilings_plan(&s->ceil, o, will_have_userns(o), &s->out->res, e) < 0)
		return -EINVAL;
	if (!o->watch.n)
		return 0;
	s->snaps = calloc(o->watch.n, sizeof(*s->snaps));
	if (!s->snaps)
		return iso_err_set(e, ENOMEM, "--watch");
	for (size_t i = 0; i < o->watch.n; i++)
		if (iso_snapshot_take(o->watch.v[i], &s->snaps[i], e) < 0)
			return -EINVAL;
	return 0;
}

/* The tree, the command's environment, its pipes and the event loop. */
static int make_tree(struct sup *s, struct iso_err *e)
{
	const struct iso_opts *o = s->o;
	int r = iso_tree_create(&s->tree, iso_tree_root(o->root), o->argv, e);

	if (r < 0) {
		/* a hint already there says what a failed creation left behind */
		if ((e->errnum == EACCES || e->errnum == EROFS) && !e->hint[0])
			iso_err_hint(e, "choose a writable place with --root DIR or ISORUN_ROOT");
		return r;
	}
	snprintf(s->out->tree_path, sizeof(s->out->tree_path), "%s", s->tree.path);
	if (iso_ceilings_create(&s->ceil, o, s->tree.id, s->tree.fd, &s->out->res, e) < 0)
		return -EIO;
	if (iso_env_build(o, &s->tree, environ, &s->env, e) < 0)
		return -EINVAL;
	s->out->env = s->env;
	if (o->shell)
		iso_shell_banner(stderr, o, s->tree.path);
	if (open_streams(s, e) < 0 ||
	    iso_evloop_open(&s->loop, &s->mask, SRC_SIGNAL, SRC_TIMER, e) < 0)
		return -EINVAL;
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && (r = watch_stream(s, i)) < 0)
			return iso_err_set(e, -r, "watch the %s pipe", s->streams[i].name);
	if (iso_ceilings_watch_fd(&s->ceil) >= 0 &&
	    iso_evloop_add(&s->loop, iso_ceilings_watch_fd(&s->ceil), SRC_CGROUP) < 0)
		return iso_err_set(e, errno, "watch the run's cgroup");
	if (isatty(0) && tcgetpgrp(0) == getpgrp() && tcgetattr(0, &s->saved_tty) == 0)
		s->tty_fd = 0;
	return 0;
}

static struct iso_spawn spawn_request(struct sup *s)
{
	const struct iso_opts *o = s->o;
	struct iso_spawn sp = {
		.path = s->cmd_path,
		.argv = o->argv,
		.envp = s->env,
		.cwd = o->chdir,
		.out_fd = s->relayed[0] ? s->streams[0].wr : -1,
		.err_fd = s->out->output_merged ? s->streams[0].wr
			  : s->relayed[1]	? s->streams[1].wr
						: -1,
		.pass_fds = o->pass_fds,
		.n_pass_fds = o->n_pass_fds,
		.tty_fd = s->tty_fd,
		.pol = s->pol,
		.pol_log = o->policy_log,
		.pol_run = &s->prun,
		.rlimits = o->rlimits,
		.on_event = on_policy_event,
		.on_exec = on_exec_seen,
		.event_arg = s,
	};

	iso_ceilings_spawn(&s->ceil, &sp);
	return sp;
}

/*
 * contain-signals without a PID namespace: the supervisor's descendants (not the
 * run's cgroup: the command may move a stranger into it, policy/signal.c).
 */
static void signals_scope(struct sup *s)
{
	s->prun.root = getpid();
}

/*
 * The command under init when a namespace is asked for (--pidns=try falls back, and
 * says so; the report carries the reason), else directly.  Returns 0 when started
 * (s->fail says whether it exec'd), or -errno with nothing left running.
 */
static int spawn_command(struct sup *s, int *listener, struct iso_err *e)
{
	const struct iso_opts *o = s->o;
	bool need_ns = o->plan.protections;
	struct iso_spawn sp = spawn_request(s);
	char buf[300];
	int r = 1;

	s->out->timing.setup = lap(&s->t_us);
	signals_scope(s);
	if (o->pidns || need_ns) {
		/* the PID namespace contains the command's signals: no notification needed */
		bool contain = pol_signals_contained(&s->policy);

		pol_set_signals_contained(&s->policy, false);
		r = start_pidns(s, &sp, listener, e);
		if (r < 0 && o->pidns == ISO_PIDNS_TRY && !need_ns && !s->plan.map_failed) {
			snprintf(s->out->pidns_why, sizeof(s->out->pidns_why), "%s",
				 iso_err_format(e, buf, sizeof(buf)));
			fprintf(stderr,
				"isorun: pidns: not available (%s); using the subreaper gate\n",
				s->out->pidns_why);
			*e = (struct iso_err){ 0 };
			iso_ceilings_no_userns(&s->ceil, &s->out->res);
			iso_ceilings_spawn(&s->ceil, &sp);
			r = 1;
		}
		pol_set_signals_contained(&s->policy, contain && r == 1);
	}
	if (r == 1) {
		/* after a --pidns=try fallback: the plan the command really started with */
		plan_caps(s, &sp, false, false);
		r = iso_spawn(&sp, &s->cmd, &s->fail, listener, &s->guard_elsewhere, e);
	}
	return r;
}
enum start { STARTED, EXEC_FAILED, FAILED_BEFORE, FAILED_AFTER };

/*
 * The exec's error, and when it is "not found" for a file the host has, the
 * option whose mounts hide it: without it the run's 127 would not name its cause.
 */
static void exec_error(struct sup *s, int errnum)
{
	const char *via = s->cmd_path ? s->cmd_path : s->cmd_hidden;
	char cause[768] = "";

	if (errnum == ENOENT && via)
		iso_hidden_cause(&s->hidden, via, cause, sizeof(cause));
	if (cause[0] && !s->cmd_path)
		snprintf(s->out->exec_error, sizeof(s->out->exec_error),
			 "%s: %s in the run; PATH finds %s, but %s", s->o->argv[0],
			 strerror(errnum), via, cause);
	else
		snprintf(s->out->exec_error, sizeof(s->out->exec_error), "%s: %s%s%s",
			 s->o->argv[0], strerror(errnum), cause[0] ? "; " : "", cause);
}

/* The child never became the command: only the exec itself is the command's failure. */
static enum start child_failed(struct sup *s, struct iso_err *e)
{
	const struct iso_opts *o = s->o;
	struct iso_exec_failure *f = &s->fail;

	if (f->stage != ISO_STAGE_EXEC) {
		*e = f->err;
		if (f->stage == ISO_STAGE_CHDIR && o->chdir)
			iso_err_set(e, f->errnum, "--chdir '%s'", o->chdir);
		if (!e->msg[0])
			iso_err_set(e, f->errnum, "prepare the command");
		return FAILED_BEFORE;
	}
	s->out->exec_failed = true;
	exec_error(s, f->errnum);
	s->out->exit = f->errnum == ENOENT ? ISO_EXIT_NOT_FOUND : ISO_EXIT_CANNOT_EXEC;
	return EXEC_FAILED;
}

static void record_start(struct sup *s, pid_t pid)
{
	s->actx.cmd = pid;
	iso_execlog_add(&s->execlog, pid, s->o->argv, s->o->argc, s->actx.roots);
}

/*
 * Where attribution stops (isorun; under --pidns also init) and why the exec record
 * may be empty.  Under --pidns init answered the command's own exec: record it here.
 * Init has one thread, so its children file names the command in one read; the
 * walk of every process's stat is for kernels without that file.
 */
static void attrib_ready(struct sup *s)
{
	struct iso_proc *list = NULL;
	pid_t kids[16];
	int n;

	s->actx.roots[1] = s->pidns ? s->cmd : 0;
	s->actx.cmd = s->pidns ? 0 : s->cmd;
	s->execlog.on = s->pol && !s->guard_elsewhere;
	s->actx.no_record = !s->pol ? "the service guard, which records each exec, is off "
				      "(--policy=off)"
			    : s->guard_elsewhere
				    ? "an enclosing isorun receives the exec notifications"
				    : NULL;
	if (!s->pidns || !s->execlog.on)
		return;
	n = test_fault("no-children-file") ? -ENOENT
					   : iso_proc_children(s->cmd, kids, ELEMENTSOF(kids));
	if (n >= 0) {
		for (int i = 0; i < n; i++)
			record_start(s, kids[i]);
		return;
	}
	n = iso_proc_descendants(s->cmd, &list);
	for (int i = 0; i < n; i++)
		if (list[i].ppid == s->cmd)
			record_start(s, list[i].pid);
	free(list);
}

/* Everything the supervisor watches once the command runs; a failure here is after the start. */
static int watch_command(struct sup *s, int listener, struct iso_err *e)
{
	int r = 0;

	s->out->guard_elsewhere = s->guard_elsewhere;
	attrib_ready(s);
	if (listener >= 0) {
		s->listener = listener;
		r = iso_evloop_add(&s->loop, listener, SRC_LISTENER);
		if (r < 0)
			return iso_err_set(e, -r, "watch the seccomp listener");
	}
	r = test_fault("after-start") ? -EMFILE : 0;
	if (r < 0)
		return iso_err_set(e, -r, "supervise the command (ISORUN_TEST_FAULT)");
	return 0;
}

static enum start start(struct sup *s, struct iso_err *e)
{
	const struct iso_opts *o = s->o;
	int listener = -1, r;

	iso_hidden_init(&s->hidden, o, s->tree.path, s->out->cwd);
	if (o->verbosity >= 0)
		iso_hidden_warn(stderr, &s->hidden, o->argv, s->env);
	r = iso_resolve_command(o->argv[0], s->env, &s->hidden, &s->cmd_path, &s->cmd_hidden);

	if (r == -ENOENT) {
		close_write_ends(s);
		s->fail = (struct iso_exec_failure){ .errnum = ENOENT, .stage = ISO_STAGE_EXEC };
		return child_failed(s, e);
	}
	if (r < 0) {
		iso_err_set(e, -r, "look up the command '%s'", o->argv[0]);
		return FAILED_BEFORE;
	}
	/* before the command's own exec is recorded: one run, one kind of identity */
	s->execlog.pidfs = s->pol && iso_proc_ident_probe();
	raise_shield(s);
	r = spawn_command(s, &listener, e);
	close_write_ends(s);
	s->out->timing.start = lap(&s->t_us);
	if (r < 0)
		return s->cmd > 0 ? FAILED_AFTER : FAILED_BEFORE;
	if (watch_command(s, listener, e) < 0)
		return FAILED_AFTER;
	if (s->guard_elsewhere && o->verbosity >= 0)
		fprintf(stderr, "isorun: policy: service guard enforced by the enclosing isorun\n");
	if (o->verbosity > 0)
		iso_caps_say(&s->out->caps, stderr);
	if (o->verbosity > 0 && s->execlog.on)
		fprintf(stderr, "isorun: exec record: processes named by %s\n",
			s->execlog.pidfs ? "pidfs inode number" : "start time");
	if (s->fail.errnum) {
		(void)waitpid(s->cmd, NULL, 0);
		s->cmd = 0;
		return child_failed(s, e);
	}
	if (s->tty_fd >= 0) {
		/* with --pidns the command took the terminal itself: s->cmd is init */
		if (!s->pidns)
			(void)tcsetpgrp(s->tty_fd, s->cmd);
		s->tty_handed = true;
	}
	return STARTED;
}

/*
 * From here on the command's memory and /proc files are read through the
 * reader, so no read of them waits past its deadline (common/reader.h).  Not
 * before: the command's first exec is answered with isorun's own memory, and
 * no clone() may follow a second thread.
 */
static void start_reader(struct sup *s)
{
	struct iso_err e = { 0 };
	char buf[400];

	if (iso_reader_start(&s->reader, ISO_READER_DEADLINE_MS, &e) < 0) {
		fprintf(stderr, "isorun: reads of the command's memory are not bounded: %s\n",
			iso_err_format(&e, buf, sizeof(buf)));
		return;
	}
	iso_reader_set_proc(&s->reader);
}

static void supervise(struct sup *s, enum start how)
{
	if (how == EXEC_FAILED) {
		/* the pipes' only writer is gone: their EOF is at hand */
		enter_joined(s);
		loop(s);
		return;
	}
	s->out->started_cmd = true;
	s->started_ms = now_ms();
	start_reader(s);
	if (s->o->timeout_ms)
		arm(s, s->o->timeout_ms);
	loop(s);
	s->out->timing.command = lap(&s->t_us);
}

/*
 * A step after the start failed: what runs is stopped and reaped before anything is
 * removed, and the tree then goes by the usual rules.  The exit is 125.
 */
static void stop_after_failure(struct sup *s, const struct iso_err *e)
{
	char buf[sizeof(s->out->setup_error)];

	setup_error(s, e);
	s->out->setup_failed = true;
	snprintf(s->out->setup_error, sizeof(s->out->setup_error), "%s",
		 iso_err_format(e, buf, sizeof(buf)));
	s->phase = CANCEL;
	if (s->pidns) {
		kill_init(s);
	} else {
		kill_all(s, false);
		enter_joined(s);
	}
	loop(s);
}

/* Why a kept or retained tree stayed, for `isorun ls`; a failure only warns. */
static void record_state(struct sup *s)
{
	struct iso_outcome *out = s->out;
	struct iso_err e = { 0 };
	char buf[400];
	int r = 0;

	if (out->tree_state == ISO_TREE_KEPT)
		r = iso_tree_record_state(&s->tree, true, s->o->shell ? "isorun shell" : "--keep",
					  &e);
	else if (out->tree_state == ISO_TREE_RETAINED)
		r = iso_tree_record_state(&s->tree, false, out->tree_reason, &e);
	if (r < 0)
		fprintf(stderr,
			"isorun: warning: %s (isorun ls will not show why the tree stayed)\n",
			iso_err_format(&e, buf, sizeof(buf)));
}

/* The tree by the usual rules, then the report and the verdict. */
static int finish(struct sup *s)
{
	const struct iso_opts *o = s->o;
	struct iso_outcome *out = s->out;

	if (s->tty_handed) {
		/* the caller's shell gets its terminal back as it was */
		(void)tcsetpgrp(s->tty_fd, getpgrp());
		(void)tcsetattr(s->tty_fd, TCSADRAIN, &s->saved_tty);
	}
	out->pidns = s->pidns;
	iso_ceilings_finish(&s->ceil, o, out->term_signal || out->exit_code || out->init_signal,
			    &out->res);
	if (s->snaps)
		collect_residue(s->snaps, o->watch.n, out);
	teardown(s, &s->tree);
	record_state(s);
	out->duration_ms = (now_us() - s->t_start) / 1000;
	/* the files before stderr: a report that could not be written is part of the verdict */
	return iso_sinks_finish(&s->outputs, o, out);
}

/* A setup that failed before the command ran leaves nothing behind; e: NULL when printed. */
static int fail_before_start(struct sup *s, const struct iso_err *e)
{
	struct iso_outcome *out = s->out;

	iso_ceilings_finish(&s->ceil, s->o, true, &out->res);
	out->setup_before = true;
	/* the shield's work directory is removed with the descriptors set aside for it */
	iso_tree_release_reserve(&s->tree);
	lower_shield(s, false);
	if (s->tree.fd >= 0)
		remove_after_setup_failure(&s->tree, out);
	if (e)
		setup_error(s, e);
	out->duration_ms = (now_us() - s->t_start) / 1000;
	return iso_sinks_finish(&s->outputs, s->o, out);
}

static void free_outcome(struct iso_outcome *out)
{
	for (size_t i = 0; i < out->n_residue; i++)
		free(out->residue[i].path);
	free(out->residue);
	free(out->residue_gaps);
	iso_leaks_free(out->leaks, out->n_leaks);
	iso_hung_free(&out->hung);
	free(out->cwd);
	free(out->home);
	for (size_t i = 0; i < out->n_policy_events; i++) {
		free(out->policy_events[i].detail);
		free(out->policy_events[i].origin);
		iso_attrib_free(&out->policy_events[i].at);
	}
	free(out->policy_events);
}

static void free_sup(struct sup *s)
{
	iso_reader_set_proc(NULL);
	iso_reader_stop(&s->reader);
	for (int i = 0; i < 2; i++)
		if (s->relayed[i])
			iso_stream_close(&s->streams[i]);
	for (size_t i = 0; s->snaps && i < s->o->watch.n; i++)
		iso_snapshot_free(&s->snaps[i]);
	free(s->snaps);
	iso_env_free(s->env);
	free(s->cmd_path);
	free(s->cmd_hidden);
	iso_hidden_free(&s->hidden);
	for (size_t i = 0; i < s->n_keep; i++)
		free(s->keep[i]);
	free(s->keep);
	if (s->pidns && s->nsock >= 0)
		close(s->nsock);
	if (s->listener >= 0)
		close(s->listener);
	iso_sinks_close(&s->outputs);
	iso_evloop_close(&s->loop);
	iso_tree_close(&s->tree);
	iso_ceilings_close(&s->ceil);
	if (s->pol)
		pol_free(&s->policy);
	free(s->id_filter);
	iso_execlog_free(&s->execlog);
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
		.o = o,
		.out = &out,
		.self = getpid(),
		.loop = ISO_EVLOOP_INIT,
		.listener = -1,
		.tty_fd = -1,
		.outputs = ISO_SINKS_INIT,
		.tree = { .user_fd = -1, .fd = -1, .lock_fd = -1 },
		.shield = { .lock_fd = -1 },
		.ceil = ISO_CEILINGS_INIT,
		.t_start = now_us(),
		.actx = { .run_start_ms = iso_boottime_ms() },
	};
	struct iso_err e = { 0 };
	enum start how;
	int code;

	s.t_us = s.t_start;
	s.actx.log = &s.execlog;
	s.actx.roots[0] = s.self;
	s.slow_record = test_fault("slow-exec-record");
	clock_gettime(CLOCK_REALTIME, &out.started);
	out.cwd = getcwd(NULL, 0);
	if ((code = setup_signals(&s.mask)) < 0) {
		iso_err_set(&e, -code, "block signals");
		code = fail_before_start(&s, &e);
	} else if (iso_sinks_open(&s.outputs, o, &out, &e) < 0) {
		code = fail_before_start(&s, &e);
	} else if (load_policy(&s) < 0) {
		code = fail_before_start(&s, NULL);
	} else if (prepare(&s, &e) < 0 || make_tree(&s, &e) < 0) {
		code = fail_before_start(&s, &e);
	} else {
		how = start(&s, &e);
		if (how == FAILED_BEFORE) {
			code = fail_before_start(&s, &e);
		} else {
			if (how == FAILED_AFTER)
				stop_after_failure(&s, &e);
			else
				supervise(&s, how);
			code = finish(&s);
		}
	}
	free_sup(&s);
	free_outcome(&out);
	return code;
}
