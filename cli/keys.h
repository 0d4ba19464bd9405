/* SPDX-License-Identifier: MIT */
/*
 * The key table (keys.c): one description per option, and the setters it
 * names, each of which validates one option's value and sets its field.
 */
#ifndef ISO_KEYS_H
#define ISO_KEYS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"
#include "launcher/opts.h"

enum cli_key_kind {
	CLI_KIND_VALUE, /* replaced by a later setting */
	CLI_KIND_FLAG,	/* a VALUE that is true or false */
	CLI_KIND_LIST,	/* repeatable: a later setting adds */
};

/* A value's word: the first word of a value is how isorun config and the report spell it. */
struct cli_word {
	const char *word;
	int value;
	const char *alias; /* also accepted, named in the message: "ro (read-only)" */
	const char *like;  /* another tool's word for it: never accepted, only suggested */
};

struct cli_key_info;
/*
 * Validate `val` and set it in o; opt is "--name" or "name" for the message,
 * cli tells which of the two spells a message's fix.
 */
typedef int cli_key_parse_fn(struct sup_opts *o, const struct cli_key_info *k, const char *opt,
			     char *val, bool cli, struct iso_err *e);
/* isorun config's value of a scalar key, as an option would spell it */
typedef const char *cli_key_show_fn(const struct sup_opts *o, const struct cli_key_info *k,
				    char *buf, size_t len);
/* the report's value of the key (out->key is set) */
typedef void cli_key_report_fn(const struct sup_opts *o, const struct cli_key_info *k,
			       struct sup_report_setting *out);

/*
 * One option, the one description of it (cli/keys.c): the command line's getopt
 * table, isorun.conf, isorun config and the report's settings all loop over these.
 */
struct cli_key_info {
	const char *name; /* "env-dir" */
	enum cli_key_kind kind;
	bool path;   /* a relative value in isorun.conf is relative to the file's directory */
	bool bare;   /* a VALUE that may stand alone on the command line: --pidns */
	size_t off;  /* the field in struct sup_opts the shared parsers set */
	size_t size; /* its size: an int or a bool */
	int arg;     /* for a parser several keys share: SUP_RLIM_*, SUP_CEIL_*, ... */
	const struct cli_word *words; /* a choice's words, ended by { 0 } */
	cli_key_parse_fn *parse;
	cli_key_show_fn *show; /* NULL for a LIST: each entry is shown as given */
	const char *report;    /* the report's key, or NULL: not in the report */
	cli_key_report_fn *report_value;
	/* refused in isorun.conf: a project file cannot add it (the mounts) */
	bool cli_only;
	/*
	 * Its --help line (cli_usage): what follows --NAME (" DIR", "[=try]"; NULL:
	 * "=" and its words, if any) and its words, '\n' continuing them below.  A
	 * ceiling's and an output file's come from their rows.
	 */
	const char *metavar;
	const char *help;
	char letter; /* its short option: -q */
};

extern const struct cli_key_info cli_keys[SUP_N_KEYS];
/* An output file's key (one of the sinks table's rows, launcher/sinktab.h). */
bool cli_key_output(enum sup_key key);
/* The key named `name`, or -1. */
int cli_key_lookup(const char *name);
/* The setting that decided `key`: the last one applied (either of quiet and verbose), or NULL. */
const struct sup_setting *cli_key_last(const struct sup_opts *o, enum sup_key key);
/* isorun config's value of a scalar key */
const char *cli_key_show(const struct sup_opts *o, enum sup_key key, char *buf, size_t len);
/* The keys in the report's order (cli/keys.c); -1 stands for the ceilings. */
extern const int cli_key_report_order[];
extern const size_t cli_key_report_order_n;

/* The report's settings in its order (launcher/ calls it through opts->report_settings). */
size_t cli_key_report(const struct sup_opts *o,
		      struct sup_report_setting out[SUP_REPORT_SETTINGS_MAX]);

/* the field of struct sup_opts a key describes, for the table's initializers */
#define CLI_FIELD_OF(member)                                                                       \
	.off = offsetof(struct sup_opts, member), .size = sizeof(((struct sup_opts *)0)->member)
#define CLI_FIELD(o, k, type)  ((type *)(void *)((char *)(o) + (k)->off))
#define CLI_CFIELD(o, k, type) ((type const *)(const void *)((const char *)(o) + (k)->off))

/* true/false, yes/no, on/off, 1/0; -1 for anything else */
int cli_parse_bool(const char *val);
/*
 * A bare policy name (no '/' or '.': isorun.conf resolves no path for it) that is
 * neither shipped nor a file here: true, and into buf "'stric' is no shipped policy
 * and no file; did you mean FIXstrict?" or "... (shipped: default, strict, off)".
 */
bool cli_policy_unknown(const char *val, const char *fix, char *buf, size_t len);
/* the value of a word of k->words, or -1 */
int cli_word_value(const struct cli_key_info *k, const char *w);
/* the first word for a value: how it is shown */
const char *cli_word_name(const struct cli_key_info *k, int value);
/* the int or bool field of a choice */
int cli_choice_get(const struct sup_opts *o, const struct cli_key_info *k);

cli_key_parse_fn cli_set_flag;	    /* bool field */
cli_key_parse_fn cli_set_verbosity; /* arg: -1 quiet, 1 verbose */
cli_key_parse_fn cli_set_choice;    /* one of k->words into an int or bool field */
cli_key_parse_fn cli_set_color;	    /* a choice; bare: always */
cli_key_parse_fn cli_set_keep;	    /* a choice; bare: always; also every flag's words */
cli_key_parse_fn cli_set_pidns;
cli_key_parse_fn cli_set_path;	 /* const char * field, not empty */
cli_key_parse_fn cli_set_output; /* --report, --junit: FILE or fd:N */
cli_key_parse_fn cli_set_policy;
cli_key_parse_fn cli_set_path_list; /* struct sup_strv field, not empty */
cli_key_parse_fn cli_set_watch_ignore;
cli_key_parse_fn cli_set_env_dir;
cli_key_parse_fn cli_set_setenv;
cli_key_parse_fn cli_set_env_name; /* struct sup_strv field */
cli_key_parse_fn cli_set_pass_fd;
cli_key_parse_fn cli_set_duration; /* uint64_t field, milliseconds */
cli_key_parse_fn cli_set_stop_signal;
cli_key_parse_fn cli_set_finding_exit;
cli_key_parse_fn cli_set_cap_keep;
cli_key_parse_fn cli_set_ceiling; /* arg: SUP_CEIL_* */
cli_key_parse_fn cli_set_rlimit;  /* arg: SUP_RLIM_* */
cli_key_parse_fn cli_set_cache;	  /* NAME[,NAME]... or none: struct sup_strv of names */
cli_key_parse_fn cli_set_mount;	  /* arg: NS_MOUNT_*; into o->binds */

#endif
