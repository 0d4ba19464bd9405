// SPDX-License-Identifier: MIT
/*
 * Unit tests: the key table (cli/keys.c) is the one description of an option.
 * Every entry is whole; a value isorun config shows reads back as the same
 * value; the report's settings keep their published keys and order.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/args.h"
#include "cli/keys.h"
#include "launcher/cache.h"
#include "ns/ns.h"

/* Each key with a report key stands once in the report's order; the ceilings by -1. */
static void test_report_order_names_each_reported_key_once(void **state)
{
	int seen[SUP_N_KEYS] = { 0 };

	(void)state;
	for (size_t i = 0; i < cli_key_report_order_n; i++) {
		int k = cli_key_report_order[i];

		if (k == -1) {
			for (int c = 0; c < SUP_N_CEILINGS; c++)
				seen[SUP_K_CEILING + c]++;
			continue;
		}
		assert_true(k >= 0 && k < SUP_N_KEYS);
		seen[k]++;
	}
	for (int k = 0; k < SUP_N_KEYS; k++)
		assert_int_equal(seen[k], cli_keys[k].report ? 1 : 0);
}

static void test_every_entry_is_whole(void **state)
{
	for (int k = 0; k < SUP_N_KEYS; k++) {
		const struct cli_key_info *x = &cli_keys[k];

		assert_non_null(x->name);
		assert_non_null(x->parse);
		/* a list is shown entry by entry, a value by its key's show */
		assert_int_equal(x->show == NULL, x->kind == CLI_KIND_LIST);
		assert_int_equal(x->report == NULL, x->report_value == NULL);
		/* a choice's field is one the setter can write */
		if (x->words)
			assert_true(x->size == sizeof(bool) || x->size == sizeof(int));
	}
}

/*
 * --help is generated from the table: every key has its words, and its line starts
 * "  --NAME" (or "  -L, --NAME"), in the table's order; no line is wider than 80.
 */
static void test_help_lists_every_key(void **state)
{
	char *text = NULL, *at;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	cli_usage(f);
	assert_int_equal(fclose(f), 0);
	at = text;
	for (int k = 0; k < SUP_N_KEYS; k++) {
		char head[64];
		char *hit;
		size_t n;

		if (k < SUP_K_CEILING || k >= SUP_K_CEILING + SUP_N_CEILINGS)
			assert_non_null(cli_keys[k].help);
		if (cli_keys[k].letter)
			snprintf(head, sizeof(head), "\n  -%c, --%s", cli_keys[k].letter,
				 cli_keys[k].name);
		else
			snprintf(head, sizeof(head), "\n  --%s", cli_keys[k].name);
		hit = strstr(at, head);
		if (!hit)
			fail_msg("--help has no line for --%s after the keys before it",
				 cli_keys[k].name);
		n = strlen(head);
		/* the name ends there: --keep is not --keep-env's line */
		assert_true(hit[n] == ' ' || hit[n] == '=' || hit[n] == '[' || hit[n] == '\n');
		at = hit + n;
	}
	for (char *line = text; *line;) {
		size_t n = strcspn(line, "\n");

		if (n > 80)
			fail_msg("--help line wider than 80: %.*s", (int)n, line);
		line += n + (line[n] == '\n');
	}
	free(text);
}

/* The report's keys and their order are published (docs/contract.md, the report). */
static void test_report_order_is_published(void **state)
{
	static const char *const want[] = {
		"config",
		"root",
		"keep",
		"chdir",
		"clearenv",
		"watch",
		"residue",
		"leaks",
		"timeout_ms",
		"stop_signal",
		"grace_ms",
		"settle_ms",
		"pidns",
		"map_root",
		"net",
		"private_tmp",
		"protect_home",
		"writable",
		"policy",
		"policy_mode",
		"report",
		"junit",
		"finding_exit_code",
		"memory_max",
		"pids_max",
		"cpu_max",
		"rlimit_nofile",
		"rlimit_core",
		"rlimit_fsize",
		"cgroup",
		"map_users",
		"cache",
	};
	struct sup_report_setting s[SUP_REPORT_SETTINGS_MAX];
	struct sup_opts o;
	size_t n;
	int in_report = 0;

	for (int k = 0; k < SUP_N_KEYS; k++)
		in_report += cli_keys[k].report != NULL;
	sup_opts_init(&o);
	n = cli_key_report(&o, s);
	/* no key lost to a gap or a twice-used place */
	assert_int_equal(n, in_report + 1);
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < n; i++)
		assert_string_equal(s[i].key, want[i]);
	sup_opts_free(&o);
}

static const struct sup_report_setting *find(const struct sup_report_setting *s, size_t n,
					     const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].key, key) == 0)
			return &s[i];
	fail_msg("no report setting %s", key);
	return &s[0]; /* not reached: fail_msg() leaves the test */
}

static void test_report_values(void **state)
{
	char *argv[] = { "isorun",
			 "--report",
			 "fd:3",
			 "--pidns=try",
			 "--policy=./p.pol",
			 "--rlimit-core",
			 "unlimited",
			 "--pids-max",
			 "try:50",
			 "--protect-home=read-only",
			 "--",
			 "true",
			 NULL };
	struct sup_report_setting s[SUP_REPORT_SETTINGS_MAX];
	struct iso_err e = { 0 };
	struct sup_opts o;
	size_t n;

	sup_opts_init(&o);
	assert_int_equal(cli_parse_args(12, argv, &o, &e), CLI_RUN);
	n = cli_key_report(&o, s);
	assert_int_equal(find(s, n, "report")->kind, SUP_REPORT_STRING);
	assert_int_equal(find(s, n, "policy")->kind, SUP_REPORT_PATH);
	assert_int_equal(find(s, n, "timeout_ms")->kind, SUP_REPORT_NULL);
	assert_int_equal(find(s, n, "grace_ms")->num, 5000);
	assert_string_equal(find(s, n, "pidns")->str, "try");
	assert_string_equal(find(s, n, "protect_home")->str, "ro");
	assert_string_equal(find(s, n, "rlimit_core")->str, "unlimited");
	assert_int_equal(find(s, n, "rlimit_nofile")->kind, SUP_REPORT_NULL);
	assert_int_equal(find(s, n, "pids_max")->kind, SUP_REPORT_CEILING);
	assert_int_equal(find(s, n, "pids_max")->num, 50);
	assert_true(find(s, n, "pids_max")->flag);
	assert_string_equal(find(s, n, "stop_signal")->str, "SIGTERM");
	sup_opts_free(&o);
}

/*
 * A value of each scalar key, set as isorun.conf sets it: what isorun config
 * shows for it is accepted again and shows the same.  A key missing here fails,
 * so that a new option gets a sample.
 */
static const struct {
	const char *key, *val;
} samples[] = {
	{ "root", "r" },
	{ "keep", "true" },
	{ "clearenv", "on" },
	{ "chdir", "d" },
	{ "residue", "fail" },
	{ "watch-home", "yes" },
	{ "timeout", "90s" },
	{ "stop-signal", "INT" },
	{ "grace", "1500ms" },
	{ "settle", "0" },
	{ "leaks", "ignore" },
	{ "report", "fd:3" },
	{ "junit", "j.xml" },
	{ "finding-exit-code", "9" },
	{ "pidns", "try" },
	{ "map-root", "1" },
	{ "map-users", "require" },
	{ "cap-keep", "net_raw" },
	{ "net", "isolated" },
	{ "private-tmp", "yes" },
	{ "protect-home", "read-only" },
	{ "policy", "strict" },
	{ "policy-mode", "log" },
	{ "quiet", "true" },
	{ "verbose", "true" },
	{ "color", "never" },
	{ "rlimit-nofile", "64" },
	{ "rlimit-core", "infinity" },
	{ "rlimit-fsize", "1M" },
	{ "memory-max", "try:512M" },
	{ "pids-max", "100" },
	{ "cpu-max", "150%" },
	{ "cgroup", "off" },
};

static void test_shown_value_reads_back(void **state)
{
	for (int k = 0; k < SUP_N_KEYS; k++) {
		struct sup_opts a, b;
		struct iso_err e = { 0 };
		char buf[64], buf2[64], shown[64], val[64] = "";

		if (cli_keys[k].kind == CLI_KIND_LIST)
			continue;
		for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++)
			if (strcmp(samples[i].key, cli_keys[k].name) == 0)
				snprintf(val, sizeof(val), "%s", samples[i].val);
		/* an output file of the sinks table takes any file name */
		if (!val[0] && cli_key_output(k))
			snprintf(val, sizeof(val), "%s.out", cli_keys[k].name);
		if (!val[0])
			fail_msg("no sample value for %s", cli_keys[k].name);
		sup_opts_init(&a);
		sup_opts_init(&b);
		assert_int_equal(cli_opt_set(&a, k, val, 1, &e), 0);
		snprintf(shown, sizeof(shown), "%s", cli_key_show(&a, k, buf, sizeof(buf)));
		assert_int_equal(cli_opt_set(&b, k, shown, 1, &e), 0);
		if (strcmp(shown, cli_key_show(&b, k, buf2, sizeof(buf2))) != 0)
			fail_msg("%s: shown '%s', read back as '%s'", cli_keys[k].name, shown,
				 cli_key_show(&b, k, buf2, sizeof(buf2)));
		sup_opts_free(&a);
		sup_opts_free(&b);
	}
}

/* A choice's message lists its words from the table, the alias beside its word. */
static void test_choice_words(void **state)
{
	struct iso_err e = { 0 };
	struct sup_opts o;

	sup_opts_init(&o);
	assert_true(cli_opt_set(&o, SUP_K_PROTECT_HOME, "x", SUP_FROM_CLI, &e) < 0);
	assert_string_equal(e.msg, "--protect-home: expected off, ro (read-only) or hide, got 'x'");
	assert_true(cli_opt_set(&o, SUP_K_CGROUP, "x", 3, &e) < 0);
	assert_string_equal(e.msg, "cgroup: expected auto or off, got 'x'");
	assert_true(cli_opt_set(&o, SUP_K_NET, "isolated", 3, &e) == 0);
	assert_true(o.net_isolated);
	assert_true(cli_opt_set(&o, SUP_K_POLICY_MODE, "log", 3, &e) == 0);
	assert_true(o.policy_log);
	assert_true(cli_opt_set(&o, SUP_K_COLOR, NULL, SUP_FROM_CLI, &e) == 0);
	assert_int_equal(o.color, SUP_COLOR_ALWAYS);
	/* a word of another choice is no word of this one */
	assert_true(cli_opt_set(&o, SUP_K_RESIDUE, "ignore", 3, &e) < 0);
	assert_string_equal(e.msg, "residue: expected fail or warn, got 'ignore'");
	sup_opts_free(&o);
}

/* --cache: each name once, in the order given; an unknown one names the known ones. */
static void test_cache_names(void **state)
{
	struct iso_err e = { 0 };
	struct sup_opts o;
	char a[] = "npm,go", b[] = " go , pip", bad[] = "go,gp", none[] = "none", empty[] = "";
	struct sup_report_setting s[SUP_REPORT_SETTINGS_MAX];
	size_t n;

	sup_opts_init(&o);
	assert_int_equal(cli_opt_set(&o, SUP_K_CACHE, a, SUP_FROM_CLI, &e), 0);
	assert_int_equal(cli_opt_set(&o, SUP_K_CACHE, b, SUP_FROM_CLI, &e), 0);
	assert_int_equal(o.caches.n, 3);
	assert_string_equal(o.caches.v[0], "go");
	assert_string_equal(o.caches.v[1], "npm");
	assert_string_equal(o.caches.v[2], "pip");
	n = cli_key_report(&o, s);
	assert_int_equal(find(s, n, "cache")->kind, SUP_REPORT_STRINGS);
	assert_int_equal(find(s, n, "cache")->paths->n, 3);
	assert_true(cli_opt_set(&o, SUP_K_CACHE, bad, SUP_FROM_CLI, &e) < 0);
	assert_string_equal(e.msg, "--cache: unknown cache 'gp'; did you mean go? (known: go, "
				   "npm, pip, cargo, xdg, none)");
	assert_true(cli_opt_set(&o, SUP_K_CACHE, empty, 4, &e) < 0);
	assert_string_equal(e.msg,
			    "cache: unknown cache '' (known: go, npm, pip, cargo, xdg, none)");
	assert_int_equal(cli_opt_set(&o, SUP_K_CACHE, none, SUP_FROM_CLI, &e), 0);
	assert_int_equal(o.caches.n, 0);
	sup_opts_free(&o);
}

/* One place decides which options need a namespace (the run plan's first part). */
static void test_plan_namespaces(void **state)
{
	static const struct {
		enum sup_key key;
		const char *val;
		bool protections, namespaces;
	} cases[] = {
		{ SUP_K_NET, "isolated", true, true },
		{ SUP_K_PRIVATE_TMP, "true", true, true },
		{ SUP_K_PROTECT_HOME, "ro", true, true },
		{ SUP_K_PROTECT_HOME, "hide", true, true },
		{ SUP_K_PIDNS, "try", false, true },
		{ SUP_K_PIDNS, "true", false, true },
		{ SUP_K_NET, "host", false, false },
		{ SUP_K_PROTECT_HOME, "off", false, false },
		{ SUP_K_MAP_ROOT, "true", false, false },
		{ SUP_K_TMPFS, "/x", true, true },
		{ SUP_K_RO_BIND, "/x", true, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct iso_err e = { 0 };
		struct sup_opts o;
		char val[16];

		snprintf(val, sizeof(val), "%s", cases[i].val);
		sup_opts_init(&o);
		assert_int_equal(cli_opt_set(&o, cases[i].key, val, 1, &e), 0);
		cli_plan_compile(&o);
		assert_int_equal(o.plan.protections, cases[i].protections);
		assert_int_equal(o.plan.namespaces, cases[i].namespaces);
		sup_opts_free(&o);
	}
}

/* One case: up to two settings and the plan they compile to. */
struct plan_case {
	struct {
		enum sup_key key;
		const char *val;
	} set[2];
	size_t n;
	struct sup_run_plan want;
};

/* STOP: the default stop; NS: what every protection implies (namespaces, init) */
#define STOP                                                                                       \
	{                                                                                          \
		.signal = SIGTERM, .grace_ms = 5000, .settle_ms = 3000                             \
	}
#define NS .protections = true, .namespaces = true, .init_gate = true

// clang-format off
static const struct plan_case plan_cases[] = {
	/* nothing asked: no namespace, no init, the default stop, the default policy */
	{ .n = 0, .want = { .policy = true, .stop = STOP } },
	/* --net=isolated: a protection; init brings lo up in a network namespace */
	{ { { SUP_K_NET, "isolated" } }, 1,
	  { NS, .mounts = { .net_isolated = true }, .policy = true, .stop = STOP } },
	/* --private-tmp: a protection that hides the host's /tmp */
	{ { { SUP_K_PRIVATE_TMP, "true" } }, 1,
	  { NS, .hides = true, .mounts = { .private_tmp = true }, .policy = true, .stop = STOP } },
	/* --protect-home=ro: a protection that hides nothing; hide does */
	{ { { SUP_K_PROTECT_HOME, "ro" } }, 1,
	  { NS, .mounts = { .home = NS_HOME_RO }, .policy = true, .stop = STOP } },
	{ { { SUP_K_PROTECT_HOME, "hide" } }, 1,
	  { NS, .hides = true, .mounts = { .home = NS_HOME_HIDE }, .policy = true, .stop = STOP } },
	/* --pidns: init, no protection, never a fallback */
	{ { { SUP_K_PIDNS, "true" } }, 1,
	  { .namespaces = true, .init_gate = true, .policy = true, .stop = STOP } },
	/* --pidns=try alone may fall back to the subreaper gate ... */
	{ { { SUP_K_PIDNS, "try" } }, 1,
	  { .namespaces = true, .init_gate = true, .init_fallback = true, .policy = true,
	    .stop = STOP } },
	/* ... but a protection is never dropped with it */
	{ { { SUP_K_PIDNS, "try" }, { SUP_K_PRIVATE_TMP, "true" } }, 2,
	  { NS, .hides = true, .mounts = { .private_tmp = true }, .policy = true, .stop = STOP } },
	/* a mount asked for is a protection: init makes it, --pidns=try never drops it */
	{ { { SUP_K_TMPFS, "/x" } }, 1,
	  { NS, .mounts = { .n_binds = 1 }, .policy = true, .stop = STOP } },
	{ { { SUP_K_PIDNS, "try" }, { SUP_K_BIND, "/a:/b" } }, 2,
	  { NS, .mounts = { .n_binds = 1 }, .policy = true, .stop = STOP } },
	/* --map-root alone implies nothing */
	{ { { SUP_K_MAP_ROOT, "true" } }, 1, { .policy = true, .stop = STOP } },
	/* --report keeps the output's tail; --junit does not */
	{ { { SUP_K_REPORT, "r.json" } }, 1, { .keep_output = true, .policy = true, .stop = STOP } },
	{ { { SUP_K_JUNIT, "j.xml" } }, 1, { .policy = true, .stop = STOP } },
	/* --policy=off loads none; strict is one */
	{ { { SUP_K_POLICY, "off" } }, 1, { .stop = STOP } },
	{ { { SUP_K_POLICY, "strict" } }, 1, { .policy = true, .stop = STOP } },
	/* the stop: each option lands in its field */
	{ { { SUP_K_STOP_SIGNAL, "INT" }, { SUP_K_GRACE, "1s" } }, 2,
	  { .policy = true, .stop = { .signal = SIGINT, .grace_ms = 1000, .settle_ms = 3000 } } },
	/* --cache: the names as bits, none drops what came before (the file's too) */
	{ { { SUP_K_CACHE, "go, npm" } }, 1,
	  { .policy = true, .stop = STOP,
	    .caches = 1u << SUP_CACHE_GO | 1u << SUP_CACHE_NPM } },
	{ { { SUP_K_CACHE, "xdg" }, { SUP_K_CACHE, "none,cargo" } }, 2,
	  { .policy = true, .stop = STOP, .caches = 1u << SUP_CACHE_CARGO } },
	{ { { SUP_K_CACHE, "pip" }, { SUP_K_CACHE, "none" } }, 2, { .policy = true, .stop = STOP } },
	{ { { SUP_K_SETTLE, "2s" }, { SUP_K_TIMEOUT, "7s" } }, 2,
	  { .policy = true,
	    .stop = { .signal = SIGTERM, .grace_ms = 5000, .settle_ms = 2000, .timeout_ms = 7000 } } },
};
// clang-format on

static void assert_plan(const struct sup_run_plan *got, const struct sup_run_plan *want)
{
	assert_int_equal(got->protections, want->protections);
	assert_int_equal(got->namespaces, want->namespaces);
	assert_int_equal(got->init_gate, want->init_gate);
	assert_int_equal(got->init_fallback, want->init_fallback);
	assert_int_equal(got->hides, want->hides);
	assert_int_equal(got->keep_output, want->keep_output);
	assert_int_equal(got->policy, want->policy);
	assert_int_equal(got->mounts.net_isolated, want->mounts.net_isolated);
	assert_int_equal(got->mounts.private_tmp, want->mounts.private_tmp);
	assert_int_equal(got->mounts.home, want->mounts.home);
	assert_int_equal(got->mounts.n_binds, want->mounts.n_binds);
	assert_int_equal(got->stop.signal, want->stop.signal);
	assert_int_equal(got->stop.grace_ms, want->stop.grace_ms);
	assert_int_equal(got->stop.settle_ms, want->stop.settle_ms);
	assert_int_equal(got->stop.timeout_ms, want->stop.timeout_ms);
	assert_int_equal(got->caches, want->caches);
}

static bool plan_equal(const struct sup_run_plan *a, const struct sup_run_plan *b)
{
	return a->protections == b->protections && a->namespaces == b->namespaces &&
	       a->init_gate == b->init_gate && a->init_fallback == b->init_fallback &&
	       a->hides == b->hides && a->keep_output == b->keep_output && a->policy == b->policy &&
	       a->mounts.net_isolated == b->mounts.net_isolated &&
	       a->mounts.private_tmp == b->mounts.private_tmp && a->mounts.home == b->mounts.home &&
	       a->mounts.n_binds == b->mounts.n_binds && a->stop.signal == b->stop.signal &&
	       a->stop.grace_ms == b->stop.grace_ms && a->stop.settle_ms == b->stop.settle_ms &&
	       a->stop.timeout_ms == b->stop.timeout_ms && a->caches == b->caches;
}

/*
 * Every implication, decided in one place: each case is the whole plan, so a
 * dropped or moved implication fails here.  The plan is compiled from options
 * set after a first compile too, as main compiles once they are final.
 */
static void test_plan_implications(void **state)
{
	for (size_t i = 0; i < sizeof(plan_cases) / sizeof(plan_cases[0]); i++) {
		const struct plan_case *c = &plan_cases[i];
		struct sup_opts o;
		/* the options keep pointers into their values, as into argv */
		char val[2][32];

		sup_opts_init(&o);
		cli_plan_compile(&o);
		for (size_t j = 0; j < c->n; j++) {
			struct iso_err e = { 0 };

			snprintf(val[j], sizeof(val[j]), "%s", c->set[j].val);
			assert_int_equal(cli_opt_set(&o, c->set[j].key, val[j], 1, &e), 0);
		}
		cli_plan_compile(&o);
		if (!plan_equal(&o.plan, &c->want))
			print_message("plan case %zu differs\n", i);
		assert_plan(&o.plan, &c->want);
		sup_opts_free(&o);
	}
}

/* The control: a plan compiled before the options changed is not theirs. */
static void test_plan_is_compiled_from_final_options(void **state)
{
	struct iso_err e = { 0 };
	struct sup_opts o;
	char val[] = "true";

	sup_opts_init(&o);
	cli_plan_compile(&o);
	assert_int_equal(cli_opt_set(&o, SUP_K_PRIVATE_TMP, val, 1, &e), 0);
	assert_false(o.plan.protections);
	cli_plan_compile(&o);
	assert_true(o.plan.protections);
	assert_true(o.plan.mounts.private_tmp);
	sup_opts_free(&o);
}

/*
 * What the verdict, the findings' words, JUnit and the capability plan read from
 * the plan rather than the options: the defaults, then each option in its field.
 */
static void test_plan_outputs_read(void **state)
{
	struct iso_err e = { 0 };
	struct sup_opts o;
	char leaks[] = "warn", residue[] = "fail", watch[] = "/w", keep[] = "net_raw",
	     root[] = "true";

	sup_opts_init(&o);
	cli_plan_compile(&o);
	assert_int_equal(o.plan.leaks, SUP_FAIL);
	assert_int_equal(o.plan.residue, SUP_WARN);
	assert_false(o.plan.watches);
	assert_int_equal(o.plan.cap_keep, 0);
	assert_false(o.plan.map_root);
	assert_int_equal(cli_opt_set(&o, SUP_K_LEAKS, leaks, 1, &e), 0);
	assert_int_equal(cli_opt_set(&o, SUP_K_RESIDUE, residue, 1, &e), 0);
	assert_int_equal(cli_opt_set(&o, SUP_K_WATCH, watch, 1, &e), 0);
	assert_int_equal(cli_opt_set(&o, SUP_K_CAP_KEEP, keep, 1, &e), 0);
	assert_int_equal(cli_opt_set(&o, SUP_K_MAP_ROOT, root, 1, &e), 0);
	cli_plan_compile(&o);
	assert_int_equal(o.plan.leaks, SUP_WARN);
	assert_int_equal(o.plan.residue, SUP_FAIL);
	assert_true(o.plan.watches);
	assert_int_equal(o.plan.cap_keep, o.cap_keep);
	assert_true(o.plan.cap_keep != 0);
	assert_true(o.plan.map_root);
	sup_opts_free(&o);
}

/* --bind SRC[:DEST], --ro-bind, --tmpfs DEST: the spelling, in order; the host is cli/mounts.c's */
static void test_mount_spelling(void **state)
{
	static const struct {
		enum sup_key key;
		const char *val, *src, *dest, *err;
	} cases[] = {
		{ SUP_K_BIND, "/a:/b", "/a", "/b", NULL },
		{ SUP_K_RO_BIND, "rel/a:/b", "rel/a", "/b", NULL },
		{ SUP_K_RO_BIND, "/a", "/a", "/a", NULL },
		{ SUP_K_TMPFS, "/a:b", NULL, "/a:b", NULL },
		{ SUP_K_BIND, "a", NULL, NULL,
		  "bind a: the destination 'a' is not an absolute path; give SRC:DEST, or an "
		  "absolute, canonical SRC alone" },
		{ SUP_K_BIND, "/a:/b/../c", NULL, NULL,
		  "bind /a:/b/../c: the destination '/b/../c' is not canonical (a '.' or '..' "
		  "component); give SRC:DEST with an absolute, canonical DEST" },
		{ SUP_K_TMPFS, "/b/.", NULL, NULL,
		  "tmpfs /b/.: the destination '/b/.' is not canonical (a '.' or '..' component); "
		  "give an absolute, canonical path" },
		{ SUP_K_TMPFS, "/b//c", NULL, NULL,
		  "tmpfs /b//c: the destination '/b//c' is not canonical (an empty component, or a "
		  "trailing '/'); give an absolute, canonical path" },
		{ SUP_K_TMPFS, "/..", NULL, NULL,
		  "tmpfs /..: the destination '/..' is not canonical (a '.' or '..' component); "
		  "give an absolute, canonical path" },
		{ SUP_K_TMPFS, "/", NULL, NULL,
		  "tmpfs /: the destination '/' is / itself; give an absolute, canonical path" },
		{ SUP_K_BIND, "/a:", NULL, NULL, "bind '/a:': empty path" },
	};
	struct sup_opts o;
	size_t n = 0;

	sup_opts_init(&o);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct iso_err e = { 0 };
		char *val = sup_opts_keep(&o, strdup(cases[i].val));
		int r = cli_opt_set(&o, cases[i].key, val, 1, &e);

		if (cases[i].err) {
			assert_true(r < 0);
			assert_string_equal(e.msg, cases[i].err);
			continue;
		}
		assert_int_equal(r, 0);
		assert_int_equal(o.n_binds, ++n);
		if (cases[i].src)
			assert_string_equal(o.binds[n - 1].src, cases[i].src);
		else
			assert_null(o.binds[n - 1].src);
		assert_string_equal(o.binds[n - 1].dest, cases[i].dest);
		assert_int_equal(o.binds[n - 1].kind, cases[i].key == SUP_K_BIND ? NS_MOUNT_BIND
						      : cases[i].key == SUP_K_RO_BIND
							      ? NS_MOUNT_RO_BIND
							      : NS_MOUNT_TMPFS);
	}
	sup_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_entry_is_whole),
		cmocka_unit_test(test_report_order_names_each_reported_key_once),
		cmocka_unit_test(test_report_order_is_published),
		cmocka_unit_test(test_report_values),
		cmocka_unit_test(test_shown_value_reads_back),
		cmocka_unit_test(test_choice_words),
		cmocka_unit_test(test_cache_names),
		cmocka_unit_test(test_plan_namespaces),
		cmocka_unit_test(test_plan_implications),
		cmocka_unit_test(test_plan_is_compiled_from_final_options),
		cmocka_unit_test(test_plan_outputs_read),
		cmocka_unit_test(test_mount_spelling),
		cmocka_unit_test(test_help_lists_every_key),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
