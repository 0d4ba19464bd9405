// SPDX-License-Identifier: MIT
/*
 * Before the command and its start: the signals blocked, the policy loaded, the
 * checks, the tree with its environment and pipes, then the command under the
 * gate the options ask for (launcher/gate.h; --pidns=try falls back to the
 * subreaper gate and says so) and what the supervisor watches once it runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "common/proc.h"
#include "launcher/capsplan.h"
#include "launcher/env.h"
#include "launcher/say.h"
#include "launcher/shell.h"
#include "launcher/sigtable.h"
#include "launcher/sup.h"

extern char **environ;

/*
 * Every catchable signal is the supervisor's to decide (launcher/sigtable.h),
 * blocked before anything is made, so one that comes while the tree is made is
 * read by the loop, never a default action that orphans the tree.  What the
 * caller handed isorun is read first: the command gets it back.
 */
int sup_setup_signals(sigset_t *mask, struct sup_sig_inherited *in)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, dfl = { .sa_handler = SIG_DFL };
	int r;

	r = sup_sig_inherited_read(in);
	if (r < 0)
		return r;
	sup_sig_supervised(mask, in->ignored);
	r = sup_sig_block(mask);
	if (r < 0)
		return r;
	/* a reader that goes away must not kill the supervisor of a live tree */
	if (sigaction(SIGPIPE, &ign, NULL) < 0)
		return -errno;
	/* an ignored SIGCHLD would reap isorun's children before it could */
	if (sup_sig_in(in->ignored, SIGCHLD) && sigaction(SIGCHLD, &dfl, NULL) < 0)
		return -errno;
	/* before the command exists: a 32 or 33 sent to us meanwhile would be lost */
	return iso_reader_keep_reserved();
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
		if (i == 1 && s->relayed[0] && sup_outputs_shared(1, 2)) {
			s->streams[0].name = "stdout and stderr";
			s->out->output_merged = true;
			continue;
		}
		r = sup_stream_open(&s->streams[i], i ? "stderr" : "stdout", fd,
				    s->o->plan.keep_output);
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
 * The command's capabilities for this start (with or without init): the mode
 * for spawn and the record for the report (and -v, once the command started).
 */
void sup_plan_caps(struct sup *s, struct sup_spawn *sp, bool pidns, bool userns)
{
	struct sup_caps_plan *c = &s->out->caps;
	/* init covers the deny-socket paths only under --pidns */
	bool masks = pidns && pol_masked_path(s->pol, 0);

	sup_caps_plan(c, &s->o->plan, s->o->say, pidns, userns, masks);
	sp->caps_mode = c->mode;
	sp->caps_keep = c->keep;
	sp->caps_drop = c->protect;
}

static int check_pass_fds(const struct sup_opts *o, struct iso_err *e)
{
	for (size_t i = 0; i < o->n_pass_fds; i++)
		if (fcntl(o->pass_fds[i], F_GETFD) < 0)
			return iso_err_set(e, errno, "%s %d", sup_say(o->say, SUP_SAY_PASS_FD),
					   o->pass_fds[i]);
	return 0;
}

static int check_chdir(const struct sup_opts *o, struct iso_err *e)
{
	_cleanup_close_ int fd = -1;

	if (!o->chdir)
		return 0;
	fd = open(o->chdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return iso_err_set(e, errno, "%s '%s'", sup_say(o->say, SUP_SAY_CHDIR), o->chdir);
	return 0;
}

/* A policy mistake is reported before anything exists. */
int sup_load_policy(struct sup *s)
{
	struct pol_error perr = { 0 };
	char buf[1024];
	const char *opt = sup_say(s->o->say, SUP_SAY_POLICY);

	if (!s->o->plan.policy)
		return 0;
	if (pol_load(s->o->policy, &s->policy, &perr) < 0) {
		fprintf(stderr, "isorun: %s: %s\n", opt, pol_error_format(&perr, buf, sizeof(buf)));
		/* kept for the report, the JUnit file and the annotation: file:line:col */
		iso_err_set(&s->out->setup_err, 0, "%s: %s", opt, perr.e.msg);
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

/* The command will run in a user namespace of the run's own (launcher/gate_pidns.c). */
static bool will_have_userns(const struct sup_opts *o)
{
	return o->plan.namespaces && (getuid() != 0 || geteuid() != 0);
}

/* Before the tree: the subreaper, the checks, the ceilings, --watch. */
int sup_prepare(struct sup *s, struct iso_err *e)
{
	const struct sup_opts *o = s->o;

	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
		s->out->subreaper = true;
	else
		snprintf(s->out->subreaper_why, sizeof(s->out->subreaper_why),
			 "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
	if (check_chdir(o, e) < 0 || check_pass_fds(o, e) < 0)
		return -EINVAL;
	if (sup_ceilings_plan(&s->ceil, o, will_have_userns(o), &s->out->res, e) < 0)
		return -EINVAL;
	if (!o->watch.n)
		return 0;
	s->snaps = calloc(o->watch.n, sizeof(*s->snaps));
	s->git = calloc(o->watch.n, sizeof(*s->git));
	if (!s->snaps || !s->git)
		return iso_err_set(e, ENOMEM, "%s", sup_say(o->say, SUP_SAY_WATCH));
	for (size_t i = 0; i < o->watch.n; i++) {
		if (sup_snapshot_take(o->watch.v[i], &s->snaps[i], e) < 0) {
			iso_err_prefix(e, sup_say(o->say, SUP_SAY_WATCH), ": ");
			return -EINVAL;
		}
		/* the rules as they are now: the command may write them (launcher/watch.c) */
		sup_git_rules_take(o->watch.v[i], s->snaps[i].paths, s->snaps[i].n, &s->git[i]);
	}
	return 0;
}

/* The tree, the command's environment, its pipes and the event loop. */
int sup_make_tree(struct sup *s, struct iso_err *e)
{
	const struct sup_opts *o = s->o;
	int r = sup_cache_open_all(o, s->out->caches, &s->out->n_caches, e), cg;

	if (r == 0)
		r = o->reenter ? tree_adopt(&s->tree, tree_root(o->root), o->reenter, o->argv, e)
			       : tree_create_as(&s->tree, tree_root(o->root), s->out->run_id,
						o->argv, o->keep == SUP_KEEP_NEVER && !o->shell, e);
	if (r < 0) {
		if (e->cause == TREE_CAUSE_ROOT) {
			iso_err_prefix(e, sup_say(o->say, SUP_SAY_ROOT), " ");
			e->cause = 0;
		}
		/* a hint already there says what a failed creation left behind */
		if ((e->errnum == EACCES || e->errnum == EROFS) && !e->hint[0])
			iso_err_hint(e, sup_say(o->say, SUP_SAY_ROOT_FIX));
		return r;
	}
	snprintf(s->out->tree_path, sizeof(s->out->tree_path), "%s", s->tree.path);
	if (sup_ceilings_create(&s->ceil, o, s->tree.id, s->tree.fd, &s->out->res, e) < 0)
		return -EIO;
	if (sup_env_build(o, &s->tree, environ, s->out->caches, s->out->n_caches, &s->env, e) < 0)
		return -EINVAL;
	s->out->env = s->env;
	if (sup_shell_startup(o, &s->tree, &s->shell_argv, e) < 0)
		return -EIO;
	if (o->shell)
		sup_shell_banner(stderr, o, s->tree.path);
	if (open_streams(s, e) < 0 ||
	    sup_evloop_open(&s->loop, &s->mask, SUP_SRC_SIGNAL, SUP_SRC_TIMER, e) < 0)
		return -EINVAL;
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && (r = sup_watch_stream(s, i)) < 0)
			return iso_err_set(e, -r, "watch the %s pipe", s->streams[i].name);
	/* cgroup.events is always readable: its change is the priority mark */
	cg = sup_ceilings_watch_fd(&s->ceil);
	if (cg >= 0 && (r = sup_evloop_watch(&s->loop, cg, SUP_SRC_CGROUP, EPOLLPRI)) < 0)
		return iso_err_set(e, -r, "watch the run's cgroup");
	if (isatty(0) && tcgetpgrp(0) == getpgrp() && tcgetattr(0, &s->saved_tty) == 0)
		s->tty_fd = 0;
	return 0;
}

static struct sup_spawn spawn_request(struct sup *s)
{
	const struct sup_opts *o = s->o;
	struct sup_spawn sp = {
		.path = s->cmd_path,
		.argv = s->shell_argv ? s->shell_argv : o->argv,
		.envp = s->env,
		.cwd = o->chdir,
		.out_fd = s->relayed[0] ? s->streams[0].wr : -1,
		.err_fd = s->out->output_merged ? s->streams[0].wr
			  : s->relayed[1]	? s->streams[1].wr
						: -1,
		.pass_fds = o->pass_fds,
		.n_pass_fds = o->n_pass_fds,
		.pass_fd_word = sup_say(o->say, SUP_SAY_PASS_FD),
		.tty_fd = s->tty_fd,
		.pol = s->pol,
		.pol_log = o->policy_log,
		.pol_run = &s->prun,
		.rlimits = o->rlimits,
		.inherited = s->inherited,
		.on_event = sup_on_policy_event,
		.on_exec = sup_on_exec_seen,
		.event_arg = s,
	};

	sup_ceilings_spawn(&s->ceil, &sp);
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
	const struct sup_opts *o = s->o;
	struct sup_spawn sp = spawn_request(s);
	char buf[300];
	int r = 1;

	s->out->timing.setup = sup_lap(&s->t_us);
	signals_scope(s);
	/*
	 * The kernel's scope where it has one (Linux 6.12): under a PID namespace
	 * too, where it keeps the command from tracing init or taking its files.
	 * Not under log mode, which lets a signal out to report it.
	 */
	sp.scope_signals = s->pol && pol_signals_contained(s->pol) && !o->policy_log &&
			   pol_scope_signals_available();
	pol_set_signals_scoped(&s->policy, sp.scope_signals);
	if (o->plan.init_gate) {
		/* the PID namespace contains the command's signals: no notification needed */
		bool contain = pol_signals_contained(&s->policy);

		pol_set_signals_contained(&s->policy, false);
		pol_set_init_guarded(&s->policy, true);
		r = sup_gate_pidns.start(s, &sp, listener, e);
		if (r < 0 && o->plan.init_fallback && !s->ns.plan.map_failed) {
			snprintf(s->out->pidns_why, sizeof(s->out->pidns_why), "%s",
				 iso_err_format(e, buf, sizeof(buf)));
			fprintf(stderr,
				"isorun: pidns: not available (%s); using the subreaper gate\n",
				s->out->pidns_why);
			*e = (struct iso_err){ 0 };
			sup_ceilings_no_userns(&s->ceil, &s->out->res);
			sup_ceilings_spawn(&s->ceil, &sp);
			r = 1;
		}
		pol_set_signals_contained(&s->policy, contain && r == 1);
		pol_set_init_guarded(&s->policy, r != 1);
	}
	if (r == 1)
		r = sup_gate_subreaper.start(s, &sp, listener, e);
	return r;
}

/*
 * The exec's error, and when it is "not found" for a file the host has, the
 * option whose mounts hide it: without it the run's 127 would not name its cause.
 */
static void exec_error(struct sup *s, int errnum)
{
	const char *via = s->cmd_path ? s->cmd_path : s->cmd_hidden;
	char cause[768] = "";

	if (errnum == ENOENT && via)
		sup_hidden_cause(&s->hidden, via, cause, sizeof(cause));
	if (cause[0] && !s->cmd_path)
		snprintf(s->out->exec_error, sizeof(s->out->exec_error),
			 "%s: %s in the run; PATH finds %s, but %s", s->o->argv[0],
			 strerror(errnum), via, cause);
	else
		snprintf(s->out->exec_error, sizeof(s->out->exec_error), "%s: %s%s%s",
			 s->o->argv[0], strerror(errnum), cause[0] ? "; " : "", cause);
}

/* The child never became the command: only the exec itself is the command's failure. */
static enum sup_start child_failed(struct sup *s, struct iso_err *e)
{
	const struct sup_opts *o = s->o;
	struct sup_exec_failure *f = &s->fail;

	if (f->stage != SUP_STAGE_EXEC) {
		*e = f->err;
		if (f->stage == SUP_STAGE_CHDIR && o->chdir)
			iso_err_set(e, f->errnum, "%s '%s'", sup_say(o->say, SUP_SAY_CHDIR),
				    o->chdir);
		if (!e->msg[0])
			iso_err_set(e, f->errnum, "prepare the command");
		return SUP_FAILED_BEFORE;
	}
	s->out->exec_failed = true;
	exec_error(s, f->errnum);
	s->out->exit = f->errnum == ENOENT ? ISO_EXIT_NOT_FOUND : ISO_EXIT_CANNOT_EXEC;
	return SUP_EXEC_FAILED;
}

void sup_record_start(struct sup *s, pid_t pid)
{
	s->actx.cmd = pid;
	sup_execlog_add(&s->execlog, pid, s->o->argv, s->o->argc, s->actx.roots);
}
/* Where attribution stops (isorun, and the gate's own) and why the exec record may be empty. */
static void attrib_ready(struct sup *s)
{
	s->execlog.on = s->pol && !s->guard_elsewhere;
	s->actx.no_record = !s->pol ? sup_say(s->o->say, SUP_SAY_GUARD_OFF)
			    : s->guard_elsewhere
				    ? "an enclosing isorun receives the exec notifications"
				    : NULL;
	s->gate->attrib(s);
}

/* Everything the supervisor watches once the command runs; a failure here is after the start. */
static int watch_command(struct sup *s, int listener, struct iso_err *e)
{
	int r = 0;

	s->out->guard_elsewhere = s->guard_elsewhere;
	attrib_ready(s);
	if (listener >= 0) {
		s->listener = listener;
		r = sup_evloop_add(&s->loop, listener, SUP_SRC_LISTENER);
		if (r < 0)
			return iso_err_set(e, -r, "watch the seccomp listener");
	}
	r = iso_test_fault("after-start") ? -EMFILE : 0;
	if (r < 0)
		return iso_err_set(e, -r, "supervise the command (ISORUN_TEST_FAULT)");
	return 0;
}

enum sup_start sup_start(struct sup *s, struct iso_err *e)
{
	const struct sup_opts *o = s->o;
	int listener = -1, r;

	sup_hidden_init(&s->hidden, o, s->tree.path, s->out->cwd);
	if (o->verbosity >= 0)
		sup_hidden_warn(stderr, &s->hidden, o->argv, s->env);
	r = sup_resolve_command(o->argv[0], s->env, &s->hidden, &s->cmd_path, &s->cmd_hidden);

	if (r == -ENOENT) {
		close_write_ends(s);
		s->fail = (struct sup_exec_failure){ .errnum = ENOENT, .stage = SUP_STAGE_EXEC };
		return child_failed(s, e);
	}
	if (r < 0) {
		iso_err_set(e, -r, "look up the command '%s'", o->argv[0]);
		return SUP_FAILED_BEFORE;
	}
	/* before the command's own exec is recorded: one run, one kind of identity */
	s->execlog.pidfs = s->pol && iso_proc_ident_probe();
	sup_raise_shield(s);
	r = spawn_command(s, &listener, e);
	close_write_ends(s);
	s->out->timing.start = sup_lap(&s->t_us);
	if (r < 0)
		return s->cmd > 0 ? SUP_FAILED_AFTER : SUP_FAILED_BEFORE;
	if (watch_command(s, listener, e) < 0)
		return SUP_FAILED_AFTER;
	if (s->guard_elsewhere && o->verbosity >= 0)
		fprintf(stderr, "isorun: policy: service guard enforced by the enclosing isorun\n");
	if (o->verbosity > 0)
		sup_caps_say(&s->out->caps, stderr);
	if (o->verbosity > 0 && s->execlog.on)
		fprintf(stderr, "isorun: exec record: processes named by %s\n",
			s->execlog.pidfs ? "pidfs inode number" : "start time");
	if (s->fail.errnum) {
		(void)waitpid(s->cmd, NULL, 0);
		s->cmd = 0;
		return child_failed(s, e);
	}
	if (s->tty_fd >= 0) {
		/* under --pidns the command took the terminal itself */
		if (s->gate->tty)
			s->gate->tty(s);
		s->tty_handed = true;
	}
	return SUP_STARTED;
}

/*
 * From here on the command's memory and /proc files are read through the
 * reader, so no read of them waits past its deadline (common/reader.h).  Not
 * before: the command's first exec is answered with isorun's own memory, and
 * no clone() may follow a second thread.
 */
void sup_start_reader(struct sup *s)
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
