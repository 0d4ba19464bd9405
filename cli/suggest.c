// SPDX-License-Identifier: MIT
#include "cli/suggest.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "common/text.h"

#define WORD_MAX 63

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t cli_edit_distance(const char *a, const char *b)
{
	/* three rows: the transposition looks two back */
	size_t rows[3][WORD_MAX + 1];
	size_t la = strlen(a), lb = strlen(b);

	if (la > WORD_MAX || lb > WORD_MAX)
		return WORD_MAX + 1;
	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];
		int ca = tolower((unsigned char)a[i - 1]);

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;

			cur[j] = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < cur[j])
				cur[j] = prev2[j - 2] + 1;
		}
	}
	return rows[la % 3][lb];
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t limit = strlen(word) / 3, best_d = SIZE_MAX;
	const char *best = NULL;

	if (limit < 1)
		limit = 1;
	if (limit > 3)
		limit = 3;
	for (size_t i = 0; i < n; i++) {
		size_t d;

		if (!cands[i])
			continue;
		d = cli_edit_distance(word, cands[i]);
		if (d <= limit && d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best;
}

size_t cli_prefix_matches(const char *prefix, const char *const *cands, size_t n, size_t *out,
			  size_t max)
{
	size_t l = strlen(prefix), found = 0;

	for (size_t i = 0; i < n; i++) {
		if (!cands[i] || strncmp(cands[i], prefix, l) != 0)
			continue;
		if (found < max)
			out[found] = i;
		found++;
	}
	return found;
}

bool cli_on_path(const char *name)
{
	const char *path = getenv("PATH"), *p;
	char full[PATH_MAX];

	if (!*name || strchr(name, '/'))
		return false;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p += strcspn(p, ":") + 1) {
		int l = (int)strcspn(p, ":");

		/* an empty entry is the current directory, as execvp() reads it */
		struct stat st;

		if (snprintf(full, sizeof(full), "%.*s/%s", l ? l : 1, l ? p : ".", name) <
			    (int)sizeof(full) &&
		    stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return true;
		if (!p[l])
			return false;
	}
}

static bool iso_exact(const char *name, const char *const *longs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (longs[i] && strcmp(longs[i], name) == 0)
			return true;
	return false;
}

const char *cli_unknown_option(const char *word, const char *const *longs, size_t n, char *buf,
			       size_t len)
{
	char name[WORD_MAX + 1];
	size_t idx[8], found, l;
	const char *near;
	int off;

	/* "--name=value": the name is what was mistyped */
	l = strcspn(word, "=");
	snprintf(name, sizeof(name), "%.*s", (int)l, word);
	if (strncmp(name, "--", 2) != 0 || !name[2]) {
		snprintf(buf, len, "%s: unknown option", name);
		return buf;
	}
	found = cli_prefix_matches(name + 2, longs, n, idx, ELEMENTSOF(idx));
	/* "--no-config=x": the option is known, the value is what it does not take */
	if (word[l] == '=' && (found == 1 || iso_exact(name + 2, longs, n))) {
		snprintf(buf, len, "%s: takes no value, got '%s'", name, word + l + 1);
		return buf;
	}
	if (found > 1) {
		off = snprintf(buf, len, "%s: ambiguous option: could be", name);
		for (size_t i = 0; i < found && i < ELEMENTSOF(idx) && off > 0 && (size_t)off < len;
		     i++)
			off += snprintf(buf + off, len - (size_t)off, "%s --%s", i ? "," : "",
					longs[idx[i]]);
		if (found > ELEMENTSOF(idx) && off > 0 && (size_t)off < len)
			snprintf(buf + off, len - (size_t)off, ", ...");
		return buf;
	}
	near = cli_suggest(name + 2, longs, n);
	if (near)
		snprintf(buf, len, "%s: unknown option; did you mean --%s?", name, near);
	else
		snprintf(buf, len, "%s: unknown option", name);
	return buf;
}

int cli_subcommand_refuse(int argc, char **argv, const char *why)
{
	size_t cap = 64, used = 0;
	char *line;

	if (!cli_on_path(argv[1])) {
		fprintf(stderr, "isorun: %s: %s (see isorun %s --help)\n", argv[1], why, argv[1]);
		return ISO_EXIT_SETUP;
	}
	for (int i = 1; i < argc; i++)
		cap += strlen(argv[i]) * 4 + 3;
	line = malloc(cap);
	for (int i = 1; line && i < argc; i++) {
		char *q = iso_shell_quote(argv[i]);

		if (!q) {
			free(line);
			line = NULL;
			break;
		}
		used += (size_t)snprintf(line + used, cap - used, " %s", q);
		free(q);
	}
	fprintf(stderr, "isorun: '%s' is a subcommand here; to run the command: isorun --%s\n",
		argv[1], line ? line : " ...");
	free(line);
	return ISO_EXIT_SETUP;
}
