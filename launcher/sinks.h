/* SPDX-License-Identifier: MIT */
/*
 * Where the verdict goes: isorun's output files, one row of the sinks table per
 * format (launcher/sinktab.h: the JSON report, the JUnit XML), then stderr and the
 * CI annotations.  Each renderer only reads the verdict (launcher/verdict.h) and
 * prints into a document in memory; the file layer (launcher/outfile.c) puts the
 * whole document in place.  A new format is a renderer and one row of the table.
 */
#ifndef ISO_SINKS_H
#define ISO_SINKS_H

#include <limits.h>
#include <stdio.h>

#include "common/err.h"
#include "launcher/opts.h"
#include "launcher/outcome.h"
#include "launcher/outfile.h"
#include "launcher/sinktab.h"
#include "launcher/verdict.h"

/*
 * A document while a renderer prints it: a memory stream, whose own error
 * indicator is sticky, so a renderer prints without checking; err holds a
 * failure that is not the stream's (jansson's).  Checked once, when it is done.
 */
struct sup_doc {
	FILE *f;
	char *text;
	size_t len;
	int err; /* -errno, the first failure; 0 */
};

/* A renderer of a whole document from the verdict. */
typedef void (*sup_renderer)(struct sup_doc *d, const struct sup_verdict *v);

/* The renderers of the sinks table's rows (launcher/sinktab.h), one file each. */
#define SUP_SINK_RENDERER_(ID, name, help, rkey, fd_path, tail, render, ...)                       \
	void render(struct sup_doc *d, const struct sup_verdict *v);
SUP_SINK_ROWS(SUP_SINK_RENDERER_)
#undef SUP_SINK_RENDERER_

/* The output files of one run, in the table's order. */
struct sup_sinks {
	struct sup_outfile files[SUP_N_SINKS];
	/* a DIR/ given: the file of this run in it (docs/decisions/0059) */
	char paths[SUP_N_SINKS][PATH_MAX];
};

#define SUP_SINKS_INIT                                                                             \
	{                                                                                          \
		.files = { [0 ... SUP_N_SINKS - 1] = SUP_OUTFILE_INIT }                            \
	}

/*
 * First of all, so that every later failure is in them: each file asked for gets
 * its provisional document at once
 * (docs/decisions/0041-reports-that-survive-a-killed-run.md).  -EINVAL with e set
 * when one cannot be opened (a setup error).
 * A directory (DIR/, or one that exists) gets a file of its own per run, named
 * by out->inv and out->run_id.
 */
int sup_sinks_open(struct sup_sinks *s, const struct sup_opts *opts, const struct sup_outcome *out,
		   struct iso_err *e);

/*
 * The verdict on out, the final documents, then stderr's lines, the annotations
 * and the verdict's line; returns isorun's exit code (and stores it in out->exit).
 * A file that could not be written is one more finding of the verdict.
 */
int sup_sinks_finish(struct sup_sinks *s, const struct sup_opts *opts, struct sup_outcome *out);

/* Close what is still open, writing nothing. */
void sup_sinks_close(struct sup_sinks *s);

/* A document rendered into memory: d->text (malloc'ed) or d->err. */
void sup_doc_render(struct sup_doc *d, sup_renderer render, const struct sup_verdict *v);
void sup_doc_free(struct sup_doc *d);

#endif
