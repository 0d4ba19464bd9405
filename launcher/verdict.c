// SPDX-License-Identifier: MIT
#include "launcher/verdict.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "common/text.h"
#include "launcher/finding.h"

static const char *severity(enum iso_verdict_mode m)
{
	return m == ISO_FAIL ? "error" : m == ISO_WARN ? "warning" : "info";
}

/* One more finding, counted first: without memory for its words it still counts. */
static struct iso_vfinding *add(struct iso_verdict *v, enum iso_vkind kind, bool counts,
				const char *level, const char *title)
{
	struct iso_vfinding *items, *f;

	v->n_counting[kind] += counts;
	v->finding |= counts;
	items = realloc(v->items, (v->n_items + 1) * sizeof(*items));
	if (!items)
		return NULL;
	v->items = items;
	if (!v->n[kind])
		v->first[kind] = v->n_items;
	f = &v->items[v->n_items++];
	*f = (struct iso_vfinding){ .kind = kind,
				    .index = v->n[kind]++,
				    .counts = counts,
				    .level = level,
				    .title = title };
	return f;
}

/* A finding whose words are finding.c's of that kind. */
static int add_text(struct iso_verdict *v, enum iso_vkind kind, enum iso_finding_kind fk, size_t i,
		    bool counts, const char *level, const char *title)
{
	struct iso_vfinding *f = add(v, kind, counts, level, title);

	if (!f)
		return -ENOMEM;
	f->text = iso_finding_str(v->plan, v->out, fk, i);
	return f->text ? 0 : -ENOMEM;
}

static int add_str(struct iso_verdict *v, enum iso_vkind kind, bool counts, const char *level,
		   const char *title, const char *text)
{
	struct iso_vfinding *f = add(v, kind, counts, level, title);

	if (!f)
		return -ENOMEM;
	f->text = text ? strdup(text) : NULL;
	return !text || f->text ? 0 : -ENOMEM;
}

/* A failure of delivery, which the reason names one by one ("stdout lost"). */
static int add_named(struct iso_verdict *v, enum iso_vkind kind, const char *title,
		     const char *text, const char *word)
{
	struct iso_vfinding *f = add(v, kind, true, "error", title);

	if (!f)
		return -ENOMEM;
	snprintf(f->word, sizeof(f->word), "%s", word);
	f->text = strdup(text);
	return f->text ? 0 : -ENOMEM;
}

static int add_setup(struct iso_verdict *v)
{
	const struct iso_outcome *o = v->out;
	bool in_file = o->setup_file[0] != '\0';
	char buf[600];
	int r;

	if (!o->setup_before && !o->setup_failed)
		return 0;
	/* 125 is its own exit code: not a finding */
	r = add_str(v, ISO_V_SETUP, false, "error",
		    in_file ? "isorun: bad policy" : "isorun: setup failed",
		    iso_err_format(&o->setup_err, buf, sizeof(buf)));
	if (r == 0 && in_file) {
		struct iso_vfinding *f = &v->items[v->n_items - 1];

		f->file = o->setup_file;
		f->line = o->setup_line;
		f->col = o->setup_col;
	}
	return r;
}

/*
 * The leak check did not run: no subreaper and no PID namespace (which only
 * --leaks=fail makes a failure), or a gate that could not finish (always one).
 */
static int add_unmeasurable(struct iso_verdict *v)
{
	const struct iso_outcome *o = v->out;
	bool no_gate = !o->subreaper && !o->pidns;
	bool counts = (no_gate && v->plan->leaks == ISO_FAIL) || o->gate_unmeasurable[0];
	char why[256], text[300];

	if (!no_gate && !o->gate_unmeasurable[0])
		return 0;
	snprintf(text, sizeof(text), "leak check: not measurable (%s)",
		 iso_unmeasurable_why(v->out, why, sizeof(why)));
	return add_str(v, ISO_V_UNMEASURABLE, counts, counts ? "error" : "warning",
		       "isorun: leak check not measurable", text);
}

/* Said, never counted: a .gitignore not applied, what the ignores kept out (-v). */
static int add_watch_notes(struct iso_verdict *v)
{
	const struct iso_outcome *o = v->out;
	char text[PATH_MAX + 1024];
	int r = 0;

	for (size_t i = 0; i < o->n_residue_notes; i++) {
		_cleanup_free_ char *dir = iso_escape(o->residue_notes[i].dir);
		_cleanup_free_ char *why = iso_escape(o->residue_notes[i].why);

		snprintf(text, sizeof(text), "residue: .gitignore not applied in %s (%s)",
			 dir ? dir : "?", why ? why : "?");
		r |= add_str(v, ISO_V_RESIDUE_NOTE, false, "warning",
			     "isorun: .gitignore not applied", text);
	}
	for (size_t i = 0; i < o->n_residue_ignored; i++) {
		_cleanup_free_ char *path = iso_escape(o->residue_ignored[i].path);
		_cleanup_free_ char *dir = iso_escape(o->residue_ignored[i].dir);
		_cleanup_free_ char *by = iso_escape(o->residue_ignored[i].by);

		snprintf(text, sizeof(text), "residue ignored: '%s' in %s (%s)", path ? path : "?",
			 dir ? dir : "?", by ? by : "?");
		r |= add_str(v, ISO_V_IGNORED, false, "info", NULL, text);
	}
	if (o->n_residue_ignored_more) {
		snprintf(text, sizeof(text), "residue ignored: %zu more not named",
			 o->n_residue_ignored_more);
		r |= add_str(v, ISO_V_IGNORED, false, "info", NULL, text);
	}
	return r;
}

/* --watch-home: what the run wrote in its private home, each file, and where the walk stopped. */
static int add_home_writes(struct iso_verdict *v)
{
	const struct iso_outcome *o = v->out;
	char text[PATH_MAX + 320];
	int r = 0;

	if (!v->opts->watch_home || !o->home_walked)
		return 0;
	for (size_t i = 0; i < o->n_home_writes; i++) {
		_cleanup_free_ char *path = iso_escape(o->home_writes[i]);

		snprintf(text, sizeof(text), "home write: '%s' written in the private home",
			 path ? path : "?");
		r |= add_str(v, ISO_V_HOME_WRITE, false, "warning", "isorun: home write", text);
	}
	if (o->n_home_writes_more) {
		snprintf(text, sizeof(text), "home write: %zu more files not named",
			 o->n_home_writes_more);
		r |= add_str(v, ISO_V_HOME_WRITE, false, "warning", "isorun: home write", text);
	}
	if (o->home_unmeasurable[0]) {
		_cleanup_free_ char *why = iso_escape(o->home_unmeasurable);

		snprintf(text, sizeof(text), "home write: not all seen (%s)", why ? why : "?");
		r |= add_str(v, ISO_V_HOME_WRITE, false, "warning", "isorun: home write", text);
	}
	return r;
}

/* What the guards found: leaks, policy events, residue, and what could not be checked. */
static int add_guards(struct iso_verdict *v)
{
	const struct iso_run_plan *p = v->plan;
	const struct iso_outcome *o = v->out;
	int r = 0;

	if (o->timed_out)
		r |= add_text(v, ISO_V_TIMEOUT, ISO_FIND_TIMEOUT, 0, false, "error",
			      "isorun: timed out");
	r |= add_unmeasurable(v);
	for (size_t i = 0; i < o->n_leaks; i++)
		r |= add_text(v, ISO_V_LEAK, ISO_FIND_LEAK, i, p->leaks == ISO_FAIL,
			      severity(p->leaks), "isorun: leaked process");
	for (size_t i = 0; i < o->n_policy_events; i++) {
		bool refused = o->policy_events[i].refused;

		r |= add_text(v, ISO_V_REFUSAL, ISO_FIND_REFUSAL, i, refused,
			      refused ? "error" : "warning",
			      refused ? "isorun: call refused" : "isorun: call logged");
	}
	for (size_t i = 0; i < o->n_residue; i++)
		r |= add_text(v, ISO_V_RESIDUE, ISO_FIND_RESIDUE, i, p->residue == ISO_FAIL,
			      severity(p->residue), "isorun: residue");
	/* a check that could not run fails as a finding would: --residue=fail asked for proof */
	for (size_t i = 0; i < o->n_residue_gaps; i++)
		r |= add_text(v, ISO_V_RESIDUE_GAP, ISO_FIND_RESIDUE_GAP, i, p->residue == ISO_FAIL,
			      severity(p->residue), "isorun: residue check not measurable");
	return r | add_watch_notes(v);
}

/* The tree, the home note, the cgroup and what isorun could not deliver. */
static int add_rest(struct iso_verdict *v)
{
	const struct iso_outcome *o = v->out;
	char note[PATH_MAX + 320], text[160], word[48];
	int r = 0;

	if (o->tree_state == ISO_TREE_RETAINED)
		r |= add_text(v, ISO_V_RETAINED, ISO_FIND_RETAINED, 0, true, "error",
			      "isorun: tree retained");
	if (iso_home_note(v->plan, v->opts->say, o, note, sizeof(note)))
		r |= add_str(v, ISO_V_HOME_NOTE, false, "warning", "isorun: home protected", note);
	r |= add_home_writes(v);
	/* ceiling.c says these itself, on stderr and in the report */
	if (o->res.ceiling_hit[0])
		r |= add_str(v, ISO_V_CEILING, true, "error", NULL, NULL);
	if (o->res.cgroup_retained[0])
		r |= add_str(v, ISO_V_CGROUP, true, "error", NULL, NULL);
	for (int i = 0; i < 2; i++) {
		const struct iso_stream *s = o->streams[i];

		if (!iso_stream_lost(s))
			continue;
		snprintf(text, sizeof(text), "%s: write failed: %s (%llu bytes lost)", s->name,
			 strerror(s->out_err), (unsigned long long)s->lost);
		snprintf(word, sizeof(word), "%s lost", s->name);
		r |= add_named(v, ISO_V_STREAM_LOST, "isorun: output lost", text, word);
	}
	return r;
}

static int exit_code(const struct iso_verdict *v)
{
	const struct iso_outcome *o = v->out;

	if (o->setup_failed || o->setup_before)
		return ISO_EXIT_SETUP;
	if (o->exec_failed)
		return o->exit;
	if (o->timed_out)
		return ISO_EXIT_TIMEOUT;
	if (o->cancelled_by)
		return ISO_EXIT_SIGNAL_BASE + o->cancelled_by;
	/* the command died with its namespace, whatever it had said before */
	if (o->init_signal)
		return ISO_EXIT_SIGNAL_BASE + o->init_signal;
	if (o->term_signal)
		return ISO_EXIT_SIGNAL_BASE + o->term_signal;
	if (o->exit_code)
		return o->exit_code;
	return v->finding ? v->opts->finding_exit : 0;
}

__attribute__((format(printf, 2, 3))) static void reason_add(struct iso_verdict *v, const char *fmt,
							     ...)
{
	size_t used = strlen(v->reason);
	va_list ap;

	if (used >= sizeof(v->reason))
		return;
	if (used)
		snprintf(v->reason + used, sizeof(v->reason) - used, ", ");
	used = strlen(v->reason);
	va_start(ap, fmt);
	vsnprintf(v->reason + used, sizeof(v->reason) - used, fmt, ap);
	va_end(ap);
}

/* How the command ended, as the verdict's first words. */
static void how_it_ended(const struct iso_outcome *o, int code, char *how, size_t len)
{
	char sig[32];

	if (o->setup_before && o->setup_file[0])
		snprintf(how, len, "bad policy");
	else if (o->setup_before)
		snprintf(how, len, "setup failed before the command ran");
	else if (o->setup_failed)
		snprintf(how, len, "setup failed after the command started; it was stopped");
	else if (o->exec_failed)
		snprintf(how, len, "%s",
			 code == 127 ? "command not found" : "command could not be executed");
	else if (o->timed_out)
		snprintf(how, len, "timed out");
	else if (o->cancelled_by)
		snprintf(how, len, "cancelled by %s",
			 iso_signal_name(o->cancelled_by, sig, sizeof(sig)));
	else if (o->init_signal)
		snprintf(how, len, "namespace's init killed by %s",
			 iso_signal_name(o->init_signal, sig, sizeof(sig)));
	else if (o->term_signal)
		snprintf(how, len, "command killed by %s",
			 iso_signal_name(o->term_signal, sig, sizeof(sig)));
	else if (o->exit_code)
		snprintf(how, len, "command exited %d", o->exit_code);
	else
		how[0] = '\0';
}

static const char *plural(size_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

/* What was found, as the reason's other words, in the order the reason has always had. */
static void what_was_found(struct iso_verdict *v)
{
	const struct iso_outcome *o = v->out;
	size_t refused = v->n_counting[ISO_V_REFUSAL];

	if (v->n_counting[ISO_V_LEAK])
		reason_add(v, "%zu process%s outlived the command", o->n_leaks,
			   plural(o->n_leaks, "", "es"));
	if (refused)
		reason_add(v, "%zu call%s refused", refused, plural(refused, "", "s"));
	if (v->n_counting[ISO_V_RESIDUE])
		reason_add(v, "%zu new entr%s in watched directories", o->n_residue,
			   plural(o->n_residue, "y", "ies"));
	if (v->n_counting[ISO_V_RESIDUE_GAP])
		reason_add(v, "residue check not measurable");
	if (v->n_counting[ISO_V_UNMEASURABLE])
		reason_add(v, "leak check not measurable");
	if (v->n_counting[ISO_V_RETAINED])
		reason_add(v, "tree retained");
	if (v->n_counting[ISO_V_CEILING])
		reason_add(v, "a ceiling was reached");
	if (v->n_counting[ISO_V_CGROUP])
		reason_add(v, "cgroup retained");
	for (size_t k = 0; k < v->n[ISO_V_STREAM_LOST]; k++)
		reason_add(v, "%s", v->items[v->first[ISO_V_STREAM_LOST] + k].word);
	for (size_t k = 0; k < v->n[ISO_V_UNDELIVERED]; k++)
		reason_add(v, "%s", v->items[v->first[ISO_V_UNDELIVERED] + k].word);
}

/* The exit code and the words, from the findings as they stand. */
static void decide(struct iso_verdict *v)
{
	v->exit = exit_code(v);
	how_it_ended(v->out, v->exit, v->how, sizeof(v->how));
	v->reason[0] = '\0';
	if (v->exit == 0)
		return;
	if (v->how[0])
		reason_add(v, "%s", v->how);
	if (!v->nothing_ran)
		what_was_found(v);
}

int iso_verdict_make(struct iso_verdict *v, const struct iso_opts *opts,
		     const struct iso_outcome *out)
{
	int r;

	*v = (struct iso_verdict){
		.opts = opts, .plan = &opts->plan, .out = out, .nothing_ran = out->setup_before
	};
	r = add_setup(v);
	r |= add_guards(v);
	r |= add_rest(v);
	decide(v);
	return r ? -ENOMEM : 0;
}

void iso_verdict_unfinished(struct iso_verdict *v, const struct iso_opts *opts,
			    const struct iso_outcome *out)
{
	*v = (struct iso_verdict){
		.opts = opts, .plan = &opts->plan, .out = out, .unfinished = true, .exit = -1
	};
	snprintf(v->reason, sizeof(v->reason), "%s", ISO_UNFINISHED);
}

void iso_verdict_undelivered(struct iso_verdict *v, const char *text, const char *word,
			     const char *title)
{
	(void)add_named(v, ISO_V_UNDELIVERED, title, text, word);
	decide(v);
}

void iso_verdict_free(struct iso_verdict *v)
{
	for (size_t i = 0; i < v->n_items; i++)
		free(v->items[i].text);
	free(v->items);
	v->items = NULL;
	v->n_items = 0;
}

const struct iso_vfinding *iso_verdict_get(const struct iso_verdict *v, enum iso_vkind kind,
					   size_t i)
{
	return i < v->n[kind] ? &v->items[v->first[kind] + i] : NULL;
}

const char *iso_verdict_word(const struct iso_verdict *v)
{
	return v->unfinished ? "unfinished" : v->exit ? "failed" : "passed";
}
