/* SPDX-License-Identifier: MIT */
/*
 * Shared by the policy unit tests and the fuzzer: pol_format() names where each
 * rule came from in "# from FILE:LINE" lines, which a round trip through the
 * parser renumbers; comparing two canonical forms drops them first.
 */
#ifndef ISO_TEST_POLICY_TEXT_H
#define ISO_TEST_POLICY_TEXT_H

#include <string.h>

static inline void strip_from_lines(char *text)
{
	char *d = text;

	for (char *s = text; *s;) {
		size_t n = strcspn(s, "\n");

		if (s[n] == '\n')
			n++;
		if (strncmp(s, "# from ", 7) != 0) {
			memmove(d, s, n);
			d += n;
		}
		s += n;
	}
	*d = '\0';
}

#endif
