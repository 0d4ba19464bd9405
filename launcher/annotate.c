// SPDX-License-Identifier: MIT
#include "launcher/annotate.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/finding.h"

bool iso_annotations_wanted(void)
{
	const char *v = getenv("GITHUB_ACTIONS");

	return v && strcmp(v, "true") == 0;
}

/*
 * The runner's rules (toolkit's command.ts): % CR LF always, and in a property
 * also : and , which would end the property.
 */
char *iso_gha_escape(const char *s, bool props)
{
	char *out = malloc(strlen(s) * 3 + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == '%' || *s == '\r' || *s == '\n' || (props && (*s == ':' || *s == ',')))
			p += sprintf(p, "%%%02X", (unsigned char)*s);
		else
			*p++ = *s;
	}
	*p = '\0';
	return out;
}

/* One command; file may be NULL (then no position). */
struct where {
	const char *file;
	int line, col;
};

static void command(FILE *f, const char *level, const char *title, const struct where *at,
		    const char *text)
{
	_cleanup_free_ char *inert = iso_escape_lines(text), *inert_file = NULL;
	_cleanup_free_ char *t = iso_gha_escape(title, true);
	_cleanup_free_ char *m = inert ? iso_gha_escape(inert, false) : NULL;
	_cleanup_free_ char *file = NULL;

	if (at && at->file && (inert_file = iso_escape(at->file)))
		file = iso_gha_escape(inert_file, true);
	if (!t || !m)
		return;
	fprintf(f, "::%s ", level);
	if (file) {
		fprintf(f, "file=%s,", file);
		if (at->line > 0)
			fprintf(f, "line=%d,", at->line);
		if (at->col > 0)
			fprintf(f, "col=%d,", at->col);
	}
	fprintf(f, "title=%s::%s\n", t, m);
}

static void finding(FILE *f, const char *level, const char *title, const struct iso_opts *opts,
		    const struct iso_outcome *o, enum iso_finding_kind kind, size_t i)
{
	_cleanup_free_ char *text = iso_finding_str(opts, o, kind, i);

	if (text)
		command(f, level, title, NULL, text);
}

static void setup_failure(FILE *f, const struct iso_outcome *o)
{
	struct where at = { o->setup_file, o->setup_line, o->setup_col };
	char buf[600];

	if (!o->setup_before && !o->setup_failed)
		return;
	iso_err_format(&o->setup_err, buf, sizeof(buf));
	command(f, "error", o->setup_file[0] ? "isorun: bad policy" : "isorun: setup failed",
		o->setup_file[0] ? &at : NULL, buf);
}

static void delivery(FILE *f, const struct iso_outcome *o)
{
	char buf[160];

	for (int i = 0; i < 2; i++)
		if (iso_stream_lost(o->streams[i])) {
			snprintf(buf, sizeof(buf), "%s: write failed: %s (%llu bytes lost)",
				 o->streams[i]->name, strerror(o->streams[i]->out_err),
				 (unsigned long long)o->streams[i]->lost);
			command(f, "error", "isorun: output lost", NULL, buf);
		}
	if (o->report_error[0])
		command(f, "error", "isorun: report not written", NULL, o->report_error);
	if (o->junit_error[0])
		command(f, "error", "isorun: JUnit file not written", NULL, o->junit_error);
}

static void guards(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o)
{
	char why[256], text[300];

	if (o->timed_out)
		finding(f, "error", "isorun: timed out", opts, o, ISO_FIND_TIMEOUT, 0);
	if (iso_leak_check_unmeasurable(o)) {
		snprintf(text, sizeof(text), "leak check: not measurable (%s)",
			 iso_unmeasurable_why(o, why, sizeof(why)));
		command(f, iso_unmeasurable_counts(opts, o) ? "error" : "warning",
			"isorun: leak check not measurable", NULL, text);
	}
	for (size_t i = 0; opts->leaks != ISO_IGNORE && i < o->n_leaks; i++)
		finding(f, opts->leaks == ISO_FAIL ? "error" : "warning", "isorun: leaked process",
			opts, o, ISO_FIND_LEAK, i);
	for (size_t i = 0; i < o->n_policy_events; i++)
		finding(f, o->policy_events[i].refused ? "error" : "warning",
			o->policy_events[i].refused ? "isorun: call refused"
						    : "isorun: call logged",
			opts, o, ISO_FIND_REFUSAL, i);
	for (size_t i = 0; i < o->n_residue; i++)
		finding(f, opts->residue == ISO_FAIL ? "error" : "warning", "isorun: residue", opts,
			o, ISO_FIND_RESIDUE, i);
	for (size_t i = 0; i < o->n_residue_gaps; i++)
		finding(f, opts->residue == ISO_FAIL ? "error" : "warning",
			"isorun: residue check not measurable", opts, o, ISO_FIND_RESIDUE_GAP, i);
	if (o->tree_state == ISO_TREE_RETAINED)
		finding(f, "error", "isorun: namespace retained", opts, o, ISO_FIND_RETAINED, 0);
}

/* A warning, as a possibility: it never fails the run by itself. */
static void home_note(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o)
{
	char note[PATH_MAX + 320];

	if (iso_home_note(opts, o, note, sizeof(note)))
		command(f, "warning", "isorun: home protected", NULL, note);
}

void iso_annotate(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o)
{
	setup_failure(f, o);
	if (!o->setup_before)
		guards(f, opts, o);
	if (!o->setup_before)
		home_note(f, opts, o);
	delivery(f, o);
}
