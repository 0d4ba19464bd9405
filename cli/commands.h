/* SPDX-License-Identifier: MIT */
/*
 * The subcommands besides a run.  Each takes the whole argv (argv[1] is the
 * subcommand's name) and returns isorun's exit code.
 */
#ifndef ISO_COMMANDS_H
#define ISO_COMMANDS_H

/* isorun config [OPTION]...: the effective settings and where each came from */
int cli_config_main(int argc, char **argv);
/* isorun selftest [--json] [OPTION]...: probe the host, run the live controls */
int cli_selftest_main(int argc, char **argv);
/* selftest's spellings of isorun's options, by enum st_say (selftest/selftest.h) */
extern const char *const cli_st_says[];
/* isorun ls: the kept and retained trees under the caller's root */
int cli_ls_main(int argc, char **argv);
/* isorun gc [--dry-run]: remove the trees proven orphaned */
int cli_gc_main(int argc, char **argv);
/* isorun report [--junit FILE] FILE|DIR...: many runs' reports merged into one verdict */
int cli_report_main(int argc, char **argv);

#endif
