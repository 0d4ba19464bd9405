// SPDX-License-Identifier: MIT
#include "launcher/finding.h"

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"
#include "ns/ns.h"
#include "launcher/residue.h"
#include "launcher/say.h"
#include "launcher/shell.h"

/* A test's id and phase come from the command's environment, its chain from its argv. */
void sup_attrib_text(FILE *out, const struct sup_attrib *a, bool chain, const char *lead)
{
	_cleanup_free_ char *text = NULL, *shown = NULL;
	_cleanup_free_ char *test = iso_escape(a->test ? a->test : "?");
	_cleanup_free_ char *phase = a->phase ? iso_escape(a->phase) : NULL;
	_cleanup_free_ char *runner = a->runner ? iso_escape(a->runner) : NULL;
	_cleanup_free_ char *why = iso_escape(a->why_not);

	if (a->runner && !strcmp(a->runner, "pytest"))
		fprintf(out, "%s  during test: %s%s%s%s\n", lead, test ? test : "?",
			phase ? " (" : "", phase ? phase : "", phase ? ")" : "");
	else if (a->runner)
		fprintf(out, "%s  during %s: %s\n", lead, runner ? runner : "?", test ? test : "?");
	if (!chain)
		return;
	if (a->n_chain && (text = sup_attrib_chain_text(a)) && (shown = iso_escape(text)))
		fprintf(out, "%s  started by: %s\n", lead, shown);
	if (a->why_not[0])
		fprintf(out, "%s  attribution incomplete: %s\n", lead, why ? why : "?");
}

/* "cwd X, session S, started 1.2s into the run, alive 2s after the command" */
static void leak_facts(FILE *out, const struct sup_leak *l, uint64_t after_cmd_ms)
{
	_cleanup_free_ char *cwd = iso_shell_quote(l->cwd ? l->cwd : "?");
	char dur[32];

	fprintf(out, "cwd %s, ", cwd ? cwd : "?");
	/* a session begun outside the namespace has no number inside it (procfs shows 0) */
	if (l->sid > 0)
		fprintf(out, "session %d, ", l->sid);
	else if (l->inner_pid)
		fputs("session outside the namespace, ", out);
	if (l->started_ms != SUP_STARTED_UNKNOWN && l->started_ms >= 0)
		fprintf(out, "started %s into the run, ",
			iso_format_duration((uint64_t)l->started_ms, dur, sizeof(dur)));
	fprintf(out, "alive %s after the command",
		iso_format_duration(after_cmd_ms, dur, sizeof(dur)));
}

void sup_leak_lines(FILE *out, const struct sup_leak *l, uint64_t after_cmd_ms, bool warning,
		    const char *lead)
{
	char inner[48] = "";

	/*
	 * Under --pidns both pids: the outer one for the host's tools, the inner one
	 * as the command saw it.
	 */
	if (l->inner_pid)
		snprintf(inner, sizeof(inner), " (pid %d in the namespace)", l->inner_pid);
	_cleanup_free_ char *cmd = iso_escape(l->cmdline ? l->cmdline : "?");

	fprintf(out, "%s%s: pid %d%s `%s` (", lead, warning ? "leaked (warning)" : "leaked", l->pid,
		inner, cmd ? cmd : "?");
	leak_facts(out, l, after_cmd_ms);
	fputs("); killed\n", out);
	sup_attrib_text(out, &l->at, true, lead);
}

/* "leaked: 40 processes `cmd` (pids 1, 2, 3 and 37 more; the first: cwd ...); all killed" */
static void fold_text(FILE *out, const struct sup_outcome *o, const size_t *group, size_t n,
		      bool warning, const char *lead)
{
	const struct sup_leak *l = &o->leaks[group[0]];
	_cleanup_free_ char *cmd = iso_escape(l->cmdline ? l->cmdline : "?");

	fprintf(out, "%s%s: %zu processes `%s` (pids", lead,
		warning ? "leaked (warning)" : "leaked", n, cmd ? cmd : "?");
	for (size_t k = 0; k < n && k < SUP_LEAK_FOLD; k++)
		fprintf(out, "%s %d", k ? "," : "", o->leaks[group[k]].pid);
	fprintf(out, " and %zu more; the first: ", n - SUP_LEAK_FOLD);
	leak_facts(out, l, o->leak_alive_ms);
	fputs("); all killed\n", out);
	sup_attrib_text(out, &l->at, true, lead);
}

static const char *cmd_of(const struct sup_leak *l)
{
	return l->cmdline ? l->cmdline : "";
}

/* By command line, then in the order found: a group's first member is the first found. */
static int by_cmdline(const void *a, const void *b, void *arg)
{
	const struct sup_outcome *o = arg;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(cmd_of(&o->leaks[i]), cmd_of(&o->leaks[j]));

	return c ? c : (i > j) - (i < j);
}

/*
 * Sorted by command line, each run of alike leaks is a group: leak i's group starts
 * at first[i] in `order` and holds size[first[i]] members.
 */
void sup_leaks_text(FILE *out, const struct sup_outcome *o, bool warning, const char *lead)
{
	size_t n = o->n_leaks;
	_cleanup_free_ size_t *order = calloc(n ? n : 1, sizeof(size_t));
	_cleanup_free_ size_t *first = calloc(n ? n : 1, sizeof(size_t));
	_cleanup_free_ size_t *size = calloc(n ? n : 1, sizeof(size_t));

	if (!order || !first || !size) {
		for (size_t i = 0; i < n; i++)
			sup_leak_lines(out, &o->leaks[i], o->leak_alive_ms, warning, lead);
		return;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	/* qsort_r passes its argument as void *; the comparison only reads it */
	qsort_r(order, n, sizeof(*order), by_cmdline, (void *)(uintptr_t)o);
	for (size_t k = 0, start = 0; k < n; k++) {
		if (k && strcmp(cmd_of(&o->leaks[order[k - 1]]), cmd_of(&o->leaks[order[k]])))
			start = k;
		first[order[k]] = start;
	}
	for (size_t k = 0; k < n; k++)
		size[first[order[k]]]++;
	for (size_t i = 0; i < n; i++) {
		size_t g = first[i], members = size[g];
		if (members <= SUP_LEAK_FOLD)
			sup_leak_lines(out, &o->leaks[i], o->leak_alive_ms, warning, lead);
		else if (order[g] == i) /* the group's first leak, in the order they were found */
			fold_text(out, o, &order[g], members, warning, lead);
	}
}

void sup_refusal_lines(FILE *out, const struct sup_policy_event *ev, const char *lead)
{
	_cleanup_free_ char *redacted = iso_redact(ev->detail ? ev->detail : "");
	_cleanup_free_ char *detail = iso_escape(redacted);
	_cleanup_free_ char *origin = iso_escape(ev->origin ? ev->origin : "?");
	char dur[32];

	fprintf(out, "%s%s: %s `%s` (pid %d, rule %s", lead, ev->refused ? "refused" : "logged",
		ev->call, detail ? detail : "?", ev->pid, origin ? origin : "?");
	if (ev->started_ms != SUP_STARTED_UNKNOWN && ev->started_ms >= 0)
		fprintf(out, ", process started %s into the run",
			iso_format_duration((uint64_t)ev->started_ms, dur, sizeof(dur)));
	fputs(")\n", out);
	sup_attrib_text(out, &ev->at, true, lead);
}

void sup_policy_event_attribute(struct sup_policy_event *ev, const struct sup_attrib_ctx *c)
{
	struct iso_proc p;

	ev->started_ms = SUP_STARTED_UNKNOWN;
	if (ev->pid <= 0 || iso_proc_stat(ev->pid, &p) < 0) {
		snprintf(ev->at.why_not, sizeof(ev->at.why_not), "the process exited first");
		return;
	}
	ev->started_ms = sup_attrib_started_ms(c, p.start);
	sup_attrib_find(&ev->at, c, ev->pid, p.start);
}

/* --- the tree at a timeout ------------------------------------------------ */

static uint64_t alive_for(uint64_t start)
{
	uint64_t start_ms = start * 1000 / (uint64_t)iso_proc_ticks_per_sec(),
		 now = sup_boottime_ms();

	return now > start_ms ? now - start_ms : 0;
}

void sup_hung_take(struct sup_hung_tree *t, pid_t root, const struct sup_attrib_ctx *c)
{
	struct iso_proc *list = NULL;
	int n = iso_proc_descendants(root, &list);

	t->taken = true;
	t->procs = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->procs));
	for (int i = 0; t->procs && i < n; i++) {
		struct sup_hung *h;
		if (!iso_proc_alive(&list[i]))
			continue;
		if (t->n_procs == SUP_HUNG_MAX) {
			t->n_more++;
			continue;
		}
		h = &t->procs[t->n_procs++];
		*h = (struct sup_hung){ .pid = list[i].pid,
					.ppid = list[i].ppid,
					.state = list[i].state,
					.argv = sup_argv_read(list[i].pid),
					.alive_ms = alive_for(list[i].start) };
		sup_attrib_find(&h->at, c, list[i].pid, list[i].start);
	}
	free(list);
}

void sup_hung_survivors(struct sup_hung_tree *t, pid_t root)
{
	struct iso_proc *list = NULL;
	int n = iso_proc_descendants(root, &list);

	t->survived = calloc(n > 0 ? (size_t)n : 1, sizeof(*t->survived));
	for (int i = 0; t->survived && i < n; i++)
		if (iso_proc_alive(&list[i]) && list[i].state != 'Z')
			t->survived[t->n_survived++] =
				(struct sup_hung){ .pid = list[i].pid,
						   .argv = sup_argv_read(list[i].pid) };
	free(list);
}

static void hung_free_list(struct sup_hung *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		sup_argv_free(&v[i].argv);
		sup_attrib_free(&v[i].at);
	}
	free(v);
}

void sup_hung_free(struct sup_hung_tree *t)
{
	hung_free_list(t->procs, t->n_procs);
	hung_free_list(t->survived, t->n_survived);
	*t = (struct sup_hung_tree){ 0 };
}

static void argv_text(FILE *out, const struct sup_argv *a)
{
	_cleanup_free_ char *s = iso_join_cmdline((const char *const *)a->v, a->n, 200);

	fputs(a->n && s ? s : "?", out);
}

void sup_hung_text(FILE *out, const struct sup_outcome *o, bool cancel, const char *lead)
{
	const struct sup_hung_tree *t = &o->hung;
	char dur[32], sig[32], cs[32] = "";

	if (cancel)
		fprintf(out, "%scancelled by %s after %s; the tree then:\n", lead,
			iso_signal_name(o->cancelled_by, cs, sizeof(cs)),
			iso_format_duration(t->after_ms, dur, sizeof(dur)));
	else
		fprintf(out, "%stimed out after %s; the tree then:\n", lead,
			iso_format_duration(t->after_ms, dur, sizeof(dur)));
	for (size_t i = 0; i < t->n_procs; i++) {
		const struct sup_hung *h = &t->procs[i];
		fprintf(out, "%s  pid %d (parent %d, state %c, running %s) `", lead, h->pid,
			h->ppid, h->state, iso_format_duration(h->alive_ms, dur, sizeof(dur)));
		argv_text(out, &h->argv);
		fputs("`\n", out);
		/* the tree shows the parents: the test is what it adds */
		sup_attrib_text(out, &h->at, false, lead);
	}
	if (!t->n_procs)
		fprintf(out, "%s  (no process left)\n", lead);
	if (t->n_more)
		fprintf(out, "%s  and %zu more\n", lead, t->n_more);
	/* a cancel passes the caught signal to the command's group, --stop-signal to the rest */
	if (cancel)
		fprintf(out, "%ssent %s to the command's process group, %s to the rest; ", lead, cs,
			iso_signal_name(t->signal, sig, sizeof(sig)));
	else
		fprintf(out, "%ssent %s; ", lead, iso_signal_name(t->signal, sig, sizeof(sig)));
	fprintf(out, "SIGKILL in %s\n", iso_format_duration(t->grace_ms, dur, sizeof(dur)));
}

void sup_survived_text(FILE *out, const struct sup_hung_tree *t, const char *lead)
{
	char dur[32];

	for (size_t i = 0; i < t->n_survived; i++) {
		fprintf(out, "%sstill alive after the %s grace, killed: pid %d `", lead,
			iso_format_duration(t->grace_ms, dur, sizeof(dur)), t->survived[i].pid);
		argv_text(out, &t->survived[i].argv);
		fputs("`\n", out);
	}
}

/* --- the report's fields -------------------------------------------------- */

static json_t *started_json(int64_t ms)
{
	return ms == SUP_STARTED_UNKNOWN ? json_null() : json_integer((json_int_t)ms);
}

void sup_leak_json_add(json_t *entry, const struct sup_leak *l)
{
	json_object_set_new(entry, "ppid", l->ppid > 0 ? json_integer(l->ppid) : json_null());
	json_object_set_new(entry, "argv", sup_argv_json(&l->argv));
	json_object_set_new(entry, "exe", l->exe ? json_string(l->exe) : json_null());
	json_object_set_new(entry, "started_ms", started_json(l->started_ms));
	json_object_set_new(entry, "alive_ms",
			    l->started_ms == SUP_STARTED_UNKNOWN
				    ? json_null()
				    : json_integer((json_int_t)l->alive_ms));
	json_object_set_new(entry, "severity", json_string("error"));
	json_object_set_new(entry, "attribution", sup_attrib_json(&l->at));
}

void sup_refusal_json_add(json_t *entry, const struct sup_policy_event *ev)
{
	json_object_set_new(entry, "started_ms", started_json(ev->started_ms));
	json_object_set_new(entry, "attribution", sup_attrib_json(&ev->at));
}

json_t *sup_hung_json(const struct sup_hung_tree *t)
{
	json_t *procs, *survived;
	char sig[32];

	if (!t->taken)
		return json_null();
	procs = json_array();
	survived = json_array();
	for (size_t i = 0; i < t->n_procs; i++) {
		const struct sup_hung *h = &t->procs[i];
		char state[2] = { h->state, '\0' };
		json_array_append_new(procs,
				      json_pack("{s:i, s:i, s:o, s:s, s:I, s:o}", "pid", h->pid,
						"ppid", h->ppid, "argv", sup_argv_json(&h->argv),
						"state", state, "alive_ms", (json_int_t)h->alive_ms,
						"attribution", sup_attrib_json(&h->at)));
	}
	for (size_t i = 0; i < t->n_survived; i++)
		json_array_append_new(survived,
				      json_pack("{s:i, s:o}", "pid", t->survived[i].pid, "argv",
						sup_argv_json(&t->survived[i].argv)));
	return json_pack("{s:I, s:s, s:I, s:o, s:o}", "after_ms", (json_int_t)t->after_ms, "signal",
			 iso_signal_name(t->signal, sig, sizeof(sig)), "grace_ms",
			 (json_int_t)t->grace_ms, "processes", procs, "survived_grace", survived);
}

/* --- one finding, as stderr, JUnit and the annotations say it ------------ */

const char *sup_unmeasurable_why(const struct sup_outcome *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 o->gate_unmeasurable[0]      ? o->gate_unmeasurable
		 : !o->subreaper && !o->pidns ? o->subreaper_why
					      : "");
	return buf;
}

void sup_unmeasurable_text(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
			   size_t i)
{
	char why[256];

	fprintf(f, "leak check: not measurable (%s)", sup_unmeasurable_why(o, why, sizeof(why)));
}

/* One leak, its attribution lines indented below it. */
void sup_leak_text(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o, size_t i)
{
	sup_leak_lines(f, &o->leaks[i], o->leak_alive_ms, plan->leaks != SUP_FAIL, "");
}

void sup_refusal_text(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
		      size_t i)
{
	sup_refusal_lines(f, &o->policy_events[i], "");
}

void sup_residue_text(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
		      size_t i)
{
	_cleanup_free_ char *path = iso_escape(o->residue[i].path);
	_cleanup_free_ char *dir = iso_escape(o->residue[i].dir);

	fprintf(f, "residue%s: '%s' appeared in %s", plan->residue == SUP_FAIL ? "" : " (warning)",
		path ? path : "?", dir ? dir : "?");
}

void sup_residue_gap_text(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
			  size_t i)
{
	_cleanup_free_ char *dir = iso_escape(o->residue_gaps[i].dir);
	_cleanup_free_ char *why = iso_escape(o->residue_gaps[i].why);

	fprintf(f, "residue check: not measurable (%s: %s)", dir ? dir : "?", why ? why : "?");
}

/* With the tree taken when the timer fired: that tree, the stop, and who outlived the grace. */
void sup_timeout_line(FILE *f, const struct sup_run_plan *plan)
{
	char dur[32];

	iso_format_duration(plan->stop.timeout_ms, dur, sizeof(dur));
	fprintf(f, "timed out after %s; stopped the whole tree", dur);
}

void sup_timeout_text(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
		      size_t i)
{
	sup_timeout_line(f, plan);
	if (!o->hung.taken || o->cancelled_by)
		return;
	fputc('\n', f);
	sup_hung_text(f, o, false, "  ");
	sup_survived_text(f, &o->hung, "  ");
}

void sup_retained_text(FILE *f, const struct sup_run_plan *plan, const struct sup_outcome *o,
		       size_t i)
{
	_cleanup_free_ char *path = iso_shell_quote(o->tree_path);
	/* the reason names holders: their comm, their paths in the tree */
	_cleanup_free_ char *reason = iso_escape(o->tree_reason);

	fprintf(f, "tree retained at %s: %s", path ? path : "?", reason ? reason : "?");
}

/* The text without a final newline, whatever the kind's own function ends with. */
static void finding_text(FILE *f, sup_words_fn *words, const struct sup_run_plan *plan,
			 const struct sup_outcome *o, size_t i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	words(m, plan, o, i);
	if (fclose(m) == 0) {
		while (len && buf[len - 1] == '\n')
			buf[--len] = '\0';
		fputs(buf, f);
	}
	free(buf);
}

char *sup_finding_str(sup_words_fn *words, const struct sup_run_plan *plan,
		      const struct sup_outcome *o, size_t i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	finding_text(m, words, plan, o, i);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The command ran and failed on its own: not isorun's stop, not a start that failed. */
static bool failed_itself(const struct sup_outcome *o)
{
	return o->started_cmd && !o->exec_failed && !o->setup_failed && !o->timed_out &&
	       !o->cancelled_by && (o->exit_code || o->term_signal);
}

bool sup_tmp_note(const struct sup_run_plan *plan, const char *const *say,
		  const struct sup_outcome *o, char *buf, size_t len)
{
	if (!plan->mounts.private_tmp || !failed_itself(o))
		return false;
	snprintf(buf, len,
		 "/tmp and /var/tmp were the run's own (%s: of the host's files there only "
		 "the working directory and the tree stayed visible); if it failed on a file "
		 "of the host's there (\"No such file or directory\"), %s",
		 sup_say(say, SUP_SAY_PRIVATE_TMP), sup_say(say, SUP_SAY_PRIVATE_TMP_FIX));
	return true;
}

bool sup_home_note(const struct sup_run_plan *plan, const char *const *say,
		   const struct sup_outcome *o, char *buf, size_t len)
{
	_cleanup_free_ char *q = NULL;

	if (plan->mounts.home == NS_HOME_OFF || !o->home || !failed_itself(o))
		return false;
	q = iso_shell_quote(o->home);
	if (plan->mounts.home == NS_HOME_HIDE)
		snprintf(buf, len,
			 "the real home %s was hidden from the command (%s: an empty read-only "
			 "directory in its place); if it failed reading or writing there, %s",
			 q ? q : o->home, sup_say(say, SUP_SAY_HOME_HIDE),
			 sup_say(say, SUP_SAY_HOME_HIDE_FIX));
	else
		snprintf(buf, len,
			 "the real home %s was read-only for the command (%s); if it failed "
			 "writing there (\"Read-only file system\"), %s",
			 q ? q : o->home, sup_say(say, SUP_SAY_HOME_RO),
			 sup_say(say, SUP_SAY_HOME_RO_FIX));
	return true;
}
