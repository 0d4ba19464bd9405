// SPDX-License-Identifier: MIT
#include "launcher/summary.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "common/text.h"
#include "launcher/annotate.h"
#include "launcher/finding.h"
#include "launcher/ceiling.h"
#include "launcher/residue.h"
#include "launcher/shell.h"

/* What isorun itself could not deliver: relayed output, or the report. */
static bool delivery_failed(const struct iso_outcome *o)
{
	return iso_stream_lost(o->streams[0]) || iso_stream_lost(o->streams[1]) ||
	       o->report_error[0] || o->junit_error[0];
}

int iso_exit_code(const struct iso_opts *opts, const struct iso_outcome *o, bool *ret_finding)
{
	bool finding = iso_leaks_count(opts, o) || o->tree_state == ISO_TREE_RETAINED ||
		       iso_refused_count(o) > 0 || iso_residue_counts(opts, o) ||
		       iso_residue_gaps_count(opts, o) || iso_unmeasurable_counts(opts, o) ||
		       delivery_failed(o) || iso_resources_finding(&o->res);

	if (ret_finding)
		*ret_finding = finding;
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
	return finding ? opts->finding_exit : 0;
}

/* --color: always wins over NO_COLOR, as no-color.org asks of an explicit option */
static const char *colour(const struct iso_opts *opts, const char *code)
{
	bool on = opts->color == ISO_COLOR_ALWAYS ||
		  (opts->color == ISO_COLOR_AUTO && isatty(2) && !getenv("NO_COLOR"));

	return on ? code : "";
}

__attribute__((format(printf, 2, 3))) static void say(const struct iso_opts *opts, const char *fmt,
						      ...)
{
	va_list ap;

	fprintf(stderr, "%sisorun:%s ", colour(opts, "\033[1m"), colour(opts, "\033[0m"));
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* "isorun: " and one finding's text, as finding.c words it (leaks in bold) */
static void print_finding(const struct iso_opts *opts, const struct iso_outcome *o,
			  enum iso_finding_kind kind, size_t i)
{
	const char *bold = kind == ISO_FIND_LEAK ? colour(opts, "\033[1m") : "";

	fprintf(stderr, "%sisorun:%s ", bold, bold[0] ? colour(opts, "\033[0m") : "");
	iso_finding_text(stderr, opts, o, kind, i);
	fputc('\n', stderr);
}

static void print_leaks(const struct iso_opts *opts, const struct iso_outcome *o)
{
	char lead[32];

	if (opts->leaks == ISO_IGNORE && opts->verbosity <= 0)
		return;
	snprintf(lead, sizeof(lead), "%sisorun:%s ", colour(opts, "\033[1m"),
		 colour(opts, "\033[0m"));
	iso_leaks_text(stderr, o, opts->leaks != ISO_FAIL, lead);
}

static void reason_add(char *buf, size_t len, const char *what)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", what);
}

static void timing_add(char *buf, size_t len, const char *name, uint64_t us)
{
	size_t used = strlen(buf);

	if (us == ISO_TIMING_NONE || used >= len)
		return;
	snprintf(buf + used, len - used, "%s%s %llu.%02llu ms", used ? ", " : "", name,
		 (unsigned long long)(us / 1000), (unsigned long long)(us % 1000 / 10));
}

/* -v: where isorun's own time went, one line. */
static void print_timing(const struct iso_outcome *o)
{
	char line[256] = "";

	timing_add(line, sizeof(line), "setup", o->timing.setup);
	timing_add(line, sizeof(line), "start", o->timing.start);
	timing_add(line, sizeof(line), "command", o->timing.command);
	timing_add(line, sizeof(line), "holder scan", o->timing.scan);
	timing_add(line, sizeof(line), "removal", o->timing.removal);
	if (line[0])
		fprintf(stderr, "isorun: timing: %s\n", line);
}

static void print_policy_events(const struct iso_opts *opts, const struct iso_outcome *o)
{
	for (size_t i = 0; i < o->n_policy_events; i++)
		iso_refusal_lines(stderr, &o->policy_events[i], "isorun: ");
}

static void print_residue(const struct iso_opts *opts, const struct iso_outcome *o)
{
	for (size_t i = 0; i < o->n_residue; i++)
		print_finding(opts, o, ISO_FIND_RESIDUE, i);
	for (size_t i = 0; i < o->n_residue_gaps; i++)
		print_finding(opts, o, ISO_FIND_RESIDUE_GAP, i);
}

/* Not with -q: a failing command speaks for itself, and this is a possibility. */
static void print_home_note(const struct iso_opts *opts, const struct iso_outcome *o)
{
	char note[PATH_MAX + 320];

	if (opts->verbosity >= 0 && iso_home_note(opts, o, note, sizeof(note)))
		say(opts, "%s", note);
}

/* One line per finding and per state worth knowing, before the verdict. */
static void print_lines(const struct iso_opts *opts, const struct iso_outcome *o)
{
	_cleanup_free_ char *path = iso_shell_quote(o->tree_path);
	/* the command's name, and what the gate met (names of processes): escaped */
	_cleanup_free_ char *exec_error = iso_escape(o->exec_error);
	_cleanup_free_ char *gate = iso_escape(o->gate_unmeasurable);

	if (!o->subreaper && !o->pidns)
		fprintf(stderr, "isorun: leak check: not measurable (%s)\n", o->subreaper_why);
	if (o->exec_failed)
		say(opts, "cannot run the command: %s", exec_error ? exec_error : "?");
	/* the tree itself was printed when the timer fired: here the one line */
	if (o->timed_out) {
		fputs("isorun: ", stderr);
		iso_timeout_line(stderr, opts);
		fputc('\n', stderr);
	}
	if (o->init_lost)
		say(opts, "%s; the command and everything in its namespace died with it",
		    gate ? gate : "?");
	if (o->gate_unmeasurable[0])
		fprintf(stderr, "isorun: leak check: not measurable (%s)\n", gate ? gate : "?");
	print_leaks(opts, o);
	print_home_note(opts, o);
	print_policy_events(opts, o);
	print_residue(opts, o);
	iso_resources_say(opts, &o->res, stderr);
	for (int i = 0; i < 2; i++)
		if (iso_stream_lost(o->streams[i]))
			fprintf(stderr, "isorun: %s: write failed: %s (%llu bytes lost)\n",
				o->streams[i]->name, strerror(o->streams[i]->out_err),
				(unsigned long long)o->streams[i]->lost);
	if (o->report_error[0])
		fprintf(stderr, "isorun: %s\n", o->report_error);
	if (o->junit_error[0])
		fprintf(stderr, "isorun: %s\n", o->junit_error);
	if (o->tree_state == ISO_TREE_RETAINED)
		print_finding(opts, o, ISO_FIND_RETAINED, 0);
	else if (o->tree_state == ISO_TREE_KEPT && opts->shell)
		iso_shell_kept(stderr, path ? path : "?");
	else if (o->tree_state == ISO_TREE_KEPT)
		fprintf(stderr, "isorun: namespace kept at %s\n", path ? path : "?");
	iso_resources_say_usage(opts, &o->res, stderr);
	if (opts->verbosity > 0)
		print_timing(o);
}

void iso_how_it_ended(const struct iso_outcome *o, int code, char *reason, size_t len)
{
	char item[256], sig[32];

	if (o->setup_before && o->setup_file[0])
		reason_add(reason, len, "bad policy");
	else if (o->setup_before)
		reason_add(reason, len, "setup failed before the command ran");
	else if (o->setup_failed)
		reason_add(reason, len, "setup failed after the command started; it was stopped");
	else if (o->exec_failed)
		reason_add(reason, len,
			   code == 127 ? "command not found" : "command could not be executed");
	else if (o->timed_out)
		reason_add(reason, len, "timed out");
	else if (o->cancelled_by) {
		snprintf(item, sizeof(item), "cancelled by %s",
			 iso_signal_name(o->cancelled_by, sig, sizeof(sig)));
		reason_add(reason, len, item);
	} else if (o->init_signal) {
		snprintf(item, sizeof(item), "namespace's init killed by %s",
			 iso_signal_name(o->init_signal, sig, sizeof(sig)));
		reason_add(reason, len, item);
	} else if (o->term_signal) {
		snprintf(item, sizeof(item), "command killed by %s",
			 iso_signal_name(o->term_signal, sig, sizeof(sig)));
		reason_add(reason, len, item);
	} else if (o->exit_code) {
		snprintf(item, sizeof(item), "command exited %d", o->exit_code);
		reason_add(reason, len, item);
	}
}

/* What isorun found, as the verdict's other words. */
static void what_was_found(const struct iso_opts *opts, const struct iso_outcome *o, char *reason,
			   size_t len)
{
	char item[256];

	if (iso_leaks_count(opts, o)) {
		snprintf(item, sizeof(item), "%zu process%s outlived the command", o->n_leaks,
			 o->n_leaks == 1 ? "" : "es");
		reason_add(reason, len, item);
	}
	if (iso_refused_count(o)) {
		snprintf(item, sizeof(item), "%zu call%s refused", iso_refused_count(o),
			 iso_refused_count(o) == 1 ? "" : "s");
		reason_add(reason, len, item);
	}
	if (o->n_residue && opts->residue == ISO_FAIL) {
		snprintf(item, sizeof(item), "%zu new entr%s in watched directories", o->n_residue,
			 o->n_residue == 1 ? "y" : "ies");
		reason_add(reason, len, item);
	}
	if (iso_residue_gaps_count(opts, o))
		reason_add(reason, len, "residue check not measurable");
	if (iso_unmeasurable_counts(opts, o))
		reason_add(reason, len, "leak check not measurable");
	if (o->tree_state == ISO_TREE_RETAINED)
		reason_add(reason, len, "namespace retained");
	if (o->res.ceiling_hit[0])
		reason_add(reason, len, "a ceiling was reached");
	if (o->res.cgroup_retained[0])
		reason_add(reason, len, "cgroup retained");
	for (int i = 0; i < 2; i++)
		if (iso_stream_lost(o->streams[i])) {
			snprintf(item, sizeof(item), "%s lost", o->streams[i]->name);
			reason_add(reason, len, item);
		}
	if (o->report_error[0])
		reason_add(reason, len, "report not written");
	if (o->junit_error[0])
		reason_add(reason, len, "JUnit file not written");
}

void iso_verdict_reason(const struct iso_opts *opts, const struct iso_outcome *o, char *buf,
			size_t len)
{
	buf[0] = '\0';
	if (o->exit == 0)
		return;
	iso_how_it_ended(o, o->exit, buf, len);
	if (!o->setup_before)
		what_was_found(opts, o, buf, len);
}

int iso_summarize(const struct iso_opts *opts, struct iso_outcome *o)
{
	char reason[512];
	bool finding;
	int code = iso_exit_code(opts, o, &finding);

	o->exit = code;
	/* before the start only the error itself, printed where it happened, is news */
	if (!o->setup_before)
		print_lines(opts, o);
	if (iso_annotations_wanted())
		iso_annotate(stderr, opts, o);
	if (code == 0)
		return 0;
	iso_verdict_reason(opts, o, reason, sizeof(reason));
	/* -q: a failing command speaks for itself; findings are always named */
	if (opts->verbosity < 0 && !finding && !o->exec_failed && !o->timed_out &&
	    !o->cancelled_by && !o->setup_before)
		return code;
	fprintf(stderr, "%sisorun: FAILED (exit %d): %s%s\n", colour(opts, "\033[1;31m"), code,
		reason, colour(opts, "\033[0m"));
	return code;
}
