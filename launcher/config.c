// SPDX-License-Identifier: MIT
/* isorun.conf: not yet (issue 5). */
#include <stdio.h>

#include "launcher/commands.h"
#include "launcher/exit.h"

int iso_config_main(int argc, char **argv)
{
	fprintf(stderr, "isorun: config: not available in this version of isorun\n");
	return ISO_EXIT_SETUP;
}
