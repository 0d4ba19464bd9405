// SPDX-License-Identifier: MIT
/*
 * Role: PID 1 of the namespace (--pidns).
 *
 * Cloned by the outer isorun into new PID + mount (+ user, + net) namespaces.
 * It waits for GO (the uid/gid maps are written by then), arms PDEATHSIG and
 * checks the outer is still there (getppid() is 0 in a new PID namespace, so the
 * check is the socket: EOF means the outer is gone), prepares the mounts and the
 * network, starts the command as PID 2 and reaps every orphan.  When the command
 * exits it gives the rest --settle, then stops everything at once with
 * kill(-1, SIGSTOP) (a signal to many processes cannot be outrun by fork), names
 * each survivor to the outer, and on the outer's go-ahead kills them all.  When
 * init exits, the kernel guarantees the namespace is empty: that is the outer's
 * evidence that the tree joined.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/epoll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <poll.h>
#include <unistd.h>

#include "common/num.h"
#include "common/cleanup.h"
#include "common/fault.h"
#include "launcher/evloop.h"
#include "launcher/leak.h"
#include "launcher/init.h"
#include "launcher/nsmsg.h"
#include "launcher/say.h"
#include "common/proc.h"
#include "ns/ns.h"
#include "policy/policy.h"
#include "tree/gate.h"

/* init's event sources, the tags of its epoll set */
enum init_source { INIT_SIGCHLD, INIT_TIMER, INIT_CONTROL };

struct init {
	const struct sup_ns_plan *p;
	char gate_why[sizeof(((struct sup_ns_plan *)0)->gate_why)];
	int sock;
	int proc; /* init's own procfs (ns_proc_private()): no mount of the command's covers it */
	struct sup_evloop loop;
	pid_t cmd;
	bool cmd_done;
	bool settling;
	bool reap_more; /* the last reap hit its bound: zombies may wait without a SIGCHLD */
	/*
	 * The sweep's listing, every pid of it (live and zombie), sorted: once all is
	 * stopped no process can appear, so each one init reaps after it must be
	 * there.  One that is not means init could not see (blind): not measurable.
	 */
	pid_t *listed;
	size_t n_listed;
	bool checking;
	char blind[sizeof(((struct sup_ns_msg *)0)->cmdline)];
};

/*
 * The final word on the start (STARTED, or FAILED) carries the seccomp listener,
 * or sig=EBUSY when an enclosing isorun guards: one message, so the outer wakes
 * once for the hand-over.  Init keeps no copy of the listener.
 */
static void send_final(int sock, struct sup_ns_msg *m, int listener, bool elsewhere)
{
	m->sig = elsewhere ? EBUSY : 0;
	(void)sup_ns_send_fd(sock, m, listener);
	if (listener >= 0)
		close(listener);
}

static _Noreturn void fail_passing(int sock, int stage, const struct iso_err *e, int listener,
				   bool elsewhere)
{
	struct sup_ns_msg m = { .type = SUP_NS_FAILED, .stage = stage, .err = *e };

	send_final(sock, &m, listener, elsewhere);
	_exit(1);
}

static _Noreturn void fail(int sock, int stage, const struct iso_err *e)
{
	fail_passing(sock, stage, e, -1, false);
}

/*
 * A mount source as /proc/self/fd/N, opened before anything is mounted: the
 * tree usually lives under /tmp, so once --private-tmp covers /tmp its paths
 * would resolve into the cover.
 */
static int pin(const char *path, char *buf, size_t len, struct iso_err *e)
{
	int fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return iso_err_set(e, errno, "open '%s'", path);
	snprintf(buf, len, "/proc/self/fd/%d", fd);
	return 0;
}

static bool under(const char *path, const char *dir)
{
	size_t l = strlen(dir);

	return strncmp(path, dir, l) == 0 && path[l] == '/';
}

/*
 * --private-tmp covers /tmp, and with it whatever of the command's own lives there:
 * the tree (HOME, TMPDIR, ...) under the default root, a working directory or a
 * checkout under /tmp.  Each is bound back at its own path inside the private /tmp,
 * from an fd pinned before the cover went on.
 */
/*
 * One directory on the way to a re-exposed path, made 0711 whatever the umask:
 * like the tree's own parents, a command that drops to another uid must still
 * reach $TMPDIR through them, and they list nothing.
 */
static int path_dir(const char *dir, struct iso_err *e)
{
	if (mkdir(dir, 0711) < 0) {
		if (errno == EEXIST)
			return 0;
		return iso_err_set(e, errno, "create '%s' in the private /tmp", dir);
	}
	if (chmod(dir, 0711) < 0)
		return iso_err_set(e, errno, "chmod 0711 '%s' in the private /tmp", dir);
	return 0;
}

static int reexpose(const char *path, const char *pinned, struct iso_err *e)
{
	char dir[PATH_MAX];
	struct stat want, now;
	int r;

	if (!under(path, "/tmp") && !under(path, "/var/tmp"))
		return 0;
	if (stat(pinned, &want) < 0)
		return iso_err_set(e, errno, "stat '%s'", path);
	if (stat(path, &now) == 0 && now.st_dev == want.st_dev && now.st_ino == want.st_ino)
		return 0; /* already visible, e.g. a cwd inside the re-exposed tree */
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *c = dir + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		r = path_dir(dir, e);
		if (r < 0)
			return r;
		*c = '/';
	}
	r = path_dir(dir, e);
	if (r < 0)
		return r;
	if (mount(pinned, path, NULL, MS_BIND | MS_REC, NULL) < 0)
		return iso_err_set(e, errno, "bind '%s' back into the private /tmp", path);
	return 0;
}

static void forward_event(const struct pol_event *ev, void *arg)
{
	struct sup_ns_msg m = { .type = SUP_NS_POLICY_EVENT };
	struct sup_ns_event_wire *w = (struct sup_ns_event_wire *)m.event;

	w->pid = ev->pid;
	snprintf(w->call, sizeof(w->call), "%s", ev->call);
	snprintf(w->detail, sizeof(w->detail), "%s", ev->detail);
	snprintf(w->origin, sizeof(w->origin), "%s", ev->origin ? ev->origin : "");
	w->refused = ev->refused;
	(void)sup_ns_send(*(int *)arg, &m);
}

/* What the command inherits from init: fd 0, fds 1 and 2 unless relayed, --pass-fd. */
static int home_fds(const struct sup_ns_plan *p, struct iso_err *e)
{
	int fds[3 + 64];
	size_t n = 0;

	fds[n++] = 0;
	if (p->spawn.out_fd < 0)
		fds[n++] = 1;
	if (p->spawn.err_fd < 0)
		fds[n++] = 2;
	for (size_t i = 0; i < p->spawn.n_pass_fds && n < ELEMENTSOF(fds); i++)
		fds[n++] = p->spawn.pass_fds[i];
	return ns_home_fds(p->real_home, p->keep, p->n_keep, fds, n, e);
}

/*
 * The caches kept between runs (--cache) under --private-tmp: pinned before the
 * cover, bound back after it (bind), as the tree is.
 */
static int cover_caches(const struct sup_ns_plan *p, char pins[][64], bool bind, struct iso_err *e)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < p->n_caches; i++)
		r = bind ? reexpose(p->caches[i], pins[i], e) : pin(p->caches[i], pins[i], 64, e);
	return r;
}

/*
 * The tree's gate first: everything after (the pins, the binds, the command's
 * working directory) reaches the tree through its overlay.  Its descriptors
 * are not the command's.
 */
static int gate(const struct sup_ns_plan *p, char *why, size_t len, struct iso_err *e)
{
	int r;

	if (p->gate_tree < 0)
		return 0;
	r = tree_gate_mount(p->gate_tree, p->gate_in, p->tree, e);
	close(p->gate_tree);
	if (p->gate_in >= 0)
		close(p->gate_in);
	if (r < 0)
		return r;
	/* the bind instead of the overlay: said to the outer, not a failure */
	snprintf(why, len, "%.199s", r == 1 ? e->msg : "");
	*e = (struct iso_err){ 0 };
	return 0;
}

static int setup(const struct sup_ns_plan *p, char *gate_why, size_t len, struct iso_err *e)
{
	const struct sup_mount_plan *m = &p->mounts;
	char tmp[64] = "", empty[64] = "", tree[64] = "", cwd[64] = "";
	char caches[SUP_N_CACHES][64] = { "" };
	int r = ns_mounts_make_private(e);

	if (r == 0)
		r = gate(p, gate_why, len, e);
	if (r == 0 && m->private_tmp) {
		r = pin(p->tree_tmp, tmp, sizeof(tmp), e);
		if (r == 0)
			r = pin(p->tree, tree, sizeof(tree), e);
		if (r == 0 && p->spawn.cwd)
			r = pin(p->spawn.cwd, cwd, sizeof(cwd), e);
		if (r == 0)
			r = cover_caches(p, caches, false, e);
	}
	if (r == 0 && m->home == NS_HOME_HIDE)
		r = pin(p->empty_dir, empty, sizeof(empty), e);
	if (r < 0)
		return r;

	r = ns_mount_proc(e);
	if (r == 0 && m->net_isolated)
		r = ns_loopback_up(e);
	/* the inherited /sys shows, and lets root rewrite, the host's interfaces */
	if (r == 0 && m->net_isolated)
		r = ns_mount_sysfs(e);
	if (r == 0 && m->private_tmp)
		r = ns_private_tmp(tmp, e);
	if (r == 0 && m->private_tmp)
		r = reexpose(p->tree, tree, e);
	if (r == 0 && m->private_tmp && p->spawn.cwd)
		r = reexpose(p->spawn.cwd, cwd, e);
	if (r == 0 && m->private_tmp)
		r = cover_caches(p, caches, true, e);
	/* --policy's deny-socket paths: refused by the filter, and here not even there */
	for (size_t i = 0; r == 0 && pol_masked_path(p->spawn.pol, i); i++) {
		const char *sock = pol_masked_path(p->spawn.pol, i);
		struct stat st;
		if (stat(sock, &st) < 0 || S_ISDIR(st.st_mode))
			continue;
		if (mount("/dev/null", sock, NULL, MS_BIND, NULL) < 0)
			r = iso_err_set(e, errno, "mask '%s'", sock);
	}
	if (r == 0 && m->home != NS_HOME_OFF)
		r = home_fds(p, e);
	if (r == 0 && m->home != NS_HOME_OFF)
		r = ns_protect_home(p->real_home, (enum ns_home_mode)m->home, empty, p->keep,
				    p->n_keep, e);
	/* last: a copy made after the covers carries them (cli/mounts.c refused the rest) */
	if (r == 0)
		r = ns_mounts_apply(m->binds, m->n_binds, e);
	return r;
}

static void send_status(struct init *in, int type, int status)
{
	struct sup_ns_msg m = { .type = type, .status = status };

	(void)sup_ns_send(in->sock, &m);
}

/* The root of init's own procfs, to list; NULL with errno. */
static DIR *open_proc(int proc)
{
	int fd = openat(proc, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d && fd >= 0) {
		int err = errno;
		close(fd);
		errno = err;
	}
	return d;
}

/* Every process of the namespace but init, from init's own procfs. */
static void signal_others(int proc, int sig, pid_t skip_pgrp)
{
	DIR *d = open_proc(proc);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		struct iso_proc p;
		long pid = iso_parse_pid(de->d_name);
		if (pid <= 1 || iso_proc_stat_at(proc, (pid_t)pid, &p) < 0)
			continue;
		if (skip_pgrp && p.pgrp == skip_pgrp)
			continue;
		(void)kill((pid_t)pid, sig);
	}
	closedir(d);
}

static __attribute__((format(printf, 2, 3))) void blind(struct init *in, const char *fmt, ...)
{
	va_list ap;

	if (in->blind[0])
		return;
	va_start(ap, fmt);
	vsnprintf(in->blind, sizeof(in->blind), fmt, ap);
	va_end(ap);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static void add_listed(struct init *in, pid_t pid)
{
	pid_t *v;

	if (in->n_listed % 256 == 0) {
		v = realloc(in->listed, (in->n_listed + 256) * sizeof(*v));
		if (!v) {
			blind(in, "init could not keep the namespace's list of processes: %s",
			      strerror(ENOMEM));
			return;
		}
		in->listed = v;
	}
	in->listed[in->n_listed++] = pid;
}

/* A process init reaps after the sweep's listing was in it, or init was blinded. */
static void check_listed(struct init *in, pid_t pid)
{
	if (in->listed && bsearch(&pid, in->listed, in->n_listed, sizeof(pid), cmp_pid))
		return;
	blind(in,
	      "the namespace's init reaped pid %d, which its listing of the namespace did not "
	      "name",
	      pid);
}

static void reap(struct init *in, bool block)
{
	int status, n = 0;
	pid_t pid;

	/* with a terminal, a stop of the command is news for the outer (job control) */
	int flags = (block ? 0 : WNOHANG) | (in->p->spawn.tty_fd >= 0 ? WUNTRACED : 0);

	/* bounded, as the outer's: a fork storm must not keep the settle timer from firing */
	in->reap_more = false;
	while ((pid = waitpid(-1, &status, flags)) > 0 || (pid < 0 && errno == EINTR)) {
		if (pid > 0 && WIFSTOPPED(status)) {
			if (pid == in->cmd)
				send_status(in, SUP_NS_STOPPED, status);
			if (block)
				break;
			continue;
		}
		if (pid == in->cmd && !in->cmd_done) {
			in->cmd_done = true;
			send_status(in, SUP_NS_EXITED, status);
		}
		if (pid > 0 && in->checking)
			check_listed(in, pid);
		if (!block && pid > 0 && ++n == SUP_REAP_BATCH) {
			in->reap_more = true;
			break;
		}
	}
}

static bool empty(void)
{
	siginfo_t si = { 0 };

	/* init reaps every orphan of the namespace: no child means nobody else lives */
	return waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 && errno == ECHILD;
}

static _Noreturn void done(struct init *in)
{
	struct iso_err e = { 0 };

	if (in->blind[0]) {
		struct sup_ns_msg m = { .type = SUP_NS_BLIND };

		snprintf(m.cmdline, sizeof(m.cmdline), "%s", in->blind);
		(void)sup_ns_send(in->sock, &m);
	}

	/* what the command gave to the range's ids, the caller could not remove */
	if (in->p->ranged)
		(void)ns_idmap_give_back(in->p->tree, in->p->inside_uid, in->p->inside_gid, &e);
	send_status(in, SUP_NS_DONE, 0);
	_exit(0);
}

/* One survivor, stopped, named to the outer. */
static void name_one(struct init *in, pid_t pid, const struct iso_proc *p)
{
	struct sup_ns_msg m;
	_cleanup_free_ char *cmd = iso_proc_cmdline_at(in->proc, pid, sizeof(m.cmdline) - 1);
	_cleanup_free_ char *cwd = iso_proc_cwd_at(in->proc, pid);

	m = (struct sup_ns_msg){
		.type = SUP_NS_LEAK, .pid = pid, .sid = p->sid, .start = p->start
	};
	snprintf(m.cmdline, sizeof(m.cmdline), "%s", cmd ? cmd : "?");
	snprintf(m.cwd, sizeof(m.cwd), "%s", cwd ? cwd : "");
	(void)sup_ns_send(in->sock, &m);
}

/*
 * Every process of the stopped namespace, from init's own procfs: the live ones
 * named, all of them listed.  What cannot be read makes init blind, never "none".
 */
static void name_survivors(struct init *in)
{
	DIR *d = open_proc(in->proc);
	struct dirent *de;
	/* for the cross-checks' tests: a listing blinded some way init does not know */
	bool hide = iso_test_fault("empty-listing");
	bool unnamed = iso_test_fault("unnamed-survivors");

	if (!d) {
		blind(in, "the namespace's init could not list its processes: %s", strerror(errno));
		return;
	}
	for (errno = 0; (de = readdir(d)); errno = 0) {
		struct iso_proc p;
		long pid = iso_parse_pid(de->d_name);
		int r;

		if (pid <= 1 || hide)
			continue;
		add_listed(in, (pid_t)pid);
		r = iso_proc_stat_at(in->proc, (pid_t)pid, &p);
		/* gone: released, so init will not reap it either */
		if (r == -ESRCH)
			continue;
		if (r < 0)
			blind(in, "the namespace's init could not read pid %ld: %s", pid,
			      strerror(-r));
		else if (iso_proc_alive_at(in->proc, &p) && !unnamed)
			name_one(in, (pid_t)pid, &p);
	}
	if (errno)
		blind(in, "the namespace's init could not list its processes: %s", strerror(errno));
	closedir(d);
	if (in->listed)
		qsort(in->listed, in->n_listed, sizeof(*in->listed), cmp_pid);
}

/* Settle is over (or cut short): stop all, name all, then kill all. */
static _Noreturn void sweep(struct init *in)
{
	struct sup_ns_msg m;

	(void)kill(-1, SIGSTOP);
	name_survivors(in);
	m = (struct sup_ns_msg){ .type = SUP_NS_LEAKS_DONE };
	(void)sup_ns_send(in->sock, &m);
	/* the outer maps inner pids to its own while they are stopped, then says go */
	while (sup_ns_recv(in->sock, &m) > 0 && m.type != SUP_NS_KILL_OK)
		;
	(void)kill(-1, SIGKILL);
	/* from here each reaped pid is checked against the listing */
	in->checking = true;
	while (!empty())
		reap(in, true);
	done(in);
}

static void on_control(struct init *in)
{
	struct sup_ns_msg m;
	int r = sup_ns_recv(in->sock, &m);

	if (r <= 0) {
		/* the outer is gone: so is everything here */
		(void)kill(-1, SIGKILL);
		_exit(1);
	}
	switch (m.type) {
	case SUP_NS_CANCEL:
		if (in->settling) {
			sweep(in);
		}
		if (!in->cmd_done)
			(void)kill(-in->cmd, m.sig);
		signal_others(in->proc, in->p->stop.signal, in->cmd_done ? 0 : in->cmd);
		break;
	case SUP_NS_SWEEP:
		if (in->cmd_done)
			sweep(in);
		break;
	case SUP_NS_TIMEOUT:
		(void)kill(-1, in->p->stop.signal);
		break;
	case SUP_NS_FORWARD:
		if (!in->cmd_done)
			(void)kill(m.status ? -in->cmd : in->cmd, m.sig);
		break;
	case SUP_NS_CONTINUE:
		if (!in->cmd_done) {
			(void)tcsetpgrp(in->p->spawn.tty_fd, in->cmd);
			(void)kill(-in->cmd, SIGCONT);
		}
		break;
	default:
		break;
	}
}

/* Reap a batch; the command's end starts the settle, an empty namespace ends init. */
static void on_children(struct init *in)
{
	reap(in, false);
	if (in->cmd_done && empty())
		done(in);
	if (in->cmd_done && !in->settling) {
		in->settling = true;
		sup_evloop_arm(&in->loop, in->p->stop.settle_ms);
	}
}

static void dispatch(struct init *in, enum init_source src)
{
	struct signalfd_siginfo si;

	switch (src) {
	case INIT_SIGCHLD:
		(void)sup_evloop_signals(&in->loop, &si);
		on_children(in);
		break;
	case INIT_TIMER:
		if (sup_evloop_expired(&in->loop))
			sweep(in);
		break;
	case INIT_CONTROL:
		on_control(in);
		break;
	}
}

/*
 * The command, as the outer would start it; init answers its own exec.  Exits
 * when it failed, after the outer was told.
 */
static void start_command(struct init *in)
{
	const struct sup_ns_plan *p = in->p;
	struct sup_exec_failure xf = { 0 };
	struct sup_ns_msg m;
	struct iso_err e = { 0 };
	struct sup_spawn sp = p->spawn;
	int listener = -1;
	bool elsewhere = false;

	sp.on_event = forward_event;
	sp.event_arg = &in->sock;
	/* the record is the outer's: the command's own exec goes unrecorded here */
	sp.on_exec = NULL;
	if (sup_spawn(&sp, &in->cmd, &xf, &listener, &elsewhere, &e) < 0)
		fail(in->sock, SUP_STAGE_NS, &e);
	if (xf.errnum) {
		/* the child's own account of what failed, for the outer to print whole */
		e = xf.err;
		(void)waitpid(in->cmd, NULL, 0);
		if (xf.stage == SUP_STAGE_CHDIR)
			iso_err_set(&e, xf.errnum, "enter the working directory '%s'%s%s",
				    p->spawn.cwd, p->mounts.home == NS_HOME_HIDE ? " under " : "",
				    p->mounts.home == NS_HOME_HIDE
					    ? sup_say(p->say, SUP_SAY_HOME_HIDE)
					    : "");
		e.errnum = xf.errnum;
		fail_passing(in->sock, xf.stage, &e, listener, elsewhere);
	}
	/* only the command holds the relay pipes now, so their EOF means its tree is done */
	if (p->spawn.out_fd >= 0)
		close(p->spawn.out_fd);
	/* one pipe for both when they are one stream (`>log 2>&1`) */
	if (p->spawn.err_fd >= 0 && p->spawn.err_fd != p->spawn.out_fd)
		close(p->spawn.err_fd);
	m = (struct sup_ns_msg){ .type = SUP_NS_STARTED, .pid = in->cmd };
	snprintf(m.err.msg, sizeof(m.err.msg), "%s", in->gate_why);
	send_final(in->sock, &m, listener, elsewhere);
}

static int cmp_fd(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* Closes every descriptor but 0-2 and keep[] (sorted here). */
static int close_but(int *keep, size_t n)
{
	unsigned lo = 3;

	qsort(keep, n, sizeof(*keep), cmp_fd);
	for (size_t i = 0; i <= n; i++) {
		unsigned hi = i < n ? (unsigned)keep[i] - 1 : ~0U;

		if (i < n && (keep[i] < 0 || (unsigned)keep[i] < lo))
			continue;
		if (hi >= lo && syscall(SYS_close_range, lo, hi, 0) < 0)
			return -errno;
		if (i < n)
			lo = (unsigned)keep[i] + 1;
	}
	return 0;
}

/*
 * init is a fork of the outer, with every descriptor it had: the cgroup's
 * directory and its cgroup.procs for writing, the tree's owner record, the outer's own event
 * loop.  It keeps what the command inherits and its socket; after the start,
 * the socket and the terminal (init_after_start()).
 */
static int init_fds(const struct sup_ns_plan *p, int sock, bool with_gate, struct iso_err *e)
{
	int keep[10 + SUP_PASS_FD_MAX], r;
	size_t n = 0;

	keep[n++] = sock;
	keep[n++] = p->spawn.out_fd;
	keep[n++] = p->spawn.err_fd;
	keep[n++] = p->spawn.tty_fd;
	keep[n++] = p->spawn.in_cgroup ? p->spawn.cg_dir_fd : -1;
	keep[n++] = p->spawn.in_cgroup ? p->spawn.cg_procs_fd : -1;
	for (size_t i = 0; i < p->spawn.n_pass_fds && n < ELEMENTSOF(keep); i++)
		keep[n++] = p->spawn.pass_fds[i];
	/* the gate's, until setup() mounted it (then they are closed, and -1 here) */
	if (with_gate && p->gate_tree >= 0 && n + 2 <= ELEMENTSOF(keep)) {
		keep[n++] = p->gate_tree;
		keep[n++] = p->gate_in;
	}
	r = close_but(keep, n);
	if (r < 0)
		return iso_err_set(e, -r, "close the outer's descriptors in init (close_range)");
	return 0;
}

/* What only the command's start needed: its cgroup's directory and cgroup.procs, --pass-fd. */
static void init_after_start(const struct init *in)
{
	const struct sup_spawn *sp = &in->p->spawn;
	int cg[2] = { sp->in_cgroup ? sp->cg_dir_fd : -1, sp->in_cgroup ? sp->cg_procs_fd : -1 };

	for (size_t i = 0; i < ELEMENTSOF(cg); i++)
		if (cg[i] > 2 && cg[i] != sp->tty_fd)
			close(cg[i]);
	for (size_t i = 0; i < sp->n_pass_fds; i++) {
		int fd = sp->pass_fds[i];

		if (fd > 2 && fd != in->sock && fd != sp->tty_fd && fd != cg[0] && fd != cg[1])
			close(fd);
	}
}

_Noreturn void sup_init_main(const struct sup_ns_plan *p, int sock)
{
	struct init in = { .p = p, .sock = sock, .proc = -1, .loop = SUP_EVLOOP_INIT };
	struct sup_ns_msg m;
	struct iso_err e = { 0 };
	struct pollfd pfd = { .fd = sock, .events = POLLIN };
	sigset_t mask;

	if (sup_ns_recv(sock, &m) <= 0 || m.type != SUP_NS_GO)
		_exit(1);
	/* armed after the maps, which is the last change of identity; then the race check */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) {
		iso_err_set(&e, errno, "prctl(PR_SET_PDEATHSIG)");
		fail(sock, SUP_STAGE_NS, &e);
	}
	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLHUP | POLLERR)))
		_exit(1);
	/* init's own cwd would pin whatever is mounted over it; the command enters its own */
	if (chdir("/") < 0) {
		iso_err_set(&e, errno, "enter '/'");
		fail(sock, SUP_STAGE_NS, &e);
	}
	/* again after the setup: the mount sources it pinned (O_PATH) are mounted now */
	if (init_fds(p, sock, true, &e) < 0 || setup(p, in.gate_why, sizeof(in.gate_why), &e) < 0)
		fail(sock, SUP_STAGE_NS, &e);
	if (init_fds(p, sock, false, &e) < 0)
		fail(sock, SUP_STAGE_NS, &e);
	/* before the command can mount anything on /proc or /proc/PID */
	in.proc = ns_proc_private(&e);
	if (in.proc < 0)
		fail(sock, SUP_STAGE_NS, &e);

	/* the outer's deadline on the start, for its test: init never answers */
	while (iso_test_fault("stalled-start"))
		pause();
	start_command(&in);
	init_after_start(&in);

	/* the outer's mask is inherited: SIGCHLD and the cancel signals are blocked */
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	if (sup_evloop_open(&in.loop, &mask, INIT_SIGCHLD, INIT_TIMER, NULL) < 0 ||
	    sup_evloop_add(&in.loop, sock, INIT_CONTROL) < 0)
		_exit(1);
	for (;;) {
		struct epoll_event ev[4];
		/* zombies left by a bounded reap: again once the timer and socket had a turn */
		int n = sup_evloop_wait(&in.loop, ev, 4, in.reap_more ? 0 : -1);

		for (int i = 0; i < n; i++)
			dispatch(&in, (enum init_source)ev[i].data.u64);
		if (in.reap_more)
			on_children(&in);
	}
}
