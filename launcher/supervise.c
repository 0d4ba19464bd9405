// SPDX-License-Identifier: MIT
/*
 * The supervision loop.  isorun waits on one epoll: a signalfd (SIGCHLD and the
 * signals it decides), the output pipes, the gate's socket, the seccomp
 * listener, the cgroup's events and one timerfd for whichever deadline is next.
 * Each event becomes a phase event; the phase table (launcher/phase.h) says what
 * follows, this file performs it, and the gate (launcher/gate.h) does the part
 * that differs between the subreaper and the PID namespace.
 *
 * "The tree is empty" has positive evidence: under the subreaper gate isorun has
 * no child left (every live descendant whose parent died was reparented to it);
 * under --pidns the namespace's init ended.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/finding.h"
#include "launcher/leak.h"
#include "launcher/say.h"
#include "launcher/sigtable.h"
#include "launcher/sup.h"
#include "launcher/waitline.h"
#include "ns/ns.h"

void sup_record_status(struct sup *s, int status)
{
	if (s->out->exited)
		return;
	s->out->exited = true;
	s->cmd_exit_ms = sup_now_ms();
	if (WIFEXITED(status))
		s->out->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		s->out->term_signal = WTERMSIG(status);
}

void sup_on_reaped(pid_t pid, int status, void *arg)
{
	struct sup *s = arg;

	if (pid == s->cmd)
		s->gate->on_reaped(s, status);
}

static bool streams_done(const struct sup *s)
{
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && !s->streams[i].eof)
			return false;
	return true;
}

/* SUP_PA_JOIN: the tree is gone; whoever still holds a pipe is outside it.  Bounded wait. */
enum sup_phase_event sup_join(struct sup *s)
{
	sup_evloop_disarm(&s->loop);
	if (streams_done(s))
		return SUP_PE_STREAMS_DONE;
	sup_evloop_arm(&s->loop, s->o->plan.stop.settle_ms);
	return SUP_PE_NONE;
}

/*
 * The settle window: --settle, cut short by --timeout, which covers the whole run up
 * to the leak gate (survivors of a command that ended in time are leaks, not a timeout).
 */
uint64_t sup_settle_left(const struct sup *s)
{
	uint64_t now = sup_now_ms(), end;

	if (!s->o->plan.stop.timeout_ms)
		return s->o->plan.stop.settle_ms;
	end = s->started_ms + s->o->plan.stop.timeout_ms;
	if (end <= now)
		return 0;
	return end - now < s->o->plan.stop.settle_ms ? end - now : s->o->plan.stop.settle_ms;
}

void sup_note_cancel(struct sup *s, int sig)
{
	if (sig)
		s->out->cancelled_by = sig;
}

/*
 * The tree as it is when --timeout fires or a cancel comes, before any signal: what
 * hung, said at once (a CI job may be killed during the grace) and kept for the report.
 */
static void take_hung(struct sup *s, int sig)
{
	struct sup_hung_tree *t = &s->out->hung;

	if (t->taken || !s->out->started_cmd)
		return;
	sup_hung_take(t, s->gate->root(s), &s->actx);
	t->after_ms = sup_now_ms() - s->started_ms;
	t->signal = s->o->plan.stop.signal;
	t->grace_ms = s->o->plan.stop.grace_ms;
	sup_hung_text(stderr, s->out, sig != 0, "isorun: ");
}

/* The grace is over (or a second signal cut it): name who outlived it, then kill. */
static void grace_over(struct sup *s)
{
	struct sup_hung_tree *t = &s->out->hung;

	if (!t->taken || t->survived)
		return;
	sup_hung_survivors(t, s->gate->root(s));
	sup_survived_text(stderr, t, "isorun: ");
}

/*
 * What the command's group gets on a cancel by sig: the signal itself when it
 * asks a program to stop (a Ctrl-C'd test runner prints its summary), else
 * --stop-signal (a SIGSEGV sent to isorun is no fault of the command's).
 */
int sup_to_command(const struct sup *s, int sig)
{
	return sup_sig_class(sig) == SUP_SIG_CANCEL ? sig : s->o->plan.stop.signal;
}

/* How the command ended, for the settle's line: "exited 0", "killed by SIGTERM". */
static void how_ended(const struct sup_outcome *o, char *buf, size_t len)
{
	char sig[32];

	if (o->term_signal)
		snprintf(buf, len, "killed by %s",
			 iso_signal_name(o->term_signal, sig, sizeof(sig)));
	else
		snprintf(buf, len, "exited %d", o->exit_code);
}

/*
 * The settle begins: the terminal comes back to isorun, so that the user's Ctrl-C
 * reaches it and ends the wait (the survivors are then leaks at once), and one
 * line says who remains and for how long isorun waits (-q: only the terminal).
 */
static void settle_begins(struct sup *s)
{
	uint64_t left = sup_settle_left(s);
	char how[64], words[96];
	struct sup_still st;
	struct sup_still_wait w = {
		.how = how, .wait_ms = left, .words = words, .ctrl_c = s->tty_handed
	};

	if (s->tty_handed)
		(void)tcsetpgrp(s->tty_fd, getpgrp());
	if (s->o->verbosity < 0 || !left || sup_still_running(s->gate->root(s), &st) < 0)
		return;
	how_ended(s->out, how, sizeof(how));
	if (left < s->o->plan.stop.settle_ms)
		snprintf(words, sizeof(words), "%s, cut short by %s",
			 sup_say(s->o->say, SUP_SAY_SETTLE), sup_say(s->o->say, SUP_SAY_TIMEOUT));
	else
		snprintf(words, sizeof(words), "%s", sup_say(s->o->say, SUP_SAY_SETTLE));
	sup_still_line(stderr, &st, &w);
}

/* The actions of one step, in enum sup_phase_action's order; returns the gate's answer. */
static enum sup_phase_event perform(struct sup *s, unsigned a, int sig, bool from_terminal)
{
	const struct sup_gate_ops *g = s->gate;
	enum sup_phase_event next = SUP_PE_NONE;

	if (a & SUP_PA_TIMED_OUT)
		s->out->timed_out = true;
	if (a & SUP_PA_NOTE_CANCEL)
		sup_note_cancel(s, sig);
	if (a & SUP_PA_TAKE_HUNG)
		take_hung(s, sig);
	if (a & SUP_PA_GRACE_OVER)
		grace_over(s);
	if (a & SUP_PA_ARM_GRACE)
		sup_evloop_arm(&s->loop, s->o->plan.stop.grace_ms);
	if (a & SUP_PA_STOP)
		g->stop(s, sig, from_terminal);
	if (a & SUP_PA_SWEEP)
		next = g->sweep(s, sig);
	if (a & SUP_PA_SETTLE) {
		settle_begins(s);
		g->settle(s);
	}
	if (a & SUP_PA_SETTLE_TIMER)
		next = g->settle_timer(s);
	if (a & SUP_PA_KILL)
		next = g->kill(s);
	if ((a & SUP_PA_DRAIN) && g->drain)
		g->drain(s);
	if (a & SUP_PA_JOIN)
		next = sup_join(s);
	if ((a & SUP_PA_LATE_CANCEL) && g->late_cancel)
		next = g->late_cancel(s, sig);
	if (a & SUP_PA_FORWARD)
		g->forward(s, sig);
	if ((a & SUP_PA_LATE_FORWARD) && g->late_forward)
		g->late_forward(s, sig);
	return next;
}

/* One event through the phase table; what the gate answers goes through it in turn. */
void sup_step(struct sup *s, enum sup_phase_event ev, int sig, bool from_terminal)
{
	while (ev != SUP_PE_NONE) {
		struct sup_phase_step st = sup_phase_next(s->phase, ev);

		s->phase = st.next;
		ev = perform(s, st.actions, sig, from_terminal);
		sig = 0;
		from_terminal = false;
	}
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
		sup_on_reaped(s->cmd, status, s);
		return;
	}
	(void)tcsetpgrp(s->tty_fd, getpgrp());
	(void)kill(getpid(), SIGSTOP);
	/* running again: the shell continued us */
	(void)tcsetpgrp(s->tty_fd, s->cmd);
	(void)kill(-s->cmd, SIGCONT);
}

/* Reap a batch, then see what the tree's state means for the phase. */
static void on_children(struct sup *s)
{
	s->reap_more = sup_reap_ready(sup_on_reaped, s) == SUP_REAP_BATCH;
	sup_step(s, s->gate->children(s), 0, false);
}

static void on_signal(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->loop.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		switch (sup_sig_class(sig)) {
		case SUP_SIG_REAP:
			follow_stop(s);
			break;
		case SUP_SIG_CANCEL:
		case SUP_SIG_ABORT:
			/* a terminal's signal already reached the foreground group */
			sup_step(s, SUP_PE_SIGNAL, sig, si.ssi_code == SI_KERNEL);
			break;
		case SUP_SIG_GROUP:
		case SUP_SIG_FORWARD:
			sup_step(s, SUP_PE_FORWARD, sig, false);
			break;
		default:
			break;
		}
	}
	on_children(s);
}

static void on_timer(struct sup *s)
{
	if (sup_evloop_expired(&s->loop))
		sup_step(s, SUP_PE_TIMER, 0, false);
}

void sup_add_policy_event(struct sup *s, pid_t pid, const char *call, const char *detail,
			  const char *origin, bool refused)
{
	struct sup_outcome *o = s->out;
	struct sup_policy_event *v;

	/* a shell tries the name in each PATH directory: one refusal, reported once */
	for (size_t i = 0; i < o->n_policy_events; i++)
		if (o->policy_events[i].pid == pid && !strcmp(o->policy_events[i].call, call) &&
		    o->policy_events[i].detail && !strcmp(o->policy_events[i].detail, detail))
			return;
	v = realloc(o->policy_events, (o->n_policy_events + 1) * sizeof(*v));
	if (!v)
		return;
	o->policy_events = v;
	v[o->n_policy_events] = (struct sup_policy_event){ .pid = pid,
							   .detail = strdup(detail),
							   .origin = strdup(origin ? origin : ""),
							   .refused = refused,
							   .started_ms = SUP_STARTED_UNKNOWN };
	snprintf(v[o->n_policy_events].call, sizeof(v->call), "%s", call);
	o->n_policy_events++;
}

/* The refused process still lives (the call failed, it goes on): attribute it now. */
void sup_on_policy_event(const struct pol_event *ev, void *arg)
{
	struct sup *s = arg;
	struct sup_outcome *o = s->out;
	size_t n = o->n_policy_events;

	sup_add_policy_event(s, ev->pid, ev->call, ev->detail, ev->origin, ev->refused);
	if (o->n_policy_events > n)
		sup_policy_event_attribute(&o->policy_events[n], &s->actx);
}

void sup_on_exec_seen(pid_t pid, char *const *argv, size_t argc, void *arg)
{
	struct sup *s = arg;

	if (s->slow_record) {
		/* a loaded machine's late record: the caller's parent must still be there */
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		(void)nanosleep(&ts, NULL);
	}
	sup_execlog_add(&s->execlog, pid, argv, argc, s->actx.roots);
}

static void on_notification(struct sup *s, uint32_t events)
{
	struct pol_event ev;

	if (pol_notify_handle_with(s->listener,
				   &(struct pol_handler){ s->pol, s->o->policy_log,
							  sup_on_exec_seen, s, &s->reader,
							  &s->prun },
				   &ev) == 1)
		sup_on_policy_event(&ev, s);
	else if (events & (EPOLLHUP | EPOLLERR))
		/* no process uses the filter any more */
		sup_evloop_del(&s->loop, s->listener);
}

static void on_output(struct sup *s, struct sup_stream *st)
{
	(void)sup_stream_pump(st);
	if (st->eof) {
		sup_evloop_del(&s->loop, st->rd);
		if (st->out_watched)
			sup_evloop_del(&s->loop, st->out);
		st->out_watched = false;
		if (streams_done(s))
			sup_step(s, SUP_PE_STREAMS_DONE, 0, false);
	}
}

static void on_room(struct sup *s, struct sup_stream *st)
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
	case SUP_SRC_SIGNAL:
		on_signal(s);
		break;
	case SUP_SRC_TIMER:
		on_timer(s);
		break;
	case SUP_SRC_STDOUT:
	case SUP_SRC_STDERR:
		on_output(s, &s->streams[src - SUP_SRC_STDOUT]);
		break;
	case SUP_SRC_STDOUT_ROOM:
	case SUP_SRC_STDERR_ROOM:
		on_room(s, &s->streams[src - SUP_SRC_STDOUT_ROOM]);
		break;
	case SUP_SRC_INIT:
		if (s->gate->on_message)
			s->gate->on_message(s);
		break;
	case SUP_SRC_LISTENER:
		on_notification(s, events);
		break;
	case SUP_SRC_CGROUP:
		/* the kernel's own witness changed (populated 0): see where the tree is */
		(void)cg_run_on_event(&s->ceil.run);
		on_children(s);
		break;
	}
}

/*
 * The loop, in five lines: wait for the next event; turn it into a phase event
 * (a signal, the timer, a reap, the gate's message, the pipes' EOF); the phase
 * table says what follows and sup_step() does it; until DONE.  Then what is still
 * buffered in the pipes is relayed.
 */
void sup_loop(struct sup *s)
{
	struct epoll_event evs[8];

	while (s->phase != SUP_PH_DONE) {
		/*
		 * Zombies left by a bounded reap, output left by a pump's budget: look
		 * again once the other events had a turn.
		 */
		bool more = s->reap_more || streams_more(s);
		int n = sup_evloop_wait(&s->loop, evs, ELEMENTSOF(evs), more ? 0 : -1);

		if (n < 0)
			break;
		for (int i = 0; i < n && s->phase != SUP_PH_DONE; i++)
			dispatch(s, (enum sup_source)evs[i].data.u64, evs[i].events);
		if (s->reap_more && s->phase != SUP_PH_DONE)
			on_children(s);
		for (int i = 0; i < 2 && s->phase != SUP_PH_DONE; i++)
			if (s->relayed[i] && s->streams[i].more)
				on_output(s, &s->streams[i]);
	}
	/* what is still buffered in a pipe belongs to the output, even past the deadline */
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && !s->streams[i].eof)
			(void)sup_stream_drain(&s->streams[i]);
}

/*
 * Edge-triggered both ways.  The pump runs until the input is empty, the output
 * is full or its budget is spent (then the loop comes back at once), so no level
 * is left unreported; and while the output is full, input it cannot move must
 * not wake the loop.  Waiting for room here, not in the pump, keeps a reader that
 * stopped reading from stopping the supervisor: the timeout and the signals still
 * act.  A regular file cannot be watched (EPERM) and never fills: the pump writes it.
 */
int sup_watch_stream(struct sup *s, int i)
{
	struct sup_stream *st = &s->streams[i];
	int r = sup_evloop_watch(&s->loop, st->rd, SUP_SRC_STDOUT + i, EPOLLIN | EPOLLET);

	if (r < 0)
		return r;
	st->out_watched = sup_evloop_watch(&s->loop, st->out, SUP_SRC_STDOUT_ROOM + i,
					   EPOLLOUT | EPOLLET) == 0;
	return 0;
}
