// SPDX-License-Identifier: MIT
#include "launcher/junit.h"
#include "launcher/sinks.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/version.h"
#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/shell.h"

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

void sup_xml_escape(FILE *f, const char *s, size_t n, bool attr)
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
	sup_xml_escape(f, s ? s : "", s ? strlen(s) : 0, attr);
}

/* One guard's case while it is written: its result and its text. */
struct jcase {
	const char *name;
	const char *status; /* NULL: passed; "failure", "error" or "skipped" */
	const char *type;   /* the failure's type attribute */
	char message[512];  /* the failure's one line */
	char *text;	    /* the failure's body, or the passing case's system-out */
	size_t len;
	FILE *m;   /* open_memstream over text */
	bool omit; /* a guard that was not asked for is no test case */
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

/* The words of every finding of a kind, one per line. */
static void texts(struct jcase *c, const struct sup_verdict *v, enum sup_vkind kind)
{
	for (size_t i = 0; i < v->n[kind]; i++) {
		const char *t = sup_verdict_get(v, kind, i)->text;

		fprintf(c->m, "%s\n", t ? t : "?");
	}
}

static void case_command(struct jcase *c, const struct sup_verdict *v)
{
	const struct sup_outcome *o = v->out;

	fputs("$", c->m);
	for (size_t i = 0; i < o->argc; i++) {
		_cleanup_free_ char *r = iso_redact(o->argv[i]);
		_cleanup_free_ char *q = iso_shell_quote(r ? r : "?");
		fprintf(c->m, " %s", q ? q : "?");
	}
	fputc('\n', c->m);
	if (v->unfinished) {
		jcase_set(c, "error", "unfinished", SUP_UNFINISHED);
		return;
	}
	if (o->setup_before || o->setup_failed) {
		texts(c, v, SUP_V_SETUP);
		jcase_set(c, "error", "setup", v->how);
		return;
	}
	if (o->cancelled_by)
		jcase_set(c, "error", "cancelled", v->how);
	else if (v->how[0] && !o->timed_out)
		jcase_set(c, "failure", "command", v->how);
}

/* before the start nothing ran that a guard could judge */
static bool not_run(struct jcase *c, const struct sup_verdict *v)
{
	if (!v->nothing_ran && !v->unfinished)
		return false;
	jcase_set(c, "skipped", NULL, v->unfinished ? SUP_UNFINISHED : "the command did not run");
	return true;
}

static void case_leaks(struct jcase *c, const struct sup_verdict *v)
{
	const struct sup_vfinding *gap = sup_verdict_get(v, SUP_V_UNMEASURABLE, 0);
	size_t n = v->n[SUP_V_LEAK];
	char msg[300];

	if (not_run(c, v))
		return;
	texts(c, v, SUP_V_LEAK);
	texts(c, v, SUP_V_UNMEASURABLE);
	if (gap && gap->counts) {
		jcase_set(c, "failure", "not-measurable", gap->text ? gap->text : "?");
	} else if (v->n_counting[SUP_V_LEAK]) {
		snprintf(msg, sizeof(msg), "%zu process%s outlived the command", n,
			 n == 1 ? "" : "es");
		jcase_set(c, "failure", "leak", msg);
	} else if (gap) {
		/* --leaks=warn|ignore: not a failure, and never a pass either */
		jcase_set(c, "skipped", NULL, gap->text ? gap->text : "?");
	}
}

static void case_residue(struct jcase *c, const struct sup_verdict *v)
{
	size_t n = v->n[SUP_V_RESIDUE], gaps = v->n[SUP_V_RESIDUE_GAP];
	char msg[160];

	c->omit = !v->plan->watches;
	if (c->omit || not_run(c, v))
		return;
	texts(c, v, SUP_V_RESIDUE);
	texts(c, v, SUP_V_RESIDUE_GAP);
	if (v->n_counting[SUP_V_RESIDUE_GAP]) {
		snprintf(msg, sizeof(msg), "residue check not measurable in %zu director%s", gaps,
			 gaps == 1 ? "y" : "ies");
		jcase_set(c, "failure", "not-measurable", msg);
	} else if (v->n_counting[SUP_V_RESIDUE]) {
		snprintf(msg, sizeof(msg), "%zu new entr%s in watched directories", n,
			 n == 1 ? "y" : "ies");
		jcase_set(c, "failure", "residue", msg);
	} else if (gaps) {
		/* --residue=warn: not a failure, and never a pass either */
		snprintf(msg, sizeof(msg), "residue check: not measurable in %zu director%s", gaps,
			 gaps == 1 ? "y" : "ies");
		jcase_set(c, "skipped", NULL, msg);
	}
}

static void case_policy(struct jcase *c, const struct sup_verdict *v)
{
	size_t n = v->n_counting[SUP_V_REFUSAL];
	char msg[160];

	c->omit = !v->plan->policy;
	if (c->omit || not_run(c, v))
		return;
	if (!v->out->policy_name) {
		/* asked for, and not put in place: say so, never a pass */
		jcase_set(c, "skipped", NULL, "no policy was put in place");
		return;
	}
	texts(c, v, SUP_V_REFUSAL);
	if (n) {
		snprintf(msg, sizeof(msg), "%zu call%s refused", n, n == 1 ? "" : "s");
		jcase_set(c, "failure", "policy", msg);
	}
}

/* the tree's removal, and the delivery of what the command wrote and of the files before */
static void case_teardown(struct jcase *c, const struct sup_verdict *v)
{
	const struct sup_vfinding *undelivered = sup_verdict_get(v, SUP_V_UNDELIVERED, 0);
	const struct sup_outcome *o = v->out;

	if (v->unfinished) {
		jcase_set(c, "skipped", NULL, SUP_UNFINISHED);
		return;
	}
	texts(c, v, SUP_V_STREAM_LOST);
	texts(c, v, SUP_V_UNDELIVERED);
	if (v->n[SUP_V_RETAINED]) {
		texts(c, v, SUP_V_RETAINED);
		jcase_set(c, "failure", "retained", "tree retained");
	} else if (v->n[SUP_V_STREAM_LOST] || undelivered) {
		jcase_set(c, "failure", "delivery",
			  v->n[SUP_V_STREAM_LOST] ? "output lost" : undelivered->word);
	} else if (o->tree_state == SUP_TREE_KEPT) {
		fprintf(c->m, "tree kept at %s\n", o->tree_path);
	} else if (o->tree_state == SUP_TREE_REMOVED && o->tree_reason[0]) {
		/* removed, and what could not be measured on the way */
		fprintf(c->m, "%s\n", o->tree_reason);
	}
}

static void case_timeout(struct jcase *c, const struct sup_verdict *v)
{
	c->omit = !v->plan->stop.timeout_ms && !v->n[SUP_V_TIMEOUT];
	if (c->omit || not_run(c, v))
		return;
	if (v->n[SUP_V_TIMEOUT]) {
		texts(c, v, SUP_V_TIMEOUT);
		jcase_set(c, "failure", "timeout", "timed out");
	}
}

/* a kind whose row names a case of its own: failed by its findings that count */
static void case_kind(struct jcase *c, const struct sup_verdict *v, enum sup_vkind kind)
{
	char msg[sizeof(c->message)];

	if (not_run(c, v))
		return;
	texts(c, v, kind);
	if (v->n_counting[kind]) {
		sup_verdict_kind_words(v, kind, msg, sizeof(msg));
		jcase_set(c, "failure", c->name, msg);
	}
}

/* the guards' six, then a case per kind that names one */
enum { N_CASES = 6, MAX_CASES = N_CASES + SUP_V_N_KINDS };

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
			sup_xml_escape(f, c->text, c->len, false);
			fputs("</system-out>\n", f);
		}
	} else if (c->status) {
		fprintf(f, "      <%s message=\"", c->status);
		xs(f, c->message, true);
		fputs("\" type=\"", f);
		xs(f, c->type, true);
		fputs("\">", f);
		sup_xml_escape(f, c->text, c->len, false);
		fprintf(f, "</%s>\n", c->status);
	} else if (c->len) {
		fputs("      <system-out>", f);
		sup_xml_escape(f, c->text, c->len, false);
		fputs("</system-out>\n", f);
	}
	fputs("    </testcase>\n", f);
}

static size_t count(const struct jcase *cases, const char *status)
{
	size_t n = 0;

	for (int i = 0; i < MAX_CASES; i++)
		n += cases[i].name && !cases[i].omit &&
		     (status ? cases[i].status && strcmp(cases[i].status, status) == 0 : true);
	return n;
}

/* the totals, the same on <testsuites> and its one <testsuite> */
static void counts(const struct jcase *cases, char *buf, size_t len, double secs)
{
	snprintf(buf, len,
		 "tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\"",
		 count(cases, NULL), count(cases, "failure"), count(cases, "error"),
		 count(cases, "skipped"), secs);
}

static void property(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	xs(f, value, true);
	fputs("\"/>\n", f);
}

static void emit(FILE *f, const struct sup_verdict *v, const struct jcase *cases)
{
	const struct sup_outcome *o = v->out;
	char attrs[160], stamp[32], host[256] = "localhost", code[16] = "";
	double secs = (double)o->duration_ms / 1000.0;
	double cmd = o->timing.command == SUP_TIMING_NONE ? 0 : (double)o->timing.command / 1e6;
	struct tm tm;

	iso_utc(o->started.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	(void)gethostname(host, sizeof(host) - 1);
	/* unfinished: no code yet, an empty value, never a 0 that reads as a pass */
	if (!v->unfinished)
		snprintf(code, sizeof(code), "%d", v->exit);
	counts(cases, attrs, sizeof(attrs), secs);
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"isorun\" %s>\n",
		attrs);
	fprintf(f, "  <testsuite name=\"isorun\" %s timestamp=\"%s\" hostname=\"", attrs, stamp);
	xs(f, host, true);
	fputs("\">\n    <properties>\n", f);
	property(f, "isorun.version", ISO_VERSION);
	property(f, "isorun.exit", code);
	property(f, "isorun.reason", v->reason);
	/* which invocation: a directory of runs' files (--junit DIR/) tells them apart */
	property(f, "isorun.invocation", o->inv.name ? o->inv.name : "run");
	property(f, "isorun.runner", o->inv.runner);
	property(f, "isorun.test", o->inv.test);
	fputs("    </properties>\n", f);
	for (int i = 0; i < MAX_CASES; i++)
		if (cases[i].name && !cases[i].omit)
			emit_case(f, &cases[i], i == 0 ? cmd : 0);
	fputs("  </testsuite>\n</testsuites>\n", f);
}

typedef void (*case_fn)(struct jcase *c, const struct sup_verdict *v);

/* The i-th case, written into c: a guard's six, or a kind's (none: no name). */
static void write_case(struct jcase *c, const struct sup_verdict *v, int i, struct sup_doc *d)
{
	static const char *const names[N_CASES] = { "command", "leak gate", "residue",
						    "policy",  "teardown",  "timeout" };
	const case_fn fns[N_CASES] = { case_command, case_leaks,    case_residue,
				       case_policy,  case_teardown, case_timeout };
	const char *name = i < N_CASES ? names[i] : sup_vkind_of(i - N_CASES)->junit;

	if (!name)
		return;
	if (!jcase_open(c, name)) {
		d->err = -ENOMEM;
		return;
	}
	if (i < N_CASES)
		fns[i](c, v);
	else
		case_kind(c, v, (enum sup_vkind)(i - N_CASES));
	if (fclose(c->m) != 0)
		d->err = -ENOMEM;
	c->m = NULL;
}

void iso_junit_render(struct sup_doc *d, const struct sup_verdict *v)
{
	struct jcase cases[MAX_CASES] = { 0 };

	for (int i = 0; i < MAX_CASES && !d->err; i++)
		write_case(&cases[i], v, i, d);
	if (!d->err)
		emit(d->f, v, cases);
	for (int i = 0; i < MAX_CASES; i++)
		free(cases[i].text);
}
