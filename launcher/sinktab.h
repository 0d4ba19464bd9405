/* SPDX-License-Identifier: MIT */
/*
 * The sinks table: isorun's output files, one row each, in the order they are
 * written (the JUnit file names the report's failure).  Everything else about an
 * output file is generated from its row: its option (its entry in cli/keys.c's key
 * table, its --help line in cli/args.c, its spelling in messages in cli/advice.c),
 * its slot in struct sup_opts (outputs[SUP_SINK_ID]), its renderer's prototype
 * (launcher/sinks.h) and what launcher/sinks.c does with it.  A new format is its
 * renderer (a file of launcher/ that reads only the verdict) and one row here, and
 * its file extension for --NAME DIR/ in launcher/sinks.c's exts[].
 *
 * A header, not an array in sinks.c: the key table and struct sup_opts are built
 * from it when they are compiled.  It includes nothing, so that launcher/opts.h can.
 *
 * ROW(ID, name, help, rkey, fd_path, tail, render, word):
 *   ID       its names: SUP_K_ID (enum sup_key), SUP_SINK_ID (the row's index)
 *   name     the option and isorun.conf key: "report" is --report FILE|DIR/|fd:N
 *   help     its --help line's words after "--name FILE|DIR/|fd:N"
 *   rkey     its key among the report's settings (placed by cli/keys.c's
 *            cli_key_report_order), or NULL: none
 *   fd_path  the report's setting shows an fd:N as a path made absolute, as --junit's
 *            always has; false: as the string fd:N
 *   tail     the renderer prints the tail of the command's output, which is then kept
 *   render   void render(struct sup_doc *, const struct sup_verdict *)
 *   word     the verdict's reason when the file could not be written ("isorun: " and
 *            it is the annotation's title)
 */
#ifndef ISO_SINKTAB_H
#define ISO_SINKTAB_H

#define SUP_SINK_ROWS(ROW)                                                                         \
	ROW(REPORT, "report", "write the JSON report to FILE or descriptor N", "report", false,    \
	    true, iso_report_render, "report not written")                                         \
	ROW(JUNIT, "junit", "write JUnit XML, one test case per guard", "junit", true, false,      \
	    iso_junit_render, "JUnit file not written")

/* The rows' indexes: SUP_SINK_REPORT, SUP_SINK_JUNIT, ... */
#define SUP_SINK_ID_(ID, ...) SUP_SINK_##ID,
enum sup_sink_id { SUP_SINK_ROWS(SUP_SINK_ID_) SUP_N_SINKS };
#undef SUP_SINK_ID_

#endif
