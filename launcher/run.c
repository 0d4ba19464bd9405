// SPDX-License-Identifier: MIT
/*
 * Process roles.
 *
 * isorun (this process) is the outer supervisor.  It relays the command's
 * output, enforces the timeout and cancellation, and after the command exits
 * runs the leak gate (launcher/gate.h: the subreaper's, or under --pidns the
 * namespace's init's), then tears the tree down and writes the outputs:
 *
 *   set up (start.c) -> start (start.c, the gate) -> supervise (supervise.c,
 *   the phases of launcher/phase.h) -> teardown (teardown.c) -> report, exit
 *
 * This file is that pipeline, the output files and what a run frees.
 */
#include "launcher/run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "common/proc.h"
#include "common/text.h"
#include "launcher/env.h"
#include "launcher/finding.h"
#include "launcher/leak.h"
#include "launcher/say.h"
#include "launcher/shell.h"
#include "launcher/sinks.h"
#include "launcher/sup.h"

/*
 * Keep the failure for the verdict, the report and the JUnit file, then print the
 * module's hint and the command line's advice for its cause (the options to use).
 */
static void setup_error(struct sup *s, const struct iso_err *e)
{
	struct sup_outcome *out = s->out;
	char buf[512];

	out->setup_err = *e;
	if (e->cause && s->o->advise)
		s->o->advise(s->o, e->cause, out->setup_advice, sizeof(out->setup_advice));
	fprintf(stderr, "isorun: %s\n", iso_err_format(e, buf, sizeof(buf)));
	if (e->hint[0] || out->setup_advice[0])
		fprintf(stderr, "  (hint: %s%s%s)\n", e->hint,
			e->hint[0] && out->setup_advice[0] ? "; " : "", out->setup_advice);
}

static void supervise(struct sup *s, enum sup_start how)
{
	if (how == SUP_EXEC_FAILED) {
		/* the pipes' only writer is gone: their EOF is at hand */
		sup_step(s, SUP_PE_NOTHING_RAN, 0, false);
		sup_loop(s);
		return;
	}
	s->out->started_cmd = true;
	s->started_ms = sup_now_ms();
	sup_start_reader(s);
	if (s->o->plan.stop.timeout_ms)
		sup_evloop_arm(&s->loop, s->o->plan.stop.timeout_ms);
	sup_loop(s);
	s->out->timing.command = sup_lap(&s->t_us);
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
	sup_step(s, SUP_PE_FAILED, 0, false);
	sup_loop(s);
}

/* Why a kept or retained tree stayed, for `isorun ls`; a failure only warns. */
static void record_state(struct sup *s)
{
	struct sup_outcome *out = s->out;
	struct iso_err e = { 0 };
	char buf[400];
	int r = 0;

	if (out->tree_state == SUP_TREE_KEPT)
		r = tree_record_state(&s->tree, true, out->tree_reason, &e);
	else if (out->tree_state == SUP_TREE_RETAINED)
		r = tree_record_state(&s->tree, false, out->tree_reason, &e);
	if (r < 0)
		fprintf(stderr,
			"isorun: warning: %s (isorun ls will not show why the tree stayed)\n",
			iso_err_format(&e, buf, sizeof(buf)));
}

/*
 * A tree that stays records how it was made, for a later isorun shell --tree;
 * one that is removed costs nothing.  A failure only warns.
 */
static void record_settings(struct sup *s)
{
	struct iso_err e = { 0 };
	char buf[400];
	enum sup_tree_state st = s->out->tree_state;

	if (!s->o->settings_text || s->o->reenter || s->tree.fd < 0 ||
	    (st != SUP_TREE_KEPT && st != SUP_TREE_RETAINED))
		return;
	if (tree_write_record(&s->tree, TREE_SETTINGS, s->o->settings_text, &e) < 0)
		fprintf(stderr,
			"isorun: warning: %s (a shell that re-enters the tree will not have "
			"them)\n",
			iso_err_format(&e, buf, sizeof(buf)));
}

/* The tree by the usual rules, then the report and the verdict. */
static int finish(struct sup *s)
{
	const struct sup_opts *o = s->o;
	struct sup_outcome *out = s->out;

	if (s->tty_handed) {
		/* the caller's shell gets its terminal back as it was */
		(void)tcsetpgrp(s->tty_fd, getpgrp());
		(void)tcsetattr(s->tty_fd, TCSADRAIN, &s->saved_tty);
	}
	out->pidns = s->gate->namespaced;
	sup_ceilings_finish(&s->ceil, o, out->term_signal || out->exit_code || out->init_signal,
			    &out->res);
	if (s->snaps)
		sup_collect_residue(s);
	sup_teardown(s);
	record_state(s);
	record_settings(s);
	out->duration_ms = (sup_now_us() - s->t_start) / 1000;
	/* the files before stderr: a report that could not be written is part of the verdict */
	return sup_sinks_finish(&s->outputs, o, out);
}

/* A tree re-entered was kept before: after a failed setup it is kept as it was. */
static void keep_reentered(struct sup *s)
{
	struct iso_err e = { 0 };
	char buf[400];

	s->out->tree_state = SUP_TREE_KEPT;
	if (tree_record_state(&s->tree, true, "isorun shell", &e) < 0)
		fprintf(stderr, "isorun: warning: %s\n", iso_err_format(&e, buf, sizeof(buf)));
}

/* A setup that failed before the command ran leaves nothing behind; e: NULL when printed. */
static int fail_before_start(struct sup *s, const struct iso_err *e)
{
	struct sup_outcome *out = s->out;

	sup_ceilings_finish(&s->ceil, s->o, true, &out->res);
	out->setup_before = true;
	/* the shield's work directory is removed with the descriptors set aside for it */
	tree_release_reserve(&s->tree);
	/* a nested tree's tmpfs comes off only through its proof (tree/nest.h) */
	sup_lower_shield(s, s->tree.nest_watch >= 0 || s->td.shield.tmpfs);
	if (s->tree.fd >= 0 && s->o->reenter)
		keep_reentered(s);
	else if (s->tree.fd >= 0)
		sup_remove_after_setup_failure(&s->tree, out);
	if (e)
		setup_error(s, e);
	out->duration_ms = (sup_now_us() - s->t_start) / 1000;
	return sup_sinks_finish(&s->outputs, s->o, out);
}

static void free_outcome(struct sup_outcome *out)
{
	sup_invocation_free(&out->inv);
	for (size_t i = 0; i < out->n_found; i++)
		free(out->found[i].what);
	free(out->found);
	for (size_t i = 0; i < out->n_residue; i++)
		free(out->residue[i].path);
	free(out->residue);
	free(out->residue_gaps);
	for (size_t i = 0; i < out->n_residue_ignored; i++) {
		free(out->residue_ignored[i].path);
		free(out->residue_ignored[i].by);
	}
	free(out->residue_ignored);
	free(out->residue_notes);
	for (size_t i = 0; i < out->n_home_writes; i++)
		free(out->home_writes[i]);
	free(out->home_writes);
	sup_leaks_free(out->leaks, out->n_leaks);
	sup_hung_free(&out->hung);
	free(out->cwd);
	free(out->home);
	sup_cache_uses_free(out->caches, out->n_caches);
	for (size_t i = 0; i < out->n_policy_events; i++) {
		free(out->policy_events[i].detail);
		free(out->policy_events[i].origin);
		sup_attrib_free(&out->policy_events[i].at);
	}
	free(out->policy_events);
}

static void free_sup(struct sup *s)
{
	iso_reader_set_proc(NULL);
	iso_reader_stop(&s->reader);
	for (int i = 0; i < 2; i++)
		if (s->relayed[i])
			sup_stream_close(&s->streams[i]);
	for (size_t i = 0; s->snaps && i < s->o->watch.n; i++)
		sup_snapshot_free(&s->snaps[i]);
	for (size_t i = 0; s->git && i < s->o->watch.n; i++)
		sup_git_rules_free(&s->git[i]);
	free(s->snaps);
	free(s->git);
	sup_env_free(s->env);
	sup_shell_argv_free(s->shell_argv);
	free(s->cmd_path);
	free(s->cmd_hidden);
	sup_hidden_free(&s->hidden);
	for (size_t i = 0; i < s->ns.n_keep; i++)
		free(s->ns.keep[i]);
	free(s->ns.keep);
	if (s->gate->close)
		s->gate->close(s);
	if (s->listener >= 0)
		close(s->listener);
	sup_sinks_close(&s->outputs);
	sup_evloop_close(&s->loop);
	tree_close(&s->tree);
	tree_shield_forget(&s->td.shield);
	tree_gate_free(&s->td.gate);
	sup_ceilings_close(&s->ceil);
	if (s->pol)
		pol_free(&s->policy);
	free(s->ns.id_filter);
	sup_execlog_free(&s->execlog);
}

int sup_run(const struct sup_opts *o)
{
	struct sup_outcome out = {
		.argv = o->argv,
		.argc = o->argc,
		.timing = { SUP_TIMING_NONE, SUP_TIMING_NONE, SUP_TIMING_NONE, SUP_TIMING_NONE,
			    SUP_TIMING_NONE },
	};
	struct sup s = {
		.o = o,
		.gate = &sup_gate_subreaper,
		.out = &out,
		.self = getpid(),
		.loop = SUP_EVLOOP_INIT,
		.listener = -1,
		.ns = { .sock = -1 },
		.tty_fd = -1,
		.outputs = SUP_SINKS_INIT,
		.tree = { .user_fd = -1, .fd = -1, .lock_fd = -1, .park = -1, .nest_watch = -1 },
		.td = { .shield = { .lock_fd = -1, .watch = -1 },
			.gate = { .fd = -1, .in = -1, .release_wd = -1, .park = -1 } },
		.ceil = SUP_CEILINGS_INIT,
		.t_start = sup_now_us(),
		.actx = { .run_start_ms = sup_boottime_ms() },
	};
	struct iso_err e = { 0 };
	enum sup_start how;
	int code;

	s.t_us = s.t_start;
	s.actx.log = &s.execlog;
	s.actx.roots[0] = s.self;
	s.slow_record = iso_test_fault("slow-exec-record");
	clock_gettime(CLOCK_REALTIME, &out.started);
	out.cwd = getcwd(NULL, 0);
	sup_invocation_find(&out.inv, o->argv, o->argc);
	s.actx.run_runner = out.inv.runner;
	s.actx.run_test = out.inv.test;
	if ((code = sup_setup_signals(&s.mask, &s.inherited)) < 0) {
		iso_err_set(&e, -code, "block signals");
		code = fail_before_start(&s, &e);
	} else if (tree_new_id(out.run_id, sizeof(out.run_id), &e) < 0) {
		code = fail_before_start(&s, &e);
	} else if (sup_sinks_open(&s.outputs, o, &out, &e) < 0) {
		code = fail_before_start(&s, &e);
	} else if (sup_load_policy(&s) < 0) {
		code = fail_before_start(&s, NULL);
	} else if (sup_prepare(&s, &e) < 0 || sup_make_tree(&s, &e) < 0) {
		code = fail_before_start(&s, &e);
	} else {
		how = sup_start(&s, &e);
		if (how == SUP_FAILED_BEFORE) {
			code = fail_before_start(&s, &e);
		} else {
			if (how == SUP_FAILED_AFTER)
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
