/* SPDX-License-Identifier: MIT */
/*
 * Attribution of a finding: which test was running (what the test runner told its
 * children, read from the process's environment and its ancestors' argv) and what
 * started it (its ancestors' argv when they exec'd, from the exec record, else from
 * /proc while they live).  Never guessed: what cannot be read is said in why_not.
 */
#ifndef ISO_ATTRIB_H
#define ISO_ATTRIB_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "launcher/execlog.h"

/* Ancestors followed at most: a deeper chain is cut at its outer end. */
#define SUP_ATTRIB_DEPTH 16

struct sup_argv {
	char **v;
	size_t n;
};

struct sup_attrib {
	struct sup_argv *chain; /* ancestors' argv, outermost first */
	size_t n_chain;
	bool chain_known; /* false: started_by is null (nothing recorded or readable) */
	char *runner;	  /* NULL: no test attributed */
	char *test;
	char *phase; /* pytest's setup/call/teardown, else NULL */
	char why_not[320];
};

/* What attribution reads from: the exec record and where a chain ends. */
struct sup_attrib_ctx {
	const struct sup_execlog *log;
	pid_t roots[2];	       /* isorun and, under --pidns, the namespace's init */
	pid_t cmd;	       /* the command (0: not known): the one process roots start */
	uint64_t run_start_ms; /* CLOCK_BOOTTIME, ms: the run's start */
	const char *no_record; /* why the exec record is empty, or NULL when it is kept */
	/* the test the runner that started isorun named for the whole run, or NULL */
	const char *run_runner, *run_test;
};

/* Attribute the process (pid, start), which must be alive (stopped) to be read. */
void sup_attrib_find(struct sup_attrib *a, const struct sup_attrib_ctx *c, pid_t pid,
		     uint64_t start);
void sup_attrib_free(struct sup_attrib *a);

/* argv from /proc/PID/cmdline, each argument redacted; {NULL, 0} when unreadable. */
struct sup_argv sup_argv_read(pid_t pid);
void sup_argv_free(struct sup_argv *a);
/*
 * The runners told by their test binary's argv alone (go test's pkg.test with
 * -test.* flags, cargo's target/.../deps/NAME-HASH): runner and test malloc'ed
 * (test NULL when out of memory); false when argv is neither.
 */
bool sup_test_of_argv(const struct sup_argv *v, char **runner, char **test);
/* "pytest -n 2 → python -c ... → sh -c ..." into a malloc'ed string. */
char *sup_attrib_chain_text(const struct sup_attrib *a);
/* A process start (ticks after boot) in ms after the run's start; negative: before it. */
int64_t sup_attrib_started_ms(const struct sup_attrib_ctx *c, uint64_t start);
/* CLOCK_BOOTTIME now, ms: the clock of /proc's start times. */
uint64_t sup_boottime_ms(void);

/* {"started_by": [[...]]|null, "test": {...}|null, "why_not": str|null} */
json_t *sup_attrib_json(const struct sup_attrib *a);
json_t *sup_argv_json(const struct sup_argv *a);

#endif
