/* SPDX-License-Identifier: MIT */
/*
 * The setters the key table (keys.c) names: each validates one option's value
 * and sets its field; args.c holds them, beside the command line they serve.
 */
#ifndef ISO_KEYS_H
#define ISO_KEYS_H

#include <stddef.h>

#include "cli/args.h"

/* the field of struct iso_opts a key describes, for the table's initializers */
#define ISO_FIELD_OF(member)                                                                       \
	.off = offsetof(struct iso_opts, member), .size = sizeof(((struct iso_opts *)0)->member)
#define ISO_FIELD(o, k, type)  ((type *)(void *)((char *)(o) + (k)->off))
#define ISO_CFIELD(o, k, type) ((type const *)(const void *)((const char *)(o) + (k)->off))

/* true/false, yes/no, on/off, 1/0; -1 for anything else */
int iso_parse_bool(const char *val);
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
iso_key_parse_fn iso_set_pidns;
iso_key_parse_fn iso_set_path;	 /* const char * field, not empty */
iso_key_parse_fn iso_set_output; /* --report, --junit: FILE or fd:N */
iso_key_parse_fn iso_set_policy;
iso_key_parse_fn iso_set_path_list; /* struct iso_strv field, not empty */
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

#endif
