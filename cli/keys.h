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
	const char *like;  /* another tool's word for it: never accepted, only suggested */
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
	/* refused in isorun.conf: a project file cannot add it (the mounts) */
	bool cli_only;
};

extern const struct iso_key_info iso_keys[ISO_N_KEYS];
/* An output file's key (one of the sinks table's rows, launcher/sinktab.h). */
bool iso_key_output(enum iso_key key);
/* The key named `name`, or -1. */
int iso_key_lookup(const char *name);
/* The setting that decided `key`: the last one applied (either of quiet and verbose), or NULL. */
const struct iso_setting *iso_key_last(const struct iso_opts *o, enum iso_key key);
/* isorun config's value of a scalar key */
const char *iso_key_show(const struct iso_opts *o, enum iso_key key, char *buf, size_t len);
/* The report's settings in its order (launcher/ calls it through opts->report_settings). */
size_t iso_key_report(const struct iso_opts *o,
		      struct iso_report_setting out[ISO_REPORT_SETTINGS_MAX]);

/* the field of struct iso_opts a key describes, for the table's initializers */
#define ISO_FIELD_OF(member)                                                                       \
	.off = offsetof(struct iso_opts, member), .size = sizeof(((struct iso_opts *)0)->member)
#define ISO_FIELD(o, k, type)  ((type *)(void *)((char *)(o) + (k)->off))
#define ISO_CFIELD(o, k, type) ((type const *)(const void *)((const char *)(o) + (k)->off))

/* true/false, yes/no, on/off, 1/0; -1 for anything else */
int iso_parse_bool(const char *val);
/*
 * A bare policy name (no '/' or '.': isorun.conf resolves no path for it) that is
 * neither shipped nor a file here: true, and into buf "'stric' is no shipped policy
 * and no file; did you mean FIXstrict?" or "... (shipped: default, strict, off)".
 */
bool iso_policy_unknown(const char *val, const char *fix, char *buf, size_t len);
/* the value of a word of k->words, or -1 */
int iso_word_value(const struct iso_key_info *k, const char *w);
/* the first word for a value: how it is shown */
const char *iso_word_name(const struct iso_key_info *k, int value);
/* the int or bool field of a choice */
int iso_choice_get(const struct iso_opts *o, const struct iso_key_info *k);

iso_key_parse_fn iso_set_flag;	    /* bool field */
iso_key_parse_fn iso_set_verbosity; /* arg: -1 quiet, 1 verbose */
iso_key_parse_fn iso_set_choice;    /* one of k->words into an int or bool field */
iso_key_parse_fn iso_set_color;	    /* a choice; bare: always */
iso_key_parse_fn iso_set_keep;	    /* a choice; bare: always; also every flag's words */
iso_key_parse_fn iso_set_pidns;
iso_key_parse_fn iso_set_path;	 /* const char * field, not empty */
iso_key_parse_fn iso_set_output; /* --report, --junit: FILE or fd:N */
iso_key_parse_fn iso_set_policy;
iso_key_parse_fn iso_set_path_list; /* struct iso_strv field, not empty */
iso_key_parse_fn iso_set_watch_ignore;
iso_key_parse_fn iso_set_env_dir;
iso_key_parse_fn iso_set_setenv;
iso_key_parse_fn iso_set_env_name; /* struct iso_strv field */
iso_key_parse_fn iso_set_pass_fd;
iso_key_parse_fn iso_set_duration; /* uint64_t field, milliseconds */
iso_key_parse_fn iso_set_stop_signal;
iso_key_parse_fn iso_set_finding_exit;
iso_key_parse_fn iso_set_cap_keep;
iso_key_parse_fn iso_set_ceiling; /* arg: ISO_CEIL_* */
iso_key_parse_fn iso_set_rlimit;  /* arg: ISO_RLIM_* */
iso_key_parse_fn iso_set_cache;	  /* NAME[,NAME]... or none: struct iso_strv of names */
iso_key_parse_fn iso_set_mount;	  /* arg: NS_MOUNT_*; into o->binds */

#endif
