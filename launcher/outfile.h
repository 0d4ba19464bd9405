/* SPDX-License-Identifier: MIT */
/*
 * isorun's own output files (--report, --junit): a provisional document at the
 * start, replaced whole at the end, so a reader never finds an empty or half
 * written file and a run killed on the way leaves one that says it did not finish.
 *
 * A regular file (or a name still to be made) in a directory isorun can create in
 * is replaced by rename(2) of a temporary `.NAME.isorun-XXXXXX` beside it, written
 * and synced first.  Where that cannot be done (the directory is not writable, or
 * the disk refused the provisional text) the file is rewritten in place, as a
 * stream is.  A descriptor (fd:N), a FIFO, a device or a path through /proc
 * (/dev/stdout) is a stream: it cannot take back what it was given, so it gets only
 * the final document.
 */
#ifndef ISO_OUTFILE_H
#define ISO_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "common/err.h"

enum sup_outfile_how {
	SUP_OUT_STREAM,	 /* written once, at the end */
	SUP_OUT_INPLACE, /* provisional, then truncated and rewritten */
	SUP_OUT_REPLACE, /* provisional, then replaced by rename */
};

struct sup_outfile {
	const char *opt;  /* "--report" */
	const char *spec; /* FILE or fd:N, as given */
	enum sup_outfile_how how;
	int fd;			 /* STREAM, INPLACE: the destination; else -1 */
	int dir_fd;		 /* REPLACE: the destination's directory; else -1 */
	char name[NAME_MAX + 1]; /* REPLACE: the destination's name in it */
	bool had_file;		 /* REPLACE: a file was there: its mode and owner are kept */
	mode_t mode;
	uid_t uid;
	gid_t gid;
};

#define SUP_OUTFILE_INIT                                                                           \
	{                                                                                          \
		.fd = -1, .dir_fd = -1                                                             \
	}

/* A whole document in memory; text NULL: it could not be rendered (ENOMEM). */
struct sup_text {
	const char *text;
	size_t len;
};

/*
 * Open opt's spec and put the provisional document t in it.  -EINVAL with e set
 * when the file cannot be opened at all (a setup error); a provisional text the
 * disk refused leaves an empty file.
 */
int sup_outfile_open(struct sup_outfile *f, const char *opt, const char *spec,
		     const struct sup_text *t, struct iso_err *e);

/* Opened and not yet finished. */
bool sup_outfile_is_open(const struct sup_outfile *f);

/* The final document, then the file is closed; 0 or -errno (the provisional then stays). */
int sup_outfile_finish(struct sup_outfile *f, const struct sup_text *t);

/* All of text to fd, then fsync where fd has one; 0 or -errno. */
int sup_write_synced(int fd, const char *text, size_t len);

/* Close what is still open, writing nothing. */
void sup_outfile_close(struct sup_outfile *f);

/*
 * path's symlinks followed, as open(O_CREAT) would, to the name that is written:
 * the link stays a link and its target is replaced.  False for a chain through
 * /proc (/dev/stdout: whatever descriptor 1 is) or one that does not end.
 */
bool sup_outfile_resolve(char *path, size_t len);

#endif
