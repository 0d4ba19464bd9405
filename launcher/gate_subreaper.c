// SPDX-License-Identifier: MIT
/*
 * The subreaper gate (launcher/gate.h).  isorun is a child subreaper, so every
 * process the command starts, however it detaches, stays a descendant of isorun
 * until it is reaped: no child left is the proof that the tree is empty.  The
 * settle runs here, and the survivors are stopped, named and killed by isorun
 * itself (launcher/leak.h), so each kill has joined the tree when it returns.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/text.h"
#include "launcher/capsplan.h"
#include "launcher/leak.h"
#include "launcher/sigtable.h"
#include "launcher/sup.h"

static void kill_all(struct sup *s, bool as_leaks)
{
	struct sup_leak_list found = { 0 };
	char dur[32];
	uint64_t deadline = sup_now_ms() + SUP_KILL_DEADLINE_MS;
	int r;

	/* with a cgroup, nothing in it can fork while the survivors are listed and named */
	(void)sup_ceilings_freeze(&s->ceil, deadline);
	r = sup_freeze_kill(s->self, s->cmd, as_leaks ? &found : NULL,
			    &(struct sup_reaper){ sup_on_reaped, s }, deadline, &s->actx);
	/* and what the /proc walk could not see goes in one stroke */
	sup_ceilings_kill(&s->ceil, deadline);

	if (r < 0) {
		/* what could not be stopped may still run: the join is not proven */
		s->join_unproven = true;
		iso_format_duration(SUP_KILL_DEADLINE_MS, dur, sizeof(dur));
		if (r == -ETIME)
			snprintf(s->out->gate_unmeasurable, sizeof(s->out->gate_unmeasurable),
				 "the tree was still changing %s after the kill began", dur);
		else
			snprintf(s->out->gate_unmeasurable, sizeof(s->out->gate_unmeasurable),
				 "stopping the tree failed: %s", strerror(-r));
	}
	if (as_leaks && found.n) {
		s->out->leaks = found.v;
		s->out->n_leaks = found.n;
		s->out->leak_alive_ms = sup_now_ms() - s->cmd_exit_ms;
	} else {
		sup_leaks_free(found.v, found.n);
	}
}

static int start(struct sup *s, struct sup_spawn *sp, int *listener, struct iso_err *e)
{
	/* after a --pidns=try fallback: the plan the command really started with */
	sup_plan_caps(s, sp, false, false);
	return sup_spawn(sp, &s->cmd, &s->fail, listener, &s->guard_elsewhere, e);
}

static void attrib(struct sup *s)
{
	s->actx.roots[1] = 0;
	s->actx.cmd = s->cmd;
}

static void tty(struct sup *s)
{
	(void)tcsetpgrp(s->tty_fd, s->cmd);
}

/* After a batch of reaps: has the command's status come, and is the tree empty? */
static enum sup_phase_event children(struct sup *s)
{
	if (!s->out->exited)
		return SUP_PE_NONE;
	return sup_no_children() ? SUP_PE_EMPTY : SUP_PE_EXITED;
}

/* The command's status is in: survivors get --settle to go by themselves. */
static void settle(struct sup *s)
{
	sup_evloop_arm(&s->loop, sup_settle_left(s));
}

/* Whoever outlived the settle is a leak. */
static enum sup_phase_event settle_over(struct sup *s)
{
	kill_all(s, true);
	return SUP_PE_EMPTY;
}

/* The command is gone: what remains is leaked, cancelled or not. */
static enum sup_phase_event sweep(struct sup *s, int sig)
{
	return settle_over(s);
}

static enum sup_phase_event kill_rest(struct sup *s)
{
	kill_all(s, false);
	return SUP_PE_EMPTY;
}

/*
 * The command's process group gets the caught signal itself (a Ctrl-C'd test
 * runner should see SIGINT and print its summary), unless the terminal already
 * delivered it there; the rest of the tree gets --stop-signal.  A timeout (sig 0)
 * sends --stop-signal to all.  SIGKILL follows after --grace either way.
 */
static void stop(struct sup *s, int sig, bool from_terminal)
{
	int stop = s->o->plan.stop.signal;

	if (sig && !s->out->exited) {
		if (!(from_terminal && s->tty_handed))
			(void)kill(-s->cmd, sup_to_command(s, sig));
		(void)sup_signal_tree(s->self, stop, s->cmd);
	} else {
		if (!s->out->exited)
			(void)kill(-s->cmd, stop);
		(void)sup_signal_tree(s->self, stop, 0);
	}
}

/* A cancel while the pipes are awaited still cancels the run, and the wait begins again. */
static enum sup_phase_event late_cancel(struct sup *s, int sig)
{
	sup_note_cancel(s, sig);
	return sup_join(s);
}

/*
 * A signal meant for the command (launcher/sigtable.h), passed on while it runs:
 * job control to its process group, the rest to the command alone, as sudo and
 * tini do.  Once it has exited there is no one to pass it to.
 */
static void forward(struct sup *s, int sig)
{
	bool group = sup_sig_class(sig) == SUP_SIG_GROUP;

	if (s->cmd > 0 && !s->out->exited)
		(void)kill(group ? -s->cmd : s->cmd, sig);
}

static pid_t root(const struct sup *s)
{
	return s->self;
}

static const char *unmeasurable(const struct sup *s)
{
	return s->out->subreaper ? NULL : s->out->subreaper_why;
}

const struct sup_gate_ops sup_gate_subreaper = {
	.namespaced = false,
	.start = start,
	.attrib = attrib,
	.tty = tty,
	.on_reaped = sup_record_status,
	.children = children,
	.settle = settle,
	.settle_timer = settle_over,
	.sweep = sweep,
	.kill = kill_rest,
	.stop = stop,
	.late_cancel = late_cancel,
	.forward = forward,
	.late_forward = forward,
	.root = root,
	.unmeasurable = unmeasurable,
};
