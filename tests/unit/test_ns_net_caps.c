/* SPDX-License-Identifier: MIT */
/*
 * ns_loopback_up() and ns_caps_*().  Every scenario that changes the process
 * (namespaces, capabilities, ids, no_new_privs) runs in a forked child that
 * reports through its exit status, so the test process stays as it started.
 * Must pass as root and as an ordinary user: an ordinary user gets privileges
 * only inside a user namespace created here; a host without usable user
 * namespaces skips those tests (fails them in CI: see unit_missing()).
 */
#include "ns/ns.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

/* Seconds; a child that hangs becomes a failure instead of a hung suite. */
#define WATCHDOG 60
/* The uid a USER_SELF namespace maps the caller to. */
#define INSIDE_UID 1000

#define BIT(c) (UINT64_C(1) << (c))

enum ns_kind {
	NONE,	   /* as started */
	NET,	   /* a network namespace; with a user namespace when not root */
	USER_NET,  /* user (mapped to root) + network namespace, also as root */
	USER_ROOT, /* a user namespace, the caller mapped to uid 0 */
	USER_SELF, /* a user namespace, the caller mapped to INSIDE_UID */
};

/* What each kind needs from the kernel, for the skip (or CI failure) without it. */
static const char *const kind_needs[] = {
	[NONE] = "nothing",
	[NET] = "a network namespace (via a user namespace if not root)",
	[USER_NET] = "a user namespace with a network namespace",
	[USER_ROOT] = "a user namespace",
	[USER_SELF] = "a user namespace",
};

static int enter(enum ns_kind kind)
{
	switch (kind) {
	case NONE:
		return 0;
	case NET:
		return unit_enter_ns(CLONE_NEWNET);
	case USER_NET:
		return unit_enter_userns(CLONE_NEWNET, 0, geteuid(), getegid());
	case USER_ROOT:
		return unit_enter_userns(0, 0, geteuid(), getegid());
	case USER_SELF:
		return unit_enter_userns(0, INSIDE_UID, geteuid(), getegid());
	}
	return -1;
}

/* fn(arg) in a forked child inside `kind`; 0 from it is a pass. */
static void run_child(enum ns_kind kind, int (*fn)(const void *), const void *arg)
{
	pid_t pid = unit_fork(WATCHDOG);

	if (pid == 0) {
		if (enter(kind) < 0) {
			fprintf(stderr, "# no namespace (kind %d): %s\n", (int)kind,
				strerror(errno));
			_exit(NO_NAMESPACE);
		}
		_exit(fn(arg));
	}
	unit_child_ok(unit_wait(pid), kind_needs[kind]);
}

/* --- /proc/self/status ---------------------------------------------------- */

struct caps_status {
	uint64_t inh, prm, eff, bnd, amb;
	int nnp;
	bool seen[6];
};

static int parse_status(const char *text, struct caps_status *st)
{
	static const char *const keys[] = { "CapInh:", "CapPrm:", "CapEff:",
					    "CapBnd:", "CapAmb:", "NoNewPrivs:" };
	uint64_t *vals[] = { &st->inh, &st->prm, &st->eff, &st->bnd, &st->amb };

	const char *line = text;

	memset(st, 0, sizeof(*st));
	while (line && *line) {
		for (size_t i = 0; i < 6; i++) {
			size_t n = strlen(keys[i]);

			if (strncmp(line, keys[i], n))
				continue;
			if (i < 5)
				*vals[i] = strtoull(line + n, NULL, 16);
			else
				st->nnp = (int)strtol(line + n, NULL, 10);
			st->seen[i] = true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	for (size_t i = 0; i < 6; i++)
		if (!st->seen[i])
			return -1;
	return 0;
}

static int read_all(int fd, char *buf, size_t len)
{
	size_t have = 0;
	ssize_t n;

	while (have < len - 1 && (n = read(fd, buf + have, len - 1 - have)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		have += (size_t)n;
	}
	buf[have] = '\0';
	return 0;
}

static int self_status(struct caps_status *st)
{
	char buf[8192];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -1;
	r = read_all(fd, buf, sizeof(buf));
	close(fd);
	return r < 0 ? -1 : parse_status(buf, st);
}

/* --- loopback ------------------------------------------------------------- */

static bool lo_is_up(void)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool up;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	up = fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP);
	if (fd >= 0)
		close(fd);
	return up;
}

static socklen_t loopback_addr(int family, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_addr = in6addr_loopback;
		return sizeof(*in6);
	}
}

/*
 * A listener on the loopback address of `family` and a connect() to it: 0 when
 * a byte went through, else the errno of the step that failed (negative for
 * the listener's steps, so that "bind failed" is not mistaken for connect's).
 */
static int loopback_roundtrip(int family)
{
	struct sockaddr_storage ss;
	socklen_t len = loopback_addr(family, &ss);
	int l = -1, c = -1, a = -1, r = 0;
	char ch = 0;

	l = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&ss, len) < 0 || listen(l, 1) < 0 ||
	    getsockname(l, (struct sockaddr *)&ss, &len) < 0) {
		r = -errno;
		goto out;
	}
	c = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c < 0) {
		r = -errno;
		goto out;
	}
	if (connect(c, (struct sockaddr *)&ss, len) < 0) {
		r = errno;
		goto out;
	}
	a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	if (a < 0 || write(c, "x", 1) != 1 || read(a, &ch, 1) != 1 || ch != 'x')
		r = EIO;
out:
	if (a >= 0)
		close(a);
	if (c >= 0)
		close(c);
	if (l >= 0)
		close(l);
	return r;
}

static int loopback_scenario(const void *arg)
{
	struct iso_err e = { 0 };
	int r;

	CHILD_CHECK(!lo_is_up());
	/* bind() and listen() work with lo down; only connect() tells */
	CHILD_CHECK(loopback_roundtrip(AF_INET) == ENETUNREACH);

	r = ns_loopback_up(&e);
	if (r < 0)
		fprintf(stderr, "ns_loopback_up: %d %s (%s) hint: %s\n", r, e.msg,
			strerror(e.errnum), e.hint);
	CHILD_CHECK(r == 0);
	CHILD_CHECK(lo_is_up());
	CHILD_CHECK(loopback_roundtrip(AF_INET) == 0);

	r = loopback_roundtrip(AF_INET6);
	if (r == -EAFNOSUPPORT)
		fprintf(stderr, "# no IPv6 in this kernel: ::1 not checked\n");
	else
		CHILD_CHECK(r == 0);
	/* twice is harmless: lo is already up */
	CHILD_CHECK(ns_loopback_up(&e) == 0);
	return 0;
}

static void test_loopback_up(void **state)
{
	run_child(NET, loopback_scenario, NULL);
}

/* The unprivileged path, also when root: user namespace mapped to root + netns. */
static void test_loopback_up_in_userns(void **state)
{
	run_child(USER_NET, loopback_scenario, NULL);
}

static int loopback_denied_scenario(const void *arg)
{
	struct iso_err e = { 0 };
	cap_t none = cap_init();
	int r;

	/* root of this netns, but without CAP_NET_ADMIN in effect */
	CHILD_CHECK(none && cap_set_proc(none) == 0);
	cap_free(none);
	r = ns_loopback_up(&e);
	CHILD_CHECK(r == -EPERM);
	CHILD_CHECK(e.errnum == EPERM);
	CHILD_CHECK(!strncmp(e.msg, "bring up 'lo'", strlen("bring up 'lo'")));
	CHILD_CHECK(strstr(e.hint, "CAP_NET_ADMIN") != NULL);
	CHILD_CHECK(!lo_is_up());
	return 0;
}

static void test_loopback_up_denied(void **state)
{
	run_child(NET, loopback_denied_scenario, NULL);
}

/* --- parse ---------------------------------------------------------------- */

static void expect_parse(const char *list, uint64_t want)
{
	struct iso_err e = { 0 };
	uint64_t got = 0xdead;
	int r = ns_caps_parse(list, &got, &e);

	if (r < 0)
		fail_msg("'%s': %d %s", list ? list : "(null)", r, e.msg);
	assert_int_equal(got, want);
}

static void expect_parse_error(const char *list, const char *msg)
{
	struct iso_err e = { 0 };
	uint64_t got = 0xdead;

	assert_int_equal(ns_caps_parse(list, &got, &e), -EINVAL);
	assert_string_equal(e.msg, msg);
	assert_int_equal(e.errnum, 0);
	assert_int_equal(got, 0xdead);
}

static void test_caps_parse(void **state)
{
	expect_parse("CAP_NET_RAW,sys_ptrace", BIT(CAP_NET_RAW) | BIT(CAP_SYS_PTRACE));
	expect_parse("cap_net_raw", BIT(CAP_NET_RAW));
	expect_parse("NET_RAW", BIT(CAP_NET_RAW));
	expect_parse("Net_Raw", BIT(CAP_NET_RAW));
	expect_parse("cAp_NeT_rAw", BIT(CAP_NET_RAW));
	expect_parse(" net_bind_service , CAP_SYS_ADMIN ",
		     BIT(CAP_NET_BIND_SERVICE) | BIT(CAP_SYS_ADMIN));
	expect_parse("chown,chown,CAP_CHOWN", BIT(CAP_CHOWN));
	expect_parse("net_raw,", BIT(CAP_NET_RAW));
	expect_parse("", 0);
	expect_parse("  ", 0);
	expect_parse(NULL, 0);
	expect_parse("setpcap", BIT(CAP_SETPCAP));
	/* every capability the running kernel knows, alone or among names */
	expect_parse("all", ns_caps_all());
	expect_parse(" ALL ,net_raw", ns_caps_all());
	assert_true(ns_caps_all() & BIT(CAP_SYS_ADMIN));
	assert_false(ns_caps_all() >> cap_max_bits());
	if (cap_max_bits() > CAP_CHECKPOINT_RESTORE)
		expect_parse("checkpoint_restore", BIT(CAP_CHECKPOINT_RESTORE));

	expect_parse_error("x", "unknown capability 'x'");
	expect_parse_error("net_rwa", "unknown capability 'net_rwa'");
	expect_parse_error("net_raw,bogus", "unknown capability 'bogus'");
	expect_parse_error("cap_", "unknown capability 'cap_'");
	expect_parse_error("12", "unknown capability '12'");
	expect_parse_error("cap_all", "unknown capability 'cap_all'");
	expect_parse_error("net_raw;chown", "unknown capability 'net_raw;chown'");
	expect_parse_error("net raw", "unknown capability 'net raw'");
	expect_parse_error("CAP_NET_RAW_", "unknown capability 'CAP_NET_RAW_'");
	{
		char longname[200];
		struct iso_err e = { 0 };
		uint64_t got = 0;

		memset(longname, 'a', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		assert_int_equal(ns_caps_parse(longname, &got, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "unknown capability"));
	}
}

static void test_caps_host_dangerous(void **state)
{
	uint64_t want = BIT(CAP_SYS_BOOT) | BIT(CAP_SYS_MODULE) | BIT(CAP_SYS_TIME) |
			BIT(CAP_SYS_RAWIO) | BIT(CAP_MAC_ADMIN) | BIT(CAP_MAC_OVERRIDE) |
			BIT(CAP_AUDIT_CONTROL);

	assert_int_equal(ns_caps_host_dangerous(), want);
}

/* --- apply ---------------------------------------------------------------- */

struct apply_case {
	enum ns_caps_mode mode;
	uint64_t keep;
	uint64_t also; /* NS_CAPS_HOST_ROOT: dropped besides the host-wide ones */
};

static int apply_or_report(enum ns_caps_mode mode, uint64_t keep, uint64_t also)
{
	struct iso_err e = { 0 };
	int r = ns_caps_apply(mode, keep, also, &e);

	if (r < 0)
		fprintf(stderr, "ns_caps_apply(%d, %#llx): %d %s (%s) hint: %s\n", (int)mode,
			(unsigned long long)keep, r, e.msg, strerror(e.errnum), e.hint);
	return r;
}

/*
 * Put `inh` into I and `amb` into ambient (a subset of inh, in P), so that a
 * mode that forgets them shows.  A fresh user namespace starts with both empty.
 */
static int seed(uint64_t inh, uint64_t amb)
{
	cap_t cur = cap_get_proc();
	int r = cur ? 0 : -1;

	for (cap_value_t c = 0; r == 0 && c < 64; c++)
		if (inh & BIT(c))
			r = cap_set_flag(cur, CAP_INHERITABLE, 1, &c, CAP_SET);
	if (r == 0)
		r = cap_set_proc(cur);
	if (cur)
		cap_free(cur);
	for (cap_value_t c = 0; r == 0 && c < 64; c++)
		if (amb & BIT(c))
			r = cap_set_ambient(c, CAP_SET);
	return r;
}

/* Not kept by any case below: must not survive NS_CAPS_EMPTY. */
#define SEED_INH (BIT(CAP_SYS_ADMIN) | BIT(CAP_NET_RAW))
#define SEED_AMB BIT(CAP_NET_RAW)

static int empty_scenario(const void *arg)
{
	const struct apply_case *c = arg;
	struct caps_status st;

	CHILD_CHECK(self_status(&st) == 0);
	CHILD_CHECK(st.prm & BIT(CAP_SETPCAP));
	/* bounding sets are inherited, a user namespace does not refill one */
	CHILD_CHECK((st.bnd & c->keep) == c->keep);
	CHILD_CHECK(seed(SEED_INH, SEED_AMB) == 0);
	CHILD_CHECK(apply_or_report(NS_CAPS_EMPTY, c->keep, 0) == 0);
	CHILD_CHECK(self_status(&st) == 0);
	CHILD_CHECK(st.bnd == c->keep);
	CHILD_CHECK(st.inh == c->keep);
	/* uid 0 of the namespace holds every kept cap in P: they become ambient */
	CHILD_CHECK(st.amb == c->keep);
	CHILD_CHECK(st.nnp == 1);
	return 0;
}

static void test_apply_empty(void **state)
{
	struct apply_case none = { NS_CAPS_EMPTY, 0, 0 };
	struct apply_case nbs = { NS_CAPS_EMPTY, BIT(CAP_NET_BIND_SERVICE), 0 };

	run_child(USER_ROOT, empty_scenario, &none);
	run_child(USER_ROOT, empty_scenario, &nbs);
}

static int host_root_scenario(const void *arg)
{
	const struct apply_case *c = arg;
	uint64_t gone = (ns_caps_host_dangerous() | c->also) & ~c->keep;
	uint64_t seeded = BIT(CAP_SYS_BOOT) | BIT(CAP_SYS_TIME) | BIT(CAP_NET_BIND_SERVICE);
	struct caps_status before, st;

	/*
	 * Seed I and ambient with dangerous caps: root regains I at execve, so
	 * they must leave I too; the harmless one stays.
	 */
	CHILD_CHECK(seed(seeded, seeded) == 0);
	CHILD_CHECK(self_status(&before) == 0);
	/* meaningful only with the dangerous caps there to drop */
	CHILD_CHECK((before.bnd & gone) == gone);
	CHILD_CHECK(before.inh & BIT(CAP_SYS_BOOT));

	CHILD_CHECK(apply_or_report(NS_CAPS_HOST_ROOT, c->keep, c->also) == 0);
	CHILD_CHECK(self_status(&st) == 0);
	CHILD_CHECK(st.bnd == (before.bnd & ~gone));
	CHILD_CHECK(st.inh == (before.inh & ~gone));
	CHILD_CHECK(st.amb == (before.amb & ~gone));
	CHILD_CHECK(st.inh & BIT(CAP_NET_BIND_SERVICE));
	CHILD_CHECK(st.amb & BIT(CAP_NET_BIND_SERVICE));
	/* identity and the process's own caps stay */
	CHILD_CHECK(st.prm == before.prm && st.eff == before.eff);
	CHILD_CHECK(getuid() == 0);
	CHILD_CHECK(st.nnp == 1);
	return 0;
}

static void test_apply_host_root(void **state)
{
	struct apply_case none = { NS_CAPS_HOST_ROOT, 0, 0 };
	struct apply_case keep_time = { NS_CAPS_HOST_ROOT, BIT(CAP_SYS_TIME), 0 };
	/* a mount protection: the undoers go too, but for a kept one */
	struct apply_case undo = { NS_CAPS_HOST_ROOT, 0, ns_caps_mount_undoers() };
	struct apply_case undo_keep = { NS_CAPS_HOST_ROOT, BIT(CAP_SYS_ADMIN),
					ns_caps_mount_undoers() };

	run_child(USER_ROOT, host_root_scenario, &none);
	run_child(USER_ROOT, host_root_scenario, &keep_time);
	run_child(USER_ROOT, host_root_scenario, &undo);
	run_child(USER_ROOT, host_root_scenario, &undo_keep);
	/* the real case: host root, no namespace (only this child is changed) */
	if (geteuid() == 0) {
		run_child(NONE, host_root_scenario, &none);
		run_child(NONE, host_root_scenario, &keep_time);
	}
}

/* An ordinary process: as root, a child that became nobody (P and E emptied). */
static int become_nobody(void)
{
	if (geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
	    setresuid(65534, 65534, 65534) < 0)
		return -1;
	return 0;
}

static int unprivileged_scenario(const void *arg)
{
	struct caps_status before, st;

	CHILD_CHECK(become_nobody() == 0);
	CHILD_CHECK(self_status(&before) == 0);
	CHILD_CHECK(before.prm == 0 && before.eff == 0);
	CHILD_CHECK(apply_or_report(NS_CAPS_UNPRIVILEGED, 0, 0) == 0);
	CHILD_CHECK(self_status(&st) == 0);
	CHILD_CHECK(st.nnp == 1);
	CHILD_CHECK(st.amb == 0);
	CHILD_CHECK(st.bnd == before.bnd);
	return 0;
}

/*
 * Ambient set but no CAP_SETPCAP: uid INSIDE_UID of a user namespace whose P, E,
 * I and ambient hold only CAP_NET_BIND_SERVICE.  UNPRIVILEGED must clear ambient.
 */
static int unprivileged_ambient_scenario(const void *arg)
{
	cap_value_t nbs = CAP_NET_BIND_SERVICE;
	cap_t only = cap_init();
	struct caps_status before, st;

	CHILD_CHECK(only != NULL);
	CHILD_CHECK(cap_set_flag(only, CAP_PERMITTED, 1, &nbs, CAP_SET) == 0);
	CHILD_CHECK(cap_set_flag(only, CAP_EFFECTIVE, 1, &nbs, CAP_SET) == 0);
	CHILD_CHECK(cap_set_flag(only, CAP_INHERITABLE, 1, &nbs, CAP_SET) == 0);
	CHILD_CHECK(cap_set_proc(only) == 0);
	cap_free(only);
	CHILD_CHECK(cap_set_ambient(nbs, CAP_SET) == 0);
	CHILD_CHECK(self_status(&before) == 0);
	CHILD_CHECK(before.amb == BIT(nbs) && before.prm == BIT(nbs));
	CHILD_CHECK(getuid() == INSIDE_UID);

	CHILD_CHECK(apply_or_report(NS_CAPS_UNPRIVILEGED, 0, 0) == 0);
	CHILD_CHECK(self_status(&st) == 0);
	CHILD_CHECK(st.amb == 0);
	CHILD_CHECK(st.nnp == 1);
	CHILD_CHECK(st.bnd == before.bnd);
	return 0;
}

static void test_apply_unprivileged(void **state)
{
	run_child(NONE, unprivileged_scenario, NULL);
	run_child(USER_SELF, unprivileged_ambient_scenario, NULL);
}

/* Without CAP_SETPCAP the modes that change the bounding set fail, and say why. */
static int refused_scenario(const void *arg)
{
	const struct apply_case *c = arg;
	const char suffix[] = "' from the bounding set";
	struct iso_err e = { 0 };
	struct caps_status before, st;
	size_t n;
	int r;

	CHILD_CHECK(become_nobody() == 0);
	CHILD_CHECK(self_status(&before) == 0);
	/* on a host that already dropped every dangerous cap there is nothing to refuse */
	if (!(before.bnd & ns_caps_host_dangerous()))
		return 0;
	r = ns_caps_apply(c->mode, c->keep, 0, &e);
	CHILD_CHECK(r == -EPERM);
	CHILD_CHECK(e.errnum == EPERM);
	/* "drop 'cap_chown' from the bounding set" */
	n = strlen(e.msg);
	CHILD_CHECK(!strncmp(e.msg, "drop 'cap_", strlen("drop 'cap_")));
	CHILD_CHECK(n > strlen(suffix) && !strcmp(e.msg + n - strlen(suffix), suffix));
	CHILD_CHECK(strstr(e.hint, "CAP_SETPCAP") != NULL);
	CHILD_CHECK(self_status(&st) == 0);
	CHILD_CHECK(st.bnd == before.bnd);
	CHILD_CHECK(st.nnp == 0);
	return 0;
}

static void test_apply_refused_without_setpcap(void **state)
{
	struct apply_case empty = { NS_CAPS_EMPTY, 0, 0 };
	struct apply_case host = { NS_CAPS_HOST_ROOT, 0, 0 };

	run_child(NONE, refused_scenario, &empty);
	run_child(NONE, refused_scenario, &host);
}

/*
 * What the command really gets: seed I and ambient, apply, then execve
 * /bin/cat /proc/self/status and read its output.  uid 0 regains its bounding
 * set and I at execve; a non-zero uid keeps only ambient.
 */
static int exec_scenario(const void *arg)
{
	const struct apply_case *c = arg;
	uint64_t inh = SEED_INH, amb = SEED_AMB;
	uint64_t want_bnd, want_prm, want_inh, want_amb;
	struct caps_status st;
	char buf[8192];
	int p[2], status;
	pid_t pid;

	CHILD_CHECK(self_status(&st) == 0);
	if (c->mode == NS_CAPS_EMPTY) {
		want_bnd = want_prm = want_inh = want_amb = c->keep;
	} else {
		/* NS_CAPS_HOST_ROOT, as uid 0: everything but the dropped dangerous caps */
		uint64_t gone = ns_caps_host_dangerous() & ~c->keep;

		CHILD_CHECK(getuid() == 0);
		inh = amb = BIT(CAP_SYS_BOOT) | BIT(CAP_SYS_TIME) | BIT(CAP_NET_BIND_SERVICE);
		want_bnd = want_prm = st.bnd & ~gone;
		want_inh = want_amb = inh & ~gone;
	}

	CHILD_CHECK(pipe2(p, O_CLOEXEC) == 0);
	pid = fork();
	CHILD_CHECK(pid >= 0);
	if (pid == 0) {
		if (seed(inh, amb) < 0)
			_exit(2);
		if (apply_or_report(c->mode, c->keep, c->also) < 0)
			_exit(3);
		if (dup2(p[1], 1) < 0)
			_exit(4);
		execl("/bin/cat", "cat", "/proc/self/status", (char *)NULL);
		perror("exec /bin/cat");
		_exit(5);
	}
	close(p[1]);
	CHILD_CHECK(read_all(p[0], buf, sizeof(buf)) == 0);
	close(p[0]);
	CHILD_CHECK(waitpid(pid, &status, 0) == pid);
	CHILD_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHILD_CHECK(parse_status(buf, &st) == 0);
	CHILD_CHECK(st.bnd == want_bnd);
	CHILD_CHECK(st.prm == want_prm);
	CHILD_CHECK(st.eff == want_prm);
	CHILD_CHECK(st.inh == want_inh);
	CHILD_CHECK(st.amb == want_amb);
	CHILD_CHECK(st.nnp == 1);
	return 0;
}

static void test_exec_after_empty(void **state)
{
	struct apply_case none = { NS_CAPS_EMPTY, 0, 0 };
	struct apply_case nbs = { NS_CAPS_EMPTY, BIT(CAP_NET_BIND_SERVICE), 0 };

	run_child(USER_ROOT, exec_scenario, &none);
	run_child(USER_ROOT, exec_scenario, &nbs);
	run_child(USER_SELF, exec_scenario, &none);
	run_child(USER_SELF, exec_scenario, &nbs);
}

static void test_exec_after_host_root(void **state)
{
	struct apply_case none = { NS_CAPS_HOST_ROOT, 0, 0 };
	struct apply_case keep_time = { NS_CAPS_HOST_ROOT, BIT(CAP_SYS_TIME), 0 };

	run_child(USER_ROOT, exec_scenario, &none);
	run_child(USER_ROOT, exec_scenario, &keep_time);
	if (geteuid() == 0) {
		run_child(NONE, exec_scenario, &none);
		run_child(NONE, exec_scenario, &keep_time);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loopback_up),
		cmocka_unit_test(test_loopback_up_in_userns),
		cmocka_unit_test(test_loopback_up_denied),
		cmocka_unit_test(test_caps_parse),
		cmocka_unit_test(test_caps_host_dangerous),
		cmocka_unit_test(test_apply_empty),
		cmocka_unit_test(test_apply_host_root),
		cmocka_unit_test(test_apply_unprivileged),
		cmocka_unit_test(test_apply_refused_without_setpcap),
		cmocka_unit_test(test_exec_after_empty),
		cmocka_unit_test(test_exec_after_host_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
