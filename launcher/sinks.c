// SPDX-License-Identifier: MIT
#include "launcher/sinks.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "launcher/annotate.h"
#include "launcher/outid.h"
#include "launcher/say.h"
#include "launcher/summary.h"

/* One output format, as its row of the sinks table says. */
struct iso_sink {
	sup_renderer render; /* the document, from the verdict */
	const char *word;    /* the verdict's reason when it could not be written */
	const char *title;   /* the annotation's */
};

/* In the order they are written: the JUnit file names the report's failure. */
#define SINK_ROW(ID, name, help, rkey, fd_path, tail, rend, wd)                                    \
	[SUP_SINK_##ID] = { .render = rend, .word = wd, .title = "isorun: " wd },
static const struct iso_sink sinks[SUP_N_SINKS] = { SUP_SINK_ROWS(SINK_ROW) };
#undef SINK_ROW

void sup_doc_render(struct sup_doc *d, sup_renderer render, const struct sup_verdict *v)
{
	*d = (struct sup_doc){ 0 };
	d->f = open_memstream(&d->text, &d->len);
	if (!d->f) {
		d->err = -ENOMEM;
		return;
	}
	render(d, v);
	/* the stream's error indicator is sticky: one check for every print */
	if (ferror(d->f) && !d->err)
		d->err = -ENOMEM;
	if (fclose(d->f) != 0 && !d->err)
		d->err = -ENOMEM;
	d->f = NULL;
}

void sup_doc_free(struct sup_doc *d)
{
	free(d->text);
	d->text = NULL;
}

/* The document as the file layer takes it: none at all when it could not be made. */
static struct sup_text text_of(const struct sup_doc *d)
{
	return (struct sup_text){ .text = d->err ? NULL : d->text, .len = d->len };
}

/*
 * A file per run in a directory (--report DIR/): the format's extension, by the
 * table's row; a row without one gets ".out".  Here, not a column of the row: the
 * key table and --help, which every row's columns reach, have no use for it.
 */
static const char *const exts[SUP_N_SINKS] = {
	[SUP_SINK_REPORT] = ".json",
	[SUP_SINK_JUNIT] = ".xml",
};

/* DIR/ (said by its slash, which may name a directory still to make) or a directory. */
static bool is_dir_spec(const char *spec)
{
	struct stat st;
	size_t n = strlen(spec);

	if (strncmp(spec, "fd:", 3) == 0)
		return false;
	return (n && spec[n - 1] == '/') || (stat(spec, &st) == 0 && S_ISDIR(st.st_mode));
}

/* dir and the directories above it, as mkdir -p: EEXIST is a run beside that made it. */
static int make_dirs(const char *dir, size_t n)
{
	char path[PATH_MAX];

	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n);
	path[n] = '\0';
	for (char *p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, 0777) < 0 && errno != EEXIST)
			return -errno;
		if (!c)
			return 0;
		*p = c;
	}
}

/*
 * DIR/NAME-ID.EXT: the name a person knows the run by, then the tree's name, which
 * no other run has, so runs in parallel (ctest -j, go test -p) never share a file.
 * A DIR/ still to be made is made, with its parents (a CI job's reports/shard-1/).
 */
static int dir_file(char *buf, size_t len, const char *opt, const char *dir, const char *ext,
		    const struct sup_outcome *out, struct iso_err *e)
{
	char stem[96];
	size_t n = strlen(dir);
	int r;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	sup_invocation_stem(&out->inv, stem, sizeof(stem));
	if (snprintf(buf, len, "%.*s/%s-%s%s", (int)n, dir, stem, out->run_id, ext) >= (int)len)
		return iso_err_set(e, ENAMETOOLONG, "%s: a file in '%s'", opt, dir);
	if ((r = make_dirs(dir, n)) < 0)
		return iso_err_set(e, -r, "%s: make the directory '%s'", opt, dir);
	return 0;
}

int sup_sinks_open(struct sup_sinks *s, const struct sup_opts *opts, const struct sup_outcome *out,
		   struct iso_err *e)
{
	struct sup_output outs[ELEMENTSOF(sinks)];
	struct sup_verdict v;
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(sinks); i++) {
		outs[i] = (struct sup_output){ sup_say(opts->say, (enum sup_say)(SUP_SAY_SINK + i)),
					       opts->outputs[i] };
		if (!outs[i].spec || !is_dir_spec(outs[i].spec))
			continue;
		if (dir_file(s->paths[i], sizeof(s->paths[i]), outs[i].opt, outs[i].spec,
			     exts[i] ? exts[i] : ".out", out, e) < 0)
			return -EINVAL;
		outs[i].spec = s->paths[i];
	}
	/* before any is opened: O_TRUNC would empty the file that is refused */
	if (sup_outputs_distinct(outs, ELEMENTSOF(outs), e) < 0)
		return -EINVAL;
	sup_verdict_unfinished(&v, opts, out);
	for (size_t i = 0; i < ELEMENTSOF(sinks) && r == 0; i++) {
		struct sup_doc d;
		struct sup_text t;

		if (!outs[i].spec)
			continue;
		sup_doc_render(&d, sinks[i].render, &v);
		t = text_of(&d);
		r = sup_outfile_open(&s->files[i], outs[i].opt, outs[i].spec, &t, e);
		sup_doc_free(&d);
	}
	return r < 0 ? -EINVAL : 0;
}

/*
 * The final document over the provisional one: a file that is not all there is no
 * evidence, so the run fails, and the provisional document (or, rewritten in
 * place, nothing) is what a reader finds, never half.
 */
static void finish_one(struct sup_outfile *f, const struct iso_sink *k, struct sup_verdict *v)
{
	struct sup_doc d;
	struct sup_text t;
	char text[400];
	int r;

	sup_doc_render(&d, k->render, v);
	t = text_of(&d);
	r = sup_outfile_finish(f, &t);
	sup_doc_free(&d);
	if (r == 0)
		return;
	snprintf(text, sizeof(text), "%s: write '%s': %s", f->opt, f->spec, strerror(-r));
	sup_verdict_undelivered(v, text, k->word, k->title);
}

int sup_sinks_finish(struct sup_sinks *s, const struct sup_opts *opts, struct sup_outcome *out)
{
	struct sup_verdict v;
	int code;

	/* without memory for a finding's words it still counts: the exit code stands */
	(void)sup_verdict_make(&v, opts, out);
	for (size_t i = 0; i < ELEMENTSOF(sinks); i++)
		if (sup_outfile_is_open(&s->files[i]))
			finish_one(&s->files[i], &sinks[i], &v);
	sup_summary_lines(stderr, &v);
	if (sup_annotations_wanted())
		sup_annotate(stderr, &v);
	sup_summary_verdict(stderr, &v);
	code = out->exit = v.exit;
	sup_verdict_free(&v);
	return code;
}

void sup_sinks_close(struct sup_sinks *s)
{
	for (size_t i = 0; i < SUP_N_SINKS; i++)
		sup_outfile_close(&s->files[i]);
}
