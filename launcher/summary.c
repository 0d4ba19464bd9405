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
#include "common/text.h"
#include "launcher/ceiling.h"
#include "launcher/finding.h"
#include "launcher/say.h"
#include "launcher/shell.h"

/* --color=always|never wins over the environment, as no-color.org asks of an explicit option */
static const char *colour(const struct sup_opts *opts, const char *code)
{
	bool on = opts->color == SUP_COLOR_ALWAYS ||
		  (opts->color == SUP_COLOR_AUTO &&
		   iso_colour_auto(isatty(2), getenv("NO_COLOR"), getenv("FORCE_COLOR"),
				   getenv("CLICOLOR_FORCE"), getenv("TERM")));

	return on ? code : "";
}

__attribute__((format(printf, 3, 4))) static void say(FILE *f, const struct sup_opts *opts,
						      const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "%sisorun:%s ", colour(opts, "\033[1m"), colour(opts, "\033[0m"));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

/* Each line of a finding's words after "isorun: ". */
static void print_text(FILE *f, const char *text)
{
	const char *p = text ? text : "?";

	do {
		size_t n = strcspn(p, "\n");

		fprintf(f, "isorun: %.*s\n", (int)n, p);
		p += n;
	} while (*p++);
}

static void print_kind(FILE *f, const struct sup_verdict *v, enum sup_vkind kind)
{
	for (size_t i = 0; i < v->n[kind]; i++)
		print_text(f, sup_verdict_get(v, kind, i)->text);
}

/* Alike leaks folded into one line (finding.c), in bold; --leaks=ignore only with -v. */
static void print_leaks(FILE *f, const struct sup_verdict *v)
{
	const struct sup_vfinding *first = sup_verdict_get(v, SUP_V_LEAK, 0);
	const struct sup_opts *opts = v->opts;
	char lead[32];

	if (!first || (!strcmp(first->level, "info") && opts->verbosity <= 0))
		return;
	snprintf(lead, sizeof(lead), "%sisorun:%s ", colour(opts, "\033[1m"),
		 colour(opts, "\033[0m"));
	sup_leaks_text(f, v->out, !first->counts, lead);
}

static void timing_add(char *buf, size_t len, const char *name, uint64_t us)
{
	size_t used = strlen(buf);

	if (us == SUP_TIMING_NONE || used >= len)
		return;
	snprintf(buf + used, len - used, "%s%s %llu.%02llu ms", used ? ", " : "", name,
		 (unsigned long long)(us / 1000), (unsigned long long)(us % 1000 / 10));
}

/* -v: where isorun's own time went, one line. */
static void print_timing(FILE *f, const struct sup_outcome *o)
{
	char line[256] = "";

	timing_add(line, sizeof(line), "setup", o->timing.setup);
	timing_add(line, sizeof(line), "start", o->timing.start);
	timing_add(line, sizeof(line), "command", o->timing.command);
	timing_add(line, sizeof(line), "holder scan", o->timing.scan);
	timing_add(line, sizeof(line), "removal", o->timing.removal);
	if (line[0])
		fprintf(f, "isorun: timing: %s\n", line);
}

/* Not with -q: a failing command speaks for itself, and these are possibilities. */
static void print_mount_notes(FILE *f, const struct sup_verdict *v)
{
	const enum sup_vkind kinds[] = { SUP_V_HOME_NOTE, SUP_V_TMP_NOTE };

	for (size_t i = 0; i < ELEMENTSOF(kinds); i++) {
		const struct sup_vfinding *note = sup_verdict_get(v, kinds[i], 0);

		if (note && v->opts->verbosity >= 0)
			say(f, v->opts, "%s", note->text ? note->text : "?");
	}
}

/*
 * An isorun option the command got (`isorun pytest -q --keep`) may be why it
 * failed: said only when the command failed on its own, never on a pass.
 */
static void print_misplaced(FILE *f, const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	char line[512];

	if (!v->opts->misplaced || v->opts->verbosity < 0 || !o->started_cmd || o->exec_failed ||
	    o->setup_failed || o->timed_out || o->cancelled_by ||
	    (!o->exit_code && !o->term_signal))
		return;
	if (v->opts->misplaced(v->opts, line, sizeof(line)))
		say(f, v->opts, "%s", line);
}

/* How the run ended and what the leak gate met, before the findings. */
static void print_start(FILE *f, const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	/* the command's name, and what the gate met (names of processes): escaped */
	_cleanup_free_ char *exec_error = iso_escape(o->exec_error);
	_cleanup_free_ char *gate = iso_escape(o->gate_unmeasurable);

	if (!o->subreaper && !o->pidns)
		fprintf(f, "isorun: leak check: not measurable (%s)\n", o->subreaper_why);
	if (o->exec_failed)
		say(f, v->opts, "cannot run the command: %s", exec_error ? exec_error : "?");
	/* the tree itself was printed when the timer fired: here the one line */
	if (o->timed_out) {
		fputs("isorun: ", f);
		sup_timeout_line(f, v->plan);
		fputc('\n', f);
	}
	if (o->init_lost)
		say(f, v->opts, "%s; the command and everything in its namespace died with it",
		    gate ? gate : "?");
	if (o->gate_unmeasurable[0])
		fprintf(f, "isorun: leak check: not measurable (%s)\n", gate ? gate : "?");
}

/* What became of the tree, and what isorun's own work cost. */
static void print_end(FILE *f, const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;
	_cleanup_free_ char *path = iso_shell_quote(o->tree_path);

	if (v->n[SUP_V_RETAINED])
		print_kind(f, v, SUP_V_RETAINED);
	else if (o->tree_state == SUP_TREE_KEPT && v->opts->shell)
		sup_shell_kept(f, v->opts, path ? path : "?");
	else if (o->tree_state == SUP_TREE_KEPT && o->kept_on_failure)
		fprintf(f, "isorun: tree kept at %s (%s: the run failed)\n", path ? path : "?",
			sup_say(v->opts->say, SUP_SAY_KEEP_FAILED));
	else if (o->tree_state == SUP_TREE_KEPT)
		fprintf(f, "isorun: tree kept at %s\n", path ? path : "?");
	sup_resources_say_usage(v->opts, &o->res, f);
	if (v->opts->verbosity > 0)
		print_timing(f, o);
}

void sup_summary_lines(FILE *f, const struct sup_verdict *v)
{
	/* before the start only the error itself, printed where it happened, is news */
	if (v->nothing_ran) {
		print_kind(f, v, SUP_V_UNDELIVERED);
		return;
	}
	print_start(f, v);
	print_leaks(f, v);
	print_mount_notes(f, v);
	print_misplaced(f, v);
	for (int k = 0; k < SUP_V_N_KINDS; k++)
		if (sup_vkind_listed(k) == SUP_LISTED ||
		    (sup_vkind_listed(k) == SUP_LISTED_VERBOSE && v->opts->verbosity > 0))
			print_kind(f, v, (enum sup_vkind)k);
	sup_resources_say(v->opts, &v->out->res, f);
	for (int k = 0; k < SUP_V_N_KINDS; k++)
		if (sup_vkind_listed(k) == SUP_LISTED_LAST)
			print_kind(f, v, (enum sup_vkind)k);
	print_end(f, v);
}

/*
 * `isorun shell`'s own $SHELL exits with its last command's status: the
 * person's, not a failure of the run.  Its code passes through; only isorun's
 * findings (and a shell killed, stopped or not started) get the red line.
 */
static bool shell_own_exit(const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;

	return v->opts->shell_own && !v->finding && !v->nothing_ran && !o->exec_failed &&
	       !o->timed_out && !o->cancelled_by && !o->init_signal && !o->term_signal &&
	       !o->setup_failed && o->exit_code == v->exit;
}

void sup_summary_verdict(FILE *f, const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;

	if (v->exit == 0 || shell_own_exit(v))
		return;
	/* -q: a failing command speaks for itself; findings are always named */
	if (v->opts->verbosity < 0 && !v->finding && !o->exec_failed && !o->timed_out &&
	    !o->cancelled_by && !v->nothing_ran)
		return;
	fprintf(f, "%sisorun: FAILED (exit %d): %s%s\n", colour(v->opts, "\033[1;31m"), v->exit,
		v->reason, colour(v->opts, "\033[0m"));
}
