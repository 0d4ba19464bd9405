/* SPDX-License-Identifier: MIT */
#ifndef ISO_ADVICE_H
#define ISO_ADVICE_H

#include <stddef.h>

#include "launcher/opts.h"
#include "launcher/say.h"

/* The advice for a module's cause code, naming the options that help; "" when none. */
void cli_advise(const struct sup_opts *o, int cause, char *buf, size_t len);

/* The words of launcher/say.h, for opts->say. */
extern const char *const cli_says[SUP_SAY_N];

#endif
