/* SPDX-License-Identifier: MIT */
/*
 * isorun.conf's `setenv` values as a shell assignment would read them, from the
 * caller's environment (isorun.conf is read before the command's HOME exists):
 * `${VAR}` and `$VAR`, `~` at the start or after a ':' (the caller's real home),
 * `$$` for a literal dollar.  A `$` before anything else stays as it is.
 */
#ifndef ISO_EXPAND_H
#define ISO_EXPAND_H

#include "common/err.h"

/*
 * Returns the malloc'ed expansion, or NULL with e said ("${FOO} is not set in
 * the caller's environment", "unclosed ${", out of memory).  getvar looks a name
 * up (getenv in isorun; a table in the unit tests); home is what ~ becomes.
 */
char *cli_expand(const char *val, const char *(*getvar)(const char *name), const char *home,
		 struct iso_err *e);

#endif
