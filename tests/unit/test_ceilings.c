// SPDX-License-Identifier: MIT
/*
 * Unit tests: the ceilings' table (launcher/ceiling_kinds.c) is the one
 * description of a ceiling.  Every row is whole; each has its option in the
 * key table (cli/keys.c), its place among the report's settings, its --help
 * line and its message's spelling in the plan; its value parses at its bounds
 * and is refused past them, naming the option.
 */
#include "unit.h"

#include <inttypes.h>

#include <sys/resource.h>

#include "cli/advice.h"
#include "cli/args.h"
#include "cli/keys.h"
#include "launcher/ceiling.h"

/* a controller is one of cgroup/'s, by a single bit */
static bool one_controller(enum cg_ctrl c)
{
	return c && !(c & (c - 1)) && strcmp(cg_ctrl_name(c), "?") != 0;
}

static void test_every_row_is_whole(void **state)
{
	for (int c = 0; c < SUP_N_CEILINGS; c++) {
		const struct sup_ceiling_desc *d = &sup_ceiling_descs[c];

		assert_true(d->name[0] && d->report[0]);
		assert_true(d->metavar && d->metavar[0] && d->help && d->help[0]);
		assert_true(d->want && d->want[0]);
		assert_true(d->min >= 1 && d->min <= d->max && d->max <= INT64_MAX);
		assert_true(d->unit == SUP_CEIL_BYTES || d->unit == SUP_CEIL_COUNT ||
			    d->unit == SUP_CEIL_PERCENT);
		if (!one_controller(d->ctrl))
			fail_msg("%s: controller %#x is not one of cgroup/'s", d->name, d->ctrl);
		assert_true(d->file && strchr(d->file, '.'));
		assert_non_null(d->fallback);
		/* a hit is counted and said whole, or not at all */
		if (d->hit.file && !(d->hit.key && d->hit.what && d->hit.unit && d->hit.one &&
				     d->hit.many && d->hit.verb))
			fail_msg("%s: a hit without all of its words", d->name);
		for (int o = 0; o < c; o++)
			if (!strcmp(sup_ceiling_descs[o].name, d->name) ||
			    !strcmp(sup_ceiling_descs[o].report, d->report))
				fail_msg("%s: name or report key twice", d->name);
	}
}

/* Each row is an option of the key table, and every ceiling key is a row's. */
static void test_every_row_is_a_key(void **state)
{
	for (int c = 0; c < SUP_N_CEILINGS; c++) {
		const struct sup_ceiling_desc *d = &sup_ceiling_descs[c];
		const struct cli_key_info *k = &cli_keys[SUP_K_CEILING + c];

		if (!k->name || strcmp(k->name, d->name) != 0)
			fail_msg("%s: key %d is '%s'", d->name, SUP_K_CEILING + c,
				 k->name ? k->name : "(none)");
		assert_int_equal(cli_key_lookup(d->name), SUP_K_CEILING + c);
		assert_int_equal(k->arg, c);
		assert_ptr_equal(k->parse, cli_set_ceiling);
		assert_non_null(k->show);
		assert_non_null(k->report_value);
		assert_string_equal(k->report, d->report);
	}
	for (int k = 0; k < SUP_N_KEYS; k++)
		if (cli_keys[k].parse == cli_set_ceiling &&
		    (k < SUP_K_CEILING || k >= SUP_K_CEILING + SUP_N_CEILINGS))
			fail_msg("key %s parses a ceiling but is no row's", cli_keys[k].name);
}

/* The report names each ceiling once, by its row's key, in the table's order. */
static void test_report_keys(void **state)
{
	struct sup_report_setting s[SUP_REPORT_SETTINGS_MAX];
	struct sup_opts o;
	size_t n, at = 0;

	sup_opts_init(&o);
	n = cli_key_report(&o, s);
	for (int c = 0; c < SUP_N_CEILINGS; c++) {
		size_t seen = 0, i;

		for (i = 0; i < n; i++)
			if (!strcmp(s[i].key, sup_ceiling_descs[c].report)) {
				seen++;
				at = i > at ? i : at;
				assert_int_equal(s[i].kind, SUP_REPORT_NULL);
			}
		if (seen != 1)
			fail_msg("%s: %zu times in the report", sup_ceiling_descs[c].report, seen);
		/* in order: the last one found so far is this one */
		assert_string_equal(s[at].key, sup_ceiling_descs[c].report);
	}
	sup_opts_free(&o);
}

/* parse "--NAME=VALUE" as the command line does; 0 or the error's message in e */
static int parse(struct sup_opts *o, const char *name, const char *val, struct iso_err *e)
{
	char opt[64], v[64];

	snprintf(opt, sizeof(opt), "--%s", name);
	snprintf(v, sizeof(v), "%s", val);
	*e = (struct iso_err){ 0 };
	return cli_keys[cli_key_lookup(name)].parse(o, &cli_keys[cli_key_lookup(name)], opt, v,
						    true, e);
}

/* Each row's value at its bounds, with try:, none, and past them: refused naming the option. */
static void test_every_row_parses(void **state)
{
	for (int c = 0; c < SUP_N_CEILINGS; c++) {
		const struct sup_ceiling_desc *d = &sup_ceiling_descs[c];
		char v[64], want[1024];
		struct iso_err e;
		struct sup_opts o;

		sup_opts_init(&o);
		/* a size this small says its unit: bare, it would be refused as a slip */
		snprintf(v, sizeof(v), "%" PRIu64 "%s", d->min,
			 d->unit == SUP_CEIL_BYTES ? "B" : "");
		assert_int_equal(parse(&o, d->name, v, &e), 0);
		assert_true(o.ceilings[c].set && !o.ceilings[c].try_);
		assert_true(o.ceilings[c].value == d->min);
		snprintf(v, sizeof(v), "try:%" PRIu64, d->max);
		assert_int_equal(parse(&o, d->name, v, &e), 0);
		assert_true(o.ceilings[c].set && o.ceilings[c].try_);
		assert_true(o.ceilings[c].value == d->max);
		assert_int_equal(parse(&o, d->name, "none", &e), 0);
		assert_false(o.ceilings[c].set);
		snprintf(v, sizeof(v), "%" PRIu64, d->max + 1);
		assert_true(parse(&o, d->name, v, &e) < 0);
		snprintf(want, sizeof(want),
			 "--%s: '%s' is out of range (expected %s, try:VALUE or none)", d->name, v,
			 d->want);
		assert_string_equal(e.msg, want);
		assert_true(parse(&o, d->name, "try:x", &e) < 0);
		assert_non_null(strstr(e.msg, d->want));
		sup_opts_free(&o);
	}
}

/* --help has a line for each row; the plan carries what was asked and how it is spelled. */
static void test_help_and_plan(void **state)
{
	char *text = NULL, head[1024];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct sup_opts o;

	assert_non_null(f);
	cli_usage(f);
	fclose(f);
	sup_opts_init(&o);
	for (int c = 0; c < SUP_N_CEILINGS; c++) {
		snprintf(head, sizeof(head), "\n  --%s %s ", sup_ceiling_descs[c].name,
			 sup_ceiling_descs[c].metavar);
		if (!strstr(text, head))
			fail_msg("--help has no line for %s", sup_ceiling_descs[c].name);
		o.ceilings[c] = (struct sup_ceiling){ .set = true, .try_ = c % 2, .value = 7 };
	}
	assert_null(strstr(text, "%s"));
	cli_plan_compile(&o);
	for (int c = 0; c < SUP_N_CEILINGS; c++) {
		snprintf(head, sizeof(head), "--%s", sup_ceiling_descs[c].name);
		assert_string_equal(o.plan.ceiling_opt[c], head);
		assert_true(o.plan.ceilings[c].set && o.plan.ceilings[c].value == 7);
		assert_int_equal(o.plan.ceilings[c].try_, c % 2);
	}
	assert_true(o.plan.cgroup);
	sup_opts_free(&o);
	free(text);
}

/* Asked with cgroups off: a ceiling's fallback (the run's ceilings, as at its start). */
static int plan_off(struct sup_opts *o, int kind, const char *val, bool userns,
		    struct sup_ceilings *c, struct sup_resources *res, struct iso_err *e)
{
	sup_opts_init(o);
	o->cgroup = SUP_CGROUP_OFF;
	o->say = cli_says;
	assert_int_equal(parse(o, sup_ceiling_descs[kind].name, val, e), 0);
	cli_plan_compile(o);
	*c = (struct sup_ceilings)SUP_CEILINGS_INIT;
	*res = (struct sup_resources){ 0 };
	return sup_ceilings_plan(c, o, userns, res, e);
}

/*
 * The rows' fallbacks: an rlimit that binds only in the run's own user namespace
 * is dropped, and said, when there is none after all; the others stay.
 */
static void test_fallbacks(void **state)
{
	struct sup_ceilings c;
	struct sup_resources res;
	struct iso_err e = { 0 };
	struct sup_opts o;

	assert_int_equal(plan_off(&o, SUP_CEIL_PIDS, "try:64", true, &c, &res, &e), 0);
	assert_int_equal(c.n_rl, 1);
	assert_int_equal(c.rl[0].resource, RLIMIT_NPROC);
	assert_true(c.rl[0].value == 64);
	assert_string_equal(res.limits[SUP_CEIL_PIDS].enforced_by, "rlimit");
	sup_ceilings_no_userns(&c, &res);
	assert_int_equal(c.n_rl, 0);
	assert_null(res.limits[SUP_CEIL_PIDS].enforced_by);
	assert_string_equal(res.limits[SUP_CEIL_PIDS].note,
			    "not enforced: no user namespace after all, and RLIMIT_NPROC would "
			    "count the host");
	sup_ceilings_close(&c);
	sup_opts_free(&o);

	/* control: RLIMIT_DATA binds each process wherever it runs, and stays */
	assert_int_equal(plan_off(&o, SUP_CEIL_MEMORY, "try:64M", true, &c, &res, &e), 0);
	sup_ceilings_no_userns(&c, &res);
	assert_int_equal(c.n_rl, 1);
	assert_int_equal(c.rl[0].resource, RLIMIT_DATA);
	assert_string_equal(res.limits[SUP_CEIL_MEMORY].enforced_by, "rlimit");
	sup_ceilings_close(&c);
	sup_opts_free(&o);

	/* asked strictly, no fallback: refused, naming the option as the command line does */
	assert_true(plan_off(&o, SUP_CEIL_CPU, "50", false, &c, &res, &e) < 0);
	assert_string_equal(e.msg,
			    "--cpu-max cannot be enforced: cgroups are off (--cgroup=off); "
			    "RLIMIT_CPU bounds CPU seconds, not a share of a CPU: not applied");
	assert_int_equal(c.n_rl, 0);
	sup_ceilings_close(&c);
	sup_opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_row_is_whole),
		cmocka_unit_test(test_every_row_is_a_key),
		cmocka_unit_test(test_report_keys),
		cmocka_unit_test(test_every_row_parses),
		cmocka_unit_test(test_help_and_plan),
		cmocka_unit_test(test_fallbacks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
