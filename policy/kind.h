/* SPDX-License-Identifier: MIT */
/*
 * A rule kind, inside policy/: one descriptor says how its statement is
 * parsed, printed and freed, what it adds to the filter, and how it answers
 * the calls it had notified.  parse.c, compile.c and notify.c walk the table
 * (policy/kinds.c) in order, as crun asks its seccomp-notify plugins in turn:
 * the first handler that takes a call answers it.  A new kind is one file
 * (its descriptor) and one entry in that table.
 */
#ifndef ISO_POLICY_KIND_H
#define ISO_POLICY_KIND_H

#include <linux/seccomp.h>
#include <stdio.h>

#include "policy/policy.h"

/* --- parsing (policy/parse.c) ---------------------------------------------- */

struct pol_tok {
	char *s;
	int col; /* 1-based byte column */
};

/* The file being parsed and its current line. */
struct pol_unit {
	const char *label; /* as named in errors: the path as given or joined */
	const char *base;  /* basename, for origins */
	int line;
	const char *text; /* the raw line, not NUL-terminated */
	size_t len;
	bool seen_statement;
};

/* One statement: t[0] is its word, t[1..n-1] what follows. */
struct pol_stmt {
	struct pol *pol; /* the rules so far: a kind adds its rule here */
	struct pol_error *err;
	const struct pol_unit *u;
	const struct pol_tok *t;
	size_t n;
};

/* Fill the error at column `col` of the statement's line: -EINVAL. */
__attribute__((format(printf, 3, 4))) int pol_fail(const struct pol_stmt *st, int col,
						   const char *fmt, ...);
int pol_fail_oom(const struct pol_stmt *st); /* -ENOMEM */
/* Where a missing word would start: just past the last token. */
int pol_end_col(const struct pol_stmt *st);
/* Split "key=value"; false when there is no '='. */
bool pol_split_option(const struct pol_tok *t, char *key, size_t keylen, const char **value,
		      int *value_col);
/* "file:line" of the statement into origin: 0, or the "file name too long" failure. */
int pol_origin_set(const struct pol_stmt *st, char *origin, size_t len);
/* arr with room for element n: the same or a larger array, NULL when out of memory. */
void *pol_grow(void *arr, size_t n, size_t size);

/* --- printing (policy/parse.c) ---------------------------------------------- */

struct pol_fmt;
/* Start a rule from `origin` (a blank line before a kind's first, "# from" when needed). */
FILE *pol_fmt_rule(struct pol_fmt *x, const char *origin);

/* --- notification (policy/notify.c) ------------------------------------------ */

/* A notified call, as the handlers see it. */
struct pol_notif {
	int listener;
	const struct seccomp_notif *req;
	const struct pol *p;
	bool log_only;
	struct pol_event *ret;
	pol_exec_fn on_exec;
	void *arg;
	struct iso_reader *rd;
	const struct pol_run *run;
	bool native;	  /* x86_64's own numbers: req->data.nr compares with SYS_* */
	bool compat;	  /* a 32-bit ABI: 4-byte pointers, 32-bit longs */
	const char *name; /* the call's name on the other ABIs, NULL when unknown */
};

/* A handler's "not one of mine": the next kind is asked. */
#define POL_NOTIF_NOT_MINE 2
/* The call is `name`, which is `nr` on x86_64 (-1: none there). */
bool pol_notif_is(const struct pol_notif *n, long nr, const char *name);
/* Answer: continue (cont), or fail the call with `error` (0: success, -errno). */
int pol_notif_answer(const struct pol_notif *n, int error, bool cont);
/* SECCOMP_IOCTL_NOTIF_ID_VALID: 0, or -errno (ENOENT: the caller went away). */
int pol_notif_id_valid(const struct pol_notif *n);
/*
 * Refuse (EPERM; under log mode continue) and fill the event: call, origin
 * (the rule), detail.  Returns 1, or -errno when the answer failed.
 */
int pol_notif_refuse(const struct pol_notif *n, const char *call, const char *origin,
		     const char *detail);
/* The refusal of a call whose arguments the reader did not read in time. */
int pol_notif_overran(const struct pol_notif *n, const char *call, const char *what);
extern const char pol_unreadable_origin[];

/* The caller's memory, for a handler's reader (policy/notify.c). */
struct pol_target;
/* Exactly len bytes at addr (masked for the ABI), or -errno (-EFAULT: not all mapped). */
int pol_target_read(struct pol_target *t, uint64_t addr, void *buf, size_t len);
pid_t pol_target_pid(const struct pol_target *t);
/* The caller's view of a relative name: /proc/PID/cwd or /proc/PID/fd/N. */
void pol_target_link(pid_t pid, const char *what, char *out, size_t len);

/* A call whose arguments a handler reads from the caller's memory on the reader. */
struct pol_args_ops {
	const char *call; /* the event's "call" */
	size_t size;	  /* of the arguments read */
	/* on the reader: 0 or -errno; args comes not zeroed, read sets what it reports */
	int (*read)(struct pol_target *t, const struct seccomp_notif *req, void *args);
	struct pol_verdict (*decide)(const struct pol *p, const void *args);
	void (*detail)(const void *args, char *out, size_t len); /* of a refusal */
	/* a call let through, just before it is answered (NULL: nothing to do) */
	void (*passed)(const struct pol_notif *n, const void *args);
};
/* Read, decide, answer and fill the event: returns as pol_notify_handle_with(). */
int pol_notif_args(const struct pol_notif *n, const struct pol_args_ops *ops);

/* An exec's arguments as read (policy/notify.c): argv cut at its bounds. */
#define POL_ARGS_MAX 256
struct pol_exec_args {
	char path[4096];
	char *argv[POL_ARGS_MAX + 1];
	size_t argc;
	bool truncated;
	char *strings; /* the arguments' bytes */
	char *scratch; /* the pieces read at once, before they are cut */
};
#define POL_ARGS_TOTAL_MAX (64 * 1024) /* bytes of all arguments read */
#define POL_ARGS_SCRATCH   (64 * 256)  /* FAST_ARGS pieces of FAST_PIECE bytes (notify.c) */
#define POL_EXEC_ARGS_SIZE (sizeof(struct pol_exec_args) + POL_ARGS_TOTAL_MAX + POL_ARGS_SCRATCH)
/* execve's and execveat's readers (struct pol_exec_args), and a refusal's detail. */
int pol_exec_read(struct pol_target *t, const struct seccomp_notif *req, void *args);
int pol_execat_read(struct pol_target *t, const struct seccomp_notif *req, void *args);
void pol_exec_detail(const void *args, char *out, size_t len);

/* A table of a kind's calls: its own number for each, and its number on x86_64. */
struct pol_call_name {
	const char *name;
	int kind;
	long nr; /* x86_64, -1 when none there */
};
/* The kind of the notified call in `calls`, 0 when none. */
int pol_call_kind(const struct pol_notif *n, const struct pol_call_name *calls, size_t ncalls);
/* The name of `kind` in `calls`, "?" when none. */
const char *pol_call_kind_name(const struct pol_call_name *calls, size_t ncalls, int kind);

/* --- the filter (policy/compile.c) ------------------------------------------- */

typedef void *pol_scmp_ctx; /* libseccomp's scmp_filter_ctx */
/* A whole-call deny on `name` wins over notifying it and over a family's expansion (kind_deny.c).
 */
bool pol_denied_outright(const struct pol *p, const char *name);
/* Notify every call of `name` unless it is denied outright. */
int pol_filter_notify(pol_scmp_ctx ctx, const struct pol *p, const char *name, struct iso_err *e);

/* --- the descriptor ------------------------------------------------------------ */

struct pol_kind {
	const char *word; /* the statement */
	/* one rule of this kind in canonical form: tests/unit/test_policy_kinds.c reads it back */
	const char *example;
	int (*parse)(const struct pol_stmt *st);
	/* its rules: how many, and where each was written ("file:line") */
	size_t (*count)(const struct pol *p);
	const char *(*origin)(const struct pol *p, size_t i);
	/* its rules in canonical form: each after pol_fmt_rule() */
	void (*format)(const struct pol *p, struct pol_fmt *x);
	void (*free)(struct pol *p);
	/* what `isorun policy check` says of its rules into buf ("" for nothing) */
	void (*summary)(const struct pol *p, char *buf, size_t len);
	/* its part of the filter: deny-list rules, and its notified calls when `notify` */
	int (*filter)(pol_scmp_ctx ctx, const struct pol *p, bool notify, bool log_only,
		      struct iso_err *e);
	/* a notified call: answer it, or POL_NOTIF_NOT_MINE */
	int (*handle)(const struct pol_notif *n);
	/* the i-th path the launcher's init mounts /dev/null over, NULL after the last */
	const char *(*masked_path)(const struct pol *p, size_t i);
};

/* The kinds' descriptors (policy/kind_*.c). */
extern const struct pol_kind pol_kind_deny, pol_kind_guard, pol_kind_socket, pol_kind_signals;

/* The kinds in order (policy/kinds.c). */
extern const struct pol_kind *const pol_kinds[];
extern const size_t pol_n_kinds;
/*
 * Where kind k keeps its rules in p, for a kind without a member of struct pol
 * of its own: its slot of p->kind_rules (NULL until its parser sets it; its
 * free empties it).
 */
void **pol_kind_rules(struct pol *p, const struct pol_kind *k);
/* What kind k keeps in p (NULL: none yet), to read. */
const void *pol_kind_rules_of(const struct pol *p, const struct pol_kind *k);

#endif
