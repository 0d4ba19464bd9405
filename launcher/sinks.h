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
struct iso_doc {
	FILE *f;
	char *text;
	size_t len;
	int err; /* -errno, the first failure; 0 */
};

/* A renderer of a whole document from the verdict. */
typedef void (*iso_renderer)(struct iso_doc *d, const struct iso_verdict *v);

/* The renderers of the sinks table's rows (launcher/sinktab.h), one file each. */
#define ISO_SINK_RENDERER_(ID, name, help, rkey, rat, fd_path, tail, render, ...)                  \
	void render(struct iso_doc *d, const struct iso_verdict *v);
ISO_SINK_ROWS(ISO_SINK_RENDERER_)
#undef ISO_SINK_RENDERER_

/* The output files of one run, in the table's order. */
struct iso_sinks {
	struct iso_outfile files[ISO_N_SINKS];
};

#define ISO_SINKS_INIT                                                                             \
	{                                                                                          \
		.files = { [0 ... ISO_N_SINKS - 1] = ISO_OUTFILE_INIT }                            \
	}

/*
 * First of all, so that every later failure is in them: each file asked for gets
 * its provisional document at once (docs/design.md, "Reports that survive a
 * killed run").  -EINVAL with e set when one cannot be opened (a setup error).
 */
int iso_sinks_open(struct iso_sinks *s, const struct iso_opts *opts, const struct iso_outcome *out,
		   struct iso_err *e);

/*
 * The verdict on out, the final documents, then stderr's lines, the annotations
 * and the verdict's line; returns isorun's exit code (and stores it in out->exit).
 * A file that could not be written is one more finding of the verdict.
 */
int iso_sinks_finish(struct iso_sinks *s, const struct iso_opts *opts, struct iso_outcome *out);

/* Close what is still open, writing nothing. */
void iso_sinks_close(struct iso_sinks *s);

/* A document rendered into memory: d->text (malloc'ed) or d->err. */
void iso_doc_render(struct iso_doc *d, iso_renderer render, const struct iso_verdict *v);
void iso_doc_free(struct iso_doc *d);

#endif
