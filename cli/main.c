// SPDX-License-Identifier: MIT
/*
 * isorun: the command line.  Subcommands dispatch here, before any option is
 * parsed: only a run, `isorun shell` and `isorun config` read isorun.conf.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cli/advice.h"
#include "cli/args.h"
#include "cli/keys.h"
#include "cli/commands.h"
#include "cli/conf.h"
#include "cli/like.h"
#include "cli/mounts.h"
#include "cli/reenter.h"
#include "common/version.h"
#include "common/cleanup.h"
#include "common/exit.h"
#include "common/text.h"
#include "launcher/run.h"
#include "cli/suggest.h"
#include "policy/policy.h"

static void policy_usage(FILE *f)
{
	fputs("Usage: isorun policy show [NAME|FILE]\n"
	      "       isorun policy check FILE\n"
	      "  show   print a policy (default: the default one) as isorun reads it\n"
	      "  check  parse FILE and say how many calls, programs and sockets it guards\n"
	      "NAME is a shipped policy: default, strict or off.\n",
	      f);
}

/* `isorun policy shw`: the verb that was meant, or the usage */
static int policy_refuse(int argc, char **argv)
{
	static const char *const verbs[] = { "show", "check" };
	const char *verb = argc > 2 ? argv[2] : NULL, *near;

	if (!verb) {
		fprintf(stderr, "isorun: policy: missing verb: show or check (see isorun "
				"policy --help)\n");
		return ISO_EXIT_SETUP;
	}
	if (verb[0] == '-') {
		char buf[300];
		/* "--hlep": the nearest of policy's own options */
		static const char *const longs[] = { "help" };
		cli_unknown_option(verb, longs, 1, buf, sizeof(buf));
		fprintf(stderr, "isorun: policy: %s (see isorun policy --help)\n", buf);
		return ISO_EXIT_SETUP;
	}
	if (strcmp(verb, "show") != 0 && strcmp(verb, "check") != 0) {
		near = cli_suggest(verb, verbs, 2);
		if (near)
			fprintf(stderr, "isorun: policy: unknown verb '%s'; did you mean %s?\n",
				verb, near);
		else
			fprintf(stderr,
				"isorun: policy: unknown verb '%s': show or check (see "
				"isorun policy --help)\n",
				verb);
		return ISO_EXIT_SETUP;
	}
	if (argc < 4)
		fprintf(stderr, "isorun: policy check: missing FILE (see isorun policy --help)\n");
	else
		fprintf(stderr,
			"isorun: policy %s: unexpected argument '%s' (see isorun policy "
			"--help)\n",
			verb, argv[4]);
	return ISO_EXIT_SETUP;
}

/* isorun policy show [NAME|FILE] | isorun policy check FILE */
static int policy_command(int argc, char **argv)
{
	const char *verb = argc > 2 ? argv[2] : "";
	const char *what = argc > 3 ? argv[3] : (strcmp(verb, "show") == 0 ? "default" : NULL);
	struct pol_error err = { 0 };
	struct pol p = { 0 };
	char buf[1024];
	char *text;

	if (strcmp(verb, "--help") == 0 || strcmp(verb, "-h") == 0 ||
	    (argc > 3 && (strcmp(argv[3], "--help") == 0 || strcmp(argv[3], "-h") == 0))) {
		policy_usage(stdout);
		return 0;
	}
	if ((strcmp(verb, "show") != 0 && strcmp(verb, "check") != 0) || !what || argc > 4)
		return policy_refuse(argc, argv);
	if (cli_policy_unknown(what, "", buf, sizeof(buf))) {
		fprintf(stderr, "isorun: policy %s: %s\n", verb, buf);
		return ISO_EXIT_SETUP;
	}
	if (pol_load(what, &p, &err) < 0) {
		fprintf(stderr, "isorun: %s\n", pol_error_format(&err, buf, sizeof(buf)));
		return ISO_EXIT_SETUP;
	}
	if (strcmp(verb, "check") == 0) {
		printf("%s: ok (%s)\n", what, pol_summary(&p, buf, sizeof(buf)));
	} else {
		text = pol_format(&p);
		if (text)
			fputs(text, stdout);
		free(text);
	}
	pol_free(&p);
	return 0;
}

/*
 * A standard descriptor the caller closed would be the next file isorun opens (the
 * report, the tree's lock), and the relayed output and isorun's messages would go
 * into it.  /dev/null takes its place first, read-write as systemd and tini do.  Not
 * close-on-exec: the command gets it as its own 0, 1 or 2.  Without /dev/null
 * isorun cannot run safely, and may not even be able to say so.
 */
static int fill_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		int nfd;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		nfd = open("/dev/null", O_RDWR);
		if (nfd != fd) {
			if (nfd >= 0) {
				close(nfd);
				errno = EBADF;
			}
			return -1;
		}
	}
	return 0;
}

/*
 * jansson seeds its hash tables on first use by opening /dev/urandom (without
 * O_CLOEXEC, on every launch); one getrandom() does the same job.  A seed of 0
 * (or no entropy yet) leaves jansson to its own way.
 */
static void seed_json(void)
{
	uint32_t seed = 0;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed) && seed)
		json_object_seed(seed);
}

/* The settings under the command line: a kept tree's, a report's, or isorun.conf's. */
static int load_settings(struct sup_opts *o, struct iso_err *e)
{
	if (o->tree_arg && !o->like_arg)
		return cli_reenter_load(o, e);
	if (o->like_arg)
		return cli_like_load(o, e);
	return cli_conf_load(o, e);
}

int main(int argc, char **argv)
{
	struct sup_opts o;
	struct iso_err e = { 0 };
	int action, code;

	static const struct {
		const char *name;
		int (*main)(int, char **);
	} commands[] = {
		{ "policy", policy_command },
		{ "config", cli_config_main },
		{ "selftest", cli_selftest_main },
		{ "ls", cli_ls_main },
		{ "gc", cli_gc_main },
		{ "report", cli_report_main },
	};

	if (fill_std_fds() < 0) {
		fprintf(stderr, "isorun: open '/dev/null' for a closed fd 0, 1 or 2: %s\n",
			strerror(errno));
		return ISO_EXIT_SETUP;
	}
	seed_json();
	for (size_t i = 0; argc > 1 && i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].main(argc, argv);
	sup_opts_init(&o);
	action = cli_parse_args(argc, argv, &o, &e);
	if (action < 0)
		return cli_args_refuse(&o, &e);
	if (action == CLI_SHOW_HELP) {
		if (o.shell || o.rerun)
			cli_shell_usage(stdout);
		else
			cli_usage(stdout);
		sup_opts_free(&o);
		return 0;
	}
	if (action == CLI_SHOW_VERSION) {
		printf("isorun %s\n", ISO_VERSION);
		sup_opts_free(&o);
		return 0;
	}
	/* after the command line, so that --help and a bad option need no file */
	if (load_settings(&o, &e) < 0) {
		const char *what = o.tree_arg	? "cannot re-enter the tree"
				   : o.like_arg ? "cannot replay the report"
						: "bad configuration file";

		sup_opts_free(&o);
		return cli_conf_fail(&e, what);
	}
	if (cli_mounts_check(&o, &e) < 0)
		return cli_args_refuse(&o, &e);
	/* a new tree records how it was made, for isorun shell --tree */
	if (!o.tree_arg)
		o.settings_text = sup_opts_keep(&o, cli_settings_record(&o));
	o.advise = cli_advise;
	o.say = cli_says;
	o.misplaced = cli_misplaced_options;
	o.report_settings = cli_key_report;
	cli_plan_compile(&o);
	cli_warn_inert(&o);
	code = sup_run(&o);
	sup_opts_free(&o);
	return code;
}
