/* SPDX-License-Identifier: MIT */
/*
 * Ceilings and accounting: the run's own cgroup where one can be had
 * (--cgroup=auto), the ceilings of the plan (a table, iso_ceiling_descs[])
 * written to it or mapped to rlimits, and what the run used, for the report.
 */
#ifndef ISO_CEILING_H
#define ISO_CEILING_H

#include <stdbool.h>
#include <stdio.h>

#include "cgroup/cgroup.h"
#include "launcher/opts.h"
#include "launcher/resources.h"
#include "launcher/say.h"
#include "launcher/spawn.h"

/* how long the cgroup gets to empty after cgroup.kill */
#define ISO_CEILING_KILL_MS 10000

/* How a ceiling's value is written (cli/setters.c reads it by this). */
enum iso_ceiling_unit {
	ISO_CEIL_BYTES,	  /* a size: 512M, 2G */
	ISO_CEIL_COUNT,	  /* a plain number */
	ISO_CEIL_PERCENT, /* a number, with or without a '%' */
};

/* What a ceiling with no controller gets instead: a row's fallback decides it. */
struct iso_ceiling_fallback {
	int resource; /* an RLIMIT_* set on the command, or -1: none */
	bool exact;   /* that is the ceiling as asked */
	/* it binds only in the run's own user namespace: the limit's note when there is
	 * none after all (--pidns=try fell back), or NULL */
	const char *without_userns;
};

/*
 * A row's fallback: l is asked (value, try_); set l's note (iso_limit_note(), with
 * "rlimit" when f->resource is set) and *f.  `userns`: the command will run in a user
 * namespace of the run's own; say: the command line's words (launcher/say.h).
 */
typedef void iso_ceiling_fallback_fn(bool userns, const char *const *say, struct iso_limit *l,
				     struct iso_ceiling_fallback *f);

/*
 * One ceiling, the one description of it (launcher/ceiling_kinds.c): cli/ makes its
 * option, --help line and value's parse from it; this file enforces it and says
 * what it found.
 */
struct iso_ceiling_desc {
	/* the option's name, and the report's "limits" name; arrays, so that cli/'s key
	 * table (cli/keys.c) can point at them in its initializers */
	char name[24];
	char report[24]; /* the key of the report's settings */
	/* --help: the value's name and the words after it, '\n' continuing under them;
	 * a "%s" in them is help_say's words */
	const char *metavar, *help;
	enum iso_say help_say;
	/* the value: unit, bounds, and what a bad one should have been */
	enum iso_ceiling_unit unit;
	uint64_t min, max;
	const char *want;
	/* the run's cgroup: the controller, the file the value goes to, and how it is
	 * written there (NULL: the number) */
	enum cg_ctrl ctrl;
	const char *file;
	void (*format)(uint64_t value, char *buf, size_t len);
	iso_ceiling_fallback_fn *fallback;
	/* a hit the cgroup counts, "key N" in a flat-keyed file (file NULL: none), said
	 * as "WHAT reached (OPTION VALUE UNIT): N ONE|MANY VERB" */
	struct {
		const char *file, *key, *what, *unit, *one, *many, *verb;
	} hit;
};

extern const struct iso_ceiling_desc iso_ceiling_descs[ISO_N_CEILINGS];

/* A limit's note and how it is enforced ("cgroup", "rlimit", NULL: not). */
void iso_limit_note(struct iso_limit *l, const char *by, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct iso_ceilings {
	struct cg_host host;
	struct cg_run run;
	bool want_cgroup; /* the plan: make the run's cgroup */
	bool have_cgroup; /* made */
	unsigned ctrls;	  /* the controllers the ceilings need */
	struct iso_rlimit rl[ISO_N_CEILINGS];
	/* each rlimit's ceiling, and its note if the user namespace does not come (or NULL) */
	int rl_kind[ISO_N_CEILINGS];
	const char *rl_without_userns[ISO_N_CEILINGS];
	size_t n_rl;
	int tree_fd;		/* where the `cgroup` record is, while the cgroup exists */
	bool stranger;		/* a process not the run's sits in its cgroup: no cgroup.kill */
	const char *const *say; /* the options' words (launcher/say.h) */
};

#define ISO_CEILINGS_INIT                                                                          \
	{                                                                                          \
		.run = CG_RUN_INIT, .tree_fd = -1                                                  \
	}

/*
 * Before anything exists: decide how each ceiling is enforced.  A ceiling
 * asked strictly that cannot be is -EOPNOTSUPP with e saying which part is
 * missing and why; asked as try, res->limits[] says what was done instead.
 * `userns`: the command will run in a user namespace of the run's own.
 */
int iso_ceilings_plan(struct iso_ceilings *c, const struct iso_opts *o, bool userns,
		      struct iso_resources *res, struct iso_err *e);
/* After the tree: the run's cgroup named after it, its ceilings written. */
/* The tree's `cgroup` record names it, so that ls and gc find an orphaned run's processes. */
int iso_ceilings_create(struct iso_ceilings *c, const struct iso_opts *o, const char *tree_id,
			int tree_fd, struct iso_resources *res, struct iso_err *e);
/* The command's share: the cgroup to enter and the rlimits to set. */
void iso_ceilings_spawn(const struct iso_ceilings *c, struct iso_spawn *sp);
/* --pidns=try fell back: an RLIMIT_NPROC planned on a user namespace would count the host. */
void iso_ceilings_no_userns(struct iso_ceilings *c, struct iso_resources *res);
/* The cgroup's events watch, or -1. */
int iso_ceilings_watch_fd(const struct iso_ceilings *c);
/* Freeze, so what is listed next cannot fork; false without a cgroup. */
bool iso_ceilings_freeze(struct iso_ceilings *c, uint64_t deadline_ms);
/* After the names are taken: cgroup.kill, and wait for it to empty. */
void iso_ceilings_kill(struct iso_ceilings *c, uint64_t deadline_ms);
/* After the join: accounting, the hits, and the cgroup removed once empty. */
void iso_ceilings_finish(struct iso_ceilings *c, const struct iso_opts *o, bool failed,
			 struct iso_resources *res);
/* The summary's lines: a hit ceiling, a note, a retained cgroup. */
void iso_resources_say(const struct iso_opts *o, const struct iso_resources *res, FILE *f);
/* -v: what the command used, one line. */
void iso_resources_say_usage(const struct iso_opts *o, const struct iso_resources *res, FILE *f);
/* A finding of the ceilings' own: an observed hit, or a cgroup that stayed. */
bool iso_resources_finding(const struct iso_resources *res);
void iso_ceilings_close(struct iso_ceilings *c);

/* The report's `resources` object (docs/design.md, "Report"). */
struct json_t;
struct json_t *iso_resources_json(const struct iso_resources *res);

#endif
