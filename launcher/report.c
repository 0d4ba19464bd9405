// SPDX-License-Identifier: MIT
#include "launcher/report.h"

#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/finding.h"

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

static json_t *tail(const struct iso_stream *s)
{
	char buf[ISO_TAIL_MAX + 1];
	size_t n;

	if (!s)
		return json_null();
	n = iso_stream_tail(s, buf);
	/* a cut through a multi-byte character comes out escaped, not lost */
	return text(buf, n);
}

static json_t *names(char **env)
{
	json_t *a = json_array();

	for (size_t i = 0; env && env[i]; i++)
		json_array_append_new(a, text(env[i], strcspn(env[i], "=")));
	return a;
}

static const char *state_name(enum iso_tree_state s)
{
	switch (s) {
	case ISO_TREE_REMOVED:
		return "removed";
	case ISO_TREE_KEPT:
		return "kept";
	case ISO_TREE_RETAINED:
		return "retained";
	default:
		return "none";
	}
}

static json_t *micros(uint64_t us)
{
	return us == ISO_TIMING_NONE ? json_null() : json_integer((json_int_t)us);
}

/* --pidns: how init ended when it was not the outer's doing; null otherwise. */
static json_t *init_lost(const struct iso_outcome *o)
{
	char sig[32];

	if (!o->init_lost)
		return json_null();
	if (o->init_signal)
		return json_pack("{s:s}", "signal",
				 iso_signal_name(o->init_signal, sig, sizeof(sig)));
	return json_pack("{s:i}", "exit_code", o->init_status);
}

static json_t *isolation(const struct iso_outcome *o)
{
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

static json_t *policy(const struct iso_outcome *o)
{
	json_t *refused = json_array();

	for (size_t i = 0; i < o->n_policy_events; i++) {
		const struct iso_policy_event *ev = &o->policy_events[i];
		json_t *e = json_pack("{s:i, s:s, s:o, s:s, s:s}", "pid", ev->pid, "call", ev->call,
				      "detail", redacted(ev->detail), "rule",
				      ev->origin ? ev->origin : "", "action",
				      ev->refused ? "refused" : "logged");
		iso_refusal_json_add(e, ev);
		json_array_append_new(refused, e);
	}
	return json_pack("{s:s, s:s, s:s, s:o}", "name", o->policy_name ? o->policy_name : "off",
			 "mode", o->policy_log ? "log" : "enforce", "service_guard",
			 !o->policy_name      ? "off"
			 : o->guard_elsewhere ? "enclosing isorun"
					      : "this isorun",
			 "refused", refused);
}

static json_t *leaks(const struct iso_outcome *o)
{
	json_t *v = json_array();

	for (size_t i = 0; i < o->n_leaks; i++) {
		const struct iso_leak *l = &o->leaks[i];
		json_t *e = json_pack(
			"{s:i, s:o, s:o, s:o, s:i, s:b}", "pid", l->pid, "pid_in_namespace",
			l->inner_pid ? json_integer(l->inner_pid) : json_null(), "cmdline",
			redacted(l->cmdline), "cwd", l->cwd ? redacted(l->cwd) : json_null(),
			"session", l->sid, "killed", 1);
		iso_leak_json_add(e, l);
		json_array_append_new(v, e);
	}
	return v;
}

static json_t *residue(const struct iso_outcome *o)
{
	json_t *v = json_array();

	for (size_t i = 0; i < o->n_residue; i++)
		json_array_append_new(v, json_pack("{s:s, s:s}", "dir", o->residue[i].dir, "path",
						   o->residue[i].path));
	return v;
}

static json_t *signal_or_null(int sig)
{
	char name[32];

	return sig ? json_string(iso_signal_name(sig, name, sizeof(name))) : json_null();
}

static json_t *result(const struct iso_outcome *o)
{
	return json_pack("{s:o, s:o, s:b, s:o, s:b, s:s?, s:o, s:s?}", "exit_code",
			 o->exited && !o->term_signal ? json_integer(o->exit_code) : json_null(),
			 "signal", signal_or_null(o->term_signal), "timed_out", o->timed_out,
			 "cancelled_by", signal_or_null(o->cancelled_by), "exec_failed",
			 o->exec_failed, "exec_error", o->exec_failed ? o->exec_error : NULL,
			 "init_lost", init_lost(o), "setup_error",
			 o->setup_failed ? o->setup_error : NULL);
}

static json_t *build(const struct iso_outcome *o)
{
	json_t *root = json_object(), *argv = json_array();
	char started[64];
	struct tm tm;

	for (size_t i = 0; i < o->argc; i++)
		json_array_append_new(argv, redacted(o->argv[i]));
	iso_utc(o->started.tv_sec, &tm);
	strftime(started, sizeof(started), "%Y-%m-%dT%H:%M:%SZ", &tm);

	json_object_set_new(root, "version", json_string(ISO_VERSION));
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
	json_object_set_new(root, "isolation", isolation(o));
	json_object_set_new(root, "policy", policy(o));
	json_object_set_new(root, "leaks", leaks(o));
	json_object_set_new(root, "timeout", iso_hung_json(&o->hung));
	json_object_set_new(root, "capabilities", iso_caps_json(&o->caps));
	json_object_set_new(root, "residue", residue(o));
	json_object_set_new(root, "tree",
			    json_pack("{s:s?, s:s, s:s?}", "path",
				      o->tree_path[0] ? o->tree_path : NULL, "state",
				      state_name(o->tree_state), "reason",
				      o->tree_reason[0] ? o->tree_reason : NULL));
	json_object_set_new(root, "result", result(o));
	json_object_set_new(root, "exit", json_integer(o->exit));
	/* merged: the one tail is stdout's, in the order the command wrote */
	json_object_set_new(root, "output_tail",
			    json_pack("{s:o, s:o, s:b}", "stdout", tail(o->streams[0]), "stderr",
				      tail(o->streams[1]), "merged", o->output_merged));
	return root;
}

/* {"error": strerror, "bytes": N} for a stream whose output did not all arrive */
static json_t *lost(const struct iso_stream *s)
{
	if (!iso_stream_lost(s))
		return json_null();
	return json_pack("{s:s, s:I}", "error", strerror(s->out_err), "bytes", (json_int_t)s->lost);
}

/*
 * The whole text, then a sync where the file has one: a report that is not on the
 * disk is no evidence, and ENOSPC, EDQUOT or EIO may surface only at the sync.
 */
int iso_report_write(int fd, const struct iso_outcome *o)
{
	json_t *root = build(o);
	_cleanup_free_ char *text = NULL;
	size_t len, done = 0;

	if (!root)
		return -ENOMEM;
	json_object_set_new(root, "output_lost",
			    json_pack("{s:o, s:o}", "stdout", lost(o->streams[0]), "stderr",
				      lost(o->streams[1])));
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	if (!text)
		return -ENOMEM;
	len = strlen(text);
	text[len++] = '\n'; /* over the NUL: json_dumps' buffer has room for it */
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (w == 0)
			return -EIO;
		done += (size_t)w;
	}
	/* a pipe or a device has nothing to sync */
	if (fsync(fd) < 0 && errno != EINVAL && errno != EROFS)
		return -errno;
	return 0;
}
