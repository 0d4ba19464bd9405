/* SPDX-License-Identifier: MIT */
#ifndef ISO_ARGS_H
#define ISO_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "launcher/opts.h"

enum iso_key_kind {
	ISO_KIND_VALUE, /* replaced by a later setting */
	ISO_KIND_FLAG,	/* a VALUE that is true or false */
	ISO_KIND_LIST,	/* repeatable: a later setting adds */
};

/* A value's word: the first word of a value is how isorun config and the report spell it. */
struct iso_word {
	const char *word;
	int value;
	const char *alias; /* also accepted, named in the message: "ro (read-only)" */
};

struct iso_key_info;
/*
 * Validate `val` and set it in o; opt is "--name" or "name" for the message,
 * cli tells which of the two spells a message's fix.
 */
typedef int iso_key_parse_fn(struct iso_opts *o, const struct iso_key_info *k, const char *opt,
			     char *val, bool cli, struct iso_err *e);
/* isorun config's value of a scalar key, as an option would spell it */
typedef const char *iso_key_show_fn(const struct iso_opts *o, const struct iso_key_info *k,
				    char *buf, size_t len);
/* the report's value of the key (out->key is set) */
typedef void iso_key_report_fn(const struct iso_opts *o, const struct iso_key_info *k,
			       struct iso_report_setting *out);

/*
 * One option, the one description of it (cli/keys.c): the command line's getopt
 * table, isorun.conf, isorun config and the report's settings all loop over these.
 */
struct iso_key_info {
	const char *name; /* "env-dir" */
	enum iso_key_kind kind;
	bool path;   /* a relative value in isorun.conf is relative to the file's directory */
	bool bare;   /* a VALUE that may stand alone on the command line: --pidns */
	size_t off;  /* the field in struct iso_opts the shared parsers set */
	size_t size; /* its size: an int or a bool */
	int arg;     /* for a parser several keys share: ISO_RLIM_*, ISO_CEIL_*, ... */
	const struct iso_word *words; /* a choice's words, ended by { 0 } */
	iso_key_parse_fn *parse;
	iso_key_show_fn *show; /* NULL for a LIST: each entry is shown as given */
	const char *report;    /* the report's key, or NULL: not in the report */
	int report_at;	       /* its place among the report's settings (1: first) */
	iso_key_report_fn *report_value;
};

extern const struct iso_key_info iso_keys[ISO_N_KEYS];
/* The key named `name`, or -1. */
int iso_key_lookup(const char *name);
/* The setting that decided `key`: the last one applied (either of quiet and verbose), or NULL. */
const struct iso_setting *iso_key_last(const struct iso_opts *o, enum iso_key key);
/* isorun config's value of a scalar key */
const char *iso_key_show(const struct iso_opts *o, enum iso_key key, char *buf, size_t len);
/* The report's settings in its order (launcher/ calls it through opts->report_settings). */
size_t iso_key_report(const struct iso_opts *o,
		      struct iso_report_setting out[ISO_REPORT_SETTINGS_MAX]);

enum iso_action { ISO_RUN, ISO_SHOW_HELP, ISO_SHOW_VERSION };

/*
 * Apply one setting by its key: the one place that validates a value, for the
 * command line and isorun.conf alike.  `line` is ISO_FROM_CLI (val NULL: a bare
 * flag; errors say "--name: ...") or a line of the file (errors say "name: ...",
 * without the file:line the caller adds).  val must live as long as o.
 */
int iso_opt_set(struct iso_opts *o, enum iso_key key, char *val, unsigned line, struct iso_err *e);

/* Returns the action, or -EINVAL with e->msg naming the option ("--timeout: invalid duration 'x'").
 * Only the command line: isorun.conf is read by iso_conf_load().
 */
int iso_parse_args(int argc, char **argv, struct iso_opts *o, struct iso_err *e);
/* The same; ISO_ARGS_COMMAND_OPTIONAL: no command is not an error (`isorun config`). */
#define ISO_ARGS_COMMAND_OPTIONAL 1
int iso_parse_args_flags(int argc, char **argv, unsigned flags, struct iso_opts *o,
			 struct iso_err *e);
void iso_usage(FILE *f);
/* The --help of `isorun shell` and `isorun config`. */
void iso_shell_usage(FILE *f);
void iso_config_usage(FILE *f);
/* The options' implications, once they are final (after iso_conf_load()). */
void iso_plan_compile(struct iso_opts *o);
/* One warning line for each setting that does nothing without another (not with -q). */
void iso_warn_inert(const struct iso_opts *o);
/* The two lines of a refused command line; frees o and returns 125. */
int iso_args_refuse(struct iso_opts *o, const struct iso_err *e);

#endif
