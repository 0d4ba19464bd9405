/* SPDX-License-Identifier: MIT */
/*
 * isorun selftest: probes of what this host offers, then live controls that run
 * the real isorun binary against commands built to trip each guard.  A control
 * that could not run says `not measurable (why)`, never ok.
 *
 * Everything the controls need (the commands, a stand-in systemctl, a listener)
 * comes from this binary itself or is created at run time in a private
 * directory that is removed at the end: an installed isorun has no test helpers.
 */
#ifndef ISO_SELFTEST_H
#define ISO_SELFTEST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/err.h"

enum st_verdict { ST_YES, ST_PARTIAL, ST_NO };
enum st_result { ST_OK, ST_NOT_OK, ST_NOT_MEASURABLE, ST_NOT_RUN };

enum st_probe_id {
	ST_SP_SUBREAPER,
	ST_SP_USERNS,
	ST_SP_PIDNS,
	ST_SP_MOUNTNS,
	ST_SP_NETNS,
	ST_SP_SECCOMP,
	ST_SP_NOTIFY,
	ST_SP_PIDFD,
	ST_SP_CLOSE_RANGE,
	ST_SP_CGROUP2,
	ST_SP_COUNT,
};

enum st_control_id {
	ST_SC_CLEAN,
	ST_SC_DAEMON,
	ST_SC_HOLDER,
	ST_SC_HOME,
	ST_SC_SERVICE,
	ST_SC_DENYLIST,
	ST_SC_SIGNALS,
	ST_SC_NET,
	ST_SC_PIDS,
	ST_SC_MEMORY,
	ST_SC_COUNT,
};

/*
 * isorun's options where selftest's words or its controls' command lines name
 * them: spelled in cli/ (cli/selftest_cli.c), handed in as st_ctx.says, so that
 * selftest/ spells no option of its own (docs/architecture.md, "Module map").
 */
enum st_say {
	ST_SAY_PIDNS,		   /* --pidns */
	ST_SAY_PIDS_MAX,	   /* --pids-max */
	ST_SAY_PIDS_MAX_16,	   /* --pids-max 16, in words */
	ST_SAY_PIDS_MAX_16_ARG,	   /* --pids-max=16, an argument */
	ST_SAY_MEMORY_MAX,	   /* --memory-max */
	ST_SAY_MEMORY_MAX_32M,	   /* --memory-max 32M, in words */
	ST_SAY_MEMORY_MAX_32M_ARG, /* --memory-max=32M, an argument */
	ST_SAY_SETTLE_200MS_ARG,   /* --settle=200ms */
	ST_SAY_HOME_RO,		   /* --protect-home=ro */
	ST_SAY_HOME_HIDE,	   /* --protect-home=hide */
	ST_SAY_SETENV,		   /* --setenv */
	ST_SAY_NET_ISOLATED,	   /* --net=isolated */
	ST_SAY_HIDE_NOTICE,  /* the start of isorun's notice of what --protect-home=hide hides */
	ST_SAY_TMP_NOTICE,   /* the same for --private-tmp */
	ST_SAY_POLICY,	     /* --policy */
	ST_SAY_CEILINGS_TRY, /* --memory-max and --cpu-max */
	ST_SAY_N,
};

/* Fixed size: a probe child sends it whole over a pipe. */
struct st_probe {
	int verdict; /* enum st_verdict */
	int err;     /* the errno behind a no/partial, 0 if none */
	char reason[512];
};

struct st_control {
	int result;    /* enum st_result */
	int exit_code; /* the control's isorun, -1 when it did not run */
	char detail[1024];
};

/* Forwarded to every control's isorun (weakening a guard must turn its control red). */
struct st_fwd {
	char *argv[16]; /* normalised "--name=value" / "--pidns" / "--map-root", malloc'ed */
	size_t n;
	const char *protect_home; /* the last value given, or NULL */
	const char *net;
	const char *policy;
	const char *pidns; /* "on", "try" or NULL */
};

struct st_ctx {
	bool json;
	const char *const *says; /* indexed by enum st_say */
	char *self;		 /* realpath of this binary */
	char cmd[PATH_MAX + 32]; /* the binary the commands run: self, or a copy (see setup) */
	struct st_fwd fwd;
	char dir[PATH_MAX];	       /* the private directory */
	char root[PATH_MAX + 8];       /* dir/root: --root of every control */
	char user_root[PATH_MAX + 32]; /* root/isorun-UID */
	struct st_probe probes[ST_SP_COUNT];
	struct st_control controls[ST_SC_COUNT];
};

/* --- names (output.c) ------------------------------------------------------ */
extern const char *const st_probe_name[ST_SP_COUNT];
extern const char *const st_control_name[ST_SC_COUNT];
/* What control i shows, in words (--json's description). */
void st_control_what(const struct st_ctx *c, int i, char *buf, size_t len);

/* --- probes (probe.c, probe_ns.c) ------------------------------------------ */
void st_probe_all(struct st_ctx *c, void (*done)(const struct st_ctx *, int id));
/* Run fn in a forked child that reports through *ret; the parent waits for it. */
void st_probe_in_child(struct st_probe *ret, void (*fn)(struct st_probe *, void *), void *arg);
/* In a probe child: a user namespace mapping the caller to itself, unless root. */
int st_enter_userns(struct st_probe *p);
/* "; this process is already under a filter (Seccomp: 2)", or "". */
const char *st_already_filtered(void);
/* Why unshare() of namespaces (not a user namespace) gave errnum: a hint or "". */
const char *st_unshare_hint(int errnum);
void st_probe_userns(struct st_ctx *c);
void st_probe_pidns(struct st_ctx *c);
void st_probe_mountns(struct st_ctx *c);
void st_probe_netns(struct st_ctx *c);
__attribute__((format(printf, 3, 4))) void st_set(struct st_probe *p, int verdict, const char *fmt,
						  ...);

/* --- running a control's isorun (runner.c) --------------------------------- */
#define ST_CAPTURE 16384

struct st_run {
	const char *argv[64];
	size_t argc;
	bool with_stdin; /* a pipe the caller writes (stdin_fd); else /dev/null */
	/* called with each stdout line while the child runs; may write stdin_fd */
	void (*on_line)(struct st_run *r, const char *line);
	void *data;
	int stdin_fd;
	int code; /* exit code, 128+N for a signal, -1 when it could not run */
	char out[ST_CAPTURE];
	size_t n_out;
	char err[ST_CAPTURE];
	size_t n_err;
};

/* argv: this isorun with the common options, `opts`, the forwarded ones, then the mode. */
void st_run_init(struct st_run *r, const struct st_ctx *c, const char *const *opts,
		 const char *const *mode);
/* 0 and r->code once isorun has exited; < 0 and e (what could not be set up) else. */
int st_run(struct st_run *r, struct iso_err *e);
/* The first stderr line containing all of the NULL-terminated needles, copied to buf. */
bool st_err_line(const struct st_run *r, char *buf, size_t len, ...) __attribute__((sentinel));
/* "exit N; stderr: <last line>" for an unexpected outcome. */
void st_describe(const struct st_run *r, char *buf, size_t len);
/*
 * st_run() for a control: on failure the control is not ok ("could not start
 * isorun") and -1 comes back; else its exit code is noted and `desc` describes it.
 */
int st_run_control(struct st_run *r, struct st_control *ctl, char *desc, size_t len);
/* Kill and reap whatever descendant is left; describe it into ctl. */
void st_sweep(struct st_control *ctl);
/* Trees left under the control root: removed, and named into ctl as a failure. */
void st_check_trees(const struct st_ctx *c, struct st_control *ctl, const char *expect);
__attribute__((format(printf, 3, 4))) void st_result(struct st_control *ctl, int result,
						     const char *fmt, ...);
__attribute__((format(printf, 2, 3))) void st_append(struct st_control *ctl, const char *fmt, ...);
extern volatile int st_child_pid;

/* --- controls (controls.c, guards.c) --------------------------------------- */
void st_control_clean(struct st_ctx *c, struct st_control *ctl);
void st_control_daemon(struct st_ctx *c, struct st_control *ctl);
void st_control_holder(struct st_ctx *c, struct st_control *ctl);
void st_control_home(struct st_ctx *c, struct st_control *ctl);
void st_control_service(struct st_ctx *c, struct st_control *ctl);
void st_control_denylist(struct st_ctx *c, struct st_control *ctl);
void st_control_net(struct st_ctx *c, struct st_control *ctl);
/* contain-signals (signals.c) */
void st_control_signals(struct st_ctx *c, struct st_control *ctl);
int st_mode_signal(char **args);
/* the ceilings (ceilings.c) */
void st_control_pids(struct st_ctx *c, struct st_control *ctl);
void st_control_memory(struct st_ctx *c, struct st_control *ctl);
int st_mode_forkstorm(char **args);
int st_mode_alloc(char **args);
/* Why the leak gate cannot be measured here, or NULL when it can. */
const char *st_gate_unmeasurable(const struct st_ctx *c, char *buf, size_t len);

/* --- the commands the controls run (internal.c) ---------------------------- */
/*
 * Run the probes and controls with `fwd` (taken over); says: enum st_say's
 * spellings, which outlive the run.  Returns the exit code.
 */
int st_selftest(bool json, struct st_fwd *fwd, const char *const *says);
void st_fwd_free(struct st_fwd *f);

#define ST_INTERNAL "--internal-"
int st_internal_main(int argc, char **argv);
/* The deny-list calls the deny-list control makes, with harmless invalid arguments. */
#define ST_N_DENY_CALLS 4
extern const char *const st_deny_calls[ST_N_DENY_CALLS];
/* Make call i; returns its errno (0 if it succeeded). */
int st_deny_call(int i);

/* --- output (output.c) ----------------------------------------------------- */
void st_print_probe(const struct st_ctx *c, int id);
void st_print_control(const struct st_ctx *c, int id);
/* The verdict line (or the JSON document); returns the exit code (128+N if cancelled by N). */
int st_print_verdict(const struct st_ctx *c, bool cleaned, const char *clean_error, int cancelled);

/* Exit codes of `isorun selftest`. */
enum {
	ST_EXIT_OK = 0,	     /* every control this host supports passed */
	ST_EXIT_NOT_OK = 1,  /* a control is not ok, or the private directory stayed */
	ST_EXIT_USAGE = 125, /* bad usage, or the selftest could not set itself up */
};

#endif
