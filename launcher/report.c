// SPDX-License-Identifier: MIT
#include "launcher/report.h"
#include "launcher/sinks.h"

#include "launcher/ceiling.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/version.h"
#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/finding.h"
#include "ns/ns.h"
#include "tree/tree.h"

/* A JSON string from any bytes: valid UTF-8 as is, other bytes as \xNN. */
static json_t *text(const char *s, size_t n)
{
	json_t *t = json_stringn(s, n);
	_cleanup_free_ char *esc = NULL;
	size_t o = 0;

	if (t)
		return t;
	esc = malloc(n * 4 + 1);
	if (!esc)
		return json_null();
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= 0x80 || c == 0)
			o += (size_t)snprintf(esc + o, 5, "\\x%02x", c);
		else
			esc[o++] = (char)c;
	}
	esc[o] = '\0';
	t = json_string(esc);
	return t ? t : json_null();
}

static json_t *redacted(const char *s)
{
	_cleanup_free_ char *r = iso_redact(s ? s : "");
	return r ? text(r, strlen(r)) : json_null();
}

/*
 * Where a tail that lost its beginning starts: after its first newline, so that
 * it holds whole lines; one line longer than the tail keeps its end, from the
 * first whole UTF-8 character.
 */
size_t sup_tail_start(const char *buf, size_t n, bool cut)
{
	const char *nl = cut ? memchr(buf, '\n', n) : NULL;
	size_t i = 0;

	if (!cut)
		return 0;
	if (nl && (size_t)(nl - buf) + 1 < n)
		return (size_t)(nl - buf) + 1;
	while (i < n && i < 4 && ((unsigned char)buf[i] & 0xc0) == 0x80)
		i++;
	return i;
}

static json_t *tail(const struct sup_stream *s)
{
	char buf[SUP_TAIL_MAX + 1];
	size_t n, from;

	if (!s)
		return json_null();
	n = sup_stream_tail(s, buf);
	from = sup_tail_start(buf, n, s->bytes > n);
	/* a character cut at the end comes out escaped, not lost */
	return text(buf + from, n - from);
}

static json_t *tail_cut(const struct sup_stream *s)
{
	return s ? json_boolean(s->bytes > s->tail_len) : json_null();
}

static json_t *names(char **env)
{
	json_t *a = json_array();

	for (size_t i = 0; env && env[i]; i++)
		json_array_append_new(a, text(env[i], strcspn(env[i], "=")));
	return a;
}

/*
 * p made absolute against cwd and cleaned by its words alone, as `realpath -m -s`
 * would (no symlink is followed: the path may be gone, and it is named as given):
 * "." and empty components go, ".." takes the one before it.  Malloc'ed.
 */
char *sup_abs_path(const char *cwd, const char *p)
{
	size_t n = strlen(p) + (p[0] == '/' ? 0 : strlen(cwd) + 1);
	char *out = malloc(n + 2), *src = malloc(n + 2), *save = NULL;
	size_t o = 0;

	if (!out || !src) {
		free(out);
		free(src);
		return NULL;
	}
	snprintf(src, n + 2, "%s%s%s", p[0] == '/' ? "" : cwd, p[0] == '/' ? "" : "/", p);
	for (char *w = strtok_r(src, "/", &save); w; w = strtok_r(NULL, "/", &save)) {
		if (strcmp(w, ".") == 0)
			continue;
		if (strcmp(w, "..") == 0) {
			while (o > 0 && out[--o] != '/')
				;
			continue;
		}
		o += (size_t)sprintf(out + o, "/%s", w);
	}
	if (o == 0)
		out[o++] = '/';
	out[o] = '\0';
	free(src);
	return out;
}

/* A path as isorun resolved it: relative ones against isorun's working directory. */
static json_t *abs_path(const struct sup_outcome *o, const char *p)
{
	_cleanup_free_ char *clean = NULL;

	if (!p)
		return json_null();
	if (!o->cwd && p[0] != '/')
		return redacted(p);
	clean = sup_abs_path(o->cwd ? o->cwd : "/", p);
	return clean ? redacted(clean) : json_null();
}

static json_t *abs_paths(const struct sup_outcome *o, const struct sup_strv *v)
{
	json_t *a = json_array();

	for (size_t i = 0; i < v->n; i++)
		json_array_append_new(a, abs_path(o, v->v[i]));
	return a;
}

/* A finding's severity, as the verdict decided it. */
static const char *severity(const struct sup_verdict *v, enum sup_vkind kind, size_t i)
{
	const struct sup_vfinding *f = sup_verdict_get(v, kind, i);

	return f ? f->level : "error";
}

static const char *state_name(enum sup_tree_state s)
{
	switch (s) {
	case SUP_TREE_REMOVED:
		return "removed";
	case SUP_TREE_KEPT:
		return "kept";
	case SUP_TREE_RETAINED:
		return "retained";
	default:
		return "none";
	}
}

static json_t *micros(uint64_t us)
{
	return us == SUP_TIMING_NONE ? json_null() : json_integer((json_int_t)us);
}

/* --pidns: how init ended when it was not the outer's doing; null otherwise. */
static json_t *init_lost(const struct sup_outcome *o)
{
	char sig[32];

	if (!o->init_lost)
		return json_null();
	if (o->init_signal)
		return json_pack("{s:s}", "signal",
				 iso_signal_name(o->init_signal, sig, sizeof(sig)));
	return json_pack("{s:i}", "exit_code", o->init_status);
}

static json_t *isolation(const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;

	if (v->unfinished)
		return json_pack("{s:b, s:n, s:b, s:s, s:s}", "pidns", false, "pidns_reason",
				 "subreaper", false, "leak_check", "not-measurable", "reason",
				 SUP_UNFINISHED);
	const char *check = o->gate_unmeasurable[0] ? "not-measurable"
			    : o->pidns		    ? "pidns"
			    : o->subreaper	    ? "subreaper"
						    : "not-measurable";
	const char *why = o->gate_unmeasurable[0]    ? o->gate_unmeasurable
			  : o->subreaper || o->pidns ? NULL
						     : o->subreaper_why;

	return json_pack("{s:b, s:s?, s:b, s:s, s:s?}", "pidns", o->pidns, "pidns_reason",
			 o->pidns_why[0] ? o->pidns_why : NULL, "subreaper", o->subreaper,
			 "leak_check", check, "reason", why);
}

/* What a limit counts, for the report's note. */
static const char *rlimit_note(int i)
{
	switch (i) {
	case SUP_RLIM_NOFILE:
		return "soft and hard; open descriptors per process, inherited by every process "
		       "the command starts (not a total for the run)";
	case SUP_RLIM_CORE:
		return "soft and hard; bytes of each core dump, per process";
	default:
		return "soft and hard; bytes per file a process writes; a write past it gets "
		       "SIGXFSZ (EFBIG when that is ignored)";
	}
}

/* --rlimit-*: appended to "resources"."limits", after the ceilings. */
static void rlimit_entries(const struct sup_outcome *o, json_t *limits)
{
	for (int i = 0; i < SUP_N_RLIMS; i++) {
		uint64_t v = o->rlimits.value[i];

		if (!o->rlimits.set[i])
			continue;
		json_array_append_new(
			limits,
			json_pack("{s:s, s:o, s:b, s:s, s:s}", "name", sup_rlimit_name(i), "value",
				  v == SUP_RLIM_UNLIMITED ? json_string("unlimited")
							  : json_integer((json_int_t)v),
				  "try", false, "enforced_by", "rlimit", "note", rlimit_note(i)));
	}
}

static json_t *policy(const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	json_t *refused = json_array();

	for (size_t i = 0; i < o->n_policy_events; i++) {
		const struct sup_policy_event *ev = &o->policy_events[i];
		json_t *e = json_pack("{s:i, s:s, s:o, s:s, s:s}", "pid", ev->pid, "call", ev->call,
				      "detail", redacted(ev->detail), "rule",
				      ev->origin ? ev->origin : "", "action",
				      ev->refused ? "refused" : "logged");
		sup_refusal_json_add(e, ev);
		json_object_set_new(e, "severity", json_string(severity(v, SUP_V_REFUSAL, i)));
		json_array_append_new(refused, e);
	}
	return json_pack("{s:s, s:s, s:s, s:o}", "name", o->policy_name ? o->policy_name : "off",
			 "mode", o->policy_log ? "log" : "enforce", "service_guard",
			 !o->policy_name      ? "off"
			 : o->guard_elsewhere ? "enclosing isorun"
					      : "this isorun",
			 "refused", refused);
}

/* Attribution (ppid, argv, exe, times, what started it) is filled where the gate records it. */
static json_t *leaks(const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	json_t *a = json_array();

	for (size_t i = 0; i < o->n_leaks; i++) {
		const struct sup_leak *l = &o->leaks[i];
		json_t *e = json_pack(
			"{s:i, s:o, s:o, s:o, s:i, s:b}", "pid", l->pid, "pid_in_namespace",
			l->inner_pid ? json_integer(l->inner_pid) : json_null(), "cmdline",
			redacted(l->cmdline), "cwd", l->cwd ? redacted(l->cwd) : json_null(),
			"session", l->sid, "killed", 1);
		sup_leak_json_add(e, l);
		json_object_set_new(e, "severity", json_string(severity(v, SUP_V_LEAK, i)));
		json_array_append_new(a, e);
	}
	return a;
}

static json_t *residue(const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	json_t *a = json_array();

	for (size_t i = 0; i < o->n_residue; i++)
		json_array_append_new(
			a, json_pack("{s:o, s:o, s:s}", "dir", abs_path(o, o->residue[i].dir),
				     "path", text(o->residue[i].path, strlen(o->residue[i].path)),
				     "severity", severity(v, SUP_V_RESIDUE, i)));
	return a;
}

static json_t *str(const char *s)
{
	return s ? text(s, strlen(s)) : json_null();
}

/* What the ignores kept out of the residue, each with its rule, and the directories they missed. */
static json_t *residue_ignored(const struct sup_outcome *o)
{
	json_t *a = json_array(), *notes = json_array();

	for (size_t i = 0; i < o->n_residue_ignored; i++)
		json_array_append_new(a, json_pack("{s:o, s:o, s:o}", "dir",
						   abs_path(o, o->residue_ignored[i].dir), "path",
						   str(o->residue_ignored[i].path), "by",
						   str(o->residue_ignored[i].by)));
	for (size_t i = 0; i < o->n_residue_notes; i++)
		json_array_append_new(notes, json_pack("{s:o, s:o}", "dir",
						       abs_path(o, o->residue_notes[i].dir),
						       "reason", str(o->residue_notes[i].why)));
	return json_pack("{s:o, s:I, s:o}", "entries", a, "more",
			 (json_int_t)o->n_residue_ignored_more, "not_applied", notes);
}

/* The files the run wrote in its private home outside the XDG cache; null: not looked at. */
static json_t *home_writes(const struct sup_outcome *o)
{
	json_t *a;

	if (!o->home_walked)
		return json_null();
	a = json_array();
	for (size_t i = 0; i < o->n_home_writes; i++)
		json_array_append_new(a, str(o->home_writes[i]));
	return json_pack("{s:o, s:I, s:o}", "paths", a, "more", (json_int_t)o->n_home_writes_more,
			 "incomplete",
			 o->home_unmeasurable[0] ? str(o->home_unmeasurable) : json_null());
}

/* Every guard that could not run, and why: a check that did not run never reads as passed. */
static json_t *not_measurable(const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	json_t *a = json_array();
	char why[256];

	/* a run that did not finish measured nothing, and never passed a check */
	if (v->unfinished) {
		json_array_append_new(a, json_pack("{s:s, s:n, s:s, s:s}", "guard", "leak check",
						   "dir", "reason", SUP_UNFINISHED, "severity",
						   "error"));
		return a;
	}
	/* the reason first: an argument's strlen() may be evaluated before the call */
	if (v->n[SUP_V_UNMEASURABLE]) {
		const char *w = sup_unmeasurable_why(o, why, sizeof(why));

		json_array_append_new(a, json_pack("{s:s, s:n, s:o, s:s}", "guard", "leak check",
						   "dir", "reason", text(w, strlen(w)), "severity",
						   severity(v, SUP_V_UNMEASURABLE, 0)));
	}
	for (size_t i = 0; i < o->n_residue_gaps; i++)
		json_array_append_new(
			a, json_pack("{s:s, s:o, s:o, s:s}", "guard", "residue", "dir",
				     abs_path(o, o->residue_gaps[i].dir), "reason",
				     text(o->residue_gaps[i].why, strlen(o->residue_gaps[i].why)),
				     "severity", severity(v, SUP_V_RESIDUE_GAP, i)));
	return a;
}

/*
 * The caches kept between runs (--cache): where each is and which variables
 * point there; the tree's CARGO_HOME is cargo's, its registry and git linked to it.
 */
static json_t *caches(const struct sup_outcome *o)
{
	json_t *a = json_array();

	for (size_t i = 0; i < o->n_caches; i++) {
		const struct sup_cache_kind *k = &sup_caches[sup_cache_lookup(o->caches[i].name)];
		json_t *vars = json_array();

		for (size_t j = 0; j < SUP_CACHE_VARS && k->vars[j]; j++)
			json_array_append_new(vars, json_string(k->vars[j]));
		if (k->tree_var)
			json_array_append_new(vars, json_string(k->tree_var));
		json_array_append_new(a, json_pack("{s:s, s:o, s:o}", "name", k->name, "dir",
						   text(o->caches[i].dir, strlen(o->caches[i].dir)),
						   "variables", vars));
	}
	return a;
}

/* One setting as cli/ worded it; NULL when a value cannot be made. */
static json_t *setting(const struct sup_outcome *o, const struct sup_report_setting *s)
{
	switch (s->kind) {
	case SUP_REPORT_BOOL:
		return json_boolean(s->flag);
	case SUP_REPORT_INT:
		return json_integer((json_int_t)s->num);
	case SUP_REPORT_STRING:
		return json_string(s->str);
	case SUP_REPORT_PATH:
		return abs_path(o, s->str);
	case SUP_REPORT_PATHS:
		return abs_paths(o, s->paths);
	case SUP_REPORT_CEILING:
		return json_pack("{s:I, s:b}", "value", (json_int_t)s->num, "try", s->flag);
	case SUP_REPORT_STRINGS:
		return names(s->paths->v);
	default:
		return json_null();
	}
}

/* The settings in effect, by their option names, in the order cli/ gives; paths absolute. */
static json_t *settings(const struct sup_opts *opts, const struct sup_outcome *o)
{
	struct sup_report_setting s[SUP_REPORT_SETTINGS_MAX];
	size_t n = opts->report_settings ? opts->report_settings(opts, s) : 0;
	json_t *set = json_object();

	for (size_t i = 0; set && i < n; i++) {
		json_t *v = setting(o, &s[i]);

		/* one value that cannot be made loses them all, as one json_pack() did */
		if (!v || json_object_set_new(set, s[i].key, v) < 0) {
			json_decref(set);
			return NULL;
		}
	}
	return set;
}

/* A line or column of a policy file's mistake, 1-based; a file that could not be read has none. */
static json_t *position(const struct sup_outcome *o, int n)
{
	return o->setup_file[0] && n > 0 ? json_integer(n) : json_null();
}

/* exit 125: the failure itself, and where in a file when it was a policy file's */
static json_t *setup_error(const struct sup_outcome *o)
{
	const struct iso_err *e = &o->setup_err;
	char hint[600];

	if (!o->setup_before && !o->setup_failed)
		return json_null();
	snprintf(hint, sizeof(hint), "%s%s%s", e->hint,
		 e->hint[0] && o->setup_advice[0] ? "; " : "", o->setup_advice);
	return json_pack(
		"{s:s, s:o, s:s?, s:o, s:o, s:o, s:o}", "when",
		o->setup_before ? "before_start" : "after_start", "message",
		text(e->msg, strlen(e->msg)), "cause", e->errnum ? strerror(e->errnum) : NULL,
		"hint", hint[0] ? text(hint, strlen(hint)) : json_null(), "file",
		o->setup_file[0] ? text(o->setup_file, strlen(o->setup_file)) : json_null(), "line",
		position(o, o->setup_line), "column", position(o, o->setup_col));
}

static json_t *signal_or_null(int sig)
{
	char name[32];

	return sig ? json_string(iso_signal_name(sig, name, sizeof(name))) : json_null();
}

static json_t *result(const struct sup_outcome *o)
{
	return json_pack("{s:o, s:o, s:b, s:o, s:b, s:s?, s:o, s:s?}", "exit_code",
			 o->exited && !o->term_signal ? json_integer(o->exit_code) : json_null(),
			 "signal", signal_or_null(o->term_signal), "timed_out", o->timed_out,
			 "cancelled_by", signal_or_null(o->cancelled_by), "exec_failed",
			 o->exec_failed, "exec_error", o->exec_failed ? o->exec_error : NULL,
			 "init_lost", init_lost(o), "setup_error",
			 o->setup_failed ? o->setup_error : NULL);
}

static json_t *build(const struct sup_verdict *v)
{
	const struct sup_opts *opts = v->opts;
	const struct sup_outcome *o = v->out;
	json_t *root = json_object(), *argv = json_array();
	json_t *resources = sup_resources_json(&o->res);
	char started[64];
	struct tm tm;

	rlimit_entries(o, json_object_get(resources, "limits"));

	for (size_t i = 0; i < o->argc; i++)
		json_array_append_new(argv, redacted(o->argv[i]));
	iso_utc(o->started.tv_sec, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);

	json_object_set_new(root, "schema", json_integer(SUP_REPORT_SCHEMA));
	json_object_set_new(root, "version", json_string(ISO_VERSION));
	json_object_set_new(root, "verdict", json_string(sup_verdict_word(v)));
	json_object_set_new(root, "reason", v->reason[0] ? json_string(v->reason) : json_null());
	json_object_set_new(root, "error", setup_error(o));
	json_object_set_new(root, "argv", argv);
	json_object_set_new(root, "cwd", o->cwd ? redacted(o->cwd) : json_null());
	json_object_set_new(root, "started_at", json_string(started));
	json_object_set_new(root, "duration_ms", json_integer((json_int_t)o->duration_ms));
	json_object_set_new(root, "timing_us",
			    json_pack("{s:o, s:o, s:o, s:o, s:o}", "setup", micros(o->timing.setup),
				      "start", micros(o->timing.start), "command",
				      micros(o->timing.command), "scan", micros(o->timing.scan),
				      "removal", micros(o->timing.removal)));
	json_object_set_new(root, "environment", names(o->env));
	json_object_set_new(root, "caches", caches(o));
	json_object_set_new(root, "settings", settings(opts, o));
	json_object_set_new(root, "isolation", isolation(v));
	json_object_set_new(root, "policy", policy(v));
	json_object_set_new(root, "leaks", leaks(v));
	json_object_set_new(root, "timeout", sup_hung_json(&o->hung));
	json_object_set_new(root, "capabilities", sup_caps_json(&o->caps));
	json_object_set_new(root, "residue", residue(v));
	json_object_set_new(root, "residue_ignored", residue_ignored(o));
	json_object_set_new(root, "home_writes", home_writes(o));
	json_object_set_new(root, "not_measurable", not_measurable(v));
	json_object_set_new(root, "tree",
			    json_pack("{s:s?, s:s, s:s?, s:b}", "path",
				      o->tree_path[0] ? o->tree_path : NULL, "state",
				      state_name(o->tree_state), "reason",
				      o->tree_reason[0] ? o->tree_reason : NULL, "kept_on_failure",
				      o->kept_on_failure));
	json_object_set_new(root, "result", result(o));
	json_object_set_new(root, "resources", resources);
	json_object_set_new(root, "exit", v->unfinished ? json_null() : json_integer(v->exit));
	/* merged: the one tail is stdout's, in the order the command wrote */
	json_object_set_new(root, "output_tail",
			    json_pack("{s:o, s:o, s:b, s:{s:o, s:o}}", "stdout",
				      tail(o->streams[0]), "stderr", tail(o->streams[1]), "merged",
				      o->output_merged, "cut", "stdout", tail_cut(o->streams[0]),
				      "stderr", tail_cut(o->streams[1])));
	return root;
}

/* {"error": strerror, "bytes": N} for a stream whose output did not all arrive */
static json_t *lost(const struct sup_stream *s)
{
	if (!sup_stream_lost(s))
		return json_null();
	return json_pack("{s:s, s:I}", "error", strerror(s->out_err), "bytes", (json_int_t)s->lost);
}

/* Which test invocation the run was: the caller's runner says it, as a label. */
static json_t *invocation(const struct sup_invocation *inv)
{
	return json_pack("{s:o, s:o, s:o, s:o}", "runner",
			 inv->runner ? json_string(inv->runner) : json_null(), "binary",
			 inv->binary ? text(inv->binary, strlen(inv->binary)) : json_null(), "test",
			 inv->test ? redacted(inv->test) : json_null(), "name",
			 redacted(inv->name ? inv->name : "run"));
}

void iso_report_render(struct sup_doc *d, const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	json_t *root = build(v);

	if (!root) {
		d->err = -ENOMEM;
		return;
	}
	json_object_set_new(root, "invocation", invocation(&o->inv));
	json_object_set_new(root, "output_lost",
			    json_pack("{s:o, s:o}", "stdout", lost(o->streams[0]), "stderr",
				      lost(o->streams[1])));
	if (json_dumpf(root, d->f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) < 0)
		d->err = -ENOMEM;
	fputc('\n', d->f);
	json_decref(root);
}
