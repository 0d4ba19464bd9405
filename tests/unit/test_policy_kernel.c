/* SPDX-License-Identifier: MIT */
/*
 * pol_filter_load() and pol_notify_handle() against the real kernel.  Every
 * filter is loaded in a forked child (after PR_SET_NO_NEW_PRIVS, so this also
 * runs as an ordinary user); the test process itself stays unfiltered and acts
 * as the supervisor, receiving the child's listener over a socketpair.
 *
 * Deny-list calls use arguments the kernel rejects anyway (reboot with a wrong
 * magic and command word, clock_settime on CLOCK_MONOTONIC, init_module of a
 * NULL image, swapoff of a path that is no swap), so a broken filter fails a
 * test with EINVAL/EFAULT/ENOENT instead of touching the host.  As an ordinary
 * user several of them fail with EPERM unfiltered, so every deny-list check is
 * also made with an errno no call here returns by itself (MARK).
 *
 * Not tested: the i386 ABI.  This VM has IA-32 emulation disabled at runtime
 * (`int $0x80` raises SIGSEGV), so 4-byte argv pointers and socketcall() are
 * not exercised here.  x32 numbering is (the kernel has no x32, but the filter
 * still sees the numbers).
 */
#include "common/fdpass.h"
#include "policy/kind.h"
#include "policy/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/reboot.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

/* Seconds; a child that hangs becomes a failure instead of a hung suite. */
#define WATCHDOG 60
/* An errno none of the calls below returns by itself. */
#define MARK  ENOTRECOVERABLE
#define MARK2 EOWNERDEAD
/* Exit status of a target whose exec failed: EXEC_FAILED + errno. */
#define EXEC_FAILED 100
/* Exit status of a target that could not load its filter. */
#define LOAD_FAILED 99
#define NESTED_ARG  "--nested-inner"

static char tmpdir[PATH_MAX];	/* holds the stand-in systemctl and its record */
static char standin[PATH_MAX];	/* tmpdir/systemctl */
static char record[PATH_MAX];	/* what the stand-in was run with */
static char self_exe[PATH_MAX]; /* this binary, for the nested re-exec */

static char *const clean_env[] = { "PATH=/usr/bin:/bin", NULL };

/* --- policies, built by hand ---------------------------------------------- */

enum { D_REBOOT, D_CLOCK, D_MODULE, D_SWAPOFF, D_TIOCSTI, N_DENY };

static void make_deny(struct pol_deny d[N_DENY], int errnum)
{
	static const char *const names[N_DENY] = { "reboot", "clock_settime", "init_module",
						   "swapoff", "ioctl" };

	memset(d, 0, sizeof(*d) * N_DENY);
	for (int i = 0; i < N_DENY; i++) {
		snprintf(d[i].syscall, sizeof(d[i].syscall), "%s", names[i]);
		d[i].errnum = errnum;
		snprintf(d[i].origin, sizeof(d[i].origin), "test.policy:%d", i + 1);
	}
	d[D_TIOCSTI].has_ioctl_req = true;
	d[D_TIOCSTI].ioctl_req = TIOCSTI;
}

static char *allowed_verbs[] = { "status", "is-active", "list-*", NULL };

/* systemctl: only read-only verbs pass. */
static void make_guard(struct pol_guard *g)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->program, sizeof(g->program), "systemctl");
	g->verb_index = 1;
	g->allow_list = true;
	g->empty_allowed = true;
	g->patterns = allowed_verbs;
	snprintf(g->origin, sizeof(g->origin), "test.policy:7");
}

struct test_pol {
	struct pol pol;
	struct pol_deny deny[N_DENY];
	struct pol_guard guard;
	struct pol_socket socket;
	/* the kinds' sets, put in their slots of pol (policy/kind.h) */
	struct pol_deny_set denies;
	struct pol_guard_set guards;
	struct pol_socket_set sockets;
};

static void make_pol(struct test_pol *t, int errnum, bool guard, const char *socket)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->pol.name, sizeof(t->pol.name), "test");
	if (errnum) {
		make_deny(t->deny, errnum);
		t->denies = (struct pol_deny_set){ t->deny, N_DENY };
		*pol_kind_rules(&t->pol, &pol_kind_deny) = &t->denies;
	}
	if (guard) {
		make_guard(&t->guard);
		t->guards = (struct pol_guard_set){ &t->guard, 1 };
		*pol_kind_rules(&t->pol, &pol_kind_guard) = &t->guards;
	}
	if (socket) {
		snprintf(t->socket.path, sizeof(t->socket.path), "%s", socket);
		snprintf(t->socket.origin, sizeof(t->socket.origin), "test.policy:9");
		t->sockets = (struct pol_socket_set){ &t->socket, 1 };
		*pol_kind_rules(&t->pol, &pol_kind_socket) = &t->sockets;
	}
}

/* --- the deny-list calls -------------------------------------------------- */

enum { C_REBOOT, C_CLOCK, C_MODULE, C_SWAPOFF, C_TIOCSTI, C_TIOCSTI_HI, C_FIONREAD, C_X32, N_CALL };

static const char *const call_names[N_CALL] = {
	"reboot",	  "clock_settime",	  "init_module",     "swapoff",
	"ioctl(TIOCSTI)", "ioctl(TIOCSTI|1<<32)", "ioctl(FIONREAD)", "x32 swapoff",
};

static int err_of(long r)
{
	return r < 0 ? errno : 0;
}

/* Each call's errno (0: it succeeded); -1 where the call does not apply. */
static void make_calls(int out[N_CALL])
{
	struct timespec now;
	int pipefd[2], avail;
	char c = 'x';

	clock_gettime(CLOCK_MONOTONIC, &now);
	/* wrong magic words *and* an unknown command: EINVAL even if one check were gone */
	out[C_REBOOT] = err_of(syscall(SYS_reboot, 0, 0, 0x0badc0de, NULL));
	/* the monotonic clock cannot be set: EINVAL */
	out[C_CLOCK] = err_of(syscall(SYS_clock_settime, CLOCK_MONOTONIC, &now));
	/* a NULL image: EFAULT (ENOSYS without CONFIG_MODULES) */
	out[C_MODULE] = err_of(syscall(SYS_init_module, NULL, 4096UL, ""));
	out[C_SWAPOFF] = err_of(syscall(SYS_swapoff, "/nonexistent/isorun-no-swap"));
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		out[C_TIOCSTI] = out[C_TIOCSTI_HI] = out[C_FIONREAD] = -1;
	} else {
		/* not a terminal: ENOTTY */
		out[C_TIOCSTI] = err_of(syscall(SYS_ioctl, pipefd[0], (unsigned long)TIOCSTI, &c));
		/* the kernel reads the request as 32 bits: the filter must too */
		out[C_TIOCSTI_HI] = err_of(
			syscall(SYS_ioctl, pipefd[0], (1UL << 32) | (unsigned long)TIOCSTI, &c));
		out[C_FIONREAD] = err_of(syscall(SYS_ioctl, pipefd[0], FIONREAD, &avail));
		close(pipefd[0]);
		close(pipefd[1]);
	}
#ifdef __x86_64__
	/* swapoff by its x32 number: ENOSYS on a kernel without x32 */
	out[C_X32] = err_of(syscall(0x40000000L | SYS_swapoff, "/nonexistent/isorun-no-swap"));
#else
	out[C_X32] = -1;
#endif
}

static bool is_root(void)
{
	return geteuid() == 0;
}

/* What the kernel says without a filter. */
static bool control_ok(int call, int err)
{
	bool root = is_root();

	switch (call) {
	case C_REBOOT:
		return err == (root ? EINVAL : EPERM);
	case C_CLOCK:
		return err == EINVAL;
	case C_MODULE:
		/* EPERM as root only with kernel.modules_disabled */
		return err == EFAULT || err == ENOSYS || err == EPERM;
	case C_SWAPOFF:
		return err == (root ? ENOENT : EPERM);
	case C_TIOCSTI:
	case C_TIOCSTI_HI:
		return err == ENOTTY;
	case C_FIONREAD:
		return err == 0;
	case C_X32:
		return err == -1 || err == ENOSYS || err == (root ? ENOENT : EPERM);
	}
	return false;
}

/* What a filter denying with `errnum` must make of each call. */
static bool filtered_ok(int call, int err, int errnum)
{
	if (call == C_FIONREAD)
		return err == 0;
	if (call == C_X32)
		return err == -1 || err == errnum;
	return err == errnum;
}

static int check_calls(bool (*ok)(int, int, int), int errnum)
{
	int got[N_CALL];
	int bad = 0;

	make_calls(got);
	for (int i = 0; i < N_CALL; i++) {
		if (ok(i, got[i], errnum))
			continue;
		fprintf(stderr, "# %s: got %s (%d)\n", call_names[i],
			got[i] > 0 ? strerror(got[i]) : "success", got[i]);
		bad++;
	}
	return bad;
}

static bool control_ok3(int call, int err, int unused)
{
	return control_ok(call, err);
}

/* --- children ------------------------------------------------------------- */

/* fn(arg) in a forked child with no_new_privs; its return value is the exit status. */
static int fork_child(int (*fn)(const void *), const void *arg)
{
	pid_t pid = unit_fork(WATCHDOG);

	if (pid == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(LOAD_FAILED);
		_exit(fn(arg));
	}
	return unit_wait(pid);
}

static int load(const struct pol *p, bool notify, bool log_only, int *listener)
{
	struct iso_err e = { 0 };
	char buf[512];
	int r = pol_filter_load(p, notify, log_only, listener, &e);

	if (r < 0)
		fprintf(stderr, "# %s\n", iso_err_format(&e, buf, sizeof(buf)));
	return r;
}

/* --- (a) the deny-list ---------------------------------------------------- */

static int control_scenario(const void *arg)
{
	return check_calls(control_ok3, 0) ? 1 : 0;
}

struct deny_case {
	int errnum;
	bool log_only;
};

static int deny_scenario(const void *arg)
{
	const struct deny_case *dc = arg;
	struct test_pol t;
	int listener = -2;

	make_pol(&t, dc->errnum, false, NULL);
	CHILD_CHECK(load(&t.pol, false, dc->log_only, &listener) == 0);
	CHILD_CHECK(listener == -1);
	if (dc->log_only) /* SCMP_ACT_LOG: the calls run */
		return check_calls(control_ok3, 0) ? 1 : 0;
	return check_calls(filtered_ok, dc->errnum) ? 1 : 0;
}

static void test_deny_control(void **state)
{
	assert_int_equal(fork_child(control_scenario, NULL), 0);
}

static void test_deny_eperm(void **state)
{
	struct deny_case dc = { EPERM, false };

	assert_int_equal(fork_child(deny_scenario, &dc), 0);
}

static void test_deny_own_errno(void **state)
{
	struct deny_case dc = { MARK, false };

	assert_int_equal(fork_child(deny_scenario, &dc), 0);
}

static void test_deny_log_only(void **state)
{
	struct deny_case dc = { MARK, true };

	assert_int_equal(fork_child(deny_scenario, &dc), 0);
}

static int bad_rule_scenario(const void *arg)
{
	struct test_pol t;
	struct iso_err e = { 0 };
	int listener = -2;

	make_pol(&t, EPERM, false, NULL);
	snprintf(t.deny[D_CLOCK].syscall, sizeof(t.deny[D_CLOCK].syscall), "no_such_call");
	CHILD_CHECK(pol_filter_load(&t.pol, true, false, &listener, &e) == -EINVAL);
	CHILD_CHECK(listener == -1);
	CHILD_CHECK(strstr(e.msg, "no_such_call") && strstr(e.msg, "test.policy:2"));
	/* nothing was loaded: the calls behave as unfiltered */
	return check_calls(control_ok3, 0) ? 1 : 0;
}

static void test_deny_unknown_syscall(void **state)
{
	assert_int_equal(fork_child(bad_rule_scenario, NULL), 0);
}

/* --- the supervisor ------------------------------------------------------- */

/* The listener crosses with common/fdpass.c, as it does in isorun itself. */
static int send_fd(int sock, int fd)
{
	return iso_send_record(sock, "L", 1, fd) == 0 ? 0 : -1;
}

/* The fd sent over sock, or -1 (EOF: the child failed before sending). */
static int recv_fd(int sock)
{
	char data;
	int fd = -1;

	if (iso_recv_record(sock, &data, 1, &fd) != 1)
		return -1;
	return fd;
}

enum sup_mode {
	SUP_HANDLE,	   /* answer with pol_notify_handle() until the target is gone */
	SUP_CLOSE,	   /* close the listener at once */
	SUP_RECEIVE_CLOSE, /* receive one notification, close without answering */
};

#define MAX_EVENTS 8

struct sup {
	const struct pol *pol;
	bool log_only;
	enum sup_mode mode;
	int (*target)(const void *);
	const void *arg;
	/* results */
	pid_t pid;
	int status;
	size_t n_events, n_handled;
	struct pol_event ev[MAX_EVENTS];
	int error; /* the first unexpected pol_notify_handle() failure */
	/* set: every exec let through is shown to it (pol_notify_handle_with()) */
	pol_exec_fn on_exec;
	void *on_exec_arg;
};

/* The target: load with a listener, hand it over, drop our copy, run target(arg). */
static int target_main(int sock, const struct sup *s)
{
	int listener = -2;

	if (load(s->pol, true, s->log_only, &listener) < 0 || listener < 0)
		return LOAD_FAILED;
	if (send_fd(sock, listener) < 0)
		return LOAD_FAILED;
	/* our own exec would otherwise wait on a listener we hold ourselves */
	close(listener);
	close(sock);
	return s->target(s->arg);
}

static void supervise_loop(struct sup *s, int listener)
{
	for (;;) {
		struct pollfd pfd = { .fd = listener, .events = POLLIN };
		struct pol_event ev;
		int r = poll(&pfd, 1, WATCHDOG * 1000);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			s->error = r < 0 ? -errno : -ETIMEDOUT;
			kill(s->pid, SIGKILL);
			return;
		}
		if (pfd.revents & POLLIN) {
			memset(&ev, 0, sizeof(ev));
			r = pol_notify_handle_with(listener,
						   &(struct pol_handler){ .p = s->pol,
									  .log_only = s->log_only,
									  .on_exec = s->on_exec,
									  .arg = s->on_exec_arg },
						   &ev);
			s->n_handled++;
			if (r == 1 && s->n_events < MAX_EVENTS)
				s->ev[s->n_events++] = ev;
			else if (r < 0 && r != -ENOENT && !s->error)
				s->error = r;
			continue;
		}
		if (pfd.revents & (POLLHUP | POLLERR | POLLNVAL))
			return;
	}
}

static void supervise(struct sup *s)
{
	int sv[2], listener;
	pid_t pid;

	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	pid = unit_fork(WATCHDOG);
	if (pid == 0) {
		close(sv[0]);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(LOAD_FAILED);
		_exit(target_main(sv[1], s));
	}
	close(sv[1]);
	s->pid = pid;
	listener = recv_fd(sv[0]);
	close(sv[0]);
	if (listener >= 0) {
		switch (s->mode) {
		case SUP_HANDLE:
			supervise_loop(s, listener);
			break;
		case SUP_CLOSE:
			break;
		case SUP_RECEIVE_CLOSE: {
			struct seccomp_notif *req = NULL;
			struct seccomp_notif_resp *resp = NULL;

			if (seccomp_notify_alloc(&req, &resp) < 0 ||
			    seccomp_notify_receive(listener, req) < 0)
				s->error = -errno;
			else
				s->n_handled++;
			seccomp_notify_free(req, resp);
			break;
		}
		}
		close(listener);
	}
	assert_int_equal(waitpid(pid, &s->status, 0), pid);
	assert_true(listener >= 0);
	assert_int_equal(s->error, 0);
}

static int exit_code(const struct sup *s)
{
	return unit_exit_code(s->status, "target");
}

/* --- (b) the service guard ------------------------------------------------ */

enum exec_how { VIA_EXECVE, VIA_EXECVEAT, VIA_FEXECVE };

struct exec_case {
	enum exec_how how;
	char *const *argv;
};

static int exec_target(const void *arg)
{
	const struct exec_case *x = arg;
	int fd;

	switch (x->how) {
	case VIA_EXECVE:
		execve(standin, x->argv, clean_env);
		break;
	case VIA_EXECVEAT:
		syscall(SYS_execveat, AT_FDCWD, standin, x->argv, clean_env, 0);
		break;
	case VIA_FEXECVE:
		/* no O_CLOEXEC: the interpreter of a script opens /dev/fd/N */
		fd = open(standin, O_RDONLY);
		if (fd < 0)
			return 2;
		syscall(SYS_execveat, fd, "", x->argv, clean_env, AT_EMPTY_PATH);
		break;
	}
	return EXEC_FAILED + errno;
}

static void write_standin(void)
{
	FILE *f = fopen(standin, "w");

	assert_non_null(f);
	fprintf(f, "#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\n", record);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(standin, 0755), 0);
}

/* The stand-in's record ("" when it did not run). */
static void read_record(char *buf, size_t len)
{
	FILE *f = fopen(record, "r");
	size_t n = 0;

	buf[0] = '\0';
	if (!f)
		return;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void run_exec(struct sup *s, struct test_pol *t, bool log_only, const struct exec_case *x)
{
	memset(s, 0, sizeof(*s));
	s->pol = &t->pol;
	s->log_only = log_only;
	s->mode = SUP_HANDLE;
	s->target = exec_target;
	s->arg = x;
	unlink(record);
	supervise(s);
}

static void assert_refused_event(const struct sup *s, const char *call, const char *detail,
				 bool refused)
{
	assert_int_equal(s->n_events, 1);
	assert_string_equal(s->ev[0].call, call);
	assert_string_equal(s->ev[0].detail, detail);
	assert_int_equal(s->ev[0].pid, s->pid);
	assert_non_null(s->ev[0].origin);
	assert_string_equal(s->ev[0].origin, "test.policy:7");
	assert_int_equal(s->ev[0].refused, refused);
}

static void test_guard_refuses_restart(void **state)
{
	static char *const argv[] = { "systemctl", "restart", "x", NULL };
	struct exec_case x = { VIA_EXECVE, argv };
	struct test_pol t;
	struct sup s;
	char rec[256];

	make_pol(&t, EPERM, true, NULL);
	run_exec(&s, &t, false, &x);
	assert_int_equal(exit_code(&s), EXEC_FAILED + EPERM);
	assert_refused_event(&s, "execve", "systemctl restart x", true);
	read_record(rec, sizeof(rec));
	assert_string_equal(rec, "");
}

static void test_guard_passes_is_active(void **state)
{
	static char *const argv[] = { "systemctl", "is-active", "x", NULL };
	struct exec_case x = { VIA_EXECVE, argv };
	struct test_pol t;
	struct sup s;
	char rec[256];

	make_pol(&t, EPERM, true, NULL);
	run_exec(&s, &t, false, &x);
	assert_int_equal(exit_code(&s), 0);
	assert_int_equal(s.n_events, 0);
	assert_true(s.n_handled >= 1);
	read_record(rec, sizeof(rec));
	assert_string_equal(rec, "is-active\nx\n");
}

static void test_guard_log_only(void **state)
{
	static char *const argv[] = { "systemctl", "restart", "x", NULL };
	struct exec_case x = { VIA_EXECVE, argv };
	struct test_pol t;
	struct sup s;
	char rec[256];

	make_pol(&t, EPERM, true, NULL);
	run_exec(&s, &t, true, &x);
	assert_int_equal(exit_code(&s), 0);
	assert_refused_event(&s, "execve", "systemctl restart x", false);
	read_record(rec, sizeof(rec));
	assert_string_equal(rec, "restart\nx\n");
}

static void test_guard_execveat(void **state)
{
	static char *const argv[] = { "systemctl", "--user", "stop", "x", NULL };
	struct exec_case x = { VIA_EXECVEAT, argv };
	struct test_pol t;
	struct sup s;

	make_pol(&t, EPERM, true, NULL);
	run_exec(&s, &t, false, &x);
	assert_int_equal(exit_code(&s), EXEC_FAILED + EPERM);
	assert_refused_event(&s, "execveat", "systemctl --user stop x", true);
}

/* fexecve(): an empty path; the program is named by the descriptor only */
static void test_guard_fexecve(void **state)
{
	static char *const argv[] = { "sc", "restart", "x", NULL };
	struct exec_case x = { VIA_FEXECVE, argv };
	struct test_pol t;
	struct sup s;

	make_pol(&t, EPERM, true, NULL);
	run_exec(&s, &t, false, &x);
	assert_int_equal(exit_code(&s), EXEC_FAILED + EPERM);
	assert_refused_event(&s, "execveat", "sc restart x", true);
}

/* Unrelated programs and a guard-less policy pass without an event. */
static int true_target(const void *arg)
{
	static char *const argv[] = { "true", NULL };

	execve("/bin/true", argv, clean_env);
	return EXEC_FAILED + errno;
}

static void test_guard_other_program(void **state)
{
	struct test_pol t;
	struct sup s;

	for (int guard = 0; guard < 2; guard++) {
		make_pol(&t, EPERM, guard, NULL);
		memset(&s, 0, sizeof(s));
		s.pol = &t.pol;
		s.target = true_target;
		supervise(&s);
		assert_int_equal(exit_code(&s), 0);
		assert_int_equal(s.n_events, 0);
		assert_int_equal(s.n_handled, 1);
	}
}

#define LONG_ARGC     300
#define ARGV_SEEN_MAX (72 * 1024)

/* More arguments than the handler reads, and one longer than it reads. */
static void test_guard_long_argv(void **state)
{
	static char long_arg[5000];
	char *argv[LONG_ARGC + 1];
	struct exec_case x = { VIA_EXECVE, argv };
	struct test_pol t;
	struct sup s;

	memset(long_arg, 'a', sizeof(long_arg) - 1);
	argv[0] = "systemctl";
	for (int i = 2; i < LONG_ARGC; i++)
		argv[i] = i == 5 ? long_arg : "x";
	argv[LONG_ARGC] = NULL;

	make_pol(&t, EPERM, true, NULL);
	argv[1] = "is-active";
	run_exec(&s, &t, false, &x);
	assert_int_equal(exit_code(&s), 0);
	assert_int_equal(s.n_events, 0);

	argv[1] = "restart";
	run_exec(&s, &t, false, &x);
	assert_int_equal(exit_code(&s), EXEC_FAILED + EPERM);
	assert_int_equal(s.n_events, 1);
	assert_true(strlen(s.ev[0].detail) < sizeof(s.ev[0].detail));
	assert_memory_equal(s.ev[0].detail, "systemctl restart x x x aaaa", 28);
	assert_string_equal(s.ev[0].detail + strlen(s.ev[0].detail) - 3, "...");
}

/* The argv a handler saw, NUL-separated, and how many arguments. */
struct seen_argv {
	char buf[ARGV_SEEN_MAX];
	size_t len, argc, calls;
};

static void keep_argv(pid_t pid, char *const *argv, size_t argc, void *arg)
{
	struct seen_argv *seen = arg;

	seen->calls++;
	seen->len = seen->argc = 0;
	for (size_t i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		assert_true(seen->len + l <= sizeof(seen->buf));
		memcpy(seen->buf + seen->len, argv[i], l);
		seen->len += l;
	}
	seen->argc = argc;
}

/*
 * What the handler must see of argv: each argument cut to 4095 bytes, all of
 * them to 64 KiB (ARG_LEN_MAX, ARGS_TOTAL_MAX in notify.c), the rest dropped.
 */
static void expect_argv(char *const *argv, struct seen_argv *want)
{
	*want = (struct seen_argv){ .calls = 1 };
	for (size_t i = 0; argv[i]; i++) {
		size_t cap = 65536 - want->len, l = strlen(argv[i]);

		cap = cap < 4096 ? cap : 4096;
		if (cap < 2)
			break;
		l = l < cap - 1 ? l : cap - 1;
		memcpy(want->buf + want->len, argv[i], l);
		want->buf[want->len + l] = '\0';
		want->len += l + 1;
		want->argc++;
	}
}

/* Put s so that it starts `before` bytes ahead of a page boundary (mapped on both sides). */
static char *across_page(char *pages, size_t page, size_t before, const char *s)
{
	char *p = pages + page - before;

	memcpy(p, s, strlen(s) + 1);
	return p;
}

/*
 * The handler reads argv in few calls where it can and byte by byte where a
 * string or the array runs past what it read at first: the argv it shows
 * must be the caller's, whatever the layout.
 */
static void test_exec_argv_layouts(void **state)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *pages =
		mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	static char a300[301], a5000[5001], a4000[4001];
	char *argv[40], **parray;
	struct exec_case x = { VIA_EXECVE, argv };
	struct seen_argv *seen = calloc(2, sizeof(*seen));
	struct test_pol t;
	struct sup s;

	assert_true(pages != MAP_FAILED);
	assert_non_null(seen);
	memset(a300, 'b', sizeof(a300) - 1);
	memset(a5000, 'c', sizeof(a5000) - 1);
	memset(a4000, 'd', sizeof(a4000) - 1);
	parray = (char **)(void *)(pages + 3 * page - 2 * sizeof(char *));
	for (int layout = 0; layout < 6; layout++) {
		char **v = argv;
		size_t n = 0;

		switch (layout) {
		case 0: /* short ones */
			v[n++] = "standin", v[n++] = "-c", v[n++] = "";
			break;
		case 1: /* longer than the first piece read */
			v[n++] = "standin", v[n++] = a300, v[n++] = "x";
			break;
		case 2: /* across a page boundary */
			v[n++] = "standin";
			v[n++] = across_page(pages, page, 10, "0123456789abcdefghij");
			v[n++] = "y";
			break;
		case 3: /* longer than an argument may be */
			v[n++] = "standin", v[n++] = a5000, v[n++] = "z";
			break;
		case 4: /* more than all of them may be */
			v[n++] = "standin";
			while (n < 20)
				v[n++] = a4000;
			break;
		case 5: /* the array itself across a page boundary */
			v = parray;
			v[n++] = "standin", v[n++] = "one", v[n++] = "two";
			break;
		}
		v[n] = NULL;
		x.argv = v;
		make_pol(&t, EPERM, false, NULL);
		expect_argv(v, &seen[1]);
		memset(&seen[0], 0, sizeof(seen[0]));
		memset(&s, 0, sizeof(s));
		s.pol = &t.pol;
		s.mode = SUP_HANDLE;
		s.target = exec_target;
		s.arg = &x;
		s.on_exec = keep_argv;
		s.on_exec_arg = &seen[0];
		supervise(&s);
		assert_int_equal(exit_code(&s), 0);
		assert_int_equal(seen[0].calls, 1);
		assert_int_equal(seen[0].argc, seen[1].argc);
		assert_int_equal(seen[0].len, seen[1].len);
		assert_memory_equal(seen[0].buf, seen[1].buf, seen[1].len);
	}
	free(seen);
	munmap(pages, 4 * page);
}

/* connect(): a denied path (absolute and relative), an allowed one, an abstract name. */
struct connect_case {
	char deny[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char ok[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

static int connect_to(const char *path, bool abstract)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	socklen_t len = offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int r, err;

	if (fd < 0)
		return errno;
	memcpy(sun.sun_path + abstract, path, strlen(path));
	if (abstract)
		len = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(path);
	r = connect(fd, (struct sockaddr *)&sun, len);
	err = errno;
	close(fd);
	return r < 0 ? err : 0;
}

static int connect_target(const void *arg)
{
	const struct connect_case *c = arg;

	CHILD_CHECK(connect_to(c->deny, false) == EPERM);
	CHILD_CHECK(connect_to(c->ok, false) == 0);
	CHILD_CHECK(chdir(tmpdir) == 0);
	CHILD_CHECK(connect_to("deny.sock", false) == EPERM);
	CHILD_CHECK(connect_to("ok.sock", false) == 0);
	CHILD_CHECK(connect_to("isorun-test-abstract-none", true) == ECONNREFUSED);
	return 0;
}

static int listen_at(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(listen(fd, 8), 0);
	return fd;
}

static void test_guard_connect(void **state)
{
	struct connect_case c;
	struct test_pol t;
	struct sup s;
	int a, b;

	assert_true(snprintf(c.deny, sizeof(c.deny), "%s/deny.sock", tmpdir) < (int)sizeof(c.deny));
	assert_true(snprintf(c.ok, sizeof(c.ok), "%s/ok.sock", tmpdir) < (int)sizeof(c.ok));
	a = listen_at(c.deny);
	b = listen_at(c.ok);
	make_pol(&t, EPERM, true, c.deny);
	memset(&s, 0, sizeof(s));
	s.pol = &t.pol;
	s.target = connect_target;
	s.arg = &c;
	supervise(&s);
	close(a);
	close(b);
	unlink(c.deny);
	unlink(c.ok);
	assert_int_equal(exit_code(&s), 0);
	assert_int_equal(s.n_events, 2);
	for (size_t i = 0; i < 2; i++) {
		assert_string_equal(s.ev[i].call, "connect");
		assert_string_equal(s.ev[i].detail, c.deny);
		assert_string_equal(s.ev[i].origin, "test.policy:9");
		assert_true(s.ev[i].refused);
	}
}

/*
 * A supervisor that may not use process_vm_readv() (EPERM: other credentials;
 * ENOSYS: a container's filter) reads through /proc/PID/mem.  The supervisor
 * is a child here, filtered; the check runs there without cmocka.
 */
static int fallback_supervisor(const void *arg)
{
	static char *const argv[] = { "systemctl", "restart", "x", NULL };
	const int *errnum = arg;
	struct exec_case x = { VIA_EXECVE, argv };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	struct test_pol t;
	struct sup s;
	int sv[2], listener, status;
	pid_t pid;

	CHILD_CHECK(ctx);
	CHILD_CHECK(seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)*errnum),
				     SCMP_SYS(process_vm_readv), 0) == 0);
	CHILD_CHECK(seccomp_load(ctx) == 0);
	seccomp_release(ctx);

	make_pol(&t, EPERM, true, NULL);
	memset(&s, 0, sizeof(s));
	s.pol = &t.pol;
	s.target = exec_target;
	s.arg = &x;
	CHILD_CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0);
	pid = fork();
	CHILD_CHECK(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		_exit(target_main(sv[1], &s));
	}
	close(sv[1]);
	s.pid = pid;
	listener = recv_fd(sv[0]);
	close(sv[0]);
	if (listener >= 0)
		supervise_loop(&s, listener);
	close(listener);
	CHILD_CHECK(waitpid(pid, &status, 0) == pid);
	CHILD_CHECK(listener >= 0 && s.error == 0);
	CHILD_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == EXEC_FAILED + EPERM);
	CHILD_CHECK(s.n_events == 1 && !strcmp(s.ev[0].detail, "systemctl restart x"));
	CHILD_CHECK(s.ev[0].refused && !strcmp(s.ev[0].origin, "test.policy:7"));
	return 0;
}

static void test_guard_proc_mem_fallback(void **state)
{
	static const int errnums[] = { EPERM, ENOSYS };

	for (size_t i = 0; i < sizeof(errnums) / sizeof(errnums[0]); i++)
		assert_int_equal(fork_child(fallback_supervisor, &errnums[i]), 0);
}

/* --- (c) the listener's owner goes away ----------------------------------- */

static void test_owner_gone(void **state)
{
	static char *const argv[] = { "systemctl", "is-active", "x", NULL };
	static const enum sup_mode modes[] = { SUP_CLOSE, SUP_RECEIVE_CLOSE };
	struct exec_case x = { VIA_EXECVE, argv };
	struct test_pol t;
	struct sup s;
	char rec[256];

	make_pol(&t, EPERM, true, NULL);
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		memset(&s, 0, sizeof(s));
		s.pol = &t.pol;
		s.mode = modes[i];
		s.target = exec_target;
		s.arg = &x;
		unlink(record);
		supervise(&s);
		/* ENOSYS, not a hang (the child's alarm would turn a hang into SIGALRM) */
		assert_int_equal(exit_code(&s), EXEC_FAILED + ENOSYS);
		read_record(rec, sizeof(rec));
		assert_string_equal(rec, "");
	}
}

/* --- (d) nested: a listener is already in the filter chain ---------------- */

/* In one process: a second load keeps the first listener and adds its deny-list. */
static int nested_same_process(const void *arg)
{
	struct test_pol outer, inner;
	int l1 = -2, l2 = -2, got[N_CALL];

	make_pol(&outer, MARK, true, NULL);
	outer.denies.n = D_CLOCK + 1; /* reboot and clock_settime */
	make_pol(&inner, MARK2, true, NULL);
	inner.denies.v = &inner.deny[D_MODULE]; /* init_module, swapoff, TIOCSTI */
	inner.denies.n = N_DENY - D_MODULE;

	CHILD_CHECK(load(&outer.pol, true, false, &l1) == 0);
	CHILD_CHECK(l1 >= 0);
	CHILD_CHECK((fcntl(l1, F_GETFD) & FD_CLOEXEC) != 0);
	CHILD_CHECK(load(&inner.pol, true, false, &l2) == 0);
	CHILD_CHECK(l2 == -1);
	make_calls(got);
	CHILD_CHECK(got[C_REBOOT] == MARK && got[C_CLOCK] == MARK);
	CHILD_CHECK(got[C_MODULE] == MARK2 && got[C_SWAPOFF] == MARK2);
	CHILD_CHECK(got[C_TIOCSTI] == MARK2 && got[C_TIOCSTI_HI] == MARK2);
	CHILD_CHECK(got[C_FIONREAD] == 0);
	/* no exec here: our own listener would have to answer it */
	close(l1);
	return 0;
}

static void test_nested_same_process(void **state)
{
	assert_int_equal(fork_child(nested_same_process, NULL), 0);
}

/*
 * isorun under isorun: the target re-executes this binary (fresh libseccomp
 * state, as the inner isorun would be), which loads its own policy with
 * notify under our listener, checks its deny-list, and then execs
 * `systemctl restart x`: the outer supervisor (this process) refuses it.
 */
static int nested_exec_target(const void *arg)
{
	char *const argv[] = { self_exe, NESTED_ARG, tmpdir, NULL };

	execve(self_exe, argv, environ);
	return EXEC_FAILED + errno;
}

static int nested_inner(void)
{
	static char *const argv[] = { "systemctl", "restart", "x", NULL };
	struct test_pol inner;
	int listener = -2, got[N_CALL];

	make_pol(&inner, MARK2, false, NULL);
	if (load(&inner.pol, true, false, &listener) < 0)
		return 2;
	if (listener != -1)
		return 3;
	make_calls(got);
	if (got[C_SWAPOFF] != MARK2 || got[C_CLOCK] != MARK2 || got[C_FIONREAD] != 0)
		return 4;
	execve(standin, argv, clean_env);
	return EXEC_FAILED + errno;
}

static void test_nested_exec(void **state)
{
	struct test_pol outer;
	struct sup s;
	char rec[256];

	make_pol(&outer, MARK, true, NULL);
	memset(&s, 0, sizeof(s));
	s.pol = &outer.pol;
	s.target = nested_exec_target;
	unlink(record);
	supervise(&s);
	assert_int_equal(exit_code(&s), EXEC_FAILED + EPERM);
	assert_refused_event(&s, "execve", "systemctl restart x", true);
	assert_int_equal(s.n_handled, 2); /* the re-exec, then systemctl */
	read_record(rec, sizeof(rec));
	assert_string_equal(rec, "");
}

/* --- the shipped default policy compiles whole ---------------------------- */

static int default_scenario(const void *arg)
{
	struct pol p;
	struct pol_error perr;
	int listener = -2, got[N_CALL];

	memset(&p, 0, sizeof(p));
	CHILD_CHECK(pol_load("default", &p, &perr) == 0);
	CHILD_CHECK(load(&p, true, false, &listener) == 0);
	CHILD_CHECK(listener >= 0);
	close(listener);
	make_calls(got);
	CHILD_CHECK(got[C_REBOOT] == EPERM && got[C_CLOCK] == EPERM && got[C_MODULE] == EPERM);
	CHILD_CHECK(got[C_SWAPOFF] == EPERM && got[C_TIOCSTI] == EPERM);
	CHILD_CHECK(got[C_TIOCSTI_HI] == EPERM && got[C_FIONREAD] == 0);
	CHILD_CHECK(got[C_X32] == -1 || got[C_X32] == EPERM);
	pol_free(&p);
	return 0;
}

static void test_default_policy_loads(void **state)
{
	assert_int_equal(fork_child(default_scenario, NULL), 0);
}

/* --- setup ---------------------------------------------------------------- */

static int setup(void **state)
{
	char made[PATH_MAX];
	ssize_t n;

	/* the real path: a relative connect() is resolved through /proc/PID/cwd */
	if (unit_mkdtemp(made, sizeof(made), "isorun-polk.XXXXXX") < 0 || !realpath(made, tmpdir))
		return -1;
	if (snprintf(standin, sizeof(standin), "%s/systemctl", tmpdir) >= (int)sizeof(standin) ||
	    snprintf(record, sizeof(record), "%s/record", tmpdir) >= (int)sizeof(record))
		return -1;
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0)
		return -1;
	self_exe[n] = '\0';
	write_standin();
	return 0;
}

static int teardown(void **state)
{
	unlink(record);
	unlink(standin);
	return rmdir(tmpdir);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deny_control),
		cmocka_unit_test(test_deny_eperm),
		cmocka_unit_test(test_deny_own_errno),
		cmocka_unit_test(test_deny_log_only),
		cmocka_unit_test(test_deny_unknown_syscall),
		cmocka_unit_test(test_guard_refuses_restart),
		cmocka_unit_test(test_guard_passes_is_active),
		cmocka_unit_test(test_guard_log_only),
		cmocka_unit_test(test_guard_execveat),
		cmocka_unit_test(test_guard_fexecve),
		cmocka_unit_test(test_guard_other_program),
		cmocka_unit_test(test_guard_long_argv),
		cmocka_unit_test(test_exec_argv_layouts),
		cmocka_unit_test(test_guard_connect),
		cmocka_unit_test(test_guard_proc_mem_fallback),
		cmocka_unit_test(test_owner_gone),
		cmocka_unit_test(test_nested_same_process),
		cmocka_unit_test(test_nested_exec),
		cmocka_unit_test(test_default_policy_loads),
	};

	if (argc == 3 && !strcmp(argv[1], NESTED_ARG)) {
		if (snprintf(standin, sizeof(standin), "%s/systemctl", argv[2]) >=
		    (int)sizeof(standin))
			return 2;
		return nested_inner();
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
