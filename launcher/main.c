// SPDX-License-Identifier: MIT
/* isorun: the command line.  Subcommands dispatch here; a run goes to iso_run(). */
#include <stdio.h>
#include <string.h>

#include "launcher/args.h"
#include "launcher/exit.h"
#include "launcher/run.h"

int main(int argc, char **argv)
{
	struct iso_opts o;
	struct iso_err e = { 0 };
	int action, code;

	iso_opts_init(&o);
	action = iso_parse_args(argc, argv, &o, &e);
	if (action < 0) {
		fprintf(stderr, "isorun: %s\n", e.msg);
		fprintf(stderr, "isorun: FAILED (exit %d): bad command line (see isorun --help)\n",
			ISO_EXIT_SETUP);
		iso_opts_free(&o);
		return ISO_EXIT_SETUP;
	}
	if (action == ISO_SHOW_HELP) {
		iso_usage(stdout);
		iso_opts_free(&o);
		return 0;
	}
	if (action == ISO_SHOW_VERSION) {
		printf("isorun %s\n", ISO_VERSION);
		iso_opts_free(&o);
		return 0;
	}
	code = iso_run(&o);
	iso_opts_free(&o);
	return code;
}
