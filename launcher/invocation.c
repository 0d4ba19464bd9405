// SPDX-License-Identifier: MIT
#include "launcher/invocation.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "launcher/attrib.h"

/* A stem longer than this is cut: the tree id after it keeps the name unique. */
#define STEM_MAX 80

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* prove runs `EXEC FILE` (a test script): its last argument that is not an option. */
static char *last_operand(char *const *argv, size_t argc)
{
	for (size_t i = argc; i > 1; i--)
		if (argv[i - 1][0] && argv[i - 1][0] != '-')
			return strdup(argv[i - 1]);
	return NULL;
}

/* The runners that say so in the environment only, with no test name: by their variable. */
static const char *runner_by_env(void)
{
	if (getenv("MESON_TEST_ITERATION"))
		return "meson test";
	if (getenv("DASHBOARD_TEST_FROM_CTEST") || getenv("CTEST_INTERACTIVE_DEBUG_MODE"))
		return "ctest";
	return NULL;
}

static void find(struct sup_invocation *inv, char *const *argv, size_t argc)
{
	/* read only: sup_argv's words are not const */
	struct sup_argv v = { .v = (char **)(uintptr_t)argv, .n = argc };
	const char *target = getenv("TEST_TARGET"), *r;

	if (target && target[0]) {
		inv->runner = strdup("bazel");
		inv->test = strdup(target);
		return;
	}
	if (argc && sup_test_of_argv(&v, &inv->runner, &inv->test)) {
		/* go's pkg.test -test.run=X is known by its binary; cargo's by its crate */
		if (inv->runner && !strcmp(inv->runner, "go test"))
			inv->name = strdup(base(argv[0]));
		return;
	}
	if (getenv("HARNESS_ACTIVE")) {
		inv->runner = strdup("prove");
		inv->test = last_operand(argv, argc);
		return;
	}
	if ((r = runner_by_env()))
		inv->runner = strdup(r);
}

static void redact(char **s)
{
	char *r;

	if (!*s)
		return;
	r = iso_redact(*s);
	free(*s);
	*s = r;
}

void sup_invocation_find(struct sup_invocation *inv, char *const *argv, size_t argc)
{
	*inv = (struct sup_invocation){ 0 };
	if (argc)
		inv->binary = iso_redact(argv[0]);
	find(inv, argv, argc);
	if (!inv->name && (inv->test || argc))
		inv->name = inv->test ? strdup(inv->test) : strdup(base(argv[0]));
	/* shown in the report, the JUnit file and a file's name: redacted as argv is */
	redact(&inv->test);
	redact(&inv->name);
}

void sup_invocation_free(struct sup_invocation *inv)
{
	free(inv->runner);
	free(inv->binary);
	free(inv->test);
	free(inv->name);
	*inv = (struct sup_invocation){ 0 };
}

static bool stem_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '+' || c == '-';
}

void sup_invocation_stem(const struct sup_invocation *inv, char *buf, size_t len)
{
	const char *s = inv->name ? inv->name : "";
	size_t n = 0, cap = len - 1 < STEM_MAX ? len - 1 : STEM_MAX;

	for (; *s && n < cap; s++, n++)
		buf[n] = stem_char(*s) && !(n == 0 && *s == '.') ? *s : '_';
	buf[n] = '\0';
	if (!n)
		snprintf(buf, len, "run");
}
