// SPDX-License-Identifier: MIT
#include "launcher/finding.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/residue.h"
#include "launcher/shell.h"

size_t iso_refused_count(const struct iso_outcome *o)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_policy_events; i++)
		n += o->policy_events[i].refused;
	return n;
}

bool iso_leaks_count(const struct iso_opts *opts, const struct iso_outcome *o)
{
	return o->n_leaks && opts->leaks == ISO_FAIL;
}

bool iso_unmeasurable_counts(const struct iso_opts *opts, const struct iso_outcome *o)
{
	return (!o->subreaper && !o->pidns && opts->leaks == ISO_FAIL) || o->gate_unmeasurable[0];
}

const char *iso_unmeasurable_why(const struct iso_outcome *o, char *buf, size_t len)
{
	snprintf(buf, len, "%s",
		 o->gate_unmeasurable[0]      ? o->gate_unmeasurable
		 : !o->subreaper && !o->pidns ? o->subreaper_why
					      : "");
	return buf;
}

void iso_leak_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o, size_t i)
{
	const struct iso_leak *l = &o->leaks[i];
	_cleanup_free_ char *cwd = iso_shell_quote(l->cwd ? l->cwd : "?");
	char inner[48] = "", session[48] = "", alive[32];

	iso_format_duration(o->leak_alive_ms, alive, sizeof(alive));
	/*
	 * Under --pidns both pids: the outer one for the host's tools, the inner one
	 * as the command saw it.  A session begun outside the namespace has no number
	 * inside it (procfs shows 0).
	 */
	if (l->inner_pid)
		snprintf(inner, sizeof(inner), " (pid %d in the namespace)", l->inner_pid);
	if (l->sid > 0)
		snprintf(session, sizeof(session), "session %d, ", l->sid);
	else if (l->inner_pid)
		snprintf(session, sizeof(session), "session outside the namespace, ");
	fprintf(f, "%s: pid %d%s `%s` (cwd %s, %salive %s after the command); killed",
		opts->leaks == ISO_FAIL ? "leaked" : "leaked (warning)", l->pid, inner,
		l->cmdline ? l->cmdline : "?", cwd ? cwd : "?", session, alive);
}

void iso_refusal_text(FILE *f, const struct iso_outcome *o, size_t i)
{
	const struct iso_policy_event *ev = &o->policy_events[i];
	_cleanup_free_ char *detail = iso_redact(ev->detail ? ev->detail : "");

	fprintf(f, "%s: %s `%s` (pid %d, rule %s)", ev->refused ? "refused" : "logged", ev->call,
		detail ? detail : "?", ev->pid, ev->origin ? ev->origin : "?");
}

void iso_residue_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o, size_t i)
{
	fprintf(f, "residue%s: '%s' appeared in %s", opts->residue == ISO_FAIL ? "" : " (warning)",
		o->residue[i].path, o->residue[i].dir);
}

void iso_timeout_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o)
{
	char dur[32];

	iso_format_duration(opts->timeout_ms, dur, sizeof(dur));
	fprintf(f, "timed out after %s; stopped the whole tree", dur);
}

void iso_retained_text(FILE *f, const struct iso_outcome *o)
{
	_cleanup_free_ char *path = iso_shell_quote(o->tree_path);

	fprintf(f, "namespace retained at %s: %s", path ? path : "?", o->tree_reason);
}

void iso_finding_text(FILE *f, const struct iso_opts *opts, const struct iso_outcome *o,
		      enum iso_finding_kind kind, size_t i)
{
	switch (kind) {
	case ISO_FIND_LEAK:
		iso_leak_text(f, opts, o, i);
		break;
	case ISO_FIND_REFUSAL:
		iso_refusal_text(f, o, i);
		break;
	case ISO_FIND_RESIDUE:
		iso_residue_text(f, opts, o, i);
		break;
	case ISO_FIND_TIMEOUT:
		iso_timeout_text(f, opts, o);
		break;
	case ISO_FIND_RETAINED:
		iso_retained_text(f, o);
		break;
	}
}

char *iso_finding_str(const struct iso_opts *opts, const struct iso_outcome *o,
		      enum iso_finding_kind kind, size_t i)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return NULL;
	iso_finding_text(m, opts, o, kind, i);
	if (fclose(m) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
