// SPDX-License-Identifier: MIT
#include "launcher/sinks.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "launcher/annotate.h"
#include "launcher/outid.h"
#include "launcher/say.h"
#include "launcher/summary.h"

/* One output format, as its row of the sinks table says. */
struct iso_sink {
	iso_renderer render; /* the document, from the verdict */
	const char *word;    /* the verdict's reason when it could not be written */
	const char *title;   /* the annotation's */
};

/* In the order they are written: the JUnit file names the report's failure. */
#define SINK_ROW(ID, name, help, rkey, rat, fd_path, tail, rend, wd)                               \
	[ISO_SINK_##ID] = { .render = rend, .word = wd, .title = "isorun: " wd },
static const struct iso_sink sinks[ISO_N_SINKS] = { ISO_SINK_ROWS(SINK_ROW) };
#undef SINK_ROW

void iso_doc_render(struct iso_doc *d, iso_renderer render, const struct iso_verdict *v)
{
	*d = (struct iso_doc){ 0 };
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

void iso_doc_free(struct iso_doc *d)
{
	free(d->text);
	d->text = NULL;
}

/* The document as the file layer takes it: none at all when it could not be made. */
static struct iso_text text_of(const struct iso_doc *d)
{
	return (struct iso_text){ .text = d->err ? NULL : d->text, .len = d->len };
}

int iso_sinks_open(struct iso_sinks *s, const struct iso_opts *opts, const struct iso_outcome *out,
		   struct iso_err *e)
{
	struct iso_output outs[ELEMENTSOF(sinks)];
	struct iso_verdict v;
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(sinks); i++)
		outs[i] = (struct iso_output){ iso_say(opts->say, (enum iso_say)(ISO_SAY_SINK + i)),
					       opts->outputs[i] };
	/* before any is opened: O_TRUNC would empty the file that is refused */
	if (iso_outputs_distinct(outs, ELEMENTSOF(outs), e) < 0)
		return -EINVAL;
	iso_verdict_unfinished(&v, opts, out);
	for (size_t i = 0; i < ELEMENTSOF(sinks) && r == 0; i++) {
		struct iso_doc d;
		struct iso_text t;

		if (!outs[i].spec)
			continue;
		iso_doc_render(&d, sinks[i].render, &v);
		t = text_of(&d);
		r = iso_outfile_open(&s->files[i], outs[i].opt, outs[i].spec, &t, e);
		iso_doc_free(&d);
	}
	return r < 0 ? -EINVAL : 0;
}

/*
 * The final document over the provisional one: a file that is not all there is no
 * evidence, so the run fails, and the provisional document (or, rewritten in
 * place, nothing) is what a reader finds, never half.
 */
static void finish_one(struct iso_outfile *f, const struct iso_sink *k, struct iso_verdict *v)
{
	struct iso_doc d;
	struct iso_text t;
	char text[400];
	int r;

	iso_doc_render(&d, k->render, v);
	t = text_of(&d);
	r = iso_outfile_finish(f, &t);
	iso_doc_free(&d);
	if (r == 0)
		return;
	snprintf(text, sizeof(text), "%s: write '%s': %s", f->opt, f->spec, strerror(-r));
	iso_verdict_undelivered(v, text, k->word, k->title);
}

int iso_sinks_finish(struct iso_sinks *s, const struct iso_opts *opts, struct iso_outcome *out)
{
	struct iso_verdict v;
	int code;

	/* without memory for a finding's words it still counts: the exit code stands */
	(void)iso_verdict_make(&v, opts, out);
	for (size_t i = 0; i < ELEMENTSOF(sinks); i++)
		if (iso_outfile_is_open(&s->files[i]))
			finish_one(&s->files[i], &sinks[i], &v);
	iso_summary_lines(stderr, &v);
	if (iso_annotations_wanted())
		iso_annotate(stderr, &v);
	iso_summary_verdict(stderr, &v);
	code = out->exit = v.exit;
	iso_verdict_free(&v);
	return code;
}

void iso_sinks_close(struct iso_sinks *s)
{
	for (size_t i = 0; i < ISO_N_SINKS; i++)
		iso_outfile_close(&s->files[i]);
}
