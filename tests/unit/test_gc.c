/* SPDX-License-Identifier: MIT */
/*
 * The evidence `isorun gc` removes a tree by, against a fake /proc and a fake
 * boot id: the owner record, the owner's fate, the verdict with each rule
 * broken in turn, and the view of real tree directories (records, lock,
 * holders).  Must pass as root and as an ordinary user.
 */
#include "common/cleanup.h"
#include "tree/evidence.h"
#include "tree/mntns.h"
#include "launcher/outcome.h"
#include "tree/rmtree.h"
#include "tree/tree.h"
#include "tree/trees.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

#define BOOT	 "6b1c5e0e-0000-4000-8000-000000000001"
#define PIDNS	 4026531836ULL
#define UID	 1000
#define OWNER	 4242
#define STARTED	 123456ULL
#define WATCHDOG 60

struct fx {
	char dir[PATH_MAX / 4]; /* mkdtemp: proc/ and root/ below it */
	char proc[PATH_MAX / 4 + 8];
	char root[PATH_MAX / 4 + 8];
	char user[PATH_MAX];
	int user_fd;
	struct tree_host host;
};

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	struct iso_err e = { 0 };

	if (!fx || unit_mkdtemp(fx->dir, sizeof(fx->dir), "test_gc-XXXXXX") < 0) {
		free(fx);
		return -1;
	}
	snprintf(fx->proc, sizeof(fx->proc), "%s/proc", fx->dir);
	snprintf(fx->root, sizeof(fx->root), "%s/root", fx->dir);
	if (mkdir(fx->proc, 0700) < 0 || mkdir(fx->root, 0700) < 0)
		return -1;
	fx->user_fd = tree_open_user_dir(fx->root, true, fx->user, sizeof(fx->user), &e);
	if (fx->user_fd < 0)
		return -1;
	fx->host =
		(struct tree_host){ .proc = fx->proc, .boot_id = BOOT, .pidns = PIDNS, .uid = UID };
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	char copy[sizeof(fx->dir)], copy2[sizeof(fx->dir)];
	int parent;

	close(fx->user_fd);
	/* as root the trees' directory is a shared bind of itself: off before the removal */
	(void)tree_mntns_unshare(fx->user);
	snprintf(copy, sizeof(copy), "%s", fx->dir);
	snprintf(copy2, sizeof(copy2), "%s", fx->dir);
	parent = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (parent >= 0) {
		(void)tree_rmtree(parent, basename(copy2), fx->dir, NULL, NULL);
		close(parent);
	}
	free(fx);
	return 0;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* A /proc/PID/stat in the fake /proc; a comm with spaces and parentheses, as the kernel allows. */
static void fake_proc(struct fx *fx, pid_t pid, char state, unsigned long long start)
{
	char path[PATH_MAX], line[256];

	snprintf(path, sizeof(path), "%s/%d", fx->proc, (int)pid);
	assert_true(mkdir(path, 0700) == 0 || errno == EEXIST);
	snprintf(path, sizeof(path), "%s/%d/stat", fx->proc, (int)pid);
	snprintf(line, sizeof(line),
		 "%d (a) b (c) %c 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %llu 8192 200\n",
		 (int)pid, state, (int)pid, (int)pid, start);
	put(path, line);
}

static struct tree_owner_rec owner(void)
{
	return (struct tree_owner_rec){
		.pid = OWNER, .start_time = STARTED, .boot_id = BOOT, .uid = UID, .pidns = PIDNS
	};
}

/* The record's message as the text the assertions read. */
static int owner_parse(const char *text, struct tree_owner_rec *o, char *why, size_t len)
{
	struct iso_err e;
	int r = tree_owner_parse(text, o, &e);

	iso_err_format(&e, why, len);
	return r;
}

static bool verdict(const struct tree_gc_facts *f, char *why, size_t len)
{
	struct iso_err e;
	bool ok = tree_gc_verdict(f, &e);

	iso_err_format(&e, why, len);
	return ok;
}

static bool judge(const struct tree_view *v, char *why, size_t len)
{
	struct tree_judging how = { 0 };
	struct iso_err e;
	bool ok = tree_judge(v, &how, &e);

	iso_err_format(&e, why, len);
	return ok;
}

static void test_owner_parse_valid(void **state)
{
	struct tree_owner_rec o;
	char why[200] = "";

	assert_int_equal(
		owner_parse("{\"pid\":4242,\"start_time\":123456,\"boot_id\":\"" BOOT
			    "\",\"uid\":1000,\"argv\":[\"make\",\"check\"],\"pidns\":4026531836}",
			    &o, why, sizeof(why)),
		0);
	assert_int_equal(o.pid, OWNER);
	assert_true(o.start_time == STARTED);
	assert_string_equal(o.boot_id, BOOT);
	assert_int_equal(o.uid, UID);
	assert_true(o.pidns == PIDNS);
	/* pidns is optional in the record (then nothing is proven by pid) */
	assert_int_equal(owner_parse("{\"pid\":1,\"start_time\":0,\"boot_id\":\"\",\"uid\":0}", &o,
				     why, sizeof(why)),
			 0);
	assert_true(o.pidns == 0);
}

static void test_owner_parse_rejects(void **state)
{
	static const struct {
		const char *text, *why;
	} bad[] = {
		{ "", "not JSON" },
		{ "{\"pid\":1,", "not JSON" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"start_time\":1,\"boot_id\":\"b\",\"uid\":0}", "no \"pid\"" },
		{ "{\"pid\":1,\"boot_id\":\"b\",\"uid\":0}", "no \"start_time\"" },
		{ "{\"pid\":1,\"start_time\":1,\"uid\":0}", "no \"boot_id\"" },
		{ "{\"pid\":1,\"start_time\":1,\"boot_id\":\"b\"}", "no \"uid\"" },
		{ "{\"pid\":0,\"start_time\":1,\"boot_id\":\"b\",\"uid\":0}", "\"pid\" is 0" },
		{ "{\"pid\":-5,\"start_time\":1,\"boot_id\":\"b\",\"uid\":0}", "\"pid\" is not" },
		{ "{\"pid\":\"5\",\"start_time\":1,\"boot_id\":\"b\",\"uid\":0}",
		  "\"pid\" is not" },
		{ "{\"pid\":99999999999,\"start_time\":1,\"boot_id\":\"b\",\"uid\":0}",
		  "\"pid\" is not" },
		{ "{\"pid\":1,\"start_time\":1,\"boot_id\":5,\"uid\":0}", "\"boot_id\" is not" },
		{ "{\"pid\":1,\"start_time\":1,\"boot_id\":\"b\",\"uid\":0,\"pidns\":\"x\"}",
		  "\"pidns\" is not" },
		{ "{\"pid\":1,\"pid\":2,\"start_time\":1,\"boot_id\":\"b\",\"uid\":0}",
		  "not JSON" },
	};

	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		struct tree_owner_rec o;
		char why[200] = "";

		assert_int_equal(owner_parse(bad[i].text, &o, why, sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i].why))
			fail_msg("%s: expected \"%s\" in \"%s\"", bad[i].text, bad[i].why, why);
	}
}

static enum tree_fate fate(struct fx *fx, const struct tree_owner_rec *o, char *why, size_t len)
{
	struct iso_err e;
	enum tree_fate f = tree_owner_fate(o, &fx->host, &e);

	iso_err_format(&e, why, len);
	return f;
}

static void test_fate_alive_and_gone(void **state)
{
	struct fx *fx = *state;
	struct tree_owner_rec o = owner();
	char why[320];

	/* no /proc/4242: gone */
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_GONE);
	assert_string_equal(why, "owner pid 4242 is gone");
	/* the same process: alive */
	fake_proc(fx, OWNER, 'S', STARTED);
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_ALIVE);
	assert_string_equal(why, "owner pid 4242 is alive");
	/* the pid reused by a later process: gone */
	fake_proc(fx, OWNER, 'S', STARTED + 1);
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_GONE);
	assert_non_null(strstr(why, "owner pid 4242 is gone (the pid now names a process"));
	/* exited, not yet reaped: it never runs again */
	fake_proc(fx, OWNER, 'Z', STARTED);
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_GONE);
	assert_non_null(strstr(why, "zombie"));
}

static void test_fate_other_boot(void **state)
{
	struct fx *fx = *state;
	struct tree_owner_rec o = owner();
	char why[320];

	/* a live process with the owner's pid and start time ... */
	fake_proc(fx, OWNER, 'S', STARTED);
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_ALIVE);
	/* ... is a coincidence when the owner ran in another boot */
	snprintf(o.boot_id, sizeof(o.boot_id), "an-earlier-boot");
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_GONE);
	assert_non_null(strstr(why, "another boot (boot id an-earlier-boot, now " BOOT ")"));
}

static void test_fate_unprovable(void **state)
{
	struct fx *fx = *state;
	struct tree_owner_rec o;
	char why[320], path[PATH_MAX];

	/* control: with nothing in the way the absent pid proves it */
	o = owner();
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_GONE);

	/* another PID namespace: its pid 4242 is not ours */
	o.pidns = PIDNS + 1;
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	assert_non_null(strstr(why, "another PID namespace"));
	o.pidns = 0;
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	assert_non_null(strstr(why, "no PID namespace"));
	o = owner();
	fx->host.pidns = 0;
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	fx->host.pidns = PIDNS;

	/* boots that cannot be compared */
	o.boot_id[0] = '\0';
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	assert_non_null(strstr(why, "no boot id"));
	o = owner();
	fx->host.boot_id[0] = '\0';
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	assert_non_null(strstr(why, "current boot id is unknown"));
	snprintf(fx->host.boot_id, sizeof(fx->host.boot_id), "%s", BOOT);

	/* someone else's record */
	o.uid = UID + 1;
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	assert_non_null(strstr(why, "uid 1001, not uid 1000"));
	o = owner();

	/* a stat that cannot be read or parsed is no evidence */
	snprintf(path, sizeof(path), "%s/%d", fx->proc, OWNER);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%d/stat", fx->proc, OWNER);
	put(path, "4242 (no closing parenthesis S 1");
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	assert_non_null(strstr(why, "unparsable"));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(fate(fx, &o, why, sizeof(why)), TREE_FATE_UNPROVABLE);
	assert_non_null(strstr(why, "cannot read"));
}

static struct tree_gc_facts good_facts(void)
{
	return (struct tree_gc_facts){
		.fate = TREE_FATE_GONE,
		.fate_why = "owner pid 4242 is gone",
		.lock = TREE_LOCK_TAKEN,
		.lock_why = "its lock is free",
		.holders = 0,
	};
}

static void expect_kept(const struct tree_gc_facts *f, const char *why_expected)
{
	char why[600];

	assert_false(verdict(f, why, sizeof(why)));
	assert_string_equal(why, why_expected);
}

static void test_verdict_each_rule(void **state)
{
	struct tree_gc_facts f = good_facts();
	char why[600];

	assert_true(verdict(&f, why, sizeof(why)));
	assert_string_equal(why, "owner pid 4242 is gone; its lock is free; no process has a "
				 "file, cwd or root in it");
	/* the count never changes the verdict: named only when asked (gc -v) */
	f.unreadable = 3;
	assert_true(verdict(&f, why, sizeof(why)));
	assert_null(strstr(why, "could not be read"));
	f.note_unreadable = true;
	assert_true(verdict(&f, why, sizeof(why)));
	assert_non_null(strstr(why, "(3 processes' fds could not be read)"));

	f = good_facts();
	f.owner_error = "owner record: missing";
	expect_kept(&f, "owner record: missing");
	f = good_facts();
	f.fate = TREE_FATE_ALIVE;
	f.fate_why = "owner pid 4242 is alive";
	expect_kept(&f, "owner pid 4242 is alive");
	f.fate = TREE_FATE_UNPROVABLE;
	f.fate_why = "another PID namespace";
	expect_kept(&f, "another PID namespace");
	f = good_facts();
	f.lock = TREE_LOCK_HELD;
	f.lock_why = "its lock is held";
	expect_kept(&f, "its lock is held");
	f.lock = TREE_LOCK_FAILED;
	f.lock_why = "lock: missing";
	expect_kept(&f, "lock: missing");
	f = good_facts();
	f.holders = 1;
	f.holder_why = "pid 7 `sleep` has its cwd in it (/x)";
	expect_kept(&f, "pid 7 `sleep` has its cwd in it (/x)");
	f.holders = -EACCES;
	f.holder_why = "cannot inspect /proc for holders: Permission denied";
	expect_kept(&f, "cannot inspect /proc for holders: Permission denied");
}

/* <user>/<name>/ with an owner record (NULL: none) and a lock file */
static int make_tree(struct fx *fx, const char *name, const char *owner_text, bool lock)
{
	char path[PATH_MAX * 2];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fx->user, name);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/%s/home", fx->user, name);
	assert_int_equal(mkdir(path, 0700), 0);
	if (owner_text) {
		snprintf(path, sizeof(path), "%s/%s/owner", fx->user, name);
		put(path, owner_text);
	}
	if (lock) {
		snprintf(path, sizeof(path), "%s/%s/lock", fx->user, name);
		put(path, "");
	}
	snprintf(path, sizeof(path), "%s/%s", fx->user, name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static const char *owner_json(void)
{
	return "{\"pid\":4242,\"start_time\":123456,\"boot_id\":\"" BOOT
	       "\",\"uid\":1000,\"argv\":[\"x\"],\"pidns\":4026531836}";
}

static void at(struct fx *fx, const char *name, const char *rel, const char *text)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s/%s", fx->user, name, rel);
	put(path, text);
}

static void view(struct fx *fx, const char *name, bool keep, struct tree_view *v)
{
	tree_view(fx->user_fd, fx->user, name, &fx->host, keep, v);
}

static void test_view_states(void **state)
{
	struct fx *fx = *state;
	struct tree_view v;
	char why[1200];
	int fd;

	/* the owner is gone and recorded nothing: orphaned */
	close(make_tree(fx, "t", owner_json(), true));
	view(fx, "t", false, &v);
	assert_string_equal(tree_seen_name(v.seen), "orphaned");
	assert_int_equal(v.lock, TREE_LOCK_TAKEN);
	assert_int_equal(v.lock_fd, -1); /* without keep_lock it was let go */
	assert_true(v.created > 0);
	tree_view_close(&v);

	/* alive owner, lock free, nothing recorded: not for gc to decide */
	fake_proc(fx, OWNER, 'S', STARTED);
	view(fx, "t", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "unknown");
	assert_false(judge(&v, why, sizeof(why)));
	assert_string_equal(why, "owner pid 4242 is alive");
	tree_view_close(&v);

	/* the lock held by someone else: running, never removed */
	{
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s/t/lock", fx->user);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	}
	view(fx, "t", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "running");
	assert_string_equal(v.reason, "owner pid 4242 is alive");
	tree_view_close(&v);
	snprintf(fx->host.boot_id, sizeof(fx->host.boot_id), "a-later-boot");
	view(fx, "t", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "running");
	assert_false(judge(&v, why, sizeof(why)));
	assert_non_null(strstr(why, "its lock is held"));
	tree_view_close(&v);
	close(fd);
	snprintf(fx->host.boot_id, sizeof(fx->host.boot_id), "%s", BOOT);

	/* what the owner recorded at teardown */
	at(fx, "t", "outcome", "{\"state\":\"kept\",\"reason\":\"--keep\"}");
	view(fx, "t", false, &v);
	assert_string_equal(tree_seen_name(v.seen), "kept");
	assert_string_equal(v.reason, "--keep");
	tree_view_close(&v);
	at(fx, "t", "outcome", "{\"state\":\"retained\",\"reason\":\"pid 7 has its cwd in it\"}");
	view(fx, "t", false, &v);
	assert_string_equal(tree_seen_name(v.seen), "retained");
	assert_string_equal(v.reason, "pid 7 has its cwd in it");
	tree_view_close(&v);
	at(fx, "t", "outcome", "{\"state\":\"removed\",\"reason\":\"\"}");
	view(fx, "t", false, &v);
	assert_string_equal(tree_seen_name(v.seen), "unreadable");
	assert_non_null(strstr(v.reason, "outcome record: unknown state"));
	tree_view_close(&v);
}

static void test_view_unreadable(void **state)
{
	struct fx *fx = *state;
	struct tree_view v;
	char why[1200], path[PATH_MAX * 2];

	/* no owner record: no proof, and the lock is not even tried */
	close(make_tree(fx, "no-owner", NULL, true));
	view(fx, "no-owner", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "unreadable");
	assert_string_equal(v.reason, "owner record: missing");
	assert_false(v.lock_probed);
	assert_false(judge(&v, why, sizeof(why)));
	assert_string_equal(why, "owner record: missing");
	tree_view_close(&v);
	/* a removal that failed halfway can take the owner record and leave the outcome */
	at(fx, "no-owner", "outcome", "{\"state\":\"retained\",\"reason\":\"removal failed: x\"}");
	view(fx, "no-owner", true, &v);
	assert_string_equal(v.reason,
			    "owner record: missing; its run recorded retained: removal failed: x");
	assert_false(judge(&v, why, sizeof(why)));
	tree_view_close(&v);

	close(make_tree(fx, "corrupt", "{\"pid\":4242,", true));
	view(fx, "corrupt", true, &v);
	assert_non_null(strstr(v.reason, "owner record: not JSON"));
	assert_false(judge(&v, why, sizeof(why)));
	tree_view_close(&v);

	/* a symbolic link where the owner record belongs is not isorun's */
	close(make_tree(fx, "linked", NULL, true));
	snprintf(path, sizeof(path), "%s/no-owner/lock", fx->user);
	{
		char link[PATH_MAX * 2];
		snprintf(link, sizeof(link), "%s/linked/owner", fx->user);
		assert_int_equal(symlink(path, link), 0);
	}
	view(fx, "linked", true, &v);
	assert_non_null(strstr(v.reason, "owner record: a symbolic link"));
	tree_view_close(&v);

	/* no lock file, or a FIFO in its place (opened without blocking) */
	close(make_tree(fx, "no-lock", owner_json(), false));
	view(fx, "no-lock", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "unreadable");
	assert_string_equal(v.reason, "lock: missing");
	assert_false(judge(&v, why, sizeof(why)));
	assert_string_equal(why, "lock: missing");
	tree_view_close(&v);
	snprintf(path, sizeof(path), "%s/no-lock/lock", fx->user);
	assert_int_equal(mkfifo(path, 0600), 0);
	view(fx, "no-lock", true, &v);
	assert_string_equal(v.reason, "lock: not a regular file");
	tree_view_close(&v);

	/* entries that are not trees */
	snprintf(path, sizeof(path), "%s/a-file", fx->user);
	put(path, "x");
	view(fx, "a-file", true, &v);
	assert_string_equal(v.reason, "not a directory");
	assert_false(judge(&v, why, sizeof(why)));
	tree_view_close(&v);
	snprintf(path, sizeof(path), "%s/a-link", fx->user);
	assert_int_equal(symlink(fx->dir, path), 0);
	view(fx, "a-link", true, &v);
	assert_string_equal(v.reason, "not a directory");
	tree_view_close(&v);
}

static void test_judge_holders_and_remove(void **state)
{
	struct fx *fx = *state;
	struct tree_view v;
	char why[1200], home[PATH_MAX * 2], expect[PATH_MAX * 3];
	int ready[2], go[2];
	pid_t pid;
	char c;

	close(make_tree(fx, "t", owner_json(), true));
	snprintf(home, sizeof(home), "%s/t/home", fx->user);
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	pid = unit_fork(WATCHDOG);
	if (pid == 0) {
		close(ready[0]);
		close(go[1]);
		if (chdir(home) < 0 || write(ready[1], "r", 1) != 1)
			_exit(1);
		/* until the parent closes its end */
		_exit(read(go[0], &c, 1) == 0 ? 0 : 1);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &c, 1), 1);

	/* the owner is gone and the lock free, but a process has its cwd inside */
	view(fx, "t", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "orphaned");
	assert_false(judge(&v, why, sizeof(why)));
	snprintf(expect, sizeof(expect), "pid %d `", (int)pid);
	assert_non_null(strstr(why, expect));
	snprintf(expect, sizeof(expect), "has its cwd in it (%s)", home);
	assert_non_null(strstr(why, expect));
	tree_view_close(&v);

	close(go[1]);
	assert_int_equal(unit_wait(pid), 0);
	close(ready[0]);

	/* removal needs the lock held: a view without it is refused */
	view(fx, "t", false, &v);
	assert_int_equal(tree_remove(fx->user_fd, &v, NULL), -EPERM);
	tree_view_close(&v);

	view(fx, "t", true, &v);
	/* the kernel said held (a shield's refused unmount) and the scan names nobody: kept */
	{
		struct tree_judging how = { .held = "the kernel says the tree is held" };
		struct iso_err e;

		assert_false(tree_judge(&v, &how, &e));
		assert_true(how.scanned);
		assert_non_null(strstr(e.msg, "the kernel says the tree is held"));
		/* proven by the kernel: removable, and no process read */
		how = (struct tree_judging){ .proven = true };
		assert_true(tree_judge(&v, &how, &e));
		assert_false(how.scanned);
		assert_int_equal(how.n_read, 0);
	}
	assert_true(judge(&v, why, sizeof(why)));
	assert_non_null(strstr(why, "owner pid 4242 is gone; its lock is free"));
	assert_int_equal(tree_remove(fx->user_fd, &v, NULL), 0);
	tree_view_close(&v);
	assert_int_equal(faccessat(fx->user_fd, "t", F_OK, AT_SYMLINK_NOFOLLOW), -1);
}

/*
 * The owner record is its own lock ("lock": "owner"): a `lock` file planted
 * beside it (the command can write there) is never what ls and gc flock.
 */
static void test_view_owner_is_lock(void **state)
{
	struct fx *fx = *state;
	struct tree_view v;
	char why[1200], path[PATH_MAX * 2];
	int fd;

	close(make_tree(fx, "t",
			"{\"pid\":4242,\"start_time\":123456,\"boot_id\":\"" BOOT
			"\",\"uid\":1000,\"argv\":[\"x\"],\"pidns\":4026531836,\"lock\":\"owner\"}",
			true));
	snprintf(path, sizeof(path), "%s/t/owner", fx->user);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	view(fx, "t", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "running");
	assert_false(judge(&v, why, sizeof(why)));
	assert_non_null(strstr(why, "its lock is held"));
	tree_view_close(&v);
	close(fd);

	/* the record let go: orphaned, though the planted lock file is held */
	snprintf(path, sizeof(path), "%s/t/lock", fx->user);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	view(fx, "t", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "orphaned");
	assert_int_equal(v.lock, TREE_LOCK_TAKEN);
	tree_view_close(&v);
	close(fd);

	/* a lock somewhere this isorun does not know proves nothing */
	at(fx, "t", "owner",
	   "{\"pid\":4242,\"start_time\":123456,\"boot_id\":\"" BOOT
	   "\",\"uid\":1000,\"lock\":\"elsewhere\"}");
	view(fx, "t", true, &v);
	assert_string_equal(tree_seen_name(v.seen), "unreadable");
	assert_string_equal(v.reason, "owner record: \"lock\" is not \"owner\"");
	tree_view_close(&v);
}

/* The records tree/tree.c writes, read back: running, then kept with a live owner. */
static void test_real_tree(void **state)
{
	struct fx *fx = *state;
	char *argv[] = { "test_gc", NULL };
	struct sup_outcome *out = calloc(1, sizeof(*out));
	struct tree_tree t;
	struct tree_view v;
	struct tree_host here;
	struct iso_err e = { 0 };
	char why[1200];

	assert_non_null(out);
	tree_host_current(&here);
	if (!here.boot_id[0] || !here.pidns)
		fail_msg("this system's boot id or PID namespace cannot be read");
	assert_int_equal(tree_create(&t, fx->root, argv, &e), 0);
	tree_view(fx->user_fd, fx->user, t.id, &here, true, &v);
	assert_string_equal(tree_seen_name(v.seen), "running");
	assert_int_equal(v.owner.pid, getpid());
	assert_false(judge(&v, why, sizeof(why)));
	tree_view_close(&v);

	assert_int_equal(tree_record_state(&t, true, "isorun shell", &e), 0);
	close(t.lock_fd);
	t.lock_fd = -1;
	tree_view(fx->user_fd, fx->user, t.id, &here, true, &v);
	assert_string_equal(tree_seen_name(v.seen), "kept");
	assert_string_equal(v.reason, "isorun shell");
	/* the lock is free, but its owner (this process) lives: not garbage */
	assert_false(judge(&v, why, sizeof(why)));
	snprintf(v.reason, sizeof(v.reason), "owner pid %d is alive", (int)getpid());
	assert_string_equal(why, v.reason);
	tree_view_close(&v);

	assert_int_equal(tree_record_state(&t, false, "removal failed: x", &e), 0);
	tree_view(fx->user_fd, fx->user, t.id, &here, false, &v);
	assert_string_equal(tree_seen_name(v.seen), "retained");
	assert_string_equal(v.reason, "removal failed: x");
	tree_view_close(&v);
	tree_close(&t);
	free(out);
}

static void test_size(void **state)
{
	struct fx *fx = *state;
	char buf[8192] = { 0 }, path[PATH_MAX * 2];
	bool partial = true;
	uint64_t small, big;
	int fd = make_tree(fx, "t", NULL, false);

	small = tree_size(fd, &partial);
	assert_false(partial);
	/* 64 KiB of data shows; a symbolic link to a large file outside does not */
	for (int i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "%s/t/home/f%d", fx->user, i);
		{
			int f = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
			assert_true(f >= 0);
			assert_int_equal(write(f, buf, sizeof(buf)), (ssize_t)sizeof(buf));
			close(f);
		}
	}
	snprintf(path, sizeof(path), "%s/t/home/link", fx->user);
	assert_int_equal(symlink("/proc/kcore", path), 0);
	big = tree_size(fd, &partial);
	assert_false(partial);
	assert_true(big >= small + 8 * sizeof(buf));
	assert_true(big < small + 8 * sizeof(buf) + 256 * 1024);

	/* deeper than the walk goes: a lower bound, said so */
	snprintf(path, sizeof(path), "%s/t/home", fx->user);
	{
		int d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		for (int i = 0; i < 80 && d >= 0; i++) {
			int n;
			assert_int_equal(mkdirat(d, "d", 0700), 0);
			n = openat(d, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			close(d);
			d = n;
		}
		assert_true(d >= 0);
		close(d);
	}
	(void)tree_size(fd, &partial);
	assert_true(partial);
	close(fd);
}

static void test_user_dir(void **state)
{
	struct fx *fx = *state;
	struct iso_err e = { 0 };
	char path[PATH_MAX], other[PATH_MAX / 2];
	int fd;

	/* absent: -ENOENT without creating it */
	snprintf(other, sizeof(other), "%s/elsewhere", fx->dir);
	assert_int_equal(mkdir(other, 0700), 0);
	assert_int_equal(tree_open_user_dir(other, false, path, sizeof(path), &e), -ENOENT);
	/* group writable: refused */
	assert_int_equal(fchmod(fx->user_fd, 0770), 0);
	fd = tree_open_user_dir(fx->root, false, path, sizeof(path), &e);
	assert_true(fd < 0);
	assert_non_null(strstr(e.msg, "group or world writable"));
	assert_int_equal(fchmod(fx->user_fd, 0700), 0);
	fd = tree_open_user_dir(fx->root, false, path, sizeof(path), &e);
	assert_true(fd >= 0);
	assert_string_equal(path, fx->user);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_parse_valid),
		cmocka_unit_test(test_owner_parse_rejects),
		cmocka_unit_test_setup_teardown(test_fate_alive_and_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fate_other_boot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fate_unprovable, setup, teardown),
		cmocka_unit_test(test_verdict_each_rule),
		cmocka_unit_test_setup_teardown(test_view_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_judge_holders_and_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_view_owner_is_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_real_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size, setup, teardown),
		cmocka_unit_test_setup_teardown(test_user_dir, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
