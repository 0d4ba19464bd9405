/* SPDX-License-Identifier: MIT */
/*
 * isorun.conf: the options of a run as `name = value` lines (libinih), keys
 * being the long option names.  One file is read: the one named by --config,
 * else the nearest isorun.conf from the working directory up to /.
 */
#ifndef ISO_CONF_H
#define ISO_CONF_H

#include "cli/args.h"
#include "common/err.h"

#define CLI_CONF_NAME	  "isorun.conf"
#define CLI_CONF_MAX_SIZE (64 * 1024)

/*
 * Read the file that applies to `o` (already holding the command line) and
 * rebuild `o` as the file's settings with the command line replayed over them:
 * a scalar of the command line replaces the file's, a list adds to it.
 * Nothing to do under --no-config or when no file is found.  Errors name the
 * file (and line), 0 or -errno.
 */
int cli_conf_load(struct sup_opts *o, struct iso_err *e);

/*
 * Rebuild `o` (holding the command line) as the settings of `text`, read from
 * `path` (malloc'ed, taken) under the command line, with the command line
 * replayed over them; cli_conf_load() once it has the file's text.
 */
int cli_conf_apply(struct sup_opts *o, char *path, const char *text, struct iso_err *e);

/*
 * Apply the INI `text` of the file `path` (absolute) to `o`.  Relative paths
 * are taken relative to the directory of `path`; errors read "PATH:LINE: ...".
 */
int cli_conf_parse(struct sup_opts *o, const char *path, const char *text, struct iso_err *e);
/*
 * The same, read under the command line `cli` (its settings alone): a setting
 * that would widen what the command line protects is an error at its line.
 */
int cli_conf_parse_under(struct sup_opts *o, const struct sup_opts *cli, const char *path,
			 const char *text, struct iso_err *e);

/*
 * The nearest isorun.conf from `dir` (absolute) upwards: its path (malloc'ed)
 * and an open O_RDONLY fd, or *ret_path NULL when there is none.
 */
int cli_conf_find(const char *dir, char **ret_path, int *ret_fd, struct iso_err *e);

/*
 * The whole text of an open isorun.conf, refused unless it is a regular file
 * owned by the caller or root and writable by no one else (another user could
 * otherwise choose the options of this user's runs).  malloc'ed in *ret.
 */
int cli_conf_read(int fd, const char *path, char **ret, struct iso_err *e);

/* A relative `val` of isorun.conf taken relative to `dir`; malloc'ed. */
char *cli_conf_resolve(const char *dir, const char *val);

/*
 * Print a failure of cli_conf_load() (what: "bad configuration file") or of
 * cli_reenter_load() ("cannot re-enter the tree") as isorun does; returns
 * ISO_EXIT_SETUP.
 */
int cli_conf_fail(const struct iso_err *e, const char *what);

#endif
