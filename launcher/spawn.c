// SPDX-License-Identifier: MIT
#include "launcher/spawn.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include "launcher/opts.h"
#include "common/cleanup.h"
#include "common/fault.h"
#include "common/ksig.h"
#include "common/reader.h"
#include "common/fdpass.h"
#include "ns/ns.h"
#include "policy/policy.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

/*
 * Marks the functions of the child that call a noreturn function (_exit, a
 * failure, execve's caller): ASan does not instrument them.  The child runs on
 * the parent's ASan thread (CLONE_VM keeps the thread pointer), whose stack
 * bounds are the parent's, so ASan would refuse the stack cleanup of each such
 * call with a warning on stderr.  What they call is still checked: libc through
 * ASan's interceptors, isorun's other files as everywhere; UBSan checks it all.
 */
#define CHILD_SIDE __attribute__((no_sanitize_address))

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Every fd >= 3 close-on-exec, except the ones asked for. */
static int seal_fds(const int *keep, size_t n)
{
	int sorted[SUP_PASS_FD_MAX];
	unsigned lo = 3;

	if (n > ELEMENTSOF(sorted))
		return -E2BIG;
	if (n) {
		memcpy(sorted, keep, n * sizeof(int));
		qsort(sorted, n, sizeof(int), cmp_int);
	}
	for (size_t i = 0; i <= n; i++) {
		unsigned hi = i < n ? (unsigned)sorted[i] - 1 : ~0U;
		if (i < n && (unsigned)sorted[i] < lo)
			continue;
		if (hi >= lo && syscall(SYS_close_range, lo, hi, CLOSE_RANGE_CLOEXEC) < 0)
			return -errno;
		if (i < n) {
			int fl = fcntl(sorted[i], F_GETFD);
			if (fl < 0 || fcntl(sorted[i], F_SETFD, fl & ~FD_CLOEXEC) < 0)
				return -errno;
			lo = (unsigned)sorted[i] + 1;
		}
	}
	return 0;
}

/*
 * The dispositions and the mask the caller gave isorun, as execve(2) would have
 * handed them on: an ignore stays, everything else (isorun's own SIGPIPE
 * ignore, its handlers, its blocked set) goes back.  Through the raw syscalls:
 * glibc's signal() and sigprocmask() refuse its reserved real-time signals
 * (32, 33), yet an ignore or a block on them survives execve like any other.
 */
static int restore_signals(const struct sup_sig_inherited *in)
{
	struct iso_ksigaction act = { 0 };
	uint64_t blocked = in->blocked;

	for (int sig = 1; sig <= 64; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP)
			continue;
		act.handler = sup_sig_in(in->ignored, sig) ? (unsigned long)SIG_IGN
							   : (unsigned long)SIG_DFL;
		if (iso_rt_sigaction(sig, &act, NULL) < 0)
			return -1;
	}
	return (int)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &blocked, NULL, sizeof(blocked));
}

/* The ceilings that fall back to rlimits; a hard limit already lower stays. */
static int set_ceiling_rlimits(const struct sup_spawn *s)
{
	for (size_t i = 0; i < s->n_ceil_rlimits; i++) {
		struct rlimit rl;
		if (getrlimit(s->ceil_rlimits[i].resource, &rl) < 0)
			return -1;
		rl.rlim_cur = s->ceil_rlimits[i].value;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur)
			rl.rlim_cur = rl.rlim_max;
		rl.rlim_max = rl.rlim_cur;
		if (setrlimit(s->ceil_rlimits[i].resource, &rl) < 0)
			return -1;
	}
	return 0;
}

/*
 * The whole error goes to the parent, not just errno: "Operation not permitted"
 * alone cannot tell a refused seccomp(2) from a command that may not be run.
 */
CHILD_SIDE __attribute__((format(printf, 4, 5))) static _Noreturn void
child_fail(int status_fd, int stage, int errnum, const char *fmt, ...)
{
	struct sup_exec_failure f = { .errnum = errnum ? errnum : EIO, .stage = stage };
	va_list ap;

	f.err.errnum = f.errnum;
	va_start(ap, fmt);
	vsnprintf(f.err.msg, sizeof(f.err.msg), fmt, ap);
	va_end(ap);
	(void)!write(status_fd, &f, sizeof(f));
	_exit(127);
}

/* A failure described by a callee: its message, under the step that called it. */
CHILD_SIDE static _Noreturn void child_fail_err(int status_fd, int stage, const char *step,
						const struct iso_err *e)
{
	child_fail(status_fd, stage, e->errnum ? e->errnum : EPERM, "%s%s%s", step,
		   e->msg[0] ? ": " : "", e->msg);
}

static const int rlimit_resource[SUP_N_RLIMS] = {
	[SUP_RLIM_NOFILE] = RLIMIT_NOFILE,
	[SUP_RLIM_CORE] = RLIMIT_CORE,
	[SUP_RLIM_FSIZE] = RLIMIT_FSIZE,
};

static rlim_t rlimit_value(const struct sup_rlimits *l, int i)
{
	return l->value[i] == SUP_RLIM_UNLIMITED ? RLIM_INFINITY : (rlim_t)l->value[i];
}

CHILD_SIDE static _Noreturn void rlimit_fail(int status_fd, int i, rlim_t v)
{
	child_fail(status_fd, SUP_STAGE_SETUP, errno,
		   "prepare the command: set its %s limit to %llu (setrlimit)", sup_rlimit_name(i),
		   (unsigned long long)v);
}

/*
 * A hard limit above the current one, while the capabilities are still there:
 * raising it needs CAP_SYS_RESOURCE, which the command may not keep.
 */
CHILD_SIDE static void raise_rlimits(const struct sup_rlimits *l, int status_fd)
{
	for (int i = 0; i < SUP_N_RLIMS; i++) {
		rlim_t v = rlimit_value(l, i);
		struct rlimit rl;

		if (!l->set[i])
			continue;
		if (getrlimit(rlimit_resource[i], &rl) < 0)
			rlimit_fail(status_fd, i, v);
		if (rl.rlim_max != RLIM_INFINITY && (v == RLIM_INFINITY || v > rl.rlim_max)) {
			rl.rlim_max = v;
			if (setrlimit(rlimit_resource[i], &rl) < 0)
				rlimit_fail(status_fd, i, v);
		}
	}
}

/*
 * Soft and hard alike, just before execve: after the seccomp filter is loaded,
 * whose listener needs a descriptor of its own.  Only lowering is left, which
 * does not fail.
 */
CHILD_SIDE static void set_rlimits(const struct sup_rlimits *l, int status_fd)
{
	for (int i = 0; i < SUP_N_RLIMS; i++) {
		rlim_t v = rlimit_value(l, i);
		struct rlimit rl = { .rlim_cur = v, .rlim_max = v };

		if (l->set[i] && setrlimit(rlimit_resource[i], &rl) < 0)
			rlimit_fail(status_fd, i, v);
	}
}

/*
 * The command, between clone() and execve(): a process group of its own, the
 * caller's signal state (isorun blocks and ignores signals for itself, and both
 * survive execve), only fds 0-2 and --pass-fd, then exec.
 *
 * It runs in isorun's own memory (see sup_spawn()), so it writes nothing the
 * parent could be using at the same time: the parent sleeps in poll() until the
 * child either sends a record and then only calls execve() or _exit(), or sits
 * in execve() waiting for the parent to answer its seccomp notification.  The
 * shell fallback's argv is built by the parent beforehand for that reason.
 */
CHILD_SIDE static _Noreturn void child(const struct sup_spawn *s, int status_fd, char **sh_argv,
				       bool joined)
{
	struct iso_err e = { 0 };
	int r;

	/* first, unless born there: from here on everything it starts is counted and bounded */
	if (s->in_cgroup && !joined && write(s->cg_procs_fd, "0", 1) != 1)
		child_fail(status_fd, SUP_STAGE_SETUP, errno,
			   "prepare the command: move it into the run's cgroup (cgroup.procs)");
	if (setpgid(0, 0) < 0)
		child_fail(status_fd, SUP_STAGE_SETUP, errno,
			   "prepare the command: give it a process group of its own (setpgid)");
	if (set_ceiling_rlimits(s) < 0)
		child_fail(status_fd, SUP_STAGE_SETUP, errno,
			   "prepare the command: set its resource limits (setrlimit)");
	/* SIGTTOU is still blocked here, so a background group may take the terminal */
	if (s->tty_fd >= 0 && tcsetpgrp(s->tty_fd, getpid()) < 0)
		child_fail(status_fd, SUP_STAGE_SETUP, errno,
			   "prepare the command: hand it the terminal (tcsetpgrp)");
	if (restore_signals(&s->inherited) < 0)
		child_fail(status_fd, SUP_STAGE_SETUP, errno,
			   "prepare the command: give back the caller's signal state "
			   "(rt_sigaction, rt_sigprocmask)");
	if (s->out_fd >= 0 && dup2(s->out_fd, 1) < 0)
		child_fail(status_fd, SUP_STAGE_SETUP, errno,
			   "prepare the command: put the stdout pipe on fd 1 (dup2)");
	if (s->err_fd >= 0 && dup2(s->err_fd, 2) < 0)
		child_fail(status_fd, SUP_STAGE_SETUP, errno,
			   "prepare the command: put the stderr pipe on fd 2 (dup2)");
	for (size_t i = 0; i < s->n_pass_fds; i++)
		if (fcntl(s->pass_fds[i], F_GETFD) < 0)
			child_fail(status_fd, SUP_STAGE_SETUP, errno, "%s %d", s->pass_fd_word,
				   s->pass_fds[i]);
	r = seal_fds(s->pass_fds, s->n_pass_fds);
	if (r < 0)
		child_fail(status_fd, SUP_STAGE_SETUP, -r,
			   "prepare the command: close isorun's own descriptors (close_range)");
	raise_rlimits(&s->rlimits, status_fd);
	if (ns_caps_apply((enum ns_caps_mode)s->caps_mode, s->caps_keep, s->caps_drop, &e) < 0)
		child_fail_err(status_fd, SUP_STAGE_CAPS, "drop the command's privileges", &e);
	if (s->cwd && chdir(s->cwd) < 0)
		child_fail(status_fd, SUP_STAGE_CHDIR, errno, "enter the working directory '%s'",
			   s->cwd);
	if (s->scope_signals && pol_scope_apply(&e) < 0)
		child_fail_err(status_fd, SUP_STAGE_POLICY,
			       "confine the command's signals and ptrace to the run", &e);
	/* under --policy=off too: it is how the host answers, not a policy */
	if (s->id_filter &&
	    pol_filter_install(s->id_filter, s->id_filter_len, false, "ids", &e) < 0)
		child_fail_err(status_fd, SUP_STAGE_POLICY,
			       "install the command's seccomp filter (the id filter)", &e);
	if (s->pol) {
		struct sup_exec_failure rec = { .stage = SUP_STAGE_LISTENER };
		int listener = -1;

		/* last: from here on our own execve waits for the supervisor's answer */
		e = (struct iso_err){ 0 };
		if (pol_filter_load(s->pol, true, s->pol_log, &listener, &e) < 0)
			child_fail_err(status_fd, SUP_STAGE_POLICY,
				       "install the command's seccomp filter", &e);
		rec.errnum = listener < 0 ? EBUSY : 0;
		/* the listener is close-on-exec: no copy of it reaches the command */
		if (iso_send_record(status_fd, &rec, sizeof(rec), listener) < 0)
			_exit(127);
	}
	set_rlimits(&s->rlimits, status_fd);
	execve(s->path, s->argv, s->envp);
	if (errno == ENOEXEC && sh_argv) {
		/* a script without #!: run it with sh, as execvp() and the shells do */
		execve("/bin/sh", sh_argv, s->envp);
		errno = ENOEXEC;
	}
	child_fail(status_fd, SUP_STAGE_EXEC, errno, "execute '%s'", s->path);
}

/*
 * The child shares isorun's memory (CLONE_VM, as posix_spawn() does) instead of
 * a copy: fork() copied the page tables of the whole process and its exec then
 * tore the copy down again, ~0.3 ms of every launch here.  Not CLONE_VFORK: the
 * parent must stay awake to answer the notification of the child's own execve.
 * Every build takes this path, ASan's too (see CHILD_SIDE, child_stack_ready()).
 */
struct child_arg {
	const struct sup_spawn *s;
	int status_fd;
	char **sh_argv;
	bool joined; /* cloned into the run's cgroup: no cgroup.procs write */
};

/*
 * The child's stack: mapped once and reused (one spawn at a time per process,
 * and a child never returns onto it), with an inaccessible page below it so an
 * overflow faults instead of writing over whatever lies beneath.
 */
#define CHILD_STACK_SIZE (512 * 1024)
static void *child_stack; /* the lowest usable byte; the guard page lies below */

CHILD_SIDE static int child_entry(void *p)
{
	const struct child_arg *a = p;

	child(a->s, a->status_fd, a->sh_argv, a->joined);
}

/*
 * The stack, ready for a child.  Under ASan the shadow of the stack is shared
 * with the parent and a child never returns from its frames, so the redzones of
 * the last child's locals are still poisoned: cleared here, before each clone.
 */
static int child_stack_ready(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *m;

	if (!child_stack) {
		m = mmap(NULL, CHILD_STACK_SIZE + page, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		if (mprotect(m, page, PROT_NONE) < 0) {
			(void)munmap(m, CHILD_STACK_SIZE + page);
			return -1;
		}
		child_stack = m + page;
	}
#if defined(__SANITIZE_ADDRESS__)
	ASAN_UNPOISON_MEMORY_REGION(child_stack, CHILD_STACK_SIZE);
#endif
	return 0;
}

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* struct clone_args of <linux/sched.h> up to `cgroup` (CLONE_ARGS_SIZE_VER2, 5.7) */
struct clone3_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size, cgroup;
};

#if defined(__x86_64__) && defined(SYS_clone3)
/*
 * clone3(2) with CLONE_VM: the child comes back from the syscall on the new,
 * empty stack, where no C frame of ours is to return to, so it calls
 * child_entry() itself and exits with its value, as glibc's clone() does.
 * fn and arg ride in r12 and r13, which the child inherits; rcx and r11 are
 * the syscall's.  The stack's top is 16-byte aligned for the call.
 */
CHILD_SIDE static long clone3_vm(struct clone3_args *ca, struct child_arg *a)
{
	register long ret __asm__("rax") = SYS_clone3;
	register void *fn __asm__("r12") = (void *)child_entry;
	register void *arg __asm__("r13") = a;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "mov %%eax, %%edi\n\t"
			 "mov %[exit], %%eax\n\t"
			 "syscall\n\t"
			 "hlt\n"
			 "1:"
			 : "+r"(ret)
			 : "D"(ca), "S"(sizeof(*ca)), "r"(fn), "r"(arg), [exit] "i"(SYS_exit)
			 : "rcx", "r11", "memory");
	return ret;
}
#endif

/*
 * The child born in the run's cgroup: the kernel puts it there as it creates
 * it, so its first instruction is counted, and no cgroup.procs write is made.
 * That write waits for an RCU grace period (the threadgroup rwsem taken for
 * writing): 8-15 ms of every launch here, against ~0.1 ms for the clone.
 * -1 with errno where it cannot be had (before 5.7, a filter that refuses
 * clone3, an architecture without the trampoline): the caller falls back.
 */
static pid_t clone_into_cgroup(struct child_arg *a)
{
	if (iso_test_fault("no-clone-into-cgroup")) {
		errno = ENOSYS;
		return -1;
	}
#if defined(__x86_64__) && defined(SYS_clone3)
	struct clone3_args ca = { .flags = CLONE_VM | CLONE_INTO_CGROUP,
				  .exit_signal = SIGCHLD,
				  .stack = (uint64_t)(uintptr_t)child_stack,
				  .stack_size = CHILD_STACK_SIZE,
				  .cgroup = (uint64_t)a->s->cg_dir_fd };
	long r;

	a->joined = true;
	r = clone3_vm(&ca, a);
	if (r >= 0)
		return (pid_t)r;
	a->joined = false;
	errno = (int)-r;
#else
	errno = ENOSYS;
#endif
	return -1;
}

static pid_t start_child(struct child_arg *a)
{
	pid_t pid;

	if (child_stack_ready() < 0)
		return -1;
	/* refused, for any reason: the child joins by cgroup.procs, as it always could */
	if (a->s->in_cgroup && (pid = clone_into_cgroup(a)) >= 0)
		return pid;
	return clone(child_entry, (char *)child_stack + CHILD_STACK_SIZE, CLONE_VM | SIGCHLD, a);
}

static const char *env_get(char **envp, const char *name)
{
	size_t len = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], name, len) && envp[i][len] == '=')
			return envp[i] + len + 1;
	return NULL;
}

static bool is_hidden(const struct sup_hidden *h, const char *path)
{
	char at[PATH_MAX];

	return h && sup_hidden_by(h, path, true, at, sizeof(at));
}

int sup_resolve_command(const char *name, char **envp, const struct sup_hidden *hidden,
			char **ret_path, char **ret_hidden)
{
	const char *path = env_get(envp, "PATH");
	_cleanup_free_ char *denied = NULL;
	const char *p;

	*ret_path = NULL;
	*ret_hidden = NULL;
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		*ret_path = strdup(name);
		return *ret_path ? 0 : -ENOMEM;
	}
	if (!path)
		path = "/bin:/usr/bin"; /* glibc's execvp default */
	/*
	 * As the shells search: the first executable regular file wins; a directory we
	 * may not search is passed over (execvp() would answer EACCES and make a missing
	 * command look like 126); a file found but not executable gives 126.  A file
	 * the run's mount namespace hides is passed over as the command's own search
	 * would pass it over; the first is kept to say why nothing was found.
	 */
	for (p = path;; p++) {
		const char *end = strchrnul(p, ':');
		char *cand = NULL;
		struct stat st;

		if (asprintf(&cand, "%.*s%s%s", (int)(end - p), p, end == p ? "" : "/", name) < 0)
			return -ENOMEM;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode)) {
			if (is_hidden(hidden, cand)) {
				if (!*ret_hidden)
					*ret_hidden = TAKE_PTR(cand);
			} else if (access(cand, X_OK) == 0) {
				*ret_path = cand;
				return 0;
			} else if (!denied) {
				denied = TAKE_PTR(cand);
			}
		}
		free(cand);
		if (!*end)
			break;
		p = end;
	}
	if (denied) {
		*ret_path = TAKE_PTR(denied);
		return 0; /* execve() will say EACCES: 126, as a shell would */
	}
	return -ENOENT;
}

/* sh SCRIPT ARG...: the fallback for a script without #!, made before the child. */
static char **sh_fallback_argv(const struct sup_spawn *s)
{
	size_t argc = 0;
	char **v;

	while (s->argv[argc])
		argc++;
	v = calloc(argc + 2, sizeof(char *));
	if (v) {
		v[0] = (char *)"sh";
		v[1] = (char *)(uintptr_t)s->path;
		memcpy(&v[2], &s->argv[1], argc * sizeof(char *));
	}
	return v;
}

/*
 * The child's records until it exec'd (the socket closes with the exec) or
 * failed: its seccomp listener on the way, whose notifications are answered
 * meanwhile, since the child may be waiting on one to exec at all.
 */
struct start_wait {
	const struct sup_spawn *s;
	int rd;
	int listener;
	bool guard_elsewhere;
	/*
	 * Once it has exec'd, the command may make a call before its exec's word
	 * reaches us: its memory is read with a deadline.  The reader is made at
	 * the first call that comes after the exec, which the socket tells: its
	 * end closes with the exec, before the new program's first instruction,
	 * so a call that finds it still unreadable is the child's own execve (or
	 * its sh fallback's), whose argv is our own memory and cannot make a read
	 * wait.  The child has left our memory by then, so the thread allocates
	 * beside nothing of its; and most runs make no such call, and no thread.
	 */
	struct iso_reader reader;
	bool reading;
	bool event;	/* a call was refused or reported */
	bool hold_word; /* ISORUN_TEST_FAULT=late-exec-word: only after an event */
};

static void take_listener(struct start_wait *w, const struct sup_exec_failure *rec, int fd)
{
	w->listener = fd;
	w->guard_elsewhere = rec->errnum == EBUSY;
}

/* Whether the child has exec'd (or failed): its end of the socket is gone. */
static bool exec_passed(int rd)
{
	struct pollfd p = { .fd = rd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

/*
 * A caller that keeps no exec record (--pidns's init: the record is the outer
 * supervisor's) answers only the child's calls up to its exec.  What the new
 * program and its children call after it waits in the listener for the outer,
 * which records their execs under the host's pids; answered here, an exec of a
 * child (`sh -c 'daemon &'`) went unrecorded, and its leak unattributed.
 */
static bool leave_to_outer(const struct start_wait *w)
{
	return !w->s->on_exec && exec_passed(w->rd);
}

static int answer_call(struct start_wait *w, struct iso_err *e)
{
	const struct sup_spawn *s = w->s;
	struct pol_event ev;

	if (!w->reading && exec_passed(w->rd)) {
		if (iso_reader_start(&w->reader, ISO_READER_DEADLINE_MS, e) < 0)
			return -EINVAL;
		w->reading = true;
	}
	/* the command may signal as soon as it runs, before this loop ends */
	if (pol_notify_handle_with(
		    w->listener,
		    &(struct pol_handler){ s->pol, s->pol_log, s->on_exec, s->event_arg,
					   w->reading ? &w->reader : NULL, s->pol_run },
		    &ev) != 1)
		return 0;
	w->event = true;
	if (s->on_event)
		s->on_event(&ev, s->event_arg);
	return 0;
}

static int await_exec(struct start_wait *w, struct sup_exec_failure *f, struct iso_err *e)
{
	const struct sup_spawn *s = w->s;

	for (;;) {
		/* the listener comes by the same socket as the word */
		bool word = w->listener < 0 || !w->hold_word || w->event;
		struct pollfd pfd[2] = { { .fd = word ? w->rd : -1, .events = POLLIN },
					 { .fd = w->listener, .events = POLLIN } };
		struct sup_exec_failure rec;
		int fd = -1;
		ssize_t n;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return iso_err_set(e, errno, "wait for the command '%s' to start",
					   s->argv[0]);
		}
		if (w->listener >= 0 && (pfd[1].revents & POLLIN) && !leave_to_outer(w)) {
			if (answer_call(w, e) < 0)
				return -EINVAL;
			continue;
		}
		if (!pfd[0].revents && !leave_to_outer(w))
			continue;
		n = iso_recv_record(w->rd, &rec, sizeof(rec), &fd);
		if (n == 0)
			return 0;
		if (n < 0) {
			*f = (struct sup_exec_failure){ .errnum = -n == EPROTO ? EIO : (int)-n,
							.stage = SUP_STAGE_SETUP };
			iso_err_set(&f->err, f->errnum, "wait for the command '%s' to start",
				    s->argv[0]);
			return 0;
		}
		if (rec.stage == SUP_STAGE_LISTENER) {
			take_listener(w, &rec, fd);
			continue;
		}
		if (fd >= 0)
			close(fd);
		*f = rec;
		return 0;
	}
}

int sup_spawn(const struct sup_spawn *s, pid_t *ret_pid, struct sup_exec_failure *ret_fail,
	      int *ret_listener, bool *ret_guard_elsewhere, struct iso_err *e)
{
	_cleanup_close_ int wr = -1;
	_cleanup_free_ char **sh_argv = sh_fallback_argv(s);
	struct sup_exec_failure f = { 0 };
	struct child_arg arg = { .s = s };
	struct start_wait w = { .s = s, .listener = -1 };
	int sv[2], r;
	pid_t pid;

	*ret_listener = -1;
	*ret_guard_elsewhere = false;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return iso_err_set(e, errno, "create the exec status socket");
	w.rd = sv[0];
	wr = sv[1];
	w.hold_word = iso_test_fault("late-exec-word");
	/* the read end is close-on-exec and the child never reads it */
	arg.status_fd = wr;
	arg.sh_argv = sh_argv;
	pid = start_child(&arg);
	if (pid < 0) {
		close(w.rd);
		return iso_err_set(e, errno, "start the command '%s'", s->argv[0]);
	}
	close(TAKE_FD(wr));
	*ret_pid = pid;
	r = await_exec(&w, &f, e);
	iso_reader_stop(&w.reader);
	close(w.rd);
	if (r < 0) {
		if (w.listener >= 0)
			close(w.listener);
		return r;
	}
	/*
	 * The child set its group before anything it reports; ours is for the
	 * record only (it fails with EACCES once the child has exec'd).
	 */
	(void)setpgid(pid, pid);
	*ret_fail = f;
	*ret_listener = w.listener;
	*ret_guard_elsewhere = w.guard_elsewhere;
	return 0;
}
