// SPDX-License-Identifier: MIT
#include "launcher/summary.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "launcher/finding.h"
#include "launcher/residue.h"
#include "launcher/shell.h"
#include "common/text.h"

static size_t refused_count(const struct iso_outcome *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_policy_events; i++)
		n += o->policy_events[i].refused;
	return n;
}

static bool leaks_count(const struct iso_opts *opts, const struct iso_outcome *o)
{
	return o->n_leaks && opts->leaks == ISO_FAIL;
}

/* What isorun itself could not deliver: relayed output, or the report. */
static bool delivery_failed(const struct iso_outcome *o)
{
	return iso_stream_lost(o->streams[0]) || iso_stream_lost(o->streams[1]) ||
	       o->report_error[0];
}

int iso_exit_code(const struct iso_opts *opts, const struct iso_outcome *o, bool *ret_finding)
{
	bool finding = leaks_count(opts, o) || o->tree_state == ISO_TREE_RETAINED ||
		       refused_count(o) > 0 || (o->n_residue && opts->residue == ISO_FAIL) ||
		       (!o->subreaper && !o->pidns && opts->leaks == ISO_FAIL) ||
		       o->gate_unmeasurable[0] || delivery_failed(o);

	if (ret_finding)
		*ret_finding = finding;
	if (o->setup_failed)
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

static void print_policy_events(const struct iso_outcome *o)
{
	for (size_t i = 0; i < o->n_policy_events; i++)
		iso_refusal_text(stderr, &o->policy_events[i], "isorun: ");
}

static void print_residue(const struct iso_opts *opts, const struct iso_outcome *o)
{
	for (size_t i = 0; i < o->n_residue; i++)
		fprintf(stderr, "isorun: residue%s: '%s' appeared in %s\n",
			opts->residue == ISO_FAIL ? "" : " (warning)", o->residue[i].path,
			o->residue[i].dir);
	if (o->residue_unmeasurable)
		fprintf(stderr, "isorun: residue check: not measurable (more than %d entries)\n",
			ISO_RESIDUE_MAX);
}

/* One line per finding and per state worth knowing, before the verdict. */
static void print_lines(const struct iso_opts *opts, const struct iso_outcome *o)
{
	_cleanup_free_ char *path = iso_shell_quote(o->tree_path);
	char dur[32];

	if (!o->subreaper && !o->pidns)
		fprintf(stderr, "isorun: leak check: not measurable (%s)\n", o->subreaper_why);
	if (o->exec_failed)
		say(opts, "cannot run the command: %s", o->exec_error);
	if (o->timed_out) {
		iso_format_duration(opts->timeout_ms, dur, sizeof(dur));
		fprintf(stderr, "isorun: timed out after %s; stopped the whole tree\n", dur);
	}
	if (o->init_lost)
		say(opts, "%s; the command and everything in its namespace died with it",
		    o->gate_unmeasurable);
	if (o->gate_unmeasurable[0])
		fprintf(stderr, "isorun: leak check: not measurable (%s)\n", o->gate_unmeasurable);
	print_leaks(opts, o);
	print_policy_events(o);
	print_residue(opts, o);
	for (int i = 0; i < 2; i++)
		if (iso_stream_lost(o->streams[i]))
			fprintf(stderr, "isorun: %s: write failed: %s (%llu bytes lost)\n",
				o->streams[i]->name, strerror(o->streams[i]->out_err),
				(unsigned long long)o->streams[i]->lost);
	if (o->report_error[0])
		fprintf(stderr, "isorun: %s\n", o->report_error);
	if (o->tree_state == ISO_TREE_RETAINED)
		fprintf(stderr, "isorun: namespace retained at %s: %s\n", path ? path : "?",
			o->tree_reason);
	else if (o->tree_state == ISO_TREE_KEPT && opts->shell)
		iso_shell_kept(stderr, path ? path : "?");
	else if (o->tree_state == ISO_TREE_KEPT)
		fprintf(stderr, "isorun: namespace kept at %s\n", path ? path : "?");
	if (opts->verbosity > 0)
		print_timing(o);
}

/* How the command ended, as the verdict's first words ("command exited 1"). */
static void how_it_ended(const struct iso_outcome *o, int code, char *reason, size_t len)
{
	char item[256], sig[32];

	if (o->setup_failed)
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

	if (leaks_count(opts, o)) {
		snprintf(item, sizeof(item), "%zu process%s outlived the command", o->n_leaks,
			 o->n_leaks == 1 ? "" : "es");
		reason_add(reason, len, item);
	}
	if (refused_count(o)) {
		snprintf(item, sizeof(item), "%zu call%s refused", refused_count(o),
			 refused_count(o) == 1 ? "" : "s");
		reason_add(reason, len, item);
	}
	if (o->n_residue && opts->residue == ISO_FAIL) {
		snprintf(item, sizeof(item), "%zu new entr%s in watched directories", o->n_residue,
			 o->n_residue == 1 ? "y" : "ies");
		reason_add(reason, len, item);
	}
	if ((!o->subreaper && !o->pidns && opts->leaks == ISO_FAIL) || o->gate_unmeasurable[0])
		reason_add(reason, len, "leak check not measurable");
	if (o->tree_state == ISO_TREE_RETAINED)
		reason_add(reason, len, "namespace retained");
	for (int i = 0; i < 2; i++)
		if (iso_stream_lost(o->streams[i])) {
			snprintf(item, sizeof(item), "%s lost", o->streams[i]->name);
			reason_add(reason, len, item);
		}
	if (o->report_error[0])
		reason_add(reason, len, "report not written");
}

int iso_summarize(const struct iso_opts *opts, struct iso_outcome *o)
{
	char reason[512] = "";
	bool finding;
	int code = iso_exit_code(opts, o, &finding);

	o->exit = code;
	print_lines(opts, o);
	if (code == 0)
		return 0;
	how_it_ended(o, code, reason, sizeof(reason));
	what_was_found(opts, o, reason, sizeof(reason));
	/* -q: a failing command speaks for itself; findings are always named */
	if (opts->verbosity < 0 && !finding && !o->exec_failed && !o->timed_out && !o->cancelled_by)
		return code;
	fprintf(stderr, "%sisorun: FAILED (exit %d): %s%s\n", colour(opts, "\033[1;31m"), code,
		reason, colour(opts, "\033[0m"));
	return code;
}
