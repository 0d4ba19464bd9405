// SPDX-License-Identifier: MIT
/*
 * User namespaces: writing the id maps of a waiting child, and telling the
 * operator which knob refuses them.  The knobs and their symptoms are listed in
 * /work/shared/notes/kernel-primitives.md section 5.4:
 *
 *   user.max_user_namespaces=0 (upstream, per user namespace)  -> ENOSPC
 *   kernel.unprivileged_userns_clone=0 (Debian's kernel patch)  -> EPERM
 *   a seccomp filter (a surrounding container's profile)        -> EPERM
 *   kernel.apparmor_restrict_unprivileged_userns=1 (Ubuntu)     -> created, but the
 *                                                   uid_map write or first mount fails
 *   a multi-threaded caller, or no CONFIG_USER_NS               -> EINVAL
 */
#include "ns/ns.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/io.h"
#include "common/cleanup.h"
#include "common/fault.h"
#include "common/proc.h"
#include "common/text.h"

#define SYSCTL_MAX_USERNS "/proc/sys/user/max_user_namespaces"
#define SYSCTL_DEBIAN	  "/proc/sys/kernel/unprivileged_userns_clone"
#define SYSCTL_APPARMOR	  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"

/* Hints are compile-time strings so that their length is checked against e->hint. */
#define HINT_FIT(h) _Static_assert(sizeof(h) <= sizeof(((struct iso_err *)0)->hint), #h " too long")

#define H_MAX_ZERO                                                                                 \
	"unprivileged user namespaces are disabled: sysctl user.max_user_namespaces=0; ask an "    \
	"admin for a non-zero value"
#define H_MAX_REACHED                                                                              \
	"too many user namespaces for this user, or nested deeper than 32; ask an admin to raise " \
	"sysctl user.max_user_namespaces"
#define H_DEPTH "user namespaces nest at most 32 deep; run isorun less deeply nested"
#define H_ENCLOSING                                                                                \
	"isorun runs in a user namespace whose creator forbids new ones (bubblewrap's "            \
	"disable-userns, a container's limit); run it outside that sandbox, or let it allow them"
#define H_DEBIAN                                                                                   \
	"Debian's kernel disables unprivileged user namespaces: ask an admin for sysctl "          \
	"kernel.unprivileged_userns_clone=1"
#define H_SECCOMP                                                                                  \
	"a seccomp filter (e.g. a container's default profile) denies unshare/clone with "         \
	"CLONE_NEWUSER; allow them in that profile"
#define H_APPARMOR                                                                                 \
	"AppArmor leaves user namespaces powerless without a 'userns,' rule: load isorun's "       \
	"profile /etc/apparmor.d/isorun (the .deb installs it; else copy "                         \
	"share/isorun/apparmor/isorun there) with apparmor_parser -r, or ask for the sysctl =0"
#define H_EPERM                                                                                    \
	"no sysctl or seccomp filter explains this: a chrooted caller or a security module "       \
	"(SELinux, AppArmor) is likely"
#define H_THREADS                                                                                  \
	"unshare(CLONE_NEWUSER) needs a single-threaded caller: create the namespace in a "        \
	"freshly "                                                                                 \
	"forked child, or with clone()"
#define H_NO_USERNS "this kernel has no user namespaces (CONFIG_USER_NS=n)"
#define H_GENERIC   "the kernel refused a new user namespace"
#define H_MAP                                                                                      \
	"an unprivileged writer may map only its own effective id, once, with the euid of the "    \
	"namespace's creator; wider maps need newuidmap/newgidmap"
#define H_SETGROUPS "setgroups cannot be changed once gid_map is written; write it first, once"
#define H_GONE	    "the child exited before its maps were written"
#define H_POWERLESS                                                                                \
	"the user namespace was created but cannot mount: a security module (AppArmor, SELinux) "  \
	"is likely"

HINT_FIT(H_MAX_ZERO);
HINT_FIT(H_MAX_REACHED);
HINT_FIT(H_ENCLOSING);
HINT_FIT(H_DEPTH);
HINT_FIT(H_DEBIAN);
HINT_FIT(H_SECCOMP);
HINT_FIT(H_APPARMOR);
HINT_FIT(H_EPERM);
HINT_FIT(H_THREADS);
HINT_FIT(H_NO_USERNS);
HINT_FIT(H_GENERIC);
HINT_FIT(H_MAP);
HINT_FIT(H_SETGROUPS);
HINT_FIT(H_GONE);
HINT_FIT(H_POWERLESS);

/* No user namespace can be had here: the hint says why, the cause lets the caller
 * offer running without one. */
static void refused(struct iso_err *e, const char *hint)
{
	iso_err_hint(e, hint);
	iso_err_cause(e, NS_CAUSE_NO_USERNS);
}

/*
 * Async-signal-safe: the probe child after fork() uses it too.  A map must be
 * written in one write() at offset 0.  Returns 0, or -errno with *at_open telling
 * which step failed.
 */
static int write_once(const char *path, const char *buf, size_t len, bool *at_open)
{
	ssize_t n;
	int fd, r = 0;

	*at_open = true;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	*at_open = false;
	n = write(fd, buf, len);
	if (n < 0)
		r = -errno;
	else if ((size_t)n != len)
		r = -EIO;
	close(fd);
	return r;
}

/* A sysctl as a number; -ENOENT when the knob does not exist (not restricting). */
static int read_sysctl(const char *path, long *ret)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[32], *end;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	errno = 0;
	*ret = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	return 0;
}

static bool sysctl_is(const char *path, long want)
{
	long v;

	/* no host here restricts them through AppArmor: its words are tested so */
	if (!strcmp(path, SYSCTL_APPARMOR) && iso_test_fault("apparmor-userns"))
		return want == 1;

	return read_sysctl(path, &v) == 0 && v == want;
}

/* The value of "Name:" in /proc/self/status, copied into buf; false if absent. */
static bool status_field(const char *name, char *buf, size_t len)
{
	return iso_proc_status(0, name, buf, len) == 0;
}

static long status_long(const char *name, int base, long dflt)
{
	char buf[64], *end;
	long v;

	if (!status_field(name, buf, sizeof(buf)))
		return dflt;
	errno = 0;
	v = strtol(buf, &end, base);
	return errno || end == buf ? dflt : v;
}

/* The initial user namespace maps every id to itself: "0 0 4294967295"; -1: unreadable. */
static int initial_userns(void)
{
	_cleanup_close_ int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);
	unsigned long inside, outside, count;
	char buf[128];
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return sscanf(buf, "%lu %lu %lu", &inside, &outside, &count) == 3 && inside == 0 &&
	       outside == 0 && count == 4294967295UL;
}

/*
 * Debian's knob is checked with capable(CAP_SYS_ADMIN), i.e. against the initial
 * user namespace: root of a nested namespace is still subject to it.
 */
static bool host_admin(void)
{
	char caps[64];

	if (initial_userns() != 1)
		return false;
	if (!status_field("CapEff", caps, sizeof(caps)))
		return false;
	return (strtoull(caps, NULL, 16) >> 21) & 1; /* CAP_SYS_ADMIN */
}

/* ENOSPC: a limit, or (since Linux 4.9) nesting deeper than 32. */
static void explain_limit(int errnum, struct iso_err *e)
{
	long max;

	if (read_sysctl(SYSCTL_MAX_USERNS, &max) < 0) {
		iso_err_set(e, errnum,
			    "create a user namespace (limit user.max_user_namespaces reached, "
			    "or nested deeper than 32)");
		refused(e, H_MAX_REACHED);
	} else if (max == 0) {
		iso_err_set(e, errnum,
			    "create a user namespace (sysctl user.max_user_namespaces=0)");
		refused(e, H_MAX_ZERO);
	} else if (initial_userns() == 0) {
		/*
		 * The limit is counted in every namespace up to the initial one, and the
		 * sysctl shows only this one's: a creator that set 0 or 1 outside (bubblewrap)
		 * refuses what this one's value allows.
		 */
		iso_err_set(e, errnum,
			    "create a user namespace (refused by an enclosing user namespace's "
			    "limit; this one's user.max_user_namespaces=%ld; or nested deeper "
			    "than 32)",
			    max);
		refused(e, H_ENCLOSING);
	} else {
		iso_err_set(e, errnum,
			    "create a user namespace (limit user.max_user_namespaces=%ld "
			    "reached, or nested deeper than 32)",
			    max);
		refused(e, H_MAX_REACHED);
	}
}

/* EPERM, EACCES: the first of the host's known refusals that holds. */
static void explain_denied(int errnum, long seccomp, struct iso_err *e)
{
	if (sysctl_is(SYSCTL_DEBIAN, 0) && !host_admin()) {
		iso_err_set(e, errnum,
			    "create a user namespace (sysctl "
			    "kernel.unprivileged_userns_clone=0)");
		refused(e, H_DEBIAN);
	} else if (seccomp == 2) {
		iso_err_set(e, errnum,
			    "create a user namespace (denied by a seccomp filter: Seccomp: "
			    "2 in "
			    "/proc/self/status)");
		refused(e, H_SECCOMP);
	} else if (sysctl_is(SYSCTL_APPARMOR, 1)) {
		iso_err_set(e, errnum,
			    "create a user namespace (AppArmor: "
			    "kernel.apparmor_restrict_unprivileged_userns=1)");
		refused(e, H_APPARMOR);
	} else {
		iso_err_set(e, errnum, "create a user namespace (chroot or security module?)");
		refused(e, H_EPERM);
	}
}

/* EINVAL: a multi-threaded caller, or a kernel without user namespaces. */
static void explain_invalid(int errnum, long threads, struct iso_err *e)
{
	struct stat st;

	if (threads > 1) {
		iso_err_set(e, errnum,
			    "create a user namespace (the caller is multi-threaded: %ld "
			    "threads)",
			    threads);
		iso_err_hint(e, H_THREADS);
	} else if (stat("/proc/self/ns/user", &st) < 0 && errno == ENOENT) {
		iso_err_set(e, errnum,
			    "create a user namespace (kernel built without CONFIG_USER_NS)");
		refused(e, H_NO_USERNS);
	} else {
		iso_err_set(e, errnum, "create a user namespace");
		refused(e, H_GENERIC);
	}
}

/*
 * The cause of an errno from creating a user namespace.  `threads` is the
 * caller's thread count, or 1 when the attempt was made by a single-threaded
 * probe child whatever the caller looks like.
 */
static void explain_create(int errnum, long threads, struct iso_err *e)
{
	long seccomp = status_long("Seccomp", 10, 0);

	if (errnum < 0)
		errnum = -errnum;
	switch (errnum) {
	case ENOSPC:
		explain_limit(errnum, e);
		return;
	case EUSERS: /* before Linux 4.9, nesting too deep */
		iso_err_set(e, errnum, "create a user namespace (nested deeper than 32)");
		refused(e, H_DEPTH);
		return;
	case EPERM:
	case EACCES:
		explain_denied(errnum, seccomp, e);
		return;
	case EINVAL:
		explain_invalid(errnum, threads, e);
		return;
	case ENOSYS:
		if (seccomp == 2) {
			iso_err_set(
				e, errnum,
				"create a user namespace (hidden by a seccomp filter: Seccomp: 2 "
				"in /proc/self/status)");
			refused(e, H_SECCOMP);
			return;
		}
		break;
	default:
		break;
	}
	iso_err_set(e, errnum, "create a user namespace");
	refused(e, H_GENERIC);
}

void ns_userns_explain(int errnum, struct iso_err *e)
{
	explain_create(errnum, status_long("Threads", 10, 1), e);
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* A failed write of setgroups, uid_map or gid_map; `pid` > 0 for another process. */
static int explain_map(const char *path, int errnum, bool at_open, pid_t pid, struct iso_err *e)
{
	const char *verb = at_open ? "open" : "write";
	const char *file = base_name(path);
	int r;

	errnum = errnum < 0 ? -errnum : errnum;
	if ((errnum == EPERM || errnum == EACCES) && sysctl_is(SYSCTL_APPARMOR, 1)) {
		r = iso_err_set(e, errnum,
				"%s '%s' (restricted by AppArmor: "
				"kernel.apparmor_restrict_unprivileged_userns=1)",
				verb, path);
		refused(e, H_APPARMOR);
		return r;
	}
	r = iso_err_set(e, errnum, "%s '%s'", verb, path);
	if (pid > 0 && at_open && (errnum == ENOENT || errnum == ESRCH))
		iso_err_hint(e, H_GONE);
	else if (errnum == EPERM && !strcmp(file, "setgroups"))
		iso_err_hint(e, H_SETGROUPS);
	else if (errnum == EPERM || errnum == EACCES)
		iso_err_hint(e, H_MAP);
	return r;
}

int ns_userns_write_maps(pid_t child, uid_t inside_uid, gid_t inside_gid, uid_t outside_uid,
			 gid_t outside_gid, struct iso_err *e)
{
	char path[64], map[64];
	bool at_open;
	int n, r;

	if (child <= 0)
		return iso_err_set(e, EINVAL, "write maps of pid %d", (int)child);

	/* Before gid_map, or an unprivileged gid_map write gets EPERM (3.19+). */
	snprintf(path, sizeof(path), "/proc/%d/setgroups", (int)child);
	r = write_once(path, "deny", 4, &at_open);
	if (r < 0 && !(r == -ENOENT && at_open)) /* ENOENT: a kernel before 3.19 */
		return explain_map(path, r, at_open, child, e);

	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)child);
	n = snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)inside_uid, (unsigned)outside_uid);
	r = write_once(path, map, (size_t)n, &at_open);
	if (r < 0)
		return explain_map(path, r, at_open, child, e);

	snprintf(path, sizeof(path), "/proc/%d/gid_map", (int)child);
	n = snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)inside_gid, (unsigned)outside_gid);
	r = write_once(path, map, (size_t)n, &at_open);
	if (r < 0)
		return explain_map(path, r, at_open, child, e);
	return 0;
}

/* --- the probe ------------------------------------------------------------ */

enum probe_stage {
	STAGE_USERNS,
	STAGE_SETGROUPS,
	STAGE_UID_MAP,
	STAGE_GID_MAP,
	STAGE_MOUNTNS,
	STAGE_MOUNT,
	STAGE_DONE,
};

struct probe_report {
	int stage;
	int err; /* positive errno */
	bool at_open;
};

static const char *const stage_path[] = {
	[STAGE_SETGROUPS] = "/proc/self/setgroups",
	[STAGE_UID_MAP] = "/proc/self/uid_map",
	[STAGE_GID_MAP] = "/proc/self/gid_map",
};

/* After fork(): async-signal-safe calls only; the maps were formatted before. */
static struct probe_report probe(const char *uid_map, const char *gid_map)
{
	struct probe_report rep = { .stage = STAGE_USERNS };
	int r;

	if (unshare(CLONE_NEWUSER) < 0)
		goto fail;
	rep.stage = STAGE_SETGROUPS;
	r = write_once(stage_path[STAGE_SETGROUPS], "deny", 4, &rep.at_open);
	if (r < 0 && !(r == -ENOENT && rep.at_open))
		return (struct probe_report){ rep.stage, -r, rep.at_open };
	rep.stage = STAGE_UID_MAP;
	r = write_once(stage_path[STAGE_UID_MAP], uid_map, strlen(uid_map), &rep.at_open);
	if (r < 0)
		return (struct probe_report){ rep.stage, -r, rep.at_open };
	rep.stage = STAGE_GID_MAP;
	r = write_once(stage_path[STAGE_GID_MAP], gid_map, strlen(gid_map), &rep.at_open);
	if (r < 0)
		return (struct probe_report){ rep.stage, -r, rep.at_open };
	rep.stage = STAGE_MOUNTNS;
	if (unshare(CLONE_NEWNS) < 0)
		goto fail;
	rep.stage = STAGE_MOUNT;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		goto fail;
	return (struct probe_report){ STAGE_DONE, 0, false };
fail:
	rep.err = errno;
	return rep;
}

/* The namespace exists but a step after it was refused. */
static int explain_powerless(const struct probe_report *rep, struct iso_err *e)
{
	const char *what = rep->stage == STAGE_MOUNTNS ? "create a mount namespace in it"
						       : "mount '/' MS_REC|MS_PRIVATE in it";
	int r;

	if ((rep->err == EPERM || rep->err == EACCES) && sysctl_is(SYSCTL_APPARMOR, 1)) {
		r = iso_err_set(e, rep->err,
				"user namespace created, but %s (restricted by AppArmor: "
				"kernel.apparmor_restrict_unprivileged_userns=1)",
				what);
		refused(e, H_APPARMOR);
		return r;
	}
	r = iso_err_set(e, rep->err, "user namespace created, but %s", what);
	refused(e, H_POWERLESS);
	return r;
}

int ns_userns_diagnose(struct iso_err *e)
{
	struct probe_report rep = { 0 };
	char uid_map[32], gid_map[32];
	int fds[2], status = 0;
	ssize_t n;
	pid_t pid;

	/* Map the caller to itself, as an unprivileged isorun would. */
	snprintf(uid_map, sizeof(uid_map), "%u %u 1\n", (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(gid_map, sizeof(gid_map), "%u %u 1\n", (unsigned)getegid(), (unsigned)getegid());

	if (pipe2(fds, O_CLOEXEC) < 0)
		return iso_err_set(e, errno, "create a pipe for the user namespace probe");
	pid = fork();
	if (pid < 0) {
		int r = iso_err_set(e, errno, "fork the user namespace probe");

		close(fds[0]);
		close(fds[1]);
		return r;
	}
	if (pid == 0) {
		close(fds[0]);
		rep = probe(uid_map, gid_map);
		n = write(fds[1], &rep, sizeof(rep));
		_exit(n == (ssize_t)sizeof(rep) ? 0 : 1);
	}
	close(fds[1]);
	n = iso_read_all(fds[0], &rep, sizeof(rep));
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;

	if (n != (ssize_t)sizeof(rep)) {
		char sig[32];

		if (WIFSIGNALED(status))
			return iso_err_set(e, EIO, "probe user namespaces: child killed by %s",
					   iso_signal_name(WTERMSIG(status), sig, sizeof(sig)));
		return iso_err_set(e, EIO, "probe user namespaces: child sent no report");
	}

	switch (rep.stage) {
	case STAGE_DONE:
		return 0;
	case STAGE_USERNS:
		/* The probe child is single-threaded, whatever the caller is. */
		explain_create(rep.err, 1, e);
		return -rep.err;
	case STAGE_SETGROUPS:
	case STAGE_UID_MAP:
	case STAGE_GID_MAP:
		return explain_map(stage_path[rep.stage], rep.err, rep.at_open, 0, e);
	default:
		return explain_powerless(&rep, e);
	}
}
