// SPDX-License-Identifier: MIT
/*
 * What the selftest prints: one line per probe and per control as each is
 * done, then the verdict; or, with --json, one document at the end holding the
 * same facts.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/version.h"
#include "common/text.h"
#include "selftest/selftest.h"

const char *const st_probe_name[ST_SP_COUNT] = {
	[ST_SP_SUBREAPER] = "subreaper",
	[ST_SP_USERNS] = "userns",
	[ST_SP_PIDNS] = "pidns",
	[ST_SP_MOUNTNS] = "mountns",
	[ST_SP_NETNS] = "netns",
	[ST_SP_SECCOMP] = "seccomp",
	[ST_SP_NOTIFY] = "seccomp-notify",
	[ST_SP_PIDFD] = "pidfd",
	[ST_SP_CLOSE_RANGE] = "close_range",
	[ST_SP_CGROUP2] = "cgroup2",
};

const char *const st_control_name[ST_SC_COUNT] = {
	[ST_SC_CLEAN] = "clean",	   [ST_SC_DAEMON] = "daemon",
	[ST_SC_HOLDER] = "holder",	   [ST_SC_HOME] = "protect-home",
	[ST_SC_SERVICE] = "service-guard", [ST_SC_DENYLIST] = "deny-list",
	[ST_SC_SIGNALS] = "signals",	   [ST_SC_NET] = "net-isolated",
	[ST_SC_PIDS] = "pids-ceiling",	   [ST_SC_MEMORY] = "memory-ceiling",
};

/* each description: before, the option it names (enum st_say, or -1), after */
static const struct {
	const char *pre;
	int say;
	const char *post;
} what[ST_SC_COUNT] = {
	[ST_SC_CLEAN] = { "a command that leaves nothing passes and prints nothing", -1, "" },
	[ST_SC_DAEMON] = { "a setsid daemon left behind is named and fails the run", -1, "" },
	[ST_SC_HOLDER] = { "a file in the tree held open from outside makes isorun retain the tree",
			   -1, "" },
	[ST_SC_HOME] = { "under ", ST_SAY_HOME_RO, " a write to the real home fails" },
	[ST_SC_SERVICE] = { "`systemctl restart` is refused while `systemctl is-active` runs", -1,
			    "" },
	[ST_SC_DENYLIST] = { "the policy's deny-list refuses host-mutating calls", -1, "" },
	[ST_SC_SIGNALS] = { "a signal from the run to a process outside it is refused", -1, "" },
	[ST_SC_NET] = { "under ", ST_SAY_NET_ISOLATED,
			" the host's loopback listener is unreachable" },
	[ST_SC_PIDS] = { "a fork storm is stopped at ", ST_SAY_PIDS_MAX, "" },
	[ST_SC_MEMORY] = { "an allocation past ", ST_SAY_MEMORY_MAX, " is refused or OOM-killed" },
};

void st_control_what(const struct st_ctx *c, int i, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", what[i].pre, what[i].say >= 0 ? c->says[what[i].say] : "",
		 what[i].post);
}

static const char *verdict_name(int v)
{
	return v == ST_YES ? "yes" : v == ST_PARTIAL ? "partial" : "no";
}

static const char *result_name(int r)
{
	switch (r) {
	case ST_OK:
		return "ok";
	case ST_NOT_OK:
		return "not ok";
	case ST_NOT_MEASURABLE:
		return "not measurable";
	default:
		return "not run";
	}
}

void st_print_probe(const struct st_ctx *c, int id)
{
	const struct st_probe *p = &c->probes[id];

	if (c->json)
		return;
	printf("probe %s: %s (%s)\n", st_probe_name[id], verdict_name(p->verdict), p->reason);
	fflush(stdout);
}

void st_print_control(const struct st_ctx *c, int id)
{
	const struct st_control *k = &c->controls[id];

	if (c->json)
		return;
	printf("control %s: %s (%s)\n", st_control_name[id], result_name(k->result), k->detail);
	fflush(stdout);
}

/* json_string() refuses invalid UTF-8; a reason quoting a path may hold any bytes. */
static json_t *str(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j)
		return j;
	copy = strdup(s);
	if (!copy)
		return json_null();
	for (char *p = copy; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(copy);
	free(copy);
	return j ? j : json_null();
}

static json_t *document(const struct st_ctx *c, int code, bool cleaned, const char *clean_error,
			size_t n_ok, size_t n_bad, size_t n_nm)
{
	json_t *doc = json_object(), *probes = json_array(), *controls = json_array(),
	       *fwd = json_array();

	for (int i = 0; i < ST_SP_COUNT; i++)
		json_array_append_new(probes,
				      json_pack("{s:s, s:s, s:o}", "name", st_probe_name[i],
						"verdict", verdict_name(c->probes[i].verdict),
						"reason", str(c->probes[i].reason)));
	for (int i = 0; i < ST_SC_COUNT; i++) {
		const struct st_control *k = &c->controls[i];
		char desc[256];

		st_control_what(c, i, desc, sizeof(desc));
		json_array_append_new(
			controls,
			json_pack("{s:s, s:s, s:s, s:o, s:o}", "name", st_control_name[i],
				  "description", desc, "result", result_name(k->result), "detail",
				  str(k->detail), "exit",
				  k->exit_code >= 0 ? json_integer(k->exit_code) : json_null()));
	}
	for (size_t i = 0; i < c->fwd.n; i++)
		json_array_append_new(fwd, str(c->fwd.argv[i]));
	json_object_set_new(doc, "version", json_string(ISO_VERSION));
	json_object_set_new(doc, "isorun", str(c->self));
	json_object_set_new(doc, "uid", json_integer(getuid()));
	json_object_set_new(doc, "options", fwd);
	json_object_set_new(doc, "probes", probes);
	json_object_set_new(doc, "controls", controls);
	json_object_set_new(doc, "summary",
			    json_pack("{s:I, s:I, s:I}", "ok", (json_int_t)n_ok, "not_ok",
				      (json_int_t)n_bad, "not_measurable", (json_int_t)n_nm));
	json_object_set_new(doc, "cleanup",
			    json_pack("{s:o, s:b, s:o}", "dir", str(c->dir), "removed", cleaned,
				      "error", clean_error ? str(clean_error) : json_null()));
	json_object_set_new(doc, "ok", json_boolean(code == ST_EXIT_OK));
	json_object_set_new(doc, "exit", json_integer(code));
	return doc;
}

static void add_name(char *buf, size_t len, const char *name)
{
	size_t used = strlen(buf);

	snprintf(buf + used, len - used, "%s%s", used ? ", " : "", name);
}

int st_print_verdict(const struct st_ctx *c, bool cleaned, const char *clean_error, int cancelled)
{
	size_t n_ok = 0, n_bad = 0, n_nm = 0;
	char bad[256] = "", not_run[256] = "", reason[800] = "", nm[64] = "";
	int code;

	for (int i = 0; i < ST_SC_COUNT; i++) {
		int r = c->controls[i].result;

		if (r == ST_OK) {
			n_ok++;
		} else if (r == ST_NOT_MEASURABLE) {
			n_nm++;
		} else if (r == ST_NOT_RUN) {
			add_name(not_run, sizeof(not_run), st_control_name[i]);
		} else {
			n_bad++;
			add_name(bad, sizeof(bad), st_control_name[i]);
		}
	}
	if (cancelled) {
		code = 128 + cancelled;
		char sig[32];

		snprintf(reason, sizeof(reason), "cancelled by %s",
			 iso_signal_name(cancelled, sig, sizeof(sig)));
	} else {
		code = n_bad || !cleaned ? ST_EXIT_NOT_OK : ST_EXIT_OK;
	}
	if (n_bad)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), "%snot ok: %s",
			 reason[0] ? "; " : "", bad);
	if (not_run[0])
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason), "%snot run: %s",
			 reason[0] ? "; " : "", not_run);
	if (!cleaned)
		snprintf(reason + strlen(reason), sizeof(reason) - strlen(reason),
			 "%sprivate directory left", reason[0] ? "; " : "");
	if (c->json) {
		json_t *doc = document(c, code, cleaned, clean_error, n_ok, n_bad, n_nm);

		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(doc);
	} else {
		if (!cleaned)
			printf("cleanup: not ok (%s)\n", clean_error ? clean_error : "?");
		if (n_nm)
			snprintf(nm, sizeof(nm), ", %zu not measurable on this host", n_nm);
		if (code == ST_EXIT_OK)
			printf("selftest: ok (%zu controls ok%s)\n", n_ok, nm);
		else
			printf("selftest: FAILED (exit %d): %s\n", code, reason);
	}
	fflush(stdout);
	return code;
}
