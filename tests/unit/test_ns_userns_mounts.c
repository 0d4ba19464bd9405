/* SPDX-License-Identifier: MIT */
/*
 * ns/userns.c and ns/mounts.c for real: every scenario runs in a forked child
 * that enters its own namespaces and reports through its exit status, so the
 * host's mounts and sysctls stay untouched.  Must pass as root and as an
 * ordinary user: without root, the child maps itself to root in a new user
 * namespace first.  The knobs are exercised for real where a namespace allows
 * it: user.max_user_namespaces=0 inside our own user namespace, a seccomp filter,
 * a second thread.
 */
#include "ns/ns.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

/* Seconds; a hung child fails instead of hanging the suite. */
#define WATCHDOG 60
/*
 * Exit status of a child whose expectations are for another kind of host (one
 * without a distribution's user namespace knob).  Nothing is missing, so it is
 * a skip in CI too, unlike NO_NAMESPACE.
 */
#define OTHER_HOST 78

/* What the children need, named in the skip (or CI failure) without it. */
#define NEED_USERNS "a user namespace"
#define NEED_MNTNS  "a mount namespace (via a user namespace if not root)"
#define NEED_PIDNS  "mount and PID namespaces (via a user namespace if not root)"

/* A call returning 0 or -errno that fills `e`; shows the record when it fails. */
#define CHILD_OK(call, e)                                                                          \
	do {                                                                                       \
		int r_ = (call);                                                                   \
		char b_[512];                                                                      \
		if (r_ < 0) {                                                                      \
			fprintf(stderr, "%s:%d: in child: %s = %d: %s [hint: %s]\n", __FILE__,     \
				__LINE__, #call, r_, iso_err_format(&(e), b_, sizeof(b_)),         \
				(e).hint);                                                         \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

#define CHILD_HAS(hay, needle)                                                                     \
	do {                                                                                       \
		if (!strstr((hay), (needle))) {                                                    \
			fprintf(stderr, "%s:%d: in child: '%s' lacks '%s'\n", __FILE__, __LINE__,  \
				(hay), (needle));                                                  \
			return 1;                                                                  \
		}                                                                                  \
	} while (0)

struct fx {
	char base[PATH_MAX / 8]; /* mkdtemp(); short, so that "base/name" fits */
	char home[PATH_MAX / 4]; /* base/home: a tmpfs in the children */
	char empty[PATH_MAX / 4];
	char tmp[PATH_MAX / 4];
	char tmpname[64]; /* "x-" + the base's name: unique, and known to the parent */
	uid_t uid;	  /* outside, before any namespace */
	gid_t gid;
	bool protect;  /* home_ro_child: protect, or the control without */
	bool fallback; /* locked_child: mount_setattr() answers ENOSYS */
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	if (unit_mkdtemp(fx->base, sizeof(fx->base), "test_ns_userns_mounts-XXXXXX") < 0) {
		free(fx);
		return -1;
	}
	snprintf(fx->home, sizeof(fx->home), "%s/home", fx->base);
	snprintf(fx->empty, sizeof(fx->empty), "%s/empty", fx->base);
	snprintf(fx->tmp, sizeof(fx->tmp), "%s/tmp", fx->base);
	if (mkdir(fx->home, 0700) < 0 || mkdir(fx->empty, 0700) < 0 || mkdir(fx->tmp, 0700) < 0) {
		free(fx);
		return -1;
	}
	snprintf(fx->tmpname, sizeof(fx->tmpname), "x-%s", strrchr(fx->base, '/') + 1);
	fx->uid = getuid();
	fx->gid = getgid();
	*state = fx;
	return 0;
}

/* The mounts died with the children: only plain directories (and tmp's files) are left. */
static int teardown(void **state)
{
	struct fx *fx = *state;
	int fd = open(fx->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	char p[PATH_MAX];
	int r = 0;

	/* Where a failed test_private_tmp would have left its file on the host. */
	snprintf(p, sizeof(p), "/tmp/%s", fx->tmpname);
	(void)unlink(p);
	snprintf(p, sizeof(p), "/var/tmp/%s", fx->tmpname);
	(void)unlink(p);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			r |= unlinkat(fd, de->d_name, 0);
	closedir(d);
	r |= rmdir(fx->tmp) | rmdir(fx->empty) | rmdir(fx->home) | rmdir(fx->base);
	free(fx);
	return r ? -1 : 0;
}

static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

/* Create (O_EXCL) and write a file; 0 or -errno. */
static int create_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -EIO;
}

/*
 * Fork, run fn in the child, require exit status 0.  NO_NAMESPACE: the child
 * could not get `needs` (a skip, a failure in CI); OTHER_HOST: a skip.
 */
static void run_child(int (*fn)(struct fx *), struct fx *fx, const char *needs)
{
	pid_t pid = unit_fork(WATCHDOG);
	int code;

	if (pid == 0)
		_exit(fn(fx));
	code = unit_wait(pid);
	if (code == OTHER_HOST)
		skip();
	unit_child_ok(code, needs);
}

/* Entries of a directory besides "." and ".."; -1 if it cannot be read. */
static int count_entries(const char *path, bool only_pids)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (only_pids && strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

/* --- user namespaces ------------------------------------------------------- */

struct wait_child {
	pid_t pid;
	int go; /* write end: one byte lets the child continue */
};

struct ids {
	uid_t in_uid, out_uid;
	gid_t in_gid, out_gid;
};

/* The child: unshare(CLONE_NEWUSER), say so, wait, then check its identity. */
static int userns_waiter(int ready, int go, const struct ids *id)
{
	unsigned a, b, c;
	char buf[128];
	char ok = 'y';

	if (unshare(CLONE_NEWUSER) < 0) {
		ok = 'n';
		(void)!write(ready, &ok, 1);
		return NO_NAMESPACE;
	}
	CHILD_CHECK(write(ready, &ok, 1) == 1);
	CHILD_CHECK(read(go, &ok, 1) == 1);
	CHILD_CHECK(getuid() == id->in_uid);
	CHILD_CHECK(getgid() == id->in_gid);
	/* "0 <uid> 1", the kernel pads the columns: compare the numbers. */
	CHILD_CHECK(read_text("/proc/self/uid_map", buf, sizeof(buf)) == 0);
	CHILD_CHECK(sscanf(buf, "%u %u %u", &a, &b, &c) == 3);
	CHILD_CHECK(a == id->in_uid && b == id->out_uid && c == 1);
	CHILD_CHECK(read_text("/proc/self/gid_map", buf, sizeof(buf)) == 0);
	CHILD_CHECK(sscanf(buf, "%u %u %u", &a, &b, &c) == 3);
	CHILD_CHECK(a == id->in_gid && b == id->out_gid && c == 1);
	CHILD_CHECK(read_text("/proc/self/setgroups", buf, sizeof(buf)) == 0);
	CHILD_HAS(buf, "deny");
	return 0;
}

static struct wait_child start_waiter(const struct ids *id, bool *have_ns)
{
	int ready[2], go[2];
	struct wait_child w;
	char c = 0;

	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	w.pid = unit_fork(WATCHDOG);
	if (w.pid == 0) {
		close(ready[0]);
		close(go[1]);
		_exit(userns_waiter(ready[1], go[0], id));
	}
	close(ready[1]);
	close(go[0]);
	*have_ns = read(ready[0], &c, 1) == 1 && c == 'y';
	close(ready[0]);
	w.go = go[1];
	return w;
}

static int finish_waiter(struct wait_child *w)
{
	int status = -1;

	(void)!write(w->go, "g", 1);
	close(w->go);
	if (waitpid(w->pid, &status, 0) != w->pid)
		return -1;
	return status;
}

static void test_write_maps(void **state)
{
	struct fx *fx = *state;
	struct ids root = { 0, fx->uid, 0, fx->gid };
	struct ids other = { 4242, fx->uid, 4343, fx->gid };
	struct iso_err e = { 0 }, again = { 0 }, gone = { 0 };
	char want[128], buf[512];
	struct wait_child w;
	bool have_ns;
	int r, r2, r3, status;

	/* Other ids inside: the columns cannot be swapped unnoticed even as root. */
	w = start_waiter(&other, &have_ns);
	r = have_ns ? ns_userns_write_maps(w.pid, 4242, 4343, fx->uid, fx->gid, &e) : 0;
	status = finish_waiter(&w);
	if (!have_ns)
		unit_missing(NEED_USERNS);
	if (r < 0)
		fail_msg("ns_userns_write_maps: %s [%s]", iso_err_format(&e, buf, sizeof(buf)),
			 e.hint);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	w = start_waiter(&root, &have_ns);
	/* Nothing may fail between here and finish_waiter(): the child waits on us. */
	r = have_ns ? ns_userns_write_maps(w.pid, 0, 0, fx->uid, fx->gid, &e) : 0;
	/* A second time: setgroups is frozen once gid_map is written. */
	r2 = have_ns ? ns_userns_write_maps(w.pid, 0, 0, fx->uid, fx->gid, &again) : 0;
	status = finish_waiter(&w);
	if (!have_ns)
		unit_missing(NEED_USERNS);
	if (r < 0)
		fail_msg("ns_userns_write_maps: %s [%s]", iso_err_format(&e, buf, sizeof(buf)),
			 e.hint);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);

	assert_int_equal(r2, -EPERM);
	assert_int_equal(again.errnum, EPERM);
	snprintf(want, sizeof(want), "write '/proc/%d/setgroups'", (int)w.pid);
	assert_string_equal(again.msg, want);
	assert_true(again.hint[0] != '\0');

	/* The child is gone (and reaped): its /proc directory with it. */
	r3 = ns_userns_write_maps(w.pid, 0, 0, fx->uid, fx->gid, &gone);
	assert_int_equal(r3, -ENOENT);
	snprintf(want, sizeof(want), "open '/proc/%d/uid_map'", (int)w.pid);
	assert_string_equal(gone.msg, want);
	assert_non_null(strstr(gone.hint, "exited"));

	assert_int_equal(ns_userns_write_maps(0, 0, 0, 0, 0, &e), -EINVAL);
}

static int diagnose_usable_child(struct fx *fx)
{
	struct iso_err e = { 0 };

	CHILD_OK(ns_userns_diagnose(&e), e);
	return 0;
}

/* Control for the knob tests below: on this host the probe says "usable". */
static void test_diagnose_usable(void **state)
{
	run_child(diagnose_usable_child, *state, NEED_USERNS);
}

static int max_userns_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	char buf[512];

	if (unit_enter_userns(0, 0, fx->uid, fx->gid) < 0)
		return NO_NAMESPACE;
	/* Control: nesting one more level works before the knob is turned. */
	CHILD_OK(ns_userns_diagnose(&e), e);

	/* Only this user namespace's limit: the host's value is untouched. */
	CHILD_CHECK(unit_write_file("/proc/sys/user/max_user_namespaces", "0\n") == 0);
	CHILD_CHECK(ns_userns_diagnose(&e) == -ENOSPC);
	fprintf(stderr, "# diagnose: %s\n#   hint: %s\n", iso_err_format(&e, buf, sizeof(buf)),
		e.hint);
	CHILD_CHECK(e.errnum == ENOSPC);
	CHILD_HAS(e.msg, "user.max_user_namespaces=0");
	CHILD_HAS(e.hint, "user.max_user_namespaces=0");
	CHILD_CHECK(e.cause == NS_CAUSE_NO_USERNS);

	/* The explanation alone says the same. */
	memset(&e, 0, sizeof(e));
	ns_userns_explain(ENOSPC, &e);
	CHILD_CHECK(e.errnum == ENOSPC);
	CHILD_HAS(e.msg, "user.max_user_namespaces=0");
	return 0;
}

static void test_diagnose_max_user_namespaces(void **state)
{
	char before[32], after[32];

	assert_int_equal(read_text("/proc/sys/user/max_user_namespaces", before, sizeof(before)),
			 0);
	run_child(max_userns_child, *state, NEED_USERNS);
	assert_int_equal(read_text("/proc/sys/user/max_user_namespaces", after, sizeof(after)), 0);
	assert_string_equal(before, after);
}

static int install_userns_filter(void)
{
	scmp_filter_ctx ctx;
	int r = -1;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -1;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return -1;
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 1,
			     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) == 0 &&
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
			     SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) == 0 &&
	    /* clone3 keeps its flags behind a pointer: deny it, glibc falls back to clone. */
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0 &&
	    seccomp_load(ctx) == 0)
		r = 0;
	seccomp_release(ctx);
	return r;
}

static int seccomp_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	char buf[512];

	CHILD_OK(ns_userns_diagnose(&e), e); /* control */
	CHILD_CHECK(install_userns_filter() == 0);
	CHILD_CHECK(unshare(CLONE_NEWUSER) < 0 && errno == EPERM);
	CHILD_CHECK(ns_userns_diagnose(&e) == -EPERM);
	fprintf(stderr, "# diagnose: %s\n#   hint: %s\n", iso_err_format(&e, buf, sizeof(buf)),
		e.hint);
	CHILD_CHECK(e.errnum == EPERM);
	CHILD_HAS(e.msg, "seccomp filter");
	CHILD_HAS(e.hint, "seccomp filter");
	return 0;
}

static void test_diagnose_seccomp(void **state)
{
	run_child(seccomp_child, *state, NEED_USERNS);
}

static void *blocker(void *arg)
{
	char c;

	(void)!read(*(int *)arg, &c, 1);
	return NULL;
}

static int threads_child(struct fx *fx)
{
	struct iso_err e = { 0 }, d = { 0 };
	int fds[2], r, err, dr;
	pthread_t t;

	CHILD_CHECK(pipe2(fds, O_CLOEXEC) == 0);
	CHILD_CHECK(pthread_create(&t, NULL, blocker, &fds[0]) == 0);
	r = unshare(CLONE_NEWUSER);
	err = errno;
	ns_userns_explain(err, &e);
	/* The probe runs in a forked, single-threaded child: usable all the same. */
	dr = ns_userns_diagnose(&d);
	close(fds[1]);
	CHILD_CHECK(pthread_join(t, NULL) == 0);
	close(fds[0]);

	CHILD_CHECK(r < 0 && err == EINVAL);
	CHILD_OK(dr, d);
	CHILD_CHECK(e.errnum == EINVAL);
	CHILD_HAS(e.msg, "multi-threaded");
	CHILD_HAS(e.msg, "2 threads");
	CHILD_HAS(e.hint, "single-threaded");

	return 0;
}

/*
 * Control: single-threaded, the same errno gets another explanation.  Run in a
 * fresh child: after pthread_join() the kernel may still count the joined thread
 * in /proc/self/status for a moment.
 */
static int one_thread_child(struct fx *fx)
{
	struct iso_err e = { 0 };

	ns_userns_explain(EINVAL, &e);
	CHILD_CHECK(e.errnum == EINVAL);
	CHILD_CHECK(!strstr(e.msg, "multi-threaded"));
	return 0;
}

static void test_explain_multithreaded(void **state)
{
	run_child(threads_child, *state, NEED_USERNS);
	run_child(one_thread_child, *state, NEED_USERNS);
}

/* On this host: no Debian or AppArmor knob, no seccomp filter, a non-zero limit. */
static int explain_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	char limit[32];

	CHILD_CHECK(read_text("/proc/sys/user/max_user_namespaces", limit, sizeof(limit)) == 0);
	limit[strcspn(limit, "\n")] = '\0';
	if (!strcmp(limit, "0"))
		return NO_NAMESPACE; /* user namespaces switched off */
	if (access("/proc/sys/kernel/unprivileged_userns_clone", F_OK) == 0 ||
	    access("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", F_OK) == 0)
		return OTHER_HOST; /* the expectations below do not hold there */

	ns_userns_explain(ENOSPC, &e);
	CHILD_CHECK(e.errnum == ENOSPC);
	CHILD_HAS(e.msg, "reached");
	CHILD_HAS(e.msg, limit);
	CHILD_HAS(e.hint, "user.max_user_namespaces");

	ns_userns_explain(-EPERM, &e);
	CHILD_CHECK(e.errnum == EPERM);
	CHILD_HAS(e.msg, "create a user namespace");
	CHILD_CHECK(!strstr(e.msg, "seccomp"));
	CHILD_CHECK(e.cause == NS_CAUSE_NO_USERNS);

	ns_userns_explain(ENOMEM, &e);
	CHILD_CHECK(e.errnum == ENOMEM);
	CHILD_CHECK(!strcmp(e.msg, "create a user namespace"));
	return 0;
}

static void test_explain_table(void **state)
{
	run_child(explain_child, *state, NEED_USERNS);
}

/* Ubuntu's AppArmor knob (faked: no host here has it): the refusal names the profile. */
static int apparmor_child(struct fx *fx)
{
	struct iso_err e = { 0 };

	setenv("ISORUN_TEST_FAULT", "apparmor-userns", 1);
	ns_userns_explain(EPERM, &e);
	CHILD_CHECK(e.errnum == EPERM);
	if (strstr(e.msg, "seccomp") || strstr(e.msg, "unprivileged_userns_clone"))
		return OTHER_HOST; /* a filter of the caller's, or Debian's knob, comes first */
	CHILD_HAS(e.msg, "kernel.apparmor_restrict_unprivileged_userns=1");
	CHILD_HAS(e.hint, "/etc/apparmor.d/isorun");
	CHILD_HAS(e.hint, "apparmor_parser -r");
	CHILD_CHECK(e.cause == NS_CAUSE_NO_USERNS);
	return 0;
}

static void test_explain_apparmor(void **state)
{
	run_child(apparmor_child, *state, NULL);
}

/* --- mounts ------------------------------------------------------------------ */

static bool mountinfo_has(const char *needle)
{
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0)
		found = strstr(line, needle) != NULL;
	free(line);
	fclose(f);
	return found;
}

static int make_private_child(struct fx *fx)
{
	struct iso_err e = { 0 };

	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return NO_NAMESPACE;
	/* First a shared mount, so that the test can fail. */
	CHILD_CHECK(mount("tmpfs", fx->home, "tmpfs", 0, "size=1m") == 0);
	CHILD_CHECK(mount(NULL, fx->home, NULL, MS_SHARED, NULL) == 0);
	CHILD_CHECK(mountinfo_has(" shared:"));
	CHILD_OK(ns_mounts_make_private(&e), e);
	CHILD_CHECK(!mountinfo_has(" shared:"));
	return 0;
}

static void test_make_private(void **state)
{
	run_child(make_private_child, *state, NEED_MNTNS);
}

/* A tmpfs on fx->home with a file, and a tmpfs submount "sub" with a file. */
static int home_fixture(const struct fx *fx, unsigned long flags)
{
	char p[PATH_MAX];

	if (mount("tmpfs", fx->home, "tmpfs", flags, "size=1m,mode=0755") < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/file", fx->home);
	if (create_file(p, "hello\n") < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/sub", fx->home);
	if (mkdir(p, 0755) < 0 || mount("tmpfs", p, "tmpfs", flags, "size=1m,mode=0755") < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/sub/inner", fx->home);
	return create_file(p, "inner\n");
}

/* What a read-only home must refuse (want = -EROFS) or allow (want = 0, the control). */
static int check_home_writes(const struct fx *fx, int want, int want_sub)
{
	char p[PATH_MAX], buf[64];
	int fd;

	snprintf(p, sizeof(p), "%s/new", fx->home);
	CHILD_CHECK(create_file(p, "x") == want);
	snprintf(p, sizeof(p), "%s/sub/new", fx->home);
	CHILD_CHECK(create_file(p, "x") == want_sub);
	snprintf(p, sizeof(p), "%s/file", fx->home);
	fd = open(p, O_WRONLY | O_APPEND | O_CLOEXEC);
	CHILD_CHECK(want ? fd < 0 && -errno == want : fd >= 0);
	if (fd >= 0)
		close(fd);
	/* Relative to a working directory entered before the protection. */
	CHILD_CHECK(create_file("cwd-new", "x") == want);
	/* Reading works either way. */
	CHILD_CHECK(read_text(p, buf, sizeof(buf)) == 0 && !strcmp(buf, "hello\n"));
	snprintf(p, sizeof(p), "%s/sub/inner", fx->home);
	CHILD_CHECK(read_text(p, buf, sizeof(buf)) == 0 && !strcmp(buf, "inner\n"));
	return 0;
}

static int home_ro_child(struct fx *fx)
{
	struct iso_err e = { 0 };

	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return NO_NAMESPACE;
	CHILD_OK(ns_mounts_make_private(&e), e);
	CHILD_CHECK(home_fixture(fx, 0) == 0);
	CHILD_CHECK(chdir(fx->home) == 0);
	if (fx->protect) {
		CHILD_OK(ns_protect_home(fx->home, NS_HOME_RO, NULL, NULL, 0, &e), e);
		return check_home_writes(fx, -EROFS, -EROFS);
	}
	CHILD_OK(ns_protect_home(fx->home, NS_HOME_OFF, NULL, NULL, 0, &e), e);
	return check_home_writes(fx, 0, 0);
}

static void test_protect_home_ro(void **state)
{
	struct fx *fx = *state;

	fx->protect = true;
	run_child(home_ro_child, fx, NEED_MNTNS);
}

/* The same writes without the protection succeed: the test above can fail. */
static void test_protect_home_control(void **state)
{
	struct fx *fx = *state;

	fx->protect = false;
	run_child(home_ro_child, fx, NEED_MNTNS);
}

/*
 * Flags locked by a more privileged mount namespace: a nosuid,nodev,noexec home,
 * then a nested user + mount namespace.  `fallback`: mount_setattr() answers ENOSYS,
 * as before Linux 5.12, so the bind remount with the statvfs() flags runs.
 */
static int locked_child(struct fx *fx)
{
	const unsigned long locked = MS_NOSUID | MS_NODEV | MS_NOEXEC;
	struct iso_err e = { 0 };
	struct statvfs sv;
	scmp_filter_ctx ctx;

	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return NO_NAMESPACE;
	CHILD_OK(ns_mounts_make_private(&e), e);
	CHILD_CHECK(home_fixture(fx, locked) == 0);
	/* uid 0 here, whether real root or mapped: map it again one level down. */
	CHILD_CHECK(unit_enter_userns(CLONE_NEWNS, 0, 0, 0) == 0);
	CHILD_CHECK(chdir(fx->home) == 0);
	/* Control: the plain remount is refused, so the flags are locked indeed. */
	CHILD_CHECK(mount(NULL, fx->home, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) < 0 &&
		    errno == EPERM);

	if (fx->fallback) {
		CHILD_CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0);
		ctx = seccomp_init(SCMP_ACT_ALLOW);
		CHILD_CHECK(ctx);
		CHILD_CHECK(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(mount_setattr),
					     0) == 0);
		CHILD_CHECK(seccomp_load(ctx) == 0);
		seccomp_release(ctx);
		CHILD_CHECK(mount_setattr(AT_FDCWD, "/", 0, NULL, 0) < 0 && errno == ENOSYS);
	}
	CHILD_OK(ns_protect_home(fx->home, NS_HOME_RO, NULL, NULL, 0, &e), e);
	CHILD_CHECK(statvfs(fx->home, &sv) == 0);
	CHILD_CHECK(sv.f_flag & ST_RDONLY);
	CHILD_CHECK((sv.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC)) ==
		    (ST_NOSUID | ST_NODEV | ST_NOEXEC));
	/* The fallback changes the top mount only (documented in ns/mounts.c). */
	return check_home_writes(fx, -EROFS, fx->fallback ? 0 : -EROFS);
}

static void test_protect_home_locked_flags(void **state)
{
	struct fx *fx = *state;

	fx->fallback = false;
	run_child(locked_child, fx, NEED_MNTNS);
}

static void test_protect_home_fallback(void **state)
{
	struct fx *fx = *state;

	fx->fallback = true;
	run_child(locked_child, fx, NEED_MNTNS);
}

static int home_hide_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	char p[PATH_MAX];

	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return NO_NAMESPACE;
	CHILD_OK(ns_mounts_make_private(&e), e);
	CHILD_CHECK(home_fixture(fx, 0) == 0);
	CHILD_CHECK(count_entries(fx->home, false) == 2); /* control: file, sub */

	/* A working directory below the home cannot follow it: refused, and undone. */
	snprintf(p, sizeof(p), "%s/sub", fx->home);
	CHILD_CHECK(chdir(p) == 0);
	CHILD_CHECK(ns_protect_home(fx->home, NS_HOME_HIDE, fx->empty, NULL, 0, &e) == -ENOENT);
	CHILD_HAS(e.msg, "again after covering");
	CHILD_CHECK(e.cause == NS_CAUSE_CWD_HIDDEN);
	CHILD_CHECK(count_entries(fx->home, false) == 2);

	/* The home itself as working directory: it becomes the empty one. */
	CHILD_CHECK(chdir(fx->home) == 0);
	CHILD_OK(ns_protect_home(fx->home, NS_HOME_HIDE, fx->empty, NULL, 0, &e), e);
	CHILD_CHECK(count_entries(fx->home, false) == 0);
	CHILD_CHECK(count_entries(".", false) == 0);
	snprintf(p, sizeof(p), "%s/file", fx->home);
	CHILD_CHECK(access(p, F_OK) < 0 && errno == ENOENT);
	snprintf(p, sizeof(p), "%s/sub/inner", fx->home);
	CHILD_CHECK(access(p, F_OK) < 0 && errno == ENOENT);

	CHILD_CHECK(ns_protect_home(fx->home, NS_HOME_HIDE, NULL, NULL, 0, &e) == -EINVAL);
	CHILD_CHECK(ns_protect_home("relative", NS_HOME_RO, NULL, NULL, 0, &e) == -EINVAL);
	return 0;
}

/* The kept paths of both tests: the sub mount, and a plain directory of the home. */
static int make_keeps(const struct fx *fx, char keep[2][PATH_MAX], const char *ptrs[2])
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/proj", fx->home);
	if (mkdir(p, 0755) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/proj/f", fx->home);
	if (create_file(p, "proj\n") < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/sub", fx->home);
	if (!realpath(p, keep[0]))
		return -1;
	snprintf(p, sizeof(p), "%s/proj", fx->home);
	if (!realpath(p, keep[1]))
		return -1;
	ptrs[0] = keep[0];
	ptrs[1] = keep[1];
	return 0;
}

static int home_ro_keep_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	char keep[2][PATH_MAX], p[PATH_MAX], home[PATH_MAX];
	const char *ptrs[2], *self[1] = { home };

	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return NO_NAMESPACE;
	CHILD_OK(ns_mounts_make_private(&e), e);
	CHILD_CHECK(home_fixture(fx, 0) == 0);
	CHILD_CHECK(make_keeps(fx, keep, ptrs) == 0);
	CHILD_CHECK(chdir(keep[1]) == 0);
	/* the home itself cannot be kept: that is no protection at all */
	CHILD_CHECK(realpath(fx->home, home) != NULL);
	CHILD_CHECK(ns_protect_home(fx->home, NS_HOME_RO, NULL, self, 1, &e) == -EINVAL);
	CHILD_HAS(e.msg, "the protected home itself");

	CHILD_OK(ns_protect_home(fx->home, NS_HOME_RO, NULL, ptrs, 2, &e), e);
	snprintf(p, sizeof(p), "%s/new", fx->home);
	CHILD_CHECK(create_file(p, "x") == -EROFS);
	snprintf(p, sizeof(p), "%s/sub/new", fx->home);
	CHILD_CHECK(create_file(p, "x") == 0);
	snprintf(p, sizeof(p), "%s/proj/new", fx->home);
	CHILD_CHECK(create_file(p, "x") == 0);
	/* the working directory was inside a kept path: it follows it */
	CHILD_CHECK(create_file("cwd-new", "x") == 0);
	return 0;
}

static void test_protect_home_ro_keep(void **state)
{
	run_child(home_ro_keep_child, *state, NEED_MNTNS);
}

static int home_hide_keep_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	char keep[2][PATH_MAX], p[PATH_MAX], buf[64];
	const char *ptrs[2];
	int r;

	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return NO_NAMESPACE;
	CHILD_OK(ns_mounts_make_private(&e), e);
	CHILD_CHECK(home_fixture(fx, 0) == 0);
	CHILD_CHECK(make_keeps(fx, keep, ptrs) == 0);
	CHILD_CHECK(chdir(keep[1]) == 0);
	CHILD_OK(ns_home_skeleton(fx->home, fx->empty, ptrs, 2, &e), e);
	r = ns_protect_home(fx->home, NS_HOME_HIDE, fx->empty, ptrs, 2, &e);
	/* the skeleton's modes back, so the fixture can be removed as any user */
	snprintf(p, sizeof(p), "%s/sub", fx->empty);
	chmod(p, 0700);
	snprintf(p, sizeof(p), "%s/proj", fx->empty);
	chmod(p, 0700);
	CHILD_OK(r, e);
	/* only the kept paths show, as they were */
	CHILD_CHECK(count_entries(fx->home, false) == 2);
	snprintf(p, sizeof(p), "%s/file", fx->home);
	CHILD_CHECK(access(p, F_OK) < 0 && errno == ENOENT);
	snprintf(p, sizeof(p), "%s/sub/inner", fx->home);
	CHILD_CHECK(read_text(p, buf, sizeof(buf)) == 0 && !strcmp(buf, "inner\n"));
	CHILD_CHECK(read_text("f", buf, sizeof(buf)) == 0 && !strcmp(buf, "proj\n"));
	snprintf(p, sizeof(p), "%s/proj/new", fx->home);
	CHILD_CHECK(create_file(p, "x") == 0);
	return 0;
}

static void test_protect_home_hide_keep(void **state)
{
	struct fx *fx = *state;
	char p[PATH_MAX];

	run_child(home_hide_keep_child, fx, NEED_MNTNS);
	/* the skeleton, once its namespace (where it held mounts) is gone */
	snprintf(p, sizeof(p), "%s/sub", fx->empty);
	(void)rmdir(p);
	snprintf(p, sizeof(p), "%s/proj", fx->empty);
	(void)rmdir(p);
}

static void test_protect_home_hide(void **state)
{
	run_child(home_hide_child, *state, NEED_MNTNS);
}

static int private_tmp_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	struct stat a, b;
	char p[PATH_MAX];
	bool var_tmp;
	int dfd;

	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return NO_NAMESPACE;
	CHILD_OK(ns_mounts_make_private(&e), e);
	var_tmp = stat("/var/tmp", &a) == 0 && S_ISDIR(a.st_mode) && stat("/tmp", &b) == 0 &&
		  (a.st_dev != b.st_dev || a.st_ino != b.st_ino);
	/* fx->tmp is usually below /tmp itself: look at it through an fd. */
	dfd = open(fx->tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHILD_CHECK(dfd >= 0);

	CHILD_OK(ns_private_tmp(fx->tmp, &e), e);
	snprintf(p, sizeof(p), "/tmp/%s", fx->tmpname);
	CHILD_CHECK(create_file(p, "x") == 0);
	CHILD_CHECK(faccessat(dfd, fx->tmpname, F_OK, 0) == 0);
	CHILD_CHECK(count_entries("/tmp", false) == 1);
	if (var_tmp) {
		snprintf(p, sizeof(p), "/var/tmp/%s", fx->tmpname);
		CHILD_CHECK(access(p, F_OK) == 0);
		CHILD_CHECK(count_entries("/var/tmp", false) == 1);
	}
	close(dfd);
	return 0;
}

static void test_private_tmp(void **state)
{
	struct fx *fx = *state;
	char p[PATH_MAX], q[PATH_MAX];
	bool in_tmp, in_var_tmp;

	run_child(private_tmp_child, fx, NEED_MNTNS);
	/* The file is in fx->tmp (removed by teardown), not in the host's /tmp. */
	snprintf(p, sizeof(p), "/tmp/%s", fx->tmpname);
	snprintf(q, sizeof(q), "/var/tmp/%s", fx->tmpname);
	in_tmp = access(p, F_OK) == 0; /* removed by teardown if so */
	in_var_tmp = access(q, F_OK) == 0;
	assert_false(in_tmp);
	assert_false(in_var_tmp);
	assert_int_equal(count_entries(fx->tmp, false), 1);
	assert_int_equal(ns_private_tmp("", NULL), -EINVAL);
}

/* PID 1 of the new PID namespace. */
static int proc_init(void)
{
	struct iso_err e = { 0 };
	char buf[256];
	int pids;

	CHILD_CHECK(getpid() == 1);
	CHILD_OK(ns_mount_proc(&e), e);
	CHILD_CHECK(read_text("/proc/self/stat", buf, sizeof(buf)) == 0);
	CHILD_CHECK(strncmp(buf, "1 (", 3) == 0);
	pids = count_entries("/proc", true);
	CHILD_CHECK(pids >= 1 && pids <= 2);
	return 0;
}

static int proc_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	int status;
	pid_t pid;

	if (unit_enter_ns(CLONE_NEWNS | CLONE_NEWPID) < 0)
		return NO_NAMESPACE;
	CHILD_OK(ns_mounts_make_private(&e), e);
	if (fx->uid != 0) {
		/* Not a member of the new PID namespace: its /proc is refused, with a hint. */
		CHILD_CHECK(ns_mount_proc(&e) == -EPERM);
		CHILD_CHECK(!strcmp(e.msg, "mount 'proc' on '/proc'"));
		CHILD_HAS(e.hint, "procfs");
	}
	pid = fork();
	CHILD_CHECK(pid >= 0);
	if (pid == 0)
		_exit(proc_init());
	CHILD_CHECK(waitpid(pid, &status, 0) == pid);
	CHILD_CHECK(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_mount_proc(void **state)
{
	run_child(proc_child, *state, NEED_PIDNS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diagnose_usable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diagnose_max_user_namespaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_diagnose_seccomp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explain_multithreaded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explain_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explain_apparmor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_make_private, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protect_home_ro, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protect_home_control, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protect_home_locked_flags, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protect_home_fallback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protect_home_hide, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protect_home_ro_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_protect_home_hide_keep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_private_tmp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_proc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
