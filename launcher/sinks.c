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
	sup_renderer render; /* the document, from the verdict */
	const char *word;    /* the verdict's reason when it could not be written */
	const char *title;   /* the annotation's */
};

/* In the order they are written: the JUnit file names the report's failure. */
#define SINK_ROW(ID, name, help, rkey, rat, fd_path, tail, rend, wd)                               \
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

int sup_sinks_open(struct sup_sinks *s, const struct sup_opts *opts, const struct sup_outcome *out,
		   struct iso_err *e)
{
	struct sup_output outs[ELEMENTSOF(sinks)];
	struct sup_verdict v;
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(sinks); i++)
		outs[i] = (struct sup_output){ sup_say(opts->say, (enum sup_say)(SUP_SAY_SINK + i)),
					       opts->outputs[i] };
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
