/* SPDX-License-Identifier: MIT */
/*
 * policy/: text in, filter out.  A pure parser (no side effects) turns policy
 * text into struct pol; the compiler turns struct pol into a libseccomp filter
 * (plain BPF deny-list + user notification for execve/execveat/connect); the
 * notify side decides a notified call from the target's memory.  Each rule
 * kind is one descriptor (policy/kind.h) in one table (policy/kinds.c) that
 * all three walk.  Only policy/ links libseccomp.  No printing here: errors go
 * into struct iso_err, a parse error into struct pol_error, which holds one.
 */
#ifndef ISO_POLICY_H
#define ISO_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "common/reader.h"

/*
 * A parse error: "file:line:col: message", and the offending line with a caret.
 * The project's error record (e.msg, errnum 0) with where it is in the text.
 */
struct pol_error {
	struct iso_err e;
	char file[256];
	int line, col;	/* 1-based; 0: the file as a whole */
	char text[256]; /* the source line */
};

/* A parse message's width (the record's msg is wider): messages cut where they always were. */
#define POL_MSG_MAX 256

/* deny SYSCALL [errno=NAME] [arg conditions]: refused with that errno, plain BPF */
struct pol_deny {
	char syscall[64];
	int errnum;	    /* EPERM unless given */
	bool has_ioctl_req; /* deny ioctl request=TIOCSTI */
	unsigned long ioctl_req;
	char origin[300]; /* "default.policy:14" */
};

/* guard PROGRAM ...: an exec of PROGRAM (by basename) is decided on its argv */
struct pol_guard {
	char program[64];
	int verb_index;	    /* which argument is the verb: the Nth non-option (1-based) ... */
	bool verb_raw;	    /* ... or, when set, argv[verb_index] options included */
	bool allow_list;    /* true: only `patterns` pass; false: `patterns` are refused */
	bool empty_allowed; /* no verb at all (e.g. bare `systemctl`) */
	char **patterns;    /* fnmatch globs, NULL-terminated */
	char origin[300];
};

/* deny-socket PATH: connect() to this AF_UNIX path is refused ($XDG_RUNTIME_DIR expanded at load)
 */
struct pol_socket {
	char path[256];
	char origin[300];
};

/* A kind's rules, kept in its own slot of struct pol (policy/kind.h). */
struct pol_deny_set {
	struct pol_deny *v;
	size_t n;
};
struct pol_guard_set {
	struct pol_guard *v;
	size_t n;
};
struct pol_socket_set {
	struct pol_socket *v;
	size_t n;
};

struct pol {
	char name[64];
	/* the shipped policy's name when loaded by it, unchanged; NULL otherwise */
	const char *shipped;
	/*
	 * contain-signals: kill/tkill/tgkill/rt_(tg)sigqueueinfo/pidfd_send_signal
	 * with a signal (not 0) are notified and refused when they would reach a
	 * process outside the run (policy/signal.c).  The launcher clears it where
	 * a PID namespace contains the run already.
	 */
	bool contain_signals;
	char signals_origin[300];
	/*
	 * The kernel scopes the command's signals and ptrace (Landlock, policy/
	 * scope.c): the calls it answers itself are not notified.  Set by the
	 * launcher, which makes the domain.
	 */
	bool signals_scoped;
	/*
	 * Under a PID namespace pid 1 is isorun's init: the calls that change a
	 * process (its limits, priority, scheduling; tracing and writing it) fail
	 * with EPERM in the filter for pid 1 (policy/kind_signals.c).  Set by the
	 * launcher.
	 */
	bool guard_init;
	/*
	 * Each kind's rules, by its place in the table (pol_kind_rules(),
	 * policy/kind.h), kept and freed by the kind's own file; deny, guard and
	 * deny-socket are read through pol_denies(), pol_guards(), pol_sockets().
	 * A new kind needs no member.
	 */
	void *kind_rules[8];
};

/* The policy's rules of a kind (empty when it has none; never NULL). */
const struct pol_deny_set *pol_denies(const struct pol *p);
const struct pol_guard_set *pol_guards(const struct pol *p);
const struct pol_socket_set *pol_sockets(const struct pol *p);

/*
 * Parse policy text.  `file` names it in errors and origins; includes are
 * resolved by `resolve` (a shipped name like "default", or a path relative to
 * the including file).  Returns 0, or -EINVAL with *err filled.
 */
int pol_parse(const char *text, size_t len, const char *file, struct pol *ret,
	      struct pol_error *err);
/* The i-th shipped policy's name, NULL past the last. */
const char *pol_shipped_name(size_t i);
/* Load a shipped policy by name ("default", "strict") or a file path. */
int pol_load(const char *name_or_path, struct pol *ret, struct pol_error *err);
/* The canonical text form (`isorun policy show`), malloc'ed. */
char *pol_format(const struct pol *p);
void pol_free(struct pol *p);
/* What each rule kind holds, for `isorun policy check`: "N denied calls, ..." into buf. */
char *pol_summary(const struct pol *p, char *buf, size_t len);
/* The i-th path the launcher's init mounts /dev/null over (deny-socket), NULL after the last. */
const char *pol_masked_path(const struct pol *p, size_t i);
/* contain-signals: whether the policy has it; the launcher clears it under a PID namespace. */
bool pol_signals_contained(const struct pol *p);
void pol_set_signals_contained(struct pol *p, bool on);
/* The filter leaves signals and ptrace to the kernel's scope (policy/scope.c). */
void pol_set_signals_scoped(struct pol *p, bool on);
/* Pid 1 is isorun's init: the filter keeps the command's hands off it. */
void pol_set_init_guarded(struct pol *p, bool on);

/*
 * Landlock's scopes (policy/scope.c): the ABI this kernel has (-errno: none),
 * whether it scopes signals (ABI 6), and, in the command between fork and
 * exec, the domain that confines its signals and ptrace to the run: 0 or
 * -errno.
 */
int pol_scope_abi(void);
bool pol_scope_signals_available(void);
int pol_scope_apply(struct iso_err *e);
/* "file:line:col: msg\n  <line>\n  ^" into buf. */
const char *pol_error_format(const struct pol_error *err, char *buf, size_t len);

/* --- decisions (pure, unit-tested) ---------------------------------------- */

struct pol_verdict {
	bool refuse;
	const char *origin; /* the rule that decided, when refused */
};

/* How a guarded program reads one word of its argv (policy/options.c). */
enum pol_opt {
	POL_OPT_NONE,	 /* not an option: "x", "-" */
	POL_OPT_END,	 /* "--": every later word is not an option */
	POL_OPT_ALONE,	 /* an option complete in itself: "--user", "-q", "-pId", "--p=x" */
	POL_OPT_NEXT,	 /* an option whose argument is the next word: "-p", "--property" */
	POL_OPT_UNKNOWN, /* an option not in the program's table: it may take the next word */
};
enum pol_opt pol_option(const char *program, const char *word);

/* An exec of `path` with `argv`: refused when a guard says so. */
struct pol_verdict pol_decide_exec(const struct pol *p, const char *path, char *const argv[]);
/*
 * connect() to AF_UNIX `path` ("" for abstract or other families: never refused),
 * compared after pol_path_normalize(); the supervisor also compares the socket's
 * identity (policy/kind_socket.c).
 */
struct pol_verdict pol_decide_connect(const struct pol *p, const char *path);
/* An absolute path without "//", "." and ".." (lexically, ".." of "/" is "/"); -errno. */
int pol_path_normalize(const char *path, char *out, size_t len);

/* --- the filter (policy/compile.c) ---------------------------------------- */

/*
 * The family of `name` (policy/families.c): every spelling of its operation,
 * `name` among them, NULL-terminated; NULL when it has no other spelling.  A
 * whole-call `deny` of one member denies all of them.  pol_family_at(i) walks
 * the families (NULL after the last).
 */
const char *const *pol_family(const char *name);
const char *const *pol_family_at(size_t i);

/*
 * Build and load the filter in the calling (single-threaded, no_new_privs)
 * process: the deny-list for x86_64, x32 and i386, plus user notification for
 * execve, execveat (and connect when the policy has deny-socket rules) when
 * `notify` is set.  *ret_listener gets the notification fd (CLOEXEC), or -1
 * when the kernel refused a second listener (EBUSY: an enclosing isorun owns
 * the notifications), in which case the deny-list alone is loaded.
 * `log_only`: refusals become allowed but still notified/logged.
 */
int pol_filter_load(const struct pol *p, bool notify, bool log_only, int *ret_listener,
		    struct iso_err *e);

struct sock_filter;

/* Build the filter's BPF with libseccomp into a malloc'ed array (no load). */
int pol_filter_build(const struct pol *p, bool notify, bool log_only, struct sock_filter **ret,
		     size_t *ret_len, struct iso_err *e);
/* Install BPF with seccomp(2): the listener fd (`listener`), 0, or -errno. */
int pol_filter_install(const struct sock_filter *insns, size_t len, bool listener, const char *name,
		       struct iso_err *e);

/*
 * The id filter of a user namespace that maps `uid` and `gid` alone
 * (policy/idfilter.c): setuid, setgid, setre*id, setres*id, chown, fchown,
 * lchown and fchownat (and their 16/32-bit forms) to any other id than these or
 * -1 fail with EPERM, as the host answers an unprivileged caller, not with the
 * namespace's EINVAL.  Install it with pol_filter_install(); malloc'ed BPF.
 */
int pol_idfilter_build(uid_t uid, gid_t gid, struct sock_filter **ret, size_t *ret_len,
		       struct iso_err *e);

/* A shipped policy's text, generated at build time from the policy files by embed.awk. */
struct pol_text {
	const char *name, *file, *text;
	size_t len;
};
extern const struct pol_text pol_shipped_text[];
extern const size_t pol_n_shipped_text;

/* A shipped policy's BPF, compiled at build time by policy/gen_bpf.c. */
struct pol_bpf {
	const char *policy;
	bool notify, log_only, signals, scoped, init;
	unsigned short len;
	const struct sock_filter *insns;
};
extern const struct pol_bpf pol_shipped_bpf[];
extern const size_t pol_n_shipped_bpf;
/* The build-time BPF for `p` as loaded, or NULL when it must be built. */
const struct pol_bpf *pol_filter_shipped(const struct pol *p, bool notify, bool log_only);

/* --- the supervisor side (policy/notify.c) -------------------------------- */

/*
 * What the run is, for contain-signals: a process is inside when it is in the
 * run's cgroup (or one below it) or a descendant of `root` (the supervisor, a
 * child subreaper, so the command's orphans stay its descendants).
 */
/* The run, for contain-signals: its processes are root's descendants. */
struct pol_run {
	pid_t root;
};

struct pol_event {
	pid_t pid;
	char call[24];	  /* "execve", "connect", "kill", "pidfd_send_signal" */
	char detail[512]; /* the redactable command line or socket path */
	const char *origin;
	bool refused; /* false under log mode: allowed but reported */
};

/*
 * Receive one notification from `listener`, read the call's arguments from the
 * target's memory, decide, answer (EPERM or CONTINUE; under log_only always
 * CONTINUE), and fill *ret when the call matched a rule.  Returns 1 when *ret
 * holds an event, 0 when the call passed unremarked, -errno on failure (ENOENT:
 * the target died meanwhile, not an error).
 */
int pol_notify_handle(int listener, const struct pol *p, bool log_only, struct pol_event *ret);
/*
 * The same, and every exec let through is shown to on_exec just before it is
 * answered (the caller and its parent are still as they were): argv as
 * the caller passed it to execve (a refused exec leaves the caller as it was).
 */
typedef void (*pol_exec_fn)(pid_t pid, char *const *argv, size_t argc, void *arg);
/*
 * rd: the reader the target's memory is read through, so that no read waits
 * past its deadline (common/reader.h); a read that overran refuses the call.
 * NULL reads here (the command's own first exec, isorun's memory still).
 */
struct pol_handler {
	const struct pol *p;
	bool log_only;
	pol_exec_fn on_exec; /* NULL: none */
	void *arg;	     /* on_exec's */
	struct iso_reader *rd;
	/*
	 * The run for contain-signals: NULL lets every signal call through
	 * (before the command's first exec nothing of it can signal).
	 */
	const struct pol_run *run;
};
int pol_notify_handle_with(int listener, const struct pol_handler *h, struct pol_event *ret);

#endif
