/* SPDX-License-Identifier: MIT */
/*
 * The command line's "did you mean": the nearest of a set of words by edit
 * distance, the way git and cargo suggest, and whether a word names a program
 * on PATH (`isorun ls -la` meant coreutils' ls).  Messages stay in the callers.
 */
#ifndef ISO_SUGGEST_H
#define ISO_SUGGEST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Optimal string alignment distance (insertions, deletions, substitutions and
 * adjacent transpositions each cost 1), case-insensitive; words longer than 63
 * bytes are "far" (64).
 */
size_t cli_edit_distance(const char *a, const char *b);

/*
 * The candidate nearest to `word` when it is near enough to be a typo of it
 * (distance at most a third of the word, at least 1, at most 3); the first of
 * equals; NULL when none is.  cands may hold NULLs (skipped).
 */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);

/* How many candidates start with `prefix` (an abbreviation); their indexes into `out`. */
size_t cli_prefix_matches(const char *prefix, const char *const *cands, size_t n, size_t *out,
			  size_t max);

/* True when `name` (no '/') is an executable file in a directory of $PATH. */
bool cli_on_path(const char *name);

#endif

/*
 * "--tmieout: unknown option; did you mean --timeout?", "--p: ambiguous option:
 * --pass-fd, --pidns, ..." or "--bogus: unknown option" for the long option
 * `word` (as given, "--name" or "--name=value") among the long option names
 * `longs` (without "--"); into buf.
 */
const char *cli_unknown_option(const char *word, const char *const *longs, size_t n, char *buf,
			       size_t len);

/*
 * `isorun SUB ...` got a word SUB does not take.  When SUB is also a program on
 * PATH the user most likely meant it: "isorun: 'ls' is a subcommand here; to run
 * the command: isorun -- ls -la".  Otherwise "isorun: SUB: WHY (see isorun SUB
 * --help)".  argv is the whole command line (argv[1] is SUB).  Returns 125.
 */
int cli_subcommand_refuse(int argc, char **argv, const char *why);
