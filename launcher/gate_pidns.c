// SPDX-License-Identifier: MIT
/*
 * The PID-namespace gate (launcher/gate.h), --pidns.  s->cmd is the namespace's
 * init (launcher/init.c), started by launcher/pidns.c; it runs the settle and
 * the sweep inside and reports by message on s->ns.sock: the command's status,
 * each survivor (stopped, named before it is killed), the end of the list.  The
 * outer keeps the deadlines: it tells init to end the settle when --timeout comes
 * first, and its last word is SIGKILL to init, after which the kernel kills
 * everything in the namespace.  init's end is the kernel's proof that the
 * namespace is empty.
 */
#include <errno.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fault.h"
#include "common/proc.h"
#include "common/text.h"
#include "launcher/leak.h"
#include "launcher/mapusers.h"
#include "launcher/sigtable.h"
#include "launcher/sup.h"

/* The outer's last word under --pidns: the kernel kills the namespace with init. */
static void kill_init(struct sup *s)
{
	s->ns.killed = true;
	(void)kill(s->cmd, SIGKILL);
}

/*
 * init exits 0 only after it emptied the namespace.  Any other end not of our doing
 * killed the command and every survivor unseen: the run cannot pass.
 */
static void init_ended(struct sup *s, int status)
{
	struct sup_outcome *o = s->out;
	char sig[32];

	s->ns.gone = true;
	if (s->ns.killed || (WIFEXITED(status) && WEXITSTATUS(status) == 0))
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

/* init's end is the kernel's proof that the namespace is empty. */
static enum sup_phase_event children(struct sup *s)
{
	return s->ns.gone ? SUP_PE_EMPTY : SUP_PE_NONE;
}

/*
 * --pidns: init runs the settle and the sweep itself.  The outer tells it to end the
 * settle early when --timeout comes first, and keeps a watchdog for the rest: past the
 * settle plus the kill deadline, it kills init and with it the namespace.
 */
static void settle(struct sup *s)
{
	uint64_t left = sup_settle_left(s);

	s->ns.sweep_sent = left >= s->o->plan.stop.settle_ms;
	sup_evloop_arm(&s->loop, s->ns.sweep_sent ? left + SUP_KILL_DEADLINE_MS : left);
}

static enum sup_phase_event settle_timer(struct sup *s)
{
	struct sup_ns_msg m = { .type = SUP_NS_SWEEP };
	char dur[32];

	if (!s->ns.sweep_sent) {
		s->ns.sweep_sent = true;
		(void)sup_ns_send(s->ns.sock, &m);
		sup_evloop_arm(&s->loop, SUP_KILL_DEADLINE_MS);
		return SUP_PE_NONE;
	}
	iso_format_duration(SUP_KILL_DEADLINE_MS, dur, sizeof(dur));
	snprintf(s->out->gate_unmeasurable, sizeof(s->out->gate_unmeasurable),
		 "the namespace's init did not finish the leak gate within %s of the settle; "
		 "killed it and the namespace with it",
		 dur);
	kill_init(s);
	return SUP_PE_NONE;
}

/* init does the signalling inside: sig to the command's group, --stop-signal to the rest. */
static void stop(struct sup *s, int sig, bool from_terminal)
{
	struct sup_ns_msg m = { .type = sig ? SUP_NS_CANCEL : SUP_NS_TIMEOUT,
				.sig = sup_to_command(s, sig) };

	(void)sup_ns_send(s->ns.sock, &m);
}

/* In the settle, init stops, names and kills the survivors on the same message. */
static enum sup_phase_event sweep(struct sup *s, int sig)
{
	stop(s, sig, false);
	return SUP_PE_NONE;
}

/* The end of a cancel: init and with it the namespace; its end comes as SIGCHLD. */
static enum sup_phase_event kill_ns(struct sup *s)
{
	kill_init(s);
	return SUP_PE_NONE;
}

/* A signal for the command: init passes it on (status 1: to its process group). */
static void forward(struct sup *s, int sig)
{
	struct sup_ns_msg m = { .type = SUP_NS_FORWARD,
				.sig = sig,
				.status = sup_sig_class(sig) == SUP_SIG_GROUP };

	(void)sup_ns_send(s->ns.sock, &m);
}

static int add_leak(struct sup *s, const struct sup_ns_msg *m)
{
	struct sup_leak *l = realloc(s->out->leaks, (s->out->n_leaks + 1) * sizeof(*l));

	if (!l)
		return -ENOMEM;
	s->out->leaks = l;
	/* the pid outside is looked up for all at once, at SUP_NS_LEAKS_DONE */
	l[s->out->n_leaks++] = (struct sup_leak){
		.pid = m->pid,
		.inner_pid = m->pid,
		.sid = m->sid,
		.start = m->start,
		.cmdline = strdup(m->cmdline),
		.cwd = m->cwd[0] ? strdup(m->cwd) : NULL,
	};
	s->out->leak_alive_ms = sup_now_ms() - s->cmd_exit_ms;
	return 0;
}

/* The survivors are stopped, so still there to be found by their pid at init's level. */
static void map_leaks(struct sup *s)
{
	struct sup_outcome *o = s->out;
	pid_t *inner = calloc(o->n_leaks ? o->n_leaks : 1, sizeof(*inner));
	pid_t *outer = calloc(o->n_leaks ? o->n_leaks : 1, sizeof(*outer));
	int alive;

	if (inner && outer) {
		for (size_t i = 0; i < o->n_leaks; i++)
			inner[i] = o->leaks[i].inner_pid;
		alive = sup_pidns_outer_pids(s->cmd, inner, outer, o->n_leaks);
		/* from outside, where no mount of the command's reaches: init named them all */
		s->ns.counted = alive > (int)o->n_leaks && !o->gate_unmeasurable[0];
		if (s->ns.counted)
			snprintf(o->gate_unmeasurable, sizeof(o->gate_unmeasurable),
				 "the namespace's init named %zu surviving processes; %d live in "
				 "it, seen from outside",
				 o->n_leaks, alive);
		for (size_t i = 0; i < o->n_leaks; i++) {
			o->leaks[i].started_ms = SUP_STARTED_UNKNOWN;
			if (!outer[i]) {
				snprintf(o->leaks[i].at.why_not, sizeof(o->leaks[i].at.why_not),
					 "not found from outside the namespace");
				continue;
			}
			o->leaks[i].pid = outer[i];
			/* stopped and visible from here: described as the subreaper gate does */
			sup_leak_describe(&o->leaks[i], &s->actx);
		}
	}
	free(inner);
	free(outer);
}

/* One message from init: 1, or 0 at its end (EOF or an error: the socket leaves the loop). */
static int on_init_message(struct sup *s)
{
	struct sup_ns_msg m, ok = { .type = SUP_NS_KILL_OK };
	int r = sup_ns_recv(s->ns.sock, &m);

	if (r <= 0) {
		sup_evloop_del(&s->loop, s->ns.sock);
		return 0;
	}
	switch (m.type) {
	case SUP_NS_EXITED:
		sup_record_status(s, m.status);
		sup_step(s, SUP_PE_EXITED, 0, false);
		break;
	case SUP_NS_LEAK:
		(void)add_leak(s, &m);
		break;
	case SUP_NS_LEAKS_DONE:
		map_leaks(s);
		(void)sup_ns_send(s->ns.sock, &ok);
		break;
	case SUP_NS_BLIND:
		/* a count init could not make whole is no count: never "none" */
		if (!s->out->gate_unmeasurable[0] || s->ns.counted) {
			char *to = s->out->gate_unmeasurable;
			size_t n = strnlen(m.cmdline, sizeof(s->out->gate_unmeasurable) - 1);

			memcpy(to, m.cmdline, n);
			to[n] = '\0';
		}
		break;
	case SUP_NS_STOPPED:
		if (s->tty_handed) {
			/* as follow_stop(), with init doing the inside half */
			struct sup_ns_msg cont = { .type = SUP_NS_CONTINUE };
			(void)tcsetpgrp(s->tty_fd, getpgrp());
			(void)kill(getpid(), SIGSTOP);
			(void)sup_ns_send(s->ns.sock, &cont);
		}
		break;
	default:
		break;
	}
	return 1;
}

static void on_message(struct sup *s)
{
	(void)on_init_message(s);
}

/*
 * init writes its last messages (the command's status among them) before it
 * exits, so once it is reaped they are all in the socket: read them before
 * the join, whichever event (SIGCHLD, the cgroup's populated 0) came first.
 */
static void drain(struct sup *s)
{
	struct pollfd p = { .fd = s->ns.sock, .events = POLLIN };

	while (s->ns.sock >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN) &&
	       on_init_message(s) > 0)
		;
}

static void on_wire_event(const struct sup_ns_event_wire *w, void *arg)
{
	struct sup *s = arg;
	struct sup_outcome *o = s->out;
	size_t n = o->n_policy_events;

	sup_add_policy_event(s, w->pid, w->call, w->detail, w->origin, w->refused);
	/* init answered it before the outer had the listener: its pid is init's */
	if (o->n_policy_events > n)
		snprintf(o->policy_events[n].at.why_not, sizeof(o->policy_events[n].at.why_not),
			 "decided by the namespace's init while the command started");
}

/* The plan for init, then init itself; on success s->cmd is init, s->ns.sock its socket. */
/*
 * An ordinary user's tree goes below its gate (tree/gate.h) just before init
 * starts: init mounts the overlay over it, the first thing in the run's
 * namespace.  Without one, the holder scan proves the tree the slow way.
 */
static void close_gate(struct sup *s, struct sup_ns_plan *p)
{
	struct tree_gate *g = &s->td.gate;
	struct iso_err e = { 0 };

	if (!p->userns)
		return;
	/*
	 * Its root's CAP_SYS_ADMIN lets the command unmount the overlay in its own
	 * namespace and walk into the tree below it: the overlay's end proves nothing.
	 */
	if (p->spawn.caps_keep & (UINT64_C(1) << CAP_SYS_ADMIN)) {
		snprintf(g->why, sizeof(g->why),
			 "no gate: the command keeps CAP_SYS_ADMIN, which could unmount its "
			 "overlay");
		return;
	}
	if (iso_test_fault("no-gate")) {
		snprintf(g->why, sizeof(g->why), "no gate (ISORUN_TEST_FAULT=no-gate)");
		return;
	}
	if (iso_test_fault("late-shield"))
		sup_test_late_shield(s->tree.fd);
	if (tree_gate_close(g, s->tree.user_fd, s->tree.id, s->tree.fd, &e) < 0) {
		iso_err_format(&e, g->why, sizeof(g->why));
		return;
	}
	p->gate_tree = s->tree.fd;
	p->gate_in = g->in;
}

/* Init's word on its overlay. */
static void gate_up(struct sup *s, const struct sup_ns_plan *p)
{
	struct tree_gate *g = &s->td.gate;
	struct iso_err e = { 0 };

	if (!g->closed)
		return;
	if (p->gate_why[0])
		snprintf(g->why, sizeof(g->why), "%s", p->gate_why);
	else
		tree_gate_learn(g);
	/* isorun's own descriptors of the gate and the tree would be ways past the gate */
	if (g->up && (tree_gate_park(g, &e) < 0 || tree_park(&s->tree, &e) < 0)) {
		iso_err_format(&e, g->why, sizeof(g->why));
		g->up = false;
	}
}

static int start(struct sup *s, struct sup_spawn *sp, int *ret_listener, struct iso_err *e)
{
	const struct sup_opts *o = s->o;
	struct sup_ns_plan *p = &s->ns.plan;
	struct sup_ns_started st;
	int r;

	*p = (struct sup_ns_plan){
		.mounts = o->plan.mounts,
		.say = o->say,
		.stop = o->plan.stop,
		.spawn = *sp,
		.userns = getuid() != 0 || geteuid() != 0,
		.inside_uid = o->map_root ? 0 : getuid(),
		.inside_gid = o->map_root ? 0 : getgid(),
		.tree = s->tree.path,
		.tree_tmp = s->ns.tree_tmp,
		.empty_dir = s->ns.empty_dir,
		.gate_tree = -1,
		.gate_in = -1,
	};
	sup_plan_caps(s, &p->spawn, true, p->userns);
	r = sup_map_users_plan(o, p, &s->ns.id_filter, e);
	if (r < 0) {
		p->map_failed = true;
		return r;
	}
	/* init leaves for "/" before it mounts: the command names its directory */
	if (!p->spawn.cwd)
		p->spawn.cwd = s->out->cwd;
	snprintf(s->ns.tree_tmp, sizeof(s->ns.tree_tmp), "%s/tmp", s->tree.path);
	for (size_t i = 0; i < s->out->n_caches; i++)
		p->caches[p->n_caches++] = s->out->caches[i].dir;
	if (o->plan.mounts.home != NS_HOME_OFF) {
		r = sup_plan_home(s, p, e);
		if (r < 0)
			return r;
	}
	close_gate(s, p);
	r = sup_pidns_start(p, &(struct sup_ns_events){ on_wire_event, s }, &st, e);
	s->cmd = st.init;
	s->ns.sock = st.sock;
	s->fail = st.fail;
	*ret_listener = st.listener;
	s->guard_elsewhere = st.guard_elsewhere;
	if (r < 0) {
		/* --pidns=try's fallback, or the failure's report, finds the tree at its path */
		sup_open_gate(s);
		return r;
	}
	gate_up(s, p);
	s->gate = &sup_gate_pidns;
	if (sup_evloop_add(&s->loop, s->ns.sock, SUP_SRC_INIT) < 0)
		return iso_err_set(e, errno, "watch the namespace control socket");
	return 0;
}

/*
 * Attribution stops at init too.  init answered the command's own exec: record it
 * here.  Init has one thread, so its children file names the command in one read;
 * the walk of every process's stat is for kernels without that file.
 */
static void attrib(struct sup *s)
{
	struct iso_proc *list = NULL;
	pid_t kids[16];
	int n;

	s->actx.roots[1] = s->cmd;
	s->actx.cmd = 0;
	if (!s->execlog.on)
		return;
	n = iso_test_fault("no-children-file") ? -ENOENT
					       : iso_proc_children(s->cmd, kids, ELEMENTSOF(kids));
	if (n >= 0) {
		for (int i = 0; i < n; i++)
			sup_record_start(s, kids[i]);
		return;
	}
	n = iso_proc_descendants(s->cmd, &list);
	for (int i = 0; i < n; i++)
		if (list[i].ppid == s->cmd)
			sup_record_start(s, list[i].pid);
	free(list);
}

static pid_t root(const struct sup *s)
{
	return s->cmd;
}

static void close_ns(struct sup *s)
{
	if (s->ns.sock >= 0)
		close(s->ns.sock);
	s->ns.sock = -1;
}

const struct sup_gate_ops sup_gate_pidns = {
	.namespaced = true,
	.start = start,
	.attrib = attrib,
	.on_reaped = init_ended,
	.children = children,
	.settle = settle,
	.settle_timer = settle_timer,
	.sweep = sweep,
	.kill = kill_ns,
	.stop = stop,
	.drain = drain,
	.forward = forward,
	.on_message = on_message,
	.root = root,
	.close = close_ns,
};
