// SPDX-License-Identifier: MIT
/* isorun ls, isorun gc: not yet (issue 5). */
#include <stdio.h>

#include "launcher/commands.h"
#include "launcher/exit.h"

int iso_ls_main(int argc, char **argv)
{
	fprintf(stderr, "isorun: ls: not available in this version of isorun\n");
	return ISO_EXIT_SETUP;
}

int iso_gc_main(int argc, char **argv)
{
	fprintf(stderr, "isorun: gc: not available in this version of isorun\n");
	return ISO_EXIT_SETUP;
}
