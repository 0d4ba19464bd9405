/* SPDX-License-Identifier: MIT */
/* The exit status is a contract: docs/contract.md "Exit codes" and isorun(1). */
#ifndef ISO_EXIT_H
#define ISO_EXIT_H

enum iso_exit {
	ISO_EXIT_FINDING = 122,	    /* command succeeded, isorun found something */
	ISO_EXIT_TIMEOUT = 124,	    /* --timeout fired */
	ISO_EXIT_SETUP = 125,	    /* isorun failed before the command ran */
	ISO_EXIT_CANNOT_EXEC = 126, /* found but not executable */
	ISO_EXIT_NOT_FOUND = 127,   /* not found */
	ISO_EXIT_SIGNAL_BASE = 128, /* + N: killed by signal N */
};

#endif
