// SPDX-License-Identifier: MIT
#include "launcher/junit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/finding.h"
#include "launcher/report.h"
#include "launcher/shell.h"
#include "launcher/summary.h"

/* The length of the valid UTF-8 sequence at s (at most n bytes) and its code point; 0: none. */
static size_t utf8_char(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t len = s[0] < 0x80	     ? 1
		     : (s[0] & 0xe0) == 0xc0 ? 2
		     : (s[0] & 0xf0) == 0xe0 ? 3
		     : (s[0] & 0xf8) == 0xf0 ? 4
					     : 0;
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };

	if (!len || len > n)
		return 0;
	*cp = len == 1 ? s[0] : s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	if (*cp < min[len] || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* XML 1.0's Char production */
static bool xml_char(unsigned cp)
{
	return cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
	       (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
}

void iso_xml_escape(FILE *f, const char *s, size_t n, bool attr)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned cp;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_char(p + i, n - i, &cp);

		if (!len || !xml_char(cp)) {
			fprintf(f, "\\x%02x", p[i]);
			i++;
			continue;
		}
		if (cp == '&')
			fputs("&amp;", f);
		else if (cp == '<')
			fputs("&lt;", f);
		else if (cp == '>')
			fputs("&gt;", f);
		else if (cp == '"' && attr)
			fputs("&quot;", f);
		else if (cp == '\r' || (attr && (cp == '\n' || cp == '\t')))
			fprintf(f, "&#%u;", cp); /* else a parser normalises them away */
		else
			fwrite(p + i, 1, len, f);
		i += len;
	}
}

static void xs(FILE *f, const char *s, bool attr)
{
	iso_xml_escape(f, s ? s : "", s ? strlen(s) : 0, attr);
}

/* One guard's case while it is written: its result and its text. */
struct jcase {
	const char *name;
	const char *status; /* NULL: passed; "failure", "error" or "skipped" */
	const char *type;   /* the failure's type attribute */
	char message[512];  /* the failure's one line */
	char *text;	    /* the failure's body, or the passing case's system-out */
	size_t len;
	FILE *m; /* open_memstream over text */
};

static bool jcase_open(struct jcase *c, const char *name)
{
	*c = (struct jcase){ .name = name };
	c->m = open_memstream(&c->text, &c->len);
	return c->m != NULL;
}

static void jcase_set(struct jcase *c, const char *status, const char *type, const char *msg)
{
	c->status = status;
	c->type = type;
	snprintf(c->message, sizeof(c->message), "%s", msg);
}

/* The texts of `count` findings of a kind, one per line. */
static void texts(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o,
		  enum iso_finding_kind kind, size_t count)
{
	for (size_t i = 0; i < count; i++) {
		iso_finding_text(c->m, opts, o, kind, i);
		fputc('\n', c->m);
	}
}

static void case_command(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o)
{
	char how[300] = "", err[600];

	fputs("$", c->m);
	for (size_t i = 0; i < o->argc; i++) {
		_cleanup_free_ char *r = iso_redact(o->argv[i]);
		_cleanup_free_ char *q = iso_shell_quote(r ? r : "?");
		fprintf(c->m, " %s", q ? q : "?");
	}
	fputc('\n', c->m);
	if (o->unfinished) {
		jcase_set(c, "error", "unfinished", ISO_UNFINISHED);
		return;
	}
	if (o->setup_before || o->setup_failed) {
		iso_err_format(&o->setup_err, err, sizeof(err));
		fprintf(c->m, "%s\n", err);
		iso_how_it_ended(o, o->exit, how, sizeof(how));
		jcase_set(c, "error", "setup", how);
		return;
	}
	iso_how_it_ended(o, o->exit, how, sizeof(how));
	if (o->cancelled_by)
		jcase_set(c, "error", "cancelled", how);
	else if (how[0] && !o->timed_out)
		jcase_set(c, "failure", "command", how);
}

/* before the start nothing ran that a guard could judge */
static bool not_run(struct jcase *c, const struct iso_outcome *o)
{
	if (!o->setup_before && !o->unfinished)
		return false;
	jcase_set(c, "skipped", NULL, o->unfinished ? ISO_UNFINISHED : "the command did not run");
	return true;
}

static void case_leaks(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o)
{
	char why[256], msg[300];

	if (not_run(c, o))
		return;
	texts(c, opts, o, ISO_FIND_LEAK, o->n_leaks);
	snprintf(msg, sizeof(msg), "leak check: not measurable (%s)",
		 iso_unmeasurable_why(o, why, sizeof(why)));
	if (iso_leak_check_unmeasurable(o))
		fprintf(c->m, "%s\n", msg);
	if (iso_unmeasurable_counts(opts, o)) {
		jcase_set(c, "failure", "not-measurable", msg);
	} else if (iso_leaks_count(opts, o)) {
		snprintf(msg, sizeof(msg), "%zu process%s outlived the command", o->n_leaks,
			 o->n_leaks == 1 ? "" : "es");
		jcase_set(c, "failure", "leak", msg);
	} else if (iso_leak_check_unmeasurable(o)) {
		/* --leaks=warn|ignore: not a failure, and never a pass either */
		jcase_set(c, "skipped", NULL, msg);
	}
}

static void case_residue(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o)
{
	char msg[160];

	if (not_run(c, o))
		return;
	if (!opts->watch.n) {
		jcase_set(c, "skipped", NULL, "no --watch directory");
		return;
	}
	texts(c, opts, o, ISO_FIND_RESIDUE, o->n_residue);
	texts(c, opts, o, ISO_FIND_RESIDUE_GAP, o->n_residue_gaps);
	if (iso_residue_gaps_count(opts, o)) {
		snprintf(msg, sizeof(msg), "residue check not measurable in %zu director%s",
			 o->n_residue_gaps, o->n_residue_gaps == 1 ? "y" : "ies");
		jcase_set(c, "failure", "not-measurable", msg);
	} else if (iso_residue_counts(opts, o)) {
		snprintf(msg, sizeof(msg), "%zu new entr%s in watched directories", o->n_residue,
			 o->n_residue == 1 ? "y" : "ies");
		jcase_set(c, "failure", "residue", msg);
	} else if (o->n_residue_gaps) {
		/* --residue=warn: not a failure, and never a pass either */
		snprintf(msg, sizeof(msg), "residue check: not measurable in %zu director%s",
			 o->n_residue_gaps, o->n_residue_gaps == 1 ? "y" : "ies");
		jcase_set(c, "skipped", NULL, msg);
	}
}

static void case_policy(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o)
{
	char msg[160];
	size_t n = iso_refused_count(o);

	if (not_run(c, o))
		return;
	if (!o->policy_name) {
		jcase_set(c, "skipped", NULL, "--policy=off");
		return;
	}
	texts(c, opts, o, ISO_FIND_REFUSAL, o->n_policy_events);
	if (n) {
		snprintf(msg, sizeof(msg), "%zu call%s refused", n, n == 1 ? "" : "s");
		jcase_set(c, "failure", "policy", msg);
	}
}

/* the tree's removal, and the delivery of what the command wrote */
static void case_teardown(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o)
{
	bool lost = false;

	if (o->unfinished) {
		jcase_set(c, "skipped", NULL, ISO_UNFINISHED);
		return;
	}
	for (int i = 0; i < 2; i++)
		if (iso_stream_lost(o->streams[i])) {
			fprintf(c->m, "%s: write failed: %s (%llu bytes lost)\n",
				o->streams[i]->name, strerror(o->streams[i]->out_err),
				(unsigned long long)o->streams[i]->lost);
			lost = true;
		}
	if (o->report_error[0])
		fprintf(c->m, "%s\n", o->report_error);
	if (o->tree_state == ISO_TREE_RETAINED) {
		texts(c, opts, o, ISO_FIND_RETAINED, 1);
		jcase_set(c, "failure", "retained", "namespace retained");
	} else if (lost || o->report_error[0]) {
		jcase_set(c, "failure", "delivery", lost ? "output lost" : "report not written");
	} else if (o->tree_state == ISO_TREE_KEPT) {
		fprintf(c->m, "namespace kept at %s\n", o->tree_path);
	} else if (o->tree_state == ISO_TREE_REMOVED && o->tree_reason[0]) {
		/* removed, and what could not be measured on the way */
		fprintf(c->m, "%s\n", o->tree_reason);
	}
}

static void case_timeout(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o)
{
	if (not_run(c, o))
		return;
	if (!opts->timeout_ms) {
		jcase_set(c, "skipped", NULL, "no --timeout");
		return;
	}
	if (o->timed_out) {
		texts(c, opts, o, ISO_FIND_TIMEOUT, 1);
		jcase_set(c, "failure", "timeout", "timed out");
	}
}

enum { N_CASES = 6 };

static void emit_case(FILE *f, const struct jcase *c, double secs)
{
	fputs("    <testcase name=\"", f);
	xs(f, c->name, true);
	fprintf(f, "\" classname=\"isorun\" time=\"%.3f\">\n", secs);
	if (c->status && strcmp(c->status, "skipped") == 0) {
		fputs("      <skipped message=\"", f);
		xs(f, c->message, true);
		fputs("\"/>\n", f);
		/* a guard that could not run says why, and what it found where it could */
		if (c->len) {
			fputs("      <system-out>", f);
			iso_xml_escape(f, c->text, c->len, false);
			fputs("</system-out>\n", f);
		}
	} else if (c->status) {
		fprintf(f, "      <%s message=\"", c->status);
		xs(f, c->message, true);
		fputs("\" type=\"", f);
		xs(f, c->type, true);
		fputs("\">", f);
		iso_xml_escape(f, c->text, c->len, false);
		fprintf(f, "</%s>\n", c->status);
	} else if (c->len) {
		fputs("      <system-out>", f);
		iso_xml_escape(f, c->text, c->len, false);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static size_t count(const struct jcase *cases, const char *status)
{
	size_t n = 0;

	for (int i = 0; i < N_CASES; i++)
		n += cases[i].status && strcmp(cases[i].status, status) == 0;
	return n;
}

/* the totals, the same on <testsuites> and its one <testsuite> */
static void counts(const struct jcase *cases, char *buf, size_t len, double secs)
{
	snprintf(buf, len,
		 "tests=\"%d\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"",
		 N_CASES, count(cases, "failure"), count(cases, "error"), count(cases, "skipped"),
		 secs);
}

static void property(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	xs(f, value, true);
	fputs("\"/>\n", f);
}

static void emit(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o,
		 const struct jcase *cases)
{
	char attrs[160], stamp[32], host[256] = "localhost", reason[512], code[16];
	double secs = (double)o->duration_ms / 1000.0;
	double cmd = o->timing.command == ISO_TIMING_NONE ? 0 : (double)o->timing.command / 1e6;
	struct tm tm;

	iso_utc(o->started.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	(void)gethostname(host, sizeof(host) - 1);
	if (o->unfinished) {
		/* no code yet: an empty value, never a 0 that reads as a pass */
		snprintf(reason, sizeof(reason), "%s", ISO_UNFINISHED);
		code[0] = '\0';
	} else {
		iso_verdict_reason(opts, o, reason, sizeof(reason));
		snprintf(code, sizeof(code), "%d", o->exit);
	}
	counts(cases, attrs, sizeof(attrs), secs);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"isorun\" %s>\n",
		attrs);
	fprintf(f, "  <testsuite name=\"isorun\" %s timestamp=\"%s\" hostname=\"", attrs, stamp);
	xs(f, host, true);
	fputs("\">\n    <properties>\n", f);
	property(f, "isorun.version", ISO_VERSION);
	property(f, "isorun.exit", code);
	property(f, "isorun.reason", reason);
	fputs("    </properties>\n", f);
	for (int i = 0; i < N_CASES; i++)
		emit_case(f, &cases[i], i == 0 ? cmd : 0);
	fputs("  </testsuite>\n</testsuites>\n", f);
}

typedef void (*case_fn)(struct jcase *c, const struct iso_opts *opts, const struct iso_outcome *o);

int iso_junit_write(int fd, const struct iso_opts *opts, const struct iso_outcome *o)
{
	static const char *const names[N_CASES] = { "command", "leak gate", "residue",
						    "policy",  "teardown",  "timeout" };
	const case_fn fns[N_CASES] = { case_command, case_leaks,    case_residue,
				       case_policy,  case_teardown, case_timeout };
	struct jcase cases[N_CASES] = { 0 };
	_cleanup_free_ char *xml = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int r = -ENOMEM;

	for (int i = 0; i < N_CASES; i++) {
		if (!jcase_open(&cases[i], names[i]))
			goto out;
		fns[i](&cases[i], opts, o);
		if (fclose(cases[i].m) != 0)
			goto out;
		cases[i].m = NULL;
	}
	f = open_memstream(&xml, &len);
	if (!f)
		goto out;
	emit(f, opts, o, cases);
	if (fclose(f) == 0)
		r = iso_write_synced(fd, xml, len);
out:
	for (int i = 0; i < N_CASES; i++) {
		if (cases[i].m)
			fclose(cases[i].m);
		free(cases[i].text);
	}
	return r;
}
