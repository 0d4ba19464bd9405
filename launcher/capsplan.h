/* SPDX-License-Identifier: MIT */
/* Which capabilities the command keeps, which it loses and why: for spawn, -v and the report. */
#ifndef ISO_CAPSPLAN_H
#define ISO_CAPSPLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct sup_run_plan;
typedef struct json_t json_t;

struct sup_caps_plan {
	bool root;	       /* the command starts as uid 0: it has capabilities to lose */
	int mode;	       /* enum ns_caps_mode */
	uint64_t keep;	       /* --cap-keep */
	uint64_t host;	       /* dropped: they act on the whole host */
	uint64_t protect;      /* dropped: they could undo the protections below */
	uint64_t userns;       /* dropped: root of a user namespace keeps only --cap-keep */
	char protect_why[160]; /* "--protect-home=ro, --private-tmp" */
	const char *keep_word; /* the command line's name of `keep` */
	char userns_why[100];  /* the words for `userns` */
};

/*
 * Decide for a run from its plan (`say`: the command line's words for the options):
 * `pidns` when the command starts under isorun's init,
 * `userns` when that init lives in a user namespace (an ordinary caller),
 * `socket_masks` when init covers --policy's deny-socket paths.
 */
void sup_caps_plan(struct sup_caps_plan *c, const struct sup_run_plan *p, const char *const *say,
		   bool pidns, bool userns, bool socket_masks);
/* Every capability the command loses (any reason). */
uint64_t sup_caps_dropped(const struct sup_caps_plan *c);
/* -v: one line on stderr naming the dropped ones and why; nothing for a non-root command. */
void sup_caps_say(const struct sup_caps_plan *c, FILE *f);
/* {"kept": [...], "dropped": [{"name", "why"}]}, or null for a non-root command. */
json_t *sup_caps_json(const struct sup_caps_plan *c);

#endif
