// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the owner record (tree/evidence.c): `isorun ls` and `gc`
 * read it from disk, where anything that could write the tree may have put
 * anything.  Besides not crashing: a record that parses names a pid and a
 * terminated boot id (an empty one is taken: the fate then proves nothing), and
 * e.msg is a terminated string when it does not parse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tree/evidence.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tree_owner_rec rec;
	struct iso_err e;
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0'; /* the reader hands over a string: a NUL inside ends it */
	memset(e.msg, 'x', sizeof(e.msg));
	if (tree_owner_parse(text, &rec, &e) == 0) {
		if (rec.pid <= 0 || !memchr(rec.boot_id, 0, sizeof(rec.boot_id)))
			abort();
	} else if (!memchr(e.msg, 0, sizeof(e.msg))) {
		abort();
	}
	free(text);
	return 0;
}
