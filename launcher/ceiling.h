/* SPDX-License-Identifier: MIT */
/*
 * Ceilings and accounting: the run's own cgroup where one can be had
 * (--cgroup=auto), the ceilings of the plan (a table, sup_ceiling_descs[])
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
#define SUP_CEILING_KILL_MS 10000

/* How a ceiling's value is written (cli/setters.c reads it by this). */
enum sup_ceiling_unit {
	SUP_CEIL_BYTES,	  /* a size: 512M, 2G */
	SUP_CEIL_COUNT,	  /* a plain number */
	SUP_CEIL_PERCENT, /* a number, with or without a '%' */
};

/* What a ceiling with no controller gets instead: a row's fallback decides it. */
struct sup_ceiling_fallback {
	int resource; /* an RLIMIT_* set on the command, or -1: none */
	bool exact;   /* that is the ceiling as asked */
	/* it binds only in the run's own user namespace: the limit's note when there is
	 * none after all (--pidns=try fell back), or NULL */
	const char *without_userns;
};

/*
 * A row's fallback: l is asked (value, try_); set l's note (sup_limit_note(), with
 * "rlimit" when f->resource is set) and *f.  `userns`: the command will run in a user
 * namespace of the run's own; say: the command line's words (launcher/say.h).
 */
typedef void sup_ceiling_fallback_fn(bool userns, const char *const *say, struct sup_limit *l,
				     struct sup_ceiling_fallback *f);

/*
 * One ceiling, the one description of it (launcher/ceiling_kinds.c): cli/ makes its
 * option, --help line and value's parse from it; this file enforces it and says
 * what it found.
 */
struct sup_ceiling_desc {
	/* the option's name, and the report's "limits" name; arrays, so that cli/'s key
	 * table (cli/keys.c) can point at them in its initializers */
	char name[24];
	char report[24]; /* the key of the report's settings */
	/* --help: the value's name and the words after it, '\n' continuing under them;
	 * a "%s" in them is help_say's words */
	const char *metavar, *help;
	enum sup_say help_say;
	/* the value: unit, bounds, and what a bad one should have been */
	enum sup_ceiling_unit unit;
	uint64_t min, max;
	const char *want;
	/* the run's cgroup: the controller, the file the value goes to, and how it is
	 * written there (NULL: the number) */
	enum cg_ctrl ctrl;
	const char *file;
	void (*format)(uint64_t value, char *buf, size_t len);
	sup_ceiling_fallback_fn *fallback;
	/* a hit the cgroup counts, "key N" in a flat-keyed file (file NULL: none), said
	 * as "WHAT reached (OPTION VALUE UNIT): N ONE|MANY VERB" */
	struct {
		const char *file, *key, *what, *unit, *one, *many, *verb;
	} hit;
};

extern const struct sup_ceiling_desc sup_ceiling_descs[SUP_N_CEILINGS];

/* A limit's note and how it is enforced ("cgroup", "rlimit", NULL: not). */
void sup_limit_note(struct sup_limit *l, const char *by, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct sup_ceilings {
	struct cg_host host;
	struct cg_run run;
	bool want_cgroup; /* the plan: make the run's cgroup */
	bool have_cgroup; /* made */
	unsigned ctrls;	  /* the controllers the ceilings need */
	struct iso_rlimit rl[SUP_N_CEILINGS];
	/* each rlimit's ceiling, and its note if the user namespace does not come (or NULL) */
	int rl_kind[SUP_N_CEILINGS];
	const char *rl_without_userns[SUP_N_CEILINGS];
	size_t n_rl;
	int tree_fd;		/* where the `cgroup` record is, while the cgroup exists */
	bool stranger;		/* a process not the run's sits in its cgroup: no cgroup.kill */
	const char *const *say; /* the options' words (launcher/say.h) */
};

#define SUP_CEILINGS_INIT                                                                          \
	{                                                                                          \
		.run = CG_RUN_INIT, .tree_fd = -1                                                  \
	}

/*
 * Before anything exists: decide how each ceiling is enforced.  A ceiling
 * asked strictly that cannot be is -EOPNOTSUPP with e saying which part is
 * missing and why; asked as try, res->limits[] says what was done instead.
 * `userns`: the command will run in a user namespace of the run's own.
 */
int sup_ceilings_plan(struct sup_ceilings *c, const struct sup_opts *o, bool userns,
		      struct sup_resources *res, struct iso_err *e);
/* After the tree: the run's cgroup named after it, its ceilings written. */
/* The tree's `cgroup` record names it, so that ls and gc find an orphaned run's processes. */
int sup_ceilings_create(struct sup_ceilings *c, const struct sup_opts *o, const char *tree_id,
			int tree_fd, struct sup_resources *res, struct iso_err *e);
/* The command's share: the cgroup to enter and the rlimits to set. */
void sup_ceilings_spawn(const struct sup_ceilings *c, struct sup_spawn *sp);
/* --pidns=try fell back: an RLIMIT_NPROC planned on a user namespace would count the host. */
void sup_ceilings_no_userns(struct sup_ceilings *c, struct sup_resources *res);
/* The cgroup's events watch (EPOLLPRI), or -1. */
int sup_ceilings_watch_fd(const struct sup_ceilings *c);
/* Freeze, so what is listed next cannot fork; false without a cgroup. */
bool sup_ceilings_freeze(struct sup_ceilings *c, uint64_t deadline_ms);
/* After the names are taken: cgroup.kill, and wait for it to empty. */
void sup_ceilings_kill(struct sup_ceilings *c, uint64_t deadline_ms);
/* After the join: accounting, the hits, and the cgroup removed once empty. */
void sup_ceilings_finish(struct sup_ceilings *c, const struct sup_opts *o, bool failed,
			 struct sup_resources *res);
/* The summary's lines: a hit ceiling, a note, a retained cgroup. */
void sup_resources_say(const struct sup_opts *o, const struct sup_resources *res, FILE *f);
/* -v: what the command used, one line. */
void sup_resources_say_usage(const struct sup_opts *o, const struct sup_resources *res, FILE *f);
/* A finding of the ceilings' own: an observed hit, or a cgroup that stayed. */
bool sup_resources_finding(const struct sup_resources *res);
void sup_ceilings_close(struct sup_ceilings *c);

/* The report's `resources` object (docs/contract.md, "Report"). */
struct json_t;
struct json_t *sup_resources_json(const struct sup_resources *res);

#endif
