// SPDX-License-Identifier: MIT
/*
 * isorun selftest's command line: the options a control's isorun is run with,
 * checked by the run's own parser so that the messages are the same, then
 * handed to selftest/ as a struct st_fwd (selftest/ knows no parser).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "common/cleanup.h"
#include "cli/commands.h"
#include "cli/suggest.h"
#include "policy/policy.h"
#include "selftest/selftest.h"

static void usage(FILE *f)
{
	fputs("Usage: isorun selftest [--json] [OPTION]...\n"
	      "Probe what this host offers, then run live controls that must fail when a\n"
	      "guard is broken.  Each control prints ok, not ok, or not measurable (why).\n"
	      "\n"
	      "  --json                 one JSON document instead of lines\n"
	      "Passed to every control's isorun, to see a weakened guard go red:\n"
	      "  --policy=NAME|FILE, --policy-mode=enforce|log, --leaks=fail|warn|ignore,\n"
	      "  --protect-home=off|ro|hide, --net=host|isolated, --pidns[=try],\n"
	      "  --settle=DUR, --map-root\n"
	      "\n"
	      "Exit: 0 every control this host supports passed; 1 a control is not ok;\n"
	      "125 bad usage or setup failure.\n",
	      f);
}

enum {
	O_JSON = 256,
	O_POLICY,
	O_POLICY_MODE,
	O_LEAKS,
	O_PROTECT_HOME,
	O_NET,
	O_PIDNS,
	O_SETTLE,
	O_MAP_ROOT,
};

/* "--jsn: unknown option; did you mean --json?"; a short one by its letter */
static void unknown(const struct option *opts, const char *word)
{
	const char *names[16] = { 0 };
	char buf[300], shortw[3] = { '-', (char)optopt, 0 };
	size_t n = 0;

	for (; n < ELEMENTSOF(names) && opts[n].name; n++)
		names[n] = opts[n].name;
	cli_unknown_option(word ? word : shortw, names, n, buf, sizeof(buf));
	fprintf(stderr, "isorun: selftest: %s (see isorun selftest --help)\n", buf);
}

static int fwd_add(struct st_fwd *f, const char *name, const char *val)
{
	char *s;

	if (f->n >= ELEMENTSOF(f->argv))
		return -E2BIG;
	if (val ? asprintf(&s, "--%s=%s", name, val) < 0 : !(s = strdup(name)))
		return -ENOMEM;
	f->argv[f->n++] = s;
	return 0;
}

/* The values are checked by the run's own parser, so the messages are the same. */
static int check_fwd(const struct st_fwd *f)
{
	char *argv[ELEMENTSOF(f->argv) + 4];
	struct iso_err e = { 0 };
	struct sup_opts o;
	int argc = 0, r;

	argv[argc++] = (char *)"isorun";
	for (size_t i = 0; i < f->n; i++)
		argv[argc++] = f->argv[i];
	argv[argc++] = (char *)"--";
	argv[argc++] = (char *)"true";
	argv[argc] = NULL;
	sup_opts_init(&o);
	r = cli_parse_args(argc, argv, &o, &e);
	sup_opts_free(&o);
	if (r < 0) {
		fprintf(stderr, "isorun: selftest: %s\n", e.msg);
		return -1;
	}
	/* a bad policy is bad usage here, not seven red controls */
	if (f->policy && strcmp(f->policy, "off") != 0) {
		struct pol_error perr = { 0 };
		struct pol p = { 0 };
		char buf[1024];

		if (pol_load(f->policy, &p, &perr) < 0) {
			fprintf(stderr, "isorun: selftest: --policy: %s\n",
				pol_error_format(&perr, buf, sizeof(buf)));
			return -1;
		}
		pol_free(&p);
	}
	return 0;
}

/* Returns 1 to run, 0 for --help, -1 for bad usage. */
static int parse(int argc, char **argv, bool *json, struct st_fwd *fwd)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, O_JSON },
		{ "policy", required_argument, NULL, O_POLICY },
		{ "policy-mode", required_argument, NULL, O_POLICY_MODE },
		{ "leaks", required_argument, NULL, O_LEAKS },
		{ "protect-home", required_argument, NULL, O_PROTECT_HOME },
		{ "net", required_argument, NULL, O_NET },
		{ "pidns", optional_argument, NULL, O_PIDNS },
		{ "settle", required_argument, NULL, O_SETTLE },
		{ "map-root", no_argument, NULL, O_MAP_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	/* argv[1] is "selftest": parse from there, as if it were argv[0] */
	char **av = argv + 1;
	int ac = argc - 1, ch, idx = 0, r = 0, at;

	optind = 1;
	opterr = 0;
	/* at: the word getopt is in ("-hx" stays one word until its last letter) */
	while ((at = optind, ch = getopt_long(ac, av, "+:h", opts, &idx)) != -1) {
		const char *name = ch >= 256 ? opts[idx].name : NULL;

		switch (ch) {
		case O_JSON:
			*json = true;
			break;
		case O_POLICY:
		case O_POLICY_MODE:
		case O_LEAKS:
		case O_PROTECT_HOME:
		case O_NET:
		case O_SETTLE:
			r = fwd_add(fwd, name, optarg);
			if (ch == O_POLICY)
				fwd->policy = optarg;
			else if (ch == O_PROTECT_HOME)
				fwd->protect_home = optarg;
			else if (ch == O_NET)
				fwd->net = optarg;
			break;
		case O_PIDNS:
			r = optarg ? fwd_add(fwd, name, optarg) : fwd_add(fwd, "--pidns", NULL);
			fwd->pidns = optarg ? optarg : "on";
			break;
		case O_MAP_ROOT:
			r = fwd_add(fwd, "--map-root", NULL);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case ':':
			fprintf(stderr, "isorun: selftest: %s: missing argument\n", av[optind - 1]);
			return -1;
		default:
			unknown(opts, strncmp(av[at], "--", 2) ? NULL : av[at]);
			return -1;
		}
		if (r < 0) {
			fprintf(stderr, "isorun: selftest: %s: %s\n", av[optind - 1], strerror(-r));
			return -1;
		}
	}
	if (optind < ac) {
		fprintf(stderr,
			"isorun: selftest: unexpected argument '%s' (see isorun selftest "
			"--help)\n",
			av[optind]);
		return -1;
	}
	return check_fwd(fwd) < 0 ? -1 : 1;
}

/* selftest's words and its controls' arguments that name an option (enum st_say) */
const char *const cli_st_says[ST_SAY_N] = {
	[ST_SAY_PIDNS] = "--pidns",
	[ST_SAY_PIDS_MAX] = "--pids-max",
	[ST_SAY_PIDS_MAX_16] = "--pids-max 16",
	[ST_SAY_PIDS_MAX_16_ARG] = "--pids-max=16",
	[ST_SAY_MEMORY_MAX] = "--memory-max",
	[ST_SAY_MEMORY_MAX_32M] = "--memory-max 32M",
	[ST_SAY_MEMORY_MAX_32M_ARG] = "--memory-max=32M",
	[ST_SAY_SETTLE_200MS_ARG] = "--settle=200ms",
	[ST_SAY_HOME_RO] = "--protect-home=ro",
	[ST_SAY_HOME_HIDE] = "--protect-home=hide",
	[ST_SAY_SETENV] = "--setenv",
	[ST_SAY_NET_ISOLATED] = "--net=isolated",
	[ST_SAY_HIDE_NOTICE] = "isorun: --protect-home=hide hides from the command: ",
	[ST_SAY_TMP_NOTICE] = "isorun: --private-tmp hides from the command: ",
	[ST_SAY_POLICY] = "--policy",
	[ST_SAY_CEILINGS_TRY] = "--memory-max and --cpu-max",
};

int cli_selftest_main(int argc, char **argv)
{
	struct st_fwd fwd = { 0 };
	bool json = false;
	int r;

	if (argc > 2 && !strncmp(argv[2], ST_INTERNAL, strlen(ST_INTERNAL)))
		return st_internal_main(argc, argv);
	r = parse(argc, argv, &json, &fwd);
	if (r <= 0) {
		st_fwd_free(&fwd);
		return r == 0 ? 0 : ST_EXIT_USAGE;
	}
	return st_selftest(json, &fwd, cli_st_says);
}
