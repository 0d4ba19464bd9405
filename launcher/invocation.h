/* SPDX-License-Identifier: MIT */
/*
 * Which test invocation a run was, as the test runner that started isorun tells
 * it: the variables it exports (bazel's TEST_TARGET, prove's HARNESS_ACTIVE,
 * meson's MESON_TEST_ITERATION, CTest's DASHBOARD_TEST_FROM_CTEST) and the test
 * binary's argv (go test's pkg.test, cargo's deps/NAME-HASH).  A label for the
 * report and its file's name, never evidence: the caller sets all of it.
 */
#ifndef ISO_INVOCATION_H
#define ISO_INVOCATION_H

#include <stddef.h>

struct sup_invocation {
	char *runner; /* "go test", "cargo test", "ctest", ...; NULL: none told */
	char *binary; /* argv[0] as given; NULL: no command */
	char *test;   /* the runner's name of the test; NULL: it names none */
	char *name;   /* the name a person knows the run by: the test, else the binary's */
};

/* From the command's argv and isorun's own environment (the runner's). */
void sup_invocation_find(struct sup_invocation *inv, char *const *argv, size_t argc);
void sup_invocation_free(struct sup_invocation *inv);

/*
 * inv's name as a file name's first part: letters, digits and . _ + - kept,
 * any other byte _, no leading dot, at most len - 1 bytes; "run" when empty.
 */
void sup_invocation_stem(const struct sup_invocation *inv, char *buf, size_t len);

#endif
