// SPDX-License-Identifier: MIT
#include "launcher/annotate.h"

#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/text.h"

bool sup_annotations_wanted(void)
{
	const char *v = getenv("GITHUB_ACTIONS");

	return v && strcmp(v, "true") == 0;
}

/*
 * The runner's rules (toolkit's command.ts): % CR LF always, and in a property
 * also : and , which would end the property.
 */
char *sup_gha_escape(const char *s, bool props)
{
	char *out = malloc(strlen(s) * 3 + 1), *p = out;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (*s == '%' || *s == '\r' || *s == '\n' || (props && (*s == ':' || *s == ',')))
			p += sprintf(p, "%%%02X", (unsigned char)*s);
		else
			*p++ = *s;
	}
	*p = '\0';
	return out;
}

/* One command; file may be NULL (then no position). */
struct where {
	const char *file;
	int line, col;
};

static void command(FILE *f, const char *level, const char *title, const struct where *at,
		    const char *text)
{
	_cleanup_free_ char *inert = iso_escape_lines(text), *inert_file = NULL;
	_cleanup_free_ char *t = sup_gha_escape(title, true);
	_cleanup_free_ char *m = inert ? sup_gha_escape(inert, false) : NULL;
	_cleanup_free_ char *file = NULL;

	if (at && at->file && (inert_file = iso_escape(at->file)))
		file = sup_gha_escape(inert_file, true);
	if (!t || !m)
		return;
	fprintf(f, "::%s ", level);
	if (file) {
		fprintf(f, "file=%s,", file);
		if (at->line > 0)
			fprintf(f, "line=%d,", at->line);
		if (at->col > 0)
			fprintf(f, "col=%d,", at->col);
	}
	fprintf(f, "title=%s::%s\n", t, m);
}

void sup_annotate_text(FILE *f, const char *level, const char *title, const char *text)
{
	command(f, level, title, NULL, text);
}

/* Before the command ran only the setup failure and what was not delivered are news. */
static bool shown(const struct sup_verdict *v, const struct sup_vfinding *it)
{
	if (!it->title || !it->text || !strcmp(it->level, "info"))
		return false;
	return !v->nothing_ran || it->kind == SUP_V_SETUP || it->kind == SUP_V_STREAM_LOST ||
	       it->kind == SUP_V_UNDELIVERED;
}

void sup_annotate(FILE *f, const struct sup_verdict *v)
{
	for (size_t i = 0; i < v->n_items; i++) {
		const struct sup_vfinding *it = &v->items[i];
		struct where at = { it->file, it->line, it->col };

		if (shown(v, it))
			command(f, it->level, it->title, it->file ? &at : NULL, it->text);
	}
}
