// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for durations, sizes, numbers, pids and signals (common/num.c,
 * common/text.c): the values of options and isorun.conf, and of /proc files.
 * Besides not crashing: a number that parses lies in the bounds asked for, and a
 * duration that parses formats into words that parse again (the words round it
 * for the eye: "1h25m" for 5122 s, so only no more than the count comes back).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>

#include "common/num.h"
#include "common/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* as --memory-max's (cli/args.c): suffixes of powers of 1024 */
static const struct iso_num_unit sizes[] = { { "K", 1ULL << 10 },
					     { "M", 1ULL << 20 },
					     { "G", 1ULL << 30 },
					     { "T", 1ULL << 40 },
					     { "KiB", 1ULL << 10 },
					     { "MiB", 1ULL << 20 },
					     { "GiB", 1ULL << 30 },
					     { "%", 1 },
					     { 0 } };

static void durations(const char *s)
{
	char buf[64];
	uint64_t ms, again;

	if (iso_parse_duration(s, &ms) < 0)
		return;
	if (!iso_format_duration(ms, buf, sizeof(buf)))
		abort();
	if (iso_parse_duration(buf, &again) < 0 || again > ms)
		abort();
}

static void numbers(const char *s)
{
	const char *end, *p = s;
	uint64_t v;
	int sig, pid;

	if (iso_parse_u64(s, sizes, 2, 1ULL << 50, &v) == 0 && (v < 2 || v > 1ULL << 50))
		abort();
	if (iso_parse_u64(s, NULL, 0, UINT64_MAX, &v) == 0 && !s[0])
		abort();
	(void)iso_parse_digits(s, 16, &end, &v);
	pid = iso_parse_pid(s);
	if (pid < 0)
		abort();
	for (int n = 0; n < 64 && (pid = iso_next_pid(&p)) > 0; n++)
		;
	if (iso_parse_signal(s, &sig) == 0 && (sig < 1 || sig > 64))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	durations(s);
	numbers(s);
	free(s);
	return 0;
}
