// SPDX-License-Identifier: MIT
#include "cli/expand.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct buf {
	char *p;
	size_t n, cap;
};

static bool put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = (b->n + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p)
			return false;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return true;
}

static bool name_char(char c, bool first)
{
	return c == '_' || isalpha((unsigned char)c) || (!first && isdigit((unsigned char)c));
}

/* At `s` just after a '$': the name's start and length, and how far the reference runs. */
static int var_ref(const char *s, const char **name, size_t *nlen, size_t *used)
{
	size_t i = 0;
	bool braced = s[0] == '{';

	if (braced)
		i = 1;
	*name = s + i;
	while (name_char(s[i], i == (size_t)braced))
		i++;
	*nlen = i - (size_t)braced;
	if (braced && (s[i] != '}' || !*nlen))
		return -1;
	*used = i + (size_t)braced;
	return 0;
}

char *cli_expand(const char *val, const char *(*getvar)(const char *name), const char *home,
		 struct iso_err *e)
{
	struct buf b = { 0 };
	bool ok = put(&b, "", 0);

	for (const char *p = val; ok && *p;) {
		const char *name, *v;
		size_t nlen, used;
		char nm[256];

		/* ~ as a shell assignment reads it: first, or after ':', before '/' or the end */
		if (*p == '~' && (p == val || p[-1] == ':') &&
		    (p[1] == '/' || p[1] == ':' || !p[1])) {
			ok = put(&b, home, strlen(home));
			p++;
		} else if (p[0] == '$' && p[1] == '$') {
			ok = put(&b, "$", 1);
			p += 2;
		} else if (p[0] == '$' && (p[1] == '{' || name_char(p[1], true))) {
			if (var_ref(p + 1, &name, &nlen, &used) < 0 || nlen >= sizeof(nm)) {
				iso_err_set(e, 0,
					    "unclosed or empty ${ in '%s' ($$ is a literal $)",
					    val);
				free(b.p);
				return NULL;
			}
			snprintf(nm, sizeof(nm), "%.*s", (int)nlen, name);
			v = getvar(nm);
			if (!v) {
				iso_err_set(e, 0,
					    "${%s} is not set in the caller's environment ($$ is a "
					    "literal $)",
					    nm);
				free(b.p);
				return NULL;
			}
			ok = put(&b, v, strlen(v));
			p += 1 + used;
		} else {
			ok = put(&b, p, 1);
			p++;
		}
	}
	if (!ok) {
		iso_err_set(e, 0, "out of memory");
		free(b.p);
		return NULL;
	}
	return b.p;
}
