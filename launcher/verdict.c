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

static const char *severity(enum sup_verdict_mode m)
{
	return m == SUP_FAIL ? "error" : m == SUP_WARN ? "warning" : "info";
}

/* One more finding, counted first: without memory for its words it still counts. */
static struct sup_vfinding *add(struct sup_verdict *v, enum sup_vkind kind, bool counts,
				const char *level, const char *title)
{
	struct sup_vfinding *items, *f;

	v->n_counting[kind] += counts;
	v->finding |= counts;
	items = realloc(v->items, (v->n_items + 1) * sizeof(*items));
	if (!items)
		return NULL;
	v->items = items;
	if (!v->n[kind])
		v->first[kind] = v->n_items;
	f = &v->items[v->n_items++];
	*f = (struct sup_vfinding){ .kind = kind,
				    .index = v->n[kind]++,
				    .counts = counts,
				    .level = level,
				    .title = title };
	return f;
}

static int add_str(struct sup_verdict *v, enum sup_vkind kind, bool counts, const char *level,
		   const char *title, const char *text)
{
	struct sup_vfinding *f = add(v, kind, counts, level, title);

	if (!f)
		return -ENOMEM;
	f->text = text ? strdup(text) : NULL;
	return !text || f->text ? 0 : -ENOMEM;
}

/* A failure of delivery, which the reason names one by one ("stdout lost"). */
static int add_named(struct sup_verdict *v, enum sup_vkind kind, const char *title,
		     const char *text, const char *word)
{
	struct sup_vfinding *f = add(v, kind, true, "error", title);

	if (!f)
		return -ENOMEM;
	snprintf(f->word, sizeof(f->word), "%s", word);
	f->text = strdup(text);
	return f->text ? 0 : -ENOMEM;
}

static int add_setup(struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	bool in_file = o->setup_file[0] != '\0';
	char buf[600];
	int r;

	if (!o->setup_before && !o->setup_failed)
		return 0;
	/* 125 is its own exit code: not a finding */
	r = add_str(v, SUP_V_SETUP, false, "error",
		    in_file ? "isorun: bad policy" : "isorun: setup failed",
		    iso_err_format(&o->setup_err, buf, sizeof(buf)));
	if (r == 0 && in_file) {
		struct sup_vfinding *f = &v->items[v->n_items - 1];

		f->file = o->setup_file;
		f->line = o->setup_line;
		f->col = o->setup_col;
	}
	return r;
}

/* Said, never counted: a --watch directory whose .gitignore was not applied. */
static int add_residue_notes(struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	char text[PATH_MAX + 1024];
	int r = 0;

	for (size_t i = 0; i < o->n_residue_notes; i++) {
		_cleanup_free_ char *dir = iso_escape(o->residue_notes[i].dir);
		_cleanup_free_ char *why = iso_escape(o->residue_notes[i].why);

		snprintf(text, sizeof(text), "residue: .gitignore not applied in %s (%s)",
			 dir ? dir : "?", why ? why : "?");
		r |= add_str(v, SUP_V_RESIDUE_NOTE, false, "warning",
			     "isorun: .gitignore not applied", text);
	}
	return r;
}

/* Said with -v, never counted: what the ignores kept out. */
static int add_ignored(struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	char text[PATH_MAX + 1024];
	int r = 0;

	for (size_t i = 0; i < o->n_residue_ignored; i++) {
		_cleanup_free_ char *path = iso_escape(o->residue_ignored[i].path);
		_cleanup_free_ char *dir = iso_escape(o->residue_ignored[i].dir);
		_cleanup_free_ char *by = iso_escape(o->residue_ignored[i].by);

		snprintf(text, sizeof(text), "residue ignored: '%s' in %s (%s)", path ? path : "?",
			 dir ? dir : "?", by ? by : "?");
		r |= add_str(v, SUP_V_IGNORED, false, "info", NULL, text);
	}
	if (o->n_residue_ignored_more) {
		snprintf(text, sizeof(text), "residue ignored: %zu more not named",
			 o->n_residue_ignored_more);
		r |= add_str(v, SUP_V_IGNORED, false, "info", NULL, text);
	}
	return r;
}

/* --watch-home: what the run wrote in its private home, each file, and where the walk stopped. */
static int add_home_writes(struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	char text[PATH_MAX + 320];
	int r = 0;

	if (!v->opts->watch_home || !o->home_walked)
		return 0;
	for (size_t i = 0; i < o->n_home_writes; i++) {
		_cleanup_free_ char *path = iso_escape(o->home_writes[i]);

		snprintf(text, sizeof(text), "home write: '%s' written in the private home",
			 path ? path : "?");
		r |= add_str(v, SUP_V_HOME_WRITE, false, "warning", "isorun: home write", text);
	}
	if (o->n_home_writes_more) {
		snprintf(text, sizeof(text), "home write: %zu more files not named",
			 o->n_home_writes_more);
		r |= add_str(v, SUP_V_HOME_WRITE, false, "warning", "isorun: home write", text);
	}
	if (o->home_unmeasurable[0]) {
		_cleanup_free_ char *why = iso_escape(o->home_unmeasurable);

		snprintf(text, sizeof(text), "home write: not all seen (%s)", why ? why : "?");
		r |= add_str(v, SUP_V_HOME_WRITE, false, "warning", "isorun: home write", text);
	}
	return r;
}

/* --protect-home may explain the command's failure: a possibility, never counted. */
static int add_home_note(struct sup_verdict *v)
{
	char note[PATH_MAX + 320];

	if (!sup_home_note(v->plan, v->opts->say, v->out, note, sizeof(note)))
		return 0;
	return add_str(v, SUP_V_HOME_NOTE, false, "warning", "isorun: home protected", note);
}

/* --private-tmp may explain it too: the same kind of possibility. */
static int add_tmp_note(struct sup_verdict *v)
{
	char note[512];

	if (!sup_tmp_note(v->plan, v->opts->say, v->out, note, sizeof(note)))
		return 0;
	return add_str(v, SUP_V_TMP_NOTE, false, "warning", "isorun: private tmp", note);
}

/* Relayed output that could not be written: each stream, named in the reason. */
static int add_streams(struct sup_verdict *v)
{
	char text[160], word[48];
	int r = 0;

	for (int i = 0; i < 2; i++) {
		const struct sup_stream *s = v->out->streams[i];

		if (!sup_stream_lost(s))
			continue;
		snprintf(text, sizeof(text), "%s: write failed: %s (%llu bytes lost)", s->name,
			 strerror(s->out_err), (unsigned long long)s->lost);
		snprintf(word, sizeof(word), "%s lost", s->name);
		r |= add_named(v, SUP_V_STREAM_LOST, "isorun: output lost", text, word);
	}
	return r;
}

/* ---- how many of a kind the outcome holds, whether each counts, its severity ---- */

static size_t n_timeout(const struct sup_verdict *v)
{
	return v->out->timed_out;
}

/* no subreaper and no PID namespace, or a gate that could not finish */
static size_t n_unmeasurable(const struct sup_verdict *v)
{
	return (!v->out->subreaper && !v->out->pidns) || v->out->gate_unmeasurable[0];
}

static size_t n_leaks(const struct sup_verdict *v)
{
	return v->out->n_leaks;
}

static size_t n_refusals(const struct sup_verdict *v)
{
	return v->out->n_policy_events;
}

static size_t n_residue(const struct sup_verdict *v)
{
	return v->out->n_residue;
}

static size_t n_residue_gaps(const struct sup_verdict *v)
{
	return v->out->n_residue_gaps;
}

static size_t n_retained(const struct sup_verdict *v)
{
	return v->out->tree_state == SUP_TREE_RETAINED;
}

static size_t n_ceiling(const struct sup_verdict *v)
{
	return v->out->res.ceiling_hit[0] != '\0';
}

static size_t n_cgroup(const struct sup_verdict *v)
{
	return v->out->res.cgroup_retained[0] != '\0';
}

static bool never(const struct sup_verdict *v, size_t i)
{
	return false;
}

static bool always(const struct sup_verdict *v, size_t i)
{
	return true;
}

/* only --leaks=fail makes a missing gate a failure; a gate that could not finish always is */
static bool unmeasurable_counts(const struct sup_verdict *v, size_t i)
{
	const struct sup_outcome *o = v->out;

	return (!o->subreaper && !o->pidns && v->plan->leaks == SUP_FAIL) ||
	       o->gate_unmeasurable[0];
}

static bool leak_counts(const struct sup_verdict *v, size_t i)
{
	return v->plan->leaks == SUP_FAIL;
}

static bool refused(const struct sup_verdict *v, size_t i)
{
	return v->out->policy_events[i].refused;
}

/* a check that could not run fails as a finding would: --residue=fail asked for proof */
static bool residue_counts(const struct sup_verdict *v, size_t i)
{
	return v->plan->residue == SUP_FAIL;
}

static const char *error_level(const struct sup_verdict *v, bool counts)
{
	return "error";
}

static const char *counts_level(const struct sup_verdict *v, bool counts)
{
	return counts ? "error" : "warning";
}

static const char *leak_level(const struct sup_verdict *v, bool counts)
{
	return severity(v->plan->leaks);
}

static const char *residue_level(const struct sup_verdict *v, bool counts)
{
	return severity(v->plan->residue);
}

/*
 * The descriptions of the kinds whose evidence has fields of its own in the outcome
 * (struct sup_vkind_row, launcher/verdict.h).  The reason names the kinds that count in
 * the order of reason_at.
 */
const struct sup_vkind_row sup_vkind_setup = { .add = add_setup };
const struct sup_vkind_row sup_vkind_timeout = { .count = n_timeout,
						 .counts = never,
						 .level = error_level,
						 .words = sup_timeout_text,
						 .title = "isorun: timed out" };
const struct sup_vkind_row sup_vkind_unmeasurable = { .count = n_unmeasurable,
						      .counts = unmeasurable_counts,
						      .level = counts_level,
						      .words = sup_unmeasurable_text,
						      .title = "isorun: leak check not measurable",
						      .reason_at = 5,
						      .one = "leak check not measurable" };
const struct sup_vkind_row sup_vkind_leak = { .count = n_leaks,
					      .counts = leak_counts,
					      .level = leak_level,
					      .words = sup_leak_text,
					      .title = "isorun: leaked process",
					      .reason_at = 1,
					      .one = "process outlived the command",
					      .more = "processes outlived the command" };
const struct sup_vkind_row sup_vkind_refusal = { .listed = SUP_LISTED,
						 .count = n_refusals,
						 .counts = refused,
						 .level = counts_level,
						 .words = sup_refusal_text,
						 .title = "isorun: call refused",
						 .title_quiet = "isorun: call logged",
						 .reason_at = 2,
						 .one = "call refused",
						 .more = "calls refused" };
const struct sup_vkind_row sup_vkind_residue = { .listed = SUP_LISTED,
						 .count = n_residue,
						 .counts = residue_counts,
						 .level = residue_level,
						 .words = sup_residue_text,
						 .title = "isorun: residue",
						 .reason_at = 3,
						 .one = "new entry in watched directories",
						 .more = "new entries in watched directories" };
const struct sup_vkind_row sup_vkind_residue_gap = { .listed = SUP_LISTED,
						     .count = n_residue_gaps,
						     .counts = residue_counts,
						     .level = residue_level,
						     .words = sup_residue_gap_text,
						     .title =
							     "isorun: residue check not measurable",
						     .reason_at = 4,
						     .one = "residue check not measurable" };
const struct sup_vkind_row sup_vkind_residue_note = { .listed = SUP_LISTED,
						      .add = add_residue_notes };
const struct sup_vkind_row sup_vkind_ignored = { .listed = SUP_LISTED_VERBOSE, .add = add_ignored };
const struct sup_vkind_row sup_vkind_retained = { .count = n_retained,
						  .counts = always,
						  .level = error_level,
						  .words = sup_retained_text,
						  .title = "isorun: tree retained",
						  .reason_at = 6,
						  .one = "tree retained" };
const struct sup_vkind_row sup_vkind_home_note = { .add = add_home_note };
const struct sup_vkind_row sup_vkind_tmp_note = { .add = add_tmp_note };
const struct sup_vkind_row sup_vkind_home_write = { .listed = SUP_LISTED, .add = add_home_writes };
const struct sup_vkind_row sup_vkind_ceiling = { .count = n_ceiling,
						 .counts = always,
						 .level = error_level,
						 .reason_at = 7,
						 .one = "a ceiling was reached" };
const struct sup_vkind_row sup_vkind_cgroup = { .count = n_cgroup,
						.counts = always,
						.level = error_level,
						.reason_at = 8,
						.one = "cgroup retained" };
const struct sup_vkind_row sup_vkind_stream_lost = { .listed = SUP_LISTED_LAST,
						     .add = add_streams,
						     .reason_at = 9 };
/* added after the verdict, by the sinks (sup_verdict_undelivered()) */
const struct sup_vkind_row sup_vkind_undelivered = { .listed = SUP_LISTED_LAST, .reason_at = 10 };

/* The table the rows of launcher/vkinds.h make, by enum sup_vkind. */
#define VKIND_ROW(ID, name) [SUP_V_##ID] = &sup_vkind_##name,
static const struct sup_vkind_row *const vkinds[SUP_V_N_KINDS] = { SUP_VKIND_ROWS(VKIND_ROW) };
#undef VKIND_ROW

/* The i-th finding of a kind by its row (g: a generic kind's): counts, severity, words. */
static int add_one(struct sup_verdict *v, enum sup_vkind k, size_t i, const struct sup_found *g)
{
	const struct sup_vkind_row *d = vkinds[k];
	bool counts = g ? g->counts : d->counts(v, i);
	const char *level = g ? (counts ? "error" : "warning") : d->level(v, counts);
	const char *title = counts || !d->title_quiet ? d->title : d->title_quiet;
	struct sup_vfinding *f = add(v, k, counts, level, title);

	if (!f)
		return -ENOMEM;
	if (d->words)
		f->text = sup_finding_str(d->words, v->plan, v->out, i);
	else if (g) /* its evidence is its words */
		f->text = iso_escape(g->what);
	else
		return 0;
	return f->text ? 0 : -ENOMEM;
}

/*
 * Every finding of a kind, by its row; without memory for its words one still
 * counts.  A row with neither add nor count is a generic kind: the outcome's found
 * list holds its findings.
 */
static int add_kind(struct sup_verdict *v, enum sup_vkind k)
{
	const struct sup_vkind_row *d = vkinds[k];
	const struct sup_found *g;
	int r = 0;

	if (d->add)
		return d->add(v);
	if (d->count) {
		for (size_t i = 0, n = d->count(v); i < n; i++)
			r |= add_one(v, k, i, NULL);
		return r;
	}
	for (size_t i = 0; (g = sup_found_get(v->out, k, i)); i++)
		r |= add_one(v, k, i, g);
	return r;
}

static int exit_code(const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;

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
	return v->finding || o->found_lost ? v->opts->finding_exit : 0;
}

__attribute__((format(printf, 2, 3))) static void reason_add(struct sup_verdict *v, const char *fmt,
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
static void how_it_ended(const struct sup_outcome *o, int code, char *how, size_t len)
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

void sup_verdict_kind_words(const struct sup_verdict *v, enum sup_vkind k, char *buf, size_t len)
{
	const struct sup_vkind_row *d = vkinds[k];
	size_t n = v->n_counting[k];

	buf[0] = '\0';
	if (!n)
		return;
	if (d->one && d->more)
		snprintf(buf, len, "%zu %s", n, n == 1 ? d->one : d->more);
	else if (d->one)
		snprintf(buf, len, "%s", d->one);
	else
		for (size_t i = 0, used = 0; i < v->n[k] && used < len; i++) {
			snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 v->items[v->first[k] + i].word);
			used += strlen(buf + used);
		}
}

/* A kind that counts, named in the reason as its row says. */
static void name_kind(struct sup_verdict *v, enum sup_vkind k)
{
	char words[sizeof(v->reason)];

	sup_verdict_kind_words(v, k, words, sizeof(words));
	reason_add(v, "%s", words);
}

/* What was found, as the reason's other words, in the order the reason has always had. */
static void what_was_found(struct sup_verdict *v)
{
	for (int at = 1; at <= SUP_V_N_KINDS; at++)
		for (int k = 0; k < SUP_V_N_KINDS; k++)
			if (vkinds[k]->reason_at == at && v->n_counting[k])
				name_kind(v, (enum sup_vkind)k);
}

/* The exit code and the words, from the findings as they stand. */
static void decide(struct sup_verdict *v)
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

int sup_verdict_make(struct sup_verdict *v, const struct sup_opts *opts,
		     const struct sup_outcome *out)
{
	int r;

	*v = (struct sup_verdict){
		.opts = opts, .plan = &opts->plan, .out = out, .nothing_ran = out->setup_before
	};
	r = 0;
	for (int k = 0; k < SUP_V_N_KINDS; k++)
		r |= add_kind(v, (enum sup_vkind)k);
	decide(v);
	return r ? -ENOMEM : 0;
}

void sup_verdict_unfinished(struct sup_verdict *v, const struct sup_opts *opts,
			    const struct sup_outcome *out)
{
	*v = (struct sup_verdict){
		.opts = opts, .plan = &opts->plan, .out = out, .unfinished = true, .exit = -1
	};
	snprintf(v->reason, sizeof(v->reason), "%s", SUP_UNFINISHED);
}

void sup_verdict_undelivered(struct sup_verdict *v, const char *text, const char *word,
			     const char *title)
{
	(void)add_named(v, SUP_V_UNDELIVERED, title, text, word);
	decide(v);
}

void sup_verdict_free(struct sup_verdict *v)
{
	for (size_t i = 0; i < v->n_items; i++)
		free(v->items[i].text);
	free(v->items);
	v->items = NULL;
	v->n_items = 0;
}

const struct sup_vfinding *sup_verdict_get(const struct sup_verdict *v, enum sup_vkind kind,
					   size_t i)
{
	return i < v->n[kind] ? &v->items[v->first[kind] + i] : NULL;
}

enum sup_vlisted sup_vkind_listed(enum sup_vkind kind)
{
	return vkinds[kind]->listed;
}

const char *sup_verdict_word(const struct sup_verdict *v)
{
	return v->unfinished ? "unfinished" : v->exit ? "failed" : "passed";
}

const struct sup_vkind_row *sup_vkind_of(enum sup_vkind kind)
{
	return vkinds[kind];
}

int sup_found_add(struct sup_outcome *o, enum sup_vkind kind, bool counts, const char *what)
{
	struct sup_found *found = realloc(o->found, (o->n_found + 1) * sizeof(*found));
	char *copy = strdup(what);

	if (!found || !copy) {
		o->found = found ? found : o->found;
		free(copy);
		o->found_lost |= counts;
		return -ENOMEM;
	}
	o->found = found;
	o->found[o->n_found++] = (struct sup_found){ .kind = kind, .counts = counts, .what = copy };
	return 0;
}

const struct sup_found *sup_found_get(const struct sup_outcome *o, enum sup_vkind kind, size_t i)
{
	for (size_t j = 0; j < o->n_found; j++)
		if (o->found[j].kind == kind && i-- == 0)
			return &o->found[j];
	return NULL;
}
