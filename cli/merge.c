// SPDX-License-Identifier: MIT
/*
 * isorun report FILE|DIR...: many runs' reports (--report DIR/, a CI matrix's
 * artifacts) merged into one verdict, one summary, one JUnit file and the CI
 * annotations (docs/decisions/0059).  A report is input,
 * never evidence: it is read bounded, its shape checked, a verdict it cannot back
 * counted as not passed, and every string from it escaped where it is printed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/commands.h"
#include "common/cleanup.h"
#include "common/io.h"
#include "common/exit.h"
#include "common/num.h"
#include "common/text.h"
#include "launcher/annotate.h"
#include "launcher/junit.h"
#include "launcher/outfile.h"

/* A report larger than this is no report of isorun's (its lists and tails are bounded). */
#define REPORT_MAX (4u << 20)
/* A string from a report is kept this long at most: it is shown, not trusted. */
#define FIELD_MAX 512
/* Leaks named per run in the summary and the JUnit text; the rest are counted. */
#define LEAKS_SHOWN 10
/* Directories below an argument that are searched for reports (artifacts nest them). */
#define DEPTH_MAX 8

/* RUN_SKIPPED: failed only by the command's own exit, a code --skip-exit-code names */
enum run_state { RUN_PASSED, RUN_FAILED, RUN_UNFINISHED, RUN_SKIPPED, RUN_N_STATES };

struct run {
	char *file;
	char *name;    /* invocation.name, else argv[0]'s basename, else the file's */
	char *test;    /* invocation.test, or NULL */
	char *runner;  /* invocation.runner, or NULL */
	char *command; /* argv as a shell quotes it: runs of one driver differ by it */
	enum run_state state;
	int exit;     /* isorun's; 122 for an unfinished run (no final report: no evidence) */
	char *reason; /* the verdict's words, or why it is unfinished */
	bool own;     /* isorun's exit is the command's own: no finding, signal or timeout */
	bool retained;
	char *tree;	  /* tree.path when retained */
	char **leaks;	  /* "pid N `cmdline` in test T" */
	size_t n_leaks;	  /* kept, at most LEAKS_SHOWN */
	size_t all_leaks; /* in the report */
	size_t err_leaks; /* of them, those that failed the run (severity error) */
	double secs;
};

#define SKIP_CODES_MAX 8

struct merge {
	struct run *runs;
	size_t n, cap;
	const char *junit;
	int skip[SKIP_CODES_MAX]; /* --skip-exit-code: a runner's skip (meson's and CTest's 77) */
	size_t n_skip;
	int bad; /* ISO_EXIT_SETUP once an input is no report: the line is already out */
};

static char *field(const char *s)
{
	return s ? strndup(s, FIELD_MAX) : NULL;
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

static void run_free(struct run *r)
{
	free(r->file);
	free(r->name);
	free(r->test);
	free(r->runner);
	free(r->command);
	free(r->reason);
	free(r->tree);
	for (size_t i = 0; i < r->n_leaks; i++)
		free(r->leaks[i]);
	free(r->leaks);
}

/* One line naming the input and what is wrong with it; the merge then exits 125. */
static void refuse(struct merge *m, const char *file, const char *why)
{
	_cleanup_free_ char *f = iso_escape(file);

	fprintf(stderr, "isorun: report: '%s': %s\n", f ? f : "?", why);
	m->bad = ISO_EXIT_SETUP;
}

static struct run *add_run(struct merge *m, const char *file)
{
	struct run *r;

	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 16;
		struct run *v = realloc(m->runs, cap * sizeof(*v));
		if (!v)
			return NULL;
		m->runs = v;
		m->cap = cap;
	}
	r = &m->runs[m->n++];
	*r = (struct run){ .file = strdup(file),
			   .state = RUN_UNFINISHED,
			   .exit = ISO_EXIT_FINDING };
	r->name = strdup(base(file));
	return r;
}

static void unfinished(struct run *r, const char *why)
{
	free(r->reason);
	r->state = RUN_UNFINISHED;
	r->exit = ISO_EXIT_FINDING;
	r->reason = strdup(why);
}

/* "pid N `cmdline` in test T": the leak, and the test it is pinned on. */
static char *leak_line(json_t *l, const struct run *r)
{
	json_t *test = json_object_get(json_object_get(l, "attribution"), "test");
	const char *id = json_string_value(json_object_get(test, "id"));
	const char *cmd = json_string_value(json_object_get(l, "cmdline"));
	_cleanup_free_ char *c = field(cmd ? cmd : "?"), *t = field(id ? id : r->name);
	char *s;

	if (asprintf(&s, "pid %lld `%s` in test %s",
		     (long long)json_integer_value(json_object_get(l, "pid")), c ? c : "?",
		     t ? t : "?") < 0)
		return NULL;
	return s;
}

static void take_leaks(struct run *r, json_t *leaks)
{
	size_t i;
	json_t *l;

	r->all_leaks = json_array_size(leaks);
	r->leaks = calloc(LEAKS_SHOWN, sizeof(*r->leaks));
	for (i = 0; i < r->all_leaks; i++) {
		l = json_array_get(leaks, i);
		r->err_leaks += !strcmp(
			json_string_value(json_object_get(l, "severity")) ?: "error", "error");
	}
	for (i = 0; i < r->all_leaks; i++) {
		l = json_array_get(leaks, i);
		if (!r->leaks || r->n_leaks == LEAKS_SHOWN)
			break;
		if (json_is_object(l) && (r->leaks[r->n_leaks] = leak_line(l, r)))
			r->n_leaks++;
	}
}

/* s appended to buf[len] at *n, cut at its end: *n never passes len - 1. */
static void append(char *buf, size_t len, size_t *n, const char *s)
{
	while (*s && *n < len - 1)
		buf[(*n)++] = *s++;
	buf[*n] = '\0';
}

/* A word of a command line as a shell would read it back: 'a b', not a b. */
static void quote_word(char *buf, size_t len, size_t *n, const char *w)
{
	char c[2] = { 0 };

	if (w[0] && !strpbrk(w, " \t\n'\"\\$`;&|<>()*?[]{}~#")) {
		append(buf, len, n, w);
		return;
	}
	append(buf, len, n, "'");
	for (; *w; w++) {
		c[0] = *w;
		append(buf, len, n, *w == '\'' ? "'\\''" : c);
	}
	append(buf, len, n, "'");
}

/*
 * The run's command line, at most FIELD_MAX bytes: the runners that export no
 * test name (meson test, ctest) run one driver for many tests (a runtest.sh, a
 * json_process), and only its arguments say which test a run was.
 */
static char *command_of(json_t *argv)
{
	char buf[FIELD_MAX + 1];
	size_t n = 0, i;
	json_t *w;

	buf[0] = '\0';
	json_array_foreach (argv, i, w) {
		if (!json_is_string(w))
			break;
		if (i)
			append(buf, sizeof(buf), &n, " ");
		quote_word(buf, sizeof(buf), &n, json_string_value(w));
	}
	return n ? strdup(buf) : NULL;
}

/* The invocation (absent from an older isorun's report: then argv[0] names it). */
static void take_name(struct run *r, json_t *doc)
{
	json_t *inv = json_object_get(doc, "invocation");
	const char *name = json_string_value(json_object_get(inv, "name"));
	const char *arg0 = json_string_value(json_array_get(json_object_get(doc, "argv"), 0));

	if (name && !name[0])
		name = NULL;
	if (name || (arg0 && arg0[0])) {
		free(r->name);
		r->name = field(name ? name : base(arg0));
	}
	r->test = field(json_string_value(json_object_get(inv, "test")));
	r->runner = field(json_string_value(json_object_get(inv, "runner")));
	r->command = command_of(json_object_get(doc, "argv"));
}

/*
 * What a report's shape must be for its verdict to be taken; NULL when it is.  A
 * `passed` that its own findings contradict is a forgery or a broken file.
 */
static bool failing_leak(json_t *leaks)
{
	size_t i;
	json_t *l;

	json_array_foreach (leaks, i, l) {
		const char *sev = json_string_value(json_object_get(l, "severity"));
		if (!sev || !strcmp(sev, "error"))
			return true;
	}
	return false;
}

static const char *misshapen(json_t *doc, const char *verdict, json_t *exit)
{
	json_t *leaks = json_object_get(doc, "leaks"), *tree = json_object_get(doc, "tree");
	const char *state = json_string_value(json_object_get(tree, "state"));
	bool passed = !strcmp(verdict, "passed");

	if (!json_is_array(json_object_get(doc, "argv")) || !json_is_array(leaks) ||
	    !json_is_object(tree) || !state)
		return "not a valid report: argv, leaks or tree missing";
	if (!json_is_integer(exit) || json_integer_value(exit) < 0 ||
	    json_integer_value(exit) > 255)
		return "not a valid report: exit is not a code";
	if (passed != (json_integer_value(exit) == 0))
		return "not a valid report: its verdict and its exit code disagree";
	if (passed && (failing_leak(leaks) || !strcmp(state, "retained")))
		return "not a valid report: passed with a leak or a retained tree";
	if (strcmp(verdict, "passed") && strcmp(verdict, "failed"))
		return "not a valid report: unknown verdict";
	return NULL;
}

/* The run failed by its command's exit alone: isorun's code is the command's, nothing else. */
static bool own_exit(json_t *result, const struct run *r)
{
	json_t *code = json_object_get(result, "exit_code");

	return r->state == RUN_FAILED && json_is_integer(code) &&
	       json_integer_value(code) == r->exit && !r->retained && r->all_leaks == 0 &&
	       json_is_false(json_object_get(result, "timed_out")) &&
	       json_is_null(json_object_get(result, "signal"));
}

/* A parsed report (schema 1 checked by the caller) into r. */
static void take_report(struct run *r, json_t *doc)
{
	const char *verdict = json_string_value(json_object_get(doc, "verdict"));
	const char *reason = json_string_value(json_object_get(doc, "reason"));
	json_t *exit = json_object_get(doc, "exit"), *tree = json_object_get(doc, "tree");
	const char *bad;

	take_name(r, doc);
	if (!verdict || !strcmp(verdict, "unfinished")) {
		unfinished(r, verdict ? "isorun did not finish (provisional report)"
				      : "not a valid report: no verdict");
		return;
	}
	if ((bad = misshapen(doc, verdict, exit))) {
		unfinished(r, bad);
		return;
	}
	r->exit = (int)json_integer_value(exit);
	r->state = r->exit == 0 ? RUN_PASSED : RUN_FAILED;
	r->reason = field(reason);
	r->secs = (double)json_integer_value(json_object_get(doc, "duration_ms")) / 1000.0;
	if (r->secs < 0)
		r->secs = 0;
	r->retained = !strcmp(json_string_value(json_object_get(tree, "state")), "retained");
	if (r->retained)
		r->tree = field(json_string_value(json_object_get(tree, "path")));
	take_leaks(r, json_object_get(doc, "leaks"));
	r->own = own_exit(json_object_get(doc, "result"), r);
}

/*
 * The file's text, at most REPORT_MAX + 1 bytes: only a regular file is read (a
 * FIFO or a device named as a report would make the merge wait on its writer).
 */
static char *slurp(struct merge *m, const char *file, size_t *len)
{
	_cleanup_close_ int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	char *buf, why[160];
	struct stat st;
	size_t n = 0;

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, sizeof(why), "cannot read it: %s", strerror(errno));
		refuse(m, file, why);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		refuse(m, file, "not a regular file: not a report");
		return NULL;
	}
	buf = malloc(REPORT_MAX + 2);
	if (buf) {
		ssize_t got = iso_read_all(fd, buf, REPORT_MAX + 1);
		if (got < 0) {
			snprintf(why, sizeof(why), "read: %s", strerror((int)-got));
			refuse(m, file, why);
			free(buf);
			return NULL;
		}
		n = (size_t)got;
	}
	if (!buf || n > REPORT_MAX) {
		refuse(m, file, buf ? "larger than 4 MiB: not an isorun report" : strerror(ENOMEM));
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* A report cut short (a disk full, a copy interrupted) still begins as one does. */
static bool report_start(const char *text, size_t len)
{
	static const char head[] = "{\n  \"schema\": 1,";

	return len > 0 && !strncmp(text, head, len < sizeof(head) - 1 ? len : sizeof(head) - 1);
}

static void read_one(struct merge *m, const char *file)
{
	size_t len = 0;
	_cleanup_free_ char *text = slurp(m, file, &len);
	json_t *doc, *schema;
	struct run *r;

	if (!text)
		return;
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
	schema = json_object_get(doc, "schema");
	if (doc && !json_is_object(doc)) {
		json_decref(doc);
		doc = NULL;
	} else if (doc && !(json_is_integer(schema) && json_integer_value(schema) == 1)) {
		refuse(m, file,
		       schema ? "a report of another schema: this isorun reads schema 1"
			      : "not an isorun report (no \"schema\")");
		json_decref(doc);
		return;
	}
	if (!doc && !report_start(text, len) && len) {
		refuse(m, file, "not an isorun report (not JSON)");
		return;
	}
	r = add_run(m, file);
	if (!r || !r->file || !r->name) {
		refuse(m, file, strerror(ENOMEM));
		json_decref(doc);
		return;
	}
	if (doc)
		take_report(r, doc);
	else
		unfinished(r, len ? "truncated: the report is cut short"
				  : "empty: the report was not written");
	json_decref(doc);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A directory's reports, in name order: *.json, not hidden (a temporary .NAME.isorun-X). */
static void read_dir(struct merge *m, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	char why[160];
	size_t len = strlen(dir);

	/* reports/ and reports name their files alike */
	while (len > 1 && dir[len - 1] == '/')
		len--;
	if (!d) {
		snprintf(why, sizeof(why), "cannot read the directory: %s", strerror(errno));
		refuse(m, dir, why);
		return;
	}
	while ((de = readdir(d))) {
		char **v;

		if (de->d_name[0] == '.' || !(v = realloc(names, (n + 1) * sizeof(*v))))
			continue;
		names = v;
		if (asprintf(&names[n], "%.*s/%s", (int)len, dir, de->d_name) >= 0)
			n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		size_t nlen = strlen(names[i]);

		/* what is below is named by its own directory entry: no link is followed */
		if (lstat(names[i], &st) < 0)
			st.st_mode = 0;
		if (S_ISDIR(st.st_mode) && depth < DEPTH_MAX)
			read_dir(m, names[i], depth + 1);
		else if (S_ISREG(st.st_mode) && nlen > 5 && !strcmp(names[i] + nlen - 5, ".json"))
			read_one(m, names[i]);
		free(names[i]);
	}
	free(names);
}

static void read_arg(struct merge *m, const char *arg)
{
	struct stat st;
	char why[160];

	if (stat(arg, &st) < 0) {
		snprintf(why, sizeof(why), "%s", strerror(errno));
		refuse(m, arg, why);
	} else if (S_ISDIR(st.st_mode)) {
		read_dir(m, arg, 0);
	} else {
		read_one(m, arg);
	}
}

/* s escaped for one of our lines (a report's strings are the caller's, or a forger's). */
static void put(FILE *f, const char *s)
{
	_cleanup_free_ char *e = iso_escape(s ? s : "");

	fputs(e ? e : "?", f);
}

static void summary_run(FILE *f, const struct run *r)
{
	if (r->state == RUN_PASSED || r->state == RUN_SKIPPED)
		return;
	fputs(r->state == RUN_FAILED ? "FAILED " : "UNFINISHED ", f);
	put(f, r->name);
	if (r->state == RUN_FAILED)
		fprintf(f, " (exit %d)", r->exit);
	fputs(": ", f);
	put(f, r->reason ? r->reason : "failed");
	fputc('\n', f);
	if (r->command) {
		fputs("  command: ", f);
		put(f, r->command);
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->n_leaks; i++) {
		fputs("  leaked: ", f);
		put(f, r->leaks[i]);
		fputc('\n', f);
	}
	if (r->all_leaks > r->n_leaks)
		fprintf(f, "  leaked: %zu more\n", r->all_leaks - r->n_leaks);
	if (r->retained) {
		fputs("  retained: ", f);
		put(f, r->tree ? r->tree : "(no path)");
		fputc('\n', f);
	}
	fputs("  report: ", f);
	put(f, r->file);
	fputc('\n', f);
}

/* The runs that failed by their command's own exit, a code --skip-exit-code names. */
static void mark_skips(struct merge *m)
{
	for (size_t i = 0; i < m->n; i++)
		for (size_t k = 0; k < m->n_skip; k++)
			if (m->runs[i].own && m->runs[i].exit == m->skip[k])
				m->runs[i].state = RUN_SKIPPED;
}

/* The merged verdict: 0 when every run passed or skipped, else the worst (highest) code. */
static int worst(const struct merge *m, size_t *not_passed)
{
	int code = 0;

	*not_passed = 0;
	for (size_t i = 0; i < m->n; i++) {
		if (m->runs[i].state == RUN_PASSED || m->runs[i].state == RUN_SKIPPED)
			continue;
		(*not_passed)++;
		if (m->runs[i].exit > code)
			code = m->runs[i].exit;
	}
	return code;
}

static void summary(FILE *f, const struct merge *m, int code, size_t not_passed)
{
	size_t counts[RUN_N_STATES] = { 0 }, leaked = 0, retained = 0;
	char skipped[48] = "";

	for (size_t i = 0; i < m->n; i++) {
		counts[m->runs[i].state]++;
		leaked += m->runs[i].all_leaks > 0;
		retained += m->runs[i].retained;
	}
	/* only when asked: the line's words stay what a script reading it knows */
	if (m->n_skip)
		snprintf(skipped, sizeof(skipped), ", %zu skipped", counts[RUN_SKIPPED]);
	fprintf(f,
		"isorun report: %zu run%s: %zu passed%s, %zu failed, %zu unfinished; %zu leaked, "
		"%zu retained\n",
		m->n, m->n == 1 ? "" : "s", counts[RUN_PASSED], skipped, counts[RUN_FAILED],
		counts[RUN_UNFINISHED], leaked, retained);
	for (size_t i = 0; i < m->n; i++)
		summary_run(f, &m->runs[i]);
	if (code == 0)
		fprintf(f, "isorun report: passed\n");
	else
		fprintf(f, "isorun report: FAILED (exit %d): %zu of %zu runs did not pass\n", code,
			not_passed, m->n);
}

/* Under GitHub Actions: one ::error per run that did not pass, one per leak. */
static void annotate(FILE *f, const struct merge *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct run *r = &m->runs[i];
		_cleanup_free_ char *name = iso_escape(r->name), *title = NULL;

		if (r->state == RUN_PASSED || r->state == RUN_SKIPPED || !name ||
		    asprintf(&title, "isorun: %s", name) < 0)
			continue;
		sup_annotate_text(f, "error", title, r->reason ? r->reason : "failed");
		for (size_t k = 0; k < r->n_leaks; k++)
			sup_annotate_text(f, "error", "isorun: leaked process", r->leaks[k]);
		if (r->retained)
			sup_annotate_text(f, "error", "isorun: tree retained",
					  r->tree ? r->tree : "");
	}
}

static void xml(FILE *f, const char *s, bool attr)
{
	sup_xml_escape(f, s ? s : "", s ? strlen(s) : 0, attr);
}

static void property(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	xml(f, value, true);
	fputs("\"/>\n", f);
}

/* A case of a run: passed (what NULL), or `<what message=... type=...>text</what>`. */
static void jcase(FILE *f, const struct run *r, const char *name, const char *what, const char *msg,
		  const char *type, const char *text)
{
	fputs("    <testcase classname=\"", f);
	xml(f, r->name, true);
	fprintf(f, "\" name=\"%s\"%s\n", name, what ? ">" : "/>");
	if (!what)
		return;
	fprintf(f, "      <%s message=\"", what);
	xml(f, msg, true);
	fputs("\"", f);
	if (type)
		fprintf(f, " type=\"%s\"", type);
	fputs(">", f);
	xml(f, text, false);
	fprintf(f, "</%s>\n    </testcase>\n", what);
}

static void jcases(FILE *f, const struct run *r)
{
	bool done = r->state != RUN_UNFINISHED;
	char msg[64], *leaks = NULL;
	size_t len = 0;
	FILE *l = open_memstream(&leaks, &len);

	for (size_t i = 0; l && i < r->n_leaks; i++)
		fprintf(l, "%s\n", r->leaks[i]);
	if (l)
		fclose(l);
	snprintf(msg, sizeof(msg), "%zu process%s outlived the command", r->err_leaks,
		 r->err_leaks == 1 ? "" : "es");
	jcase(f, r, "verdict",
	      !done			? "error"
	      : r->state == RUN_FAILED	? "failure"
	      : r->state == RUN_SKIPPED ? "skipped"
					: NULL,
	      r->reason,
	      r->state == RUN_SKIPPED ? NULL
	      : done		      ? "failed"
				      : "unfinished",
	      r->file);
	jcase(f, r, "leak gate",
	      !done	     ? "skipped"
	      : r->err_leaks ? "failure"
			     : NULL,
	      done ? msg : r->reason, done ? "leak" : NULL, leaks);
	jcase(f, r, "teardown",
	      !done	    ? "skipped"
	      : r->retained ? "failure"
			    : NULL,
	      done ? "tree retained" : r->reason, done ? "retained" : NULL, r->tree);
	free(leaks);
}

static void jsuite(FILE *f, const struct run *r)
{
	char code[16];
	bool done = r->state != RUN_UNFINISHED;
	int fails = r->state == RUN_FAILED;

	fails += done && r->err_leaks > 0;
	fails += done && r->retained;
	fputs("  <testsuite name=\"", f);
	xml(f, r->name, true);
	fprintf(f,
		"\" tests=\"3\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\" file=\"",
		fails, !done, done ? r->state == RUN_SKIPPED : 2, r->secs);
	xml(f, r->file, true);
	fputs("\">\n    <properties>\n", f);
	snprintf(code, sizeof(code), "%d", r->exit);
	property(f, "isorun.exit", done ? code : "");
	property(f, "isorun.runner", r->runner);
	property(f, "isorun.test", r->test);
	property(f, "isorun.reason", r->reason);
	fputs("    </properties>\n", f);
	jcases(f, r);
	fputs("  </testsuite>\n", f);
}

/* One JUnit file, one testsuite per run, put in place whole (launcher/outfile.c). */
static int write_junit(const struct merge *m)
{
	char *text = NULL;
	size_t len = 0, errs = 0, fails = 0;
	FILE *f = open_memstream(&text, &len);
	struct sup_outfile out;
	struct iso_err e = { 0 };
	int r;

	if (!f)
		return -ENOMEM;
	for (size_t i = 0; i < m->n; i++) {
		errs += m->runs[i].state == RUN_UNFINISHED;
		fails += m->runs[i].state == RUN_FAILED;
	}
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"isorun report\" "
		"tests=\"%zu\" failures=\"%zu\" errors=\"%zu\">\n",
		m->n, fails, errs);
	for (size_t i = 0; i < m->n; i++)
		jsuite(f, &m->runs[i]);
	fputs("</testsuites>\n", f);
	r = ferror(f) ? -ENOMEM : 0;
	if (fclose(f) != 0 || r < 0) {
		free(text);
		return -ENOMEM;
	}
	r = sup_outfile_open(&out, "--junit", m->junit, &(struct sup_text){ text, len }, &e);
	if (r == 0)
		r = sup_outfile_finish(&out, &(struct sup_text){ text, len });
	else
		fprintf(stderr, "isorun: report: %s%s%s\n", e.msg, e.errnum ? ": " : "",
			e.errnum ? strerror(e.errnum) : "");
	free(text);
	return r;
}

static void usage(FILE *f)
{
	fputs("usage: isorun report [--junit FILE] [--skip-exit-code N]... FILE|DIR...\n"
	      "  merge the JSON reports of many runs (--report DIR/, a CI matrix's artifacts)\n"
	      "  into one verdict: a summary on stdout, and its exit code: 0 when every run\n"
	      "  passed, else the highest exit code of the runs that did not (an unfinished\n"
	      "  run counts 122); 125 when an input is not a report\n"
	      "  DIR        its *.json files, and its directories' below it\n"
	      "  --junit FILE  one JUnit file, one test suite per run\n"
	      "  --skip-exit-code N  a run that failed by its command's exit N alone is a\n"
	      "             skip (meson's and CTest's 77), not a failure\n",
	      f);
}

/*
 * --skip-exit-code N: 1..255 but isorun's own codes (122 a finding, 125 a setup
 * failure, 126 and 127 an exec's, 128+N a signal's are not a command's skip).
 */
static int skip_code(struct merge *m, const char *v)
{
	_cleanup_free_ char *a = iso_escape(v);
	uint64_t n;
	int r = iso_parse_u64(v, NULL, 1, 127, &n);

	if (r == 0 && (n == ISO_EXIT_FINDING || n >= ISO_EXIT_SETUP))
		r = -ERANGE;
	if (r == 0 && m->n_skip == SKIP_CODES_MAX)
		r = -E2BIG;
	if (r < 0) {
		fprintf(stderr, "isorun: report: --skip-exit-code: '%s' %s\n", a ? a : "?",
			r == -E2BIG ? "is one code too many (8 at most)"
				    : "is not a command's exit code: give 1 to 121, 123 or 124 "
				      "(77 for meson's and CTest's skip)");
		return r;
	}
	m->skip[m->n_skip++] = (int)n;
	return 0;
}

/* The options; the first operand's index, or -1 with the exit code in *code. */
static int parse(int argc, char **argv, struct merge *m, int *code)
{
	int i = 2;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage(stdout);
			*code = 0;
			return -1;
		}
		if (!strcmp(argv[i], "--junit") && i + 1 < argc && argv[i + 1][0]) {
			m->junit = argv[++i];
		} else if (!strncmp(argv[i], "--junit=", 8) && argv[i][8]) {
			m->junit = argv[i] + 8;
		} else if (!strncmp(argv[i], "--skip-exit-code", 16) &&
			   (argv[i][16] == '=' || (!argv[i][16] && i + 1 < argc))) {
			if (skip_code(m, argv[i][16] ? argv[i] + 17 : argv[++i]) < 0) {
				*code = ISO_EXIT_SETUP;
				return -1;
			}
		} else {
			_cleanup_free_ char *a = iso_escape(argv[i]);

			fprintf(stderr, "isorun: report: %s: %s (isorun report --help)\n",
				a ? a : "?",
				!strncmp(argv[i], "--junit", 7)		    ? "needs a file"
				: !strncmp(argv[i], "--skip-exit-code", 16) ? "needs a number"
									    : "unknown option");
			*code = ISO_EXIT_SETUP;
			return -1;
		}
	}
	return i;
}

int cli_report_main(int argc, char **argv)
{
	struct merge m = { 0 };
	size_t not_passed;
	int code = 0, at = parse(argc, argv, &m, &code);

	if (at < 0)
		return code;
	if (at >= argc) {
		fputs("isorun: report: give the reports: isorun report FILE|DIR...\n", stderr);
		return ISO_EXIT_SETUP;
	}
	for (int i = at; i < argc; i++)
		read_arg(&m, argv[i]);
	if (!m.bad && !m.n) {
		fputs("isorun: report: no report (*.json) found in what was given\n", stderr);
		m.bad = ISO_EXIT_SETUP;
	}
	if (!m.bad) {
		mark_skips(&m);
		code = worst(&m, &not_passed);
		if (m.junit && write_junit(&m) < 0 && (code = ISO_EXIT_SETUP))
			fputs("isorun: report: JUnit file not written\n", stderr);
		if (sup_annotations_wanted())
			annotate(stderr, &m);
		summary(stdout, &m, code, not_passed);
	}
	for (size_t i = 0; i < m.n; i++)
		run_free(&m.runs[i]);
	free(m.runs);
	return m.bad ? m.bad : code;
}
