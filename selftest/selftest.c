// SPDX-License-Identifier: MIT
/* isorun selftest: not yet (issue 5). */
#include <stdio.h>

#include "launcher/commands.h"
#include "launcher/exit.h"

int iso_selftest_main(int argc, char **argv)
{
	fprintf(stderr, "isorun: selftest: not available in this version of isorun\n");
	return ISO_EXIT_SETUP;
}
