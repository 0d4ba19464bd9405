// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for isorun.conf (cli/conf.c over libinih and the options'
 * own parsers): the checkout holds it, so its text is whatever the checkout
 * says.  Read as a file on its own and under a command line, as a run reads it;
 * besides not crashing, an error always says something.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse(const char *text, const struct sup_opts *cli)
{
	struct iso_err e = { 0 };
	struct sup_opts o;

	sup_opts_init(&o);
	if (cli_conf_parse_under(&o, cli, "/fuzz/isorun.conf", text, &e) < 0 && !e.msg[0])
		abort();
	sup_opts_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sup_opts cli;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	parse(text, NULL);
	sup_opts_init(&cli);
	parse(text, &cli);
	sup_opts_free(&cli);
	free(text);
	return 0;
}
