/* SPDX-License-Identifier: MIT */
/*
 * tree_rmtree() against real trees under a fresh mkdtemp() directory.  Must pass
 * as root and as an ordinary user: the mount tests enter a user namespace when
 * not root, the permission tests rely only on owning the files.
 */
#include "tree/rmtree.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

/*
 * A removal that stops making progress loops forever; SIGALRM turns that
 * into a failure instead of a hung suite.  Seconds, far above the real cost.
 */
#define WATCHDOG 300

struct fx {
	char path[PATH_MAX / 2]; /* the per-test directory; half, so "%s/rel" fits PATH_MAX */
	int fd;
	struct rlimit nofile; /* restored by teardown, in case a test failed midway */
};

/* "<fx->path>/<rel>" */
static const char *at(const struct fx *fx, const char *rel, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", fx->path, rel);

	assert_true(n > 0 && (size_t)n < len);
	return buf;
}

static int setup(void **state)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	if (getrlimit(RLIMIT_NOFILE, &fx->nofile) < 0 ||
	    unit_mkdtemp(fx->path, sizeof(fx->path), "test_rmtree-XXXXXX") < 0) {
		free(fx);
		return -1;
	}
	fx->fd = open(fx->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fx->fd < 0) {
		rmdir(fx->path);
		free(fx);
		return -1;
	}
	*state = fx;
	alarm(WATCHDOG);
	return 0;
}

/* The fixture goes with tree_rmtree() itself: rm -rf cannot do mode-000 trees as a user. */
static int teardown(void **state)
{
	struct fx *fx = *state;
	char *slash = strrchr(fx->path, '/');
	struct iso_err e = { 0 };
	char buf[512];
	int dfd, r;

	alarm(0);
	setrlimit(RLIMIT_NOFILE, &fx->nofile);
	close(fx->fd);
	*slash = '\0';
	dfd = open(*fx->path ? fx->path : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*slash = '/';
	if (dfd < 0)
		return -1;
	r = tree_rmtree(dfd, slash + 1, fx->path, NULL, &e);
	close(dfd);
	if (r < 0)
		fprintf(stderr, "teardown: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	free(fx);
	return r < 0 ? -1 : 0;
}

static void mk_file(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x\n", 2), 2);
	assert_int_equal(close(fd), 0);
}

/* mkdir and open; the caller closes. */
static int mk_dir(int dfd, const char *name)
{
	int fd;

	assert_int_equal(mkdirat(dfd, name, 0700), 0);
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	assert_true(fd >= 0);
	return fd;
}

static bool exists(int dfd, const char *path)
{
	struct stat st;

	return fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Entries in a directory besides "." and "..". */
static int count_entries(int dfd, const char *path)
{
	int fd = openat(dfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static int count_fds(void)
{
	return count_entries(AT_FDCWD, "/proc/self/fd");
}

static void test_removes_everything_and_counts(void **state)
{
	struct fx *fx = *state;
	struct tree_rm_stats st = { 1, 1 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX];
	int t, d1, d2, fds;

	t = mk_dir(fx->fd, "t");
	mk_file(t, "a");
	mk_file(t, "b");
	assert_int_equal(mkfifoat(t, "fifo", 0600), 0);
	assert_int_equal(symlinkat("a", t, "link"), 0);
	d1 = mk_dir(t, "d1");
	mk_file(d1, "c");
	d2 = mk_dir(d1, "d2");
	close(d2);
	close(d1);
	close(mk_dir(t, "empty"));
	close(t);

	fds = count_fds();
	assert_int_equal(tree_rmtree(fx->fd, "t", at(fx, "t", disp, sizeof(disp)), &st, &e), 0);
	assert_int_equal(count_fds(), fds);
	assert_false(exists(fx->fd, "t"));
	assert_int_equal(st.files, 5); /* a, b, fifo, link, c */
	assert_int_equal(st.dirs, 4);  /* d1, d2, empty, t */

	/* An empty top; stats and error record are optional. */
	close(mk_dir(fx->fd, "u"));
	assert_int_equal(tree_rmtree(fx->fd, "u", "/somewhere/u", NULL, NULL), 0);
	assert_false(exists(fx->fd, "u"));
}

static void test_top_is_checked(void **state)
{
	static const char *const bad[] = { "", ".", "..", "a/b", "/abs" };
	struct fx *fx = *state;
	struct tree_rm_stats st = { 1, 1 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX], want[PATH_MAX + 32];
	size_t i;
	int d;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tree_rmtree(fx->fd, bad[i], "x", &st, &e), -EINVAL);

	assert_int_equal(
		tree_rmtree(fx->fd, "missing", at(fx, "missing", disp, sizeof(disp)), &st, &e),
		-ENOENT);
	assert_int_equal(e.errnum, ENOENT);
	snprintf(want, sizeof(want), "stat '%s'", disp);
	assert_string_equal(e.msg, want);

	/* A file is not removed: the caller asked for a directory. */
	mk_file(fx->fd, "file");
	assert_int_equal(tree_rmtree(fx->fd, "file", at(fx, "file", disp, sizeof(disp)), &st, &e),
			 -ENOTDIR);
	snprintf(want, sizeof(want), "open '%s'", disp);
	assert_string_equal(e.msg, want);
	assert_true(exists(fx->fd, "file"));

	/* Nor is a symlink to a directory, nor what it points at. */
	d = mk_dir(fx->fd, "target");
	mk_file(d, "keep");
	close(d);
	assert_int_equal(symlinkat("target", fx->fd, "link"), 0);
	assert_int_equal(tree_rmtree(fx->fd, "link", at(fx, "link", disp, sizeof(disp)), &st, &e),
			 -ENOTDIR);
	assert_true(exists(fx->fd, "link"));
	assert_true(exists(fx->fd, "target/keep"));
	assert_int_equal(st.files, 0);
	assert_int_equal(st.dirs, 0);
}

/* Requirement 1: links are removed, never followed, not even by chmod. */
static void test_symlinks_not_followed(void **state)
{
	struct fx *fx = *state;
	struct tree_rm_stats st = { 0 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX], out[PATH_MAX];
	struct stat sb;
	int t, sub, o;

	o = mk_dir(fx->fd, "out");
	mk_file(o, "keep");
	close(o);
	/* Read-only, so that removal through a link would need a chmod first. */
	o = mk_dir(fx->fd, "ro");
	mk_file(o, "keep");
	assert_int_equal(fchmod(o, 0500), 0);
	close(o);

	t = mk_dir(fx->fd, "t");
	assert_int_equal(symlinkat(at(fx, "out", out, sizeof(out)), t, "abs-dir"), 0);
	assert_int_equal(symlinkat("../out", t, "rel-dir"), 0);
	assert_int_equal(symlinkat(at(fx, "out/keep", out, sizeof(out)), t, "abs-file"), 0);
	assert_int_equal(symlinkat(at(fx, "ro", out, sizeof(out)), t, "ro-dir"), 0);
	assert_int_equal(symlinkat("nowhere", t, "dangling"), 0);
	sub = mk_dir(t, "sub");
	assert_int_equal(symlinkat("..", sub, "up"), 0);
	assert_int_equal(symlinkat("/", sub, "root"), 0);
	close(sub);
	close(t);

	assert_int_equal(tree_rmtree(fx->fd, "t", at(fx, "t", disp, sizeof(disp)), &st, &e), 0);
	assert_false(exists(fx->fd, "t"));
	assert_int_equal(st.files, 7);
	assert_int_equal(st.dirs, 2);
	assert_true(exists(fx->fd, "out/keep"));
	assert_true(exists(fx->fd, "ro/keep"));
	assert_int_equal(fstatat(fx->fd, "ro", &sb, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(sb.st_mode & 07777, 0500);
	/* Let teardown in without depending on the code under test's chmod. */
	assert_int_equal(fchmodat(fx->fd, "ro", 0700, 0), 0);
}

/* Requirement 3: directories that deny their owner read, write or search. */
static void test_unreadable_unwritable_dirs(void **state)
{
	static const struct {
		const char *name;
		mode_t mode;
	} dirs[] = {
		{ "m000", 0000 }, { "m500", 0500 }, { "m600", 0600 },
		{ "m300", 0300 }, { "m100", 0100 }, { "m400", 0400 },
	};
	struct fx *fx = *state;
	struct tree_rm_stats st = { 0 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX], buf[512];
	size_t i;
	int t, d, in;

	t = mk_dir(fx->fd, "t");
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		d = mk_dir(t, dirs[i].name);
		mk_file(d, "f1");
		mk_file(d, "f2");
		assert_int_equal(fchmodat(d, "f2", 0, 0), 0);
		/* Nested: the remedy must work again one level down. */
		in = mk_dir(d, "inner");
		mk_file(in, "f3");
		assert_int_equal(fchmod(in, dirs[i].mode), 0);
		close(in);
		close(mk_dir(d, "empty"));
		assert_int_equal(fchmodat(d, "empty", dirs[i].mode, 0), 0);
		assert_int_equal(fchmod(d, dirs[i].mode), 0);
		close(d);
	}
	close(t);
	/* The top itself without permissions, and its parent untouched. */
	assert_int_equal(fchmodat(fx->fd, "t", 0500, 0), 0);

	assert_int_equal(tree_rmtree(fx->fd, "t", at(fx, "t", disp, sizeof(disp)), &st, &e), 0);
	if (exists(fx->fd, "t"))
		fail_msg("t left behind: %s", iso_err_format(&e, buf, sizeof(buf)));
	assert_int_equal(st.files, 6 * 3);
	assert_int_equal(st.dirs, 6 * 3 + 1);

	/* A top with mode 000. */
	t = mk_dir(fx->fd, "t0");
	mk_file(t, "f");
	assert_int_equal(fchmod(t, 0), 0);
	close(t);
	assert_int_equal(tree_rmtree(fx->fd, "t0", at(fx, "t0", disp, sizeof(disp)), &st, &e), 0);
	assert_false(exists(fx->fd, "t0"));
	assert_int_equal(st.files, 1);
	assert_int_equal(st.dirs, 1);
}

/*
 * Requirement 4: far deeper than PATH_MAX, with fewer fds allowed than there
 * are levels.
 */
static void test_deeper_than_path_max(void **state)
{
	enum { DEPTH = 5000 };
	static const char level[] = "a-rather-long-level-name";
	struct fx *fx = *state;
	struct tree_rm_stats st = { 0 };
	struct iso_err e = { 0 };
	struct rlimit few;
	char disp[PATH_MAX], buf[512];
	int i, fd, next, fds;

	fd = mk_dir(fx->fd, "t");
	for (i = 0; i < DEPTH; i++) {
		if (i % 1000 == 0)
			mk_file(fd, "f");
		next = mk_dir(fd, level);
		close(fd);
		fd = next;
	}
	mk_file(fd, "bottom");
	close(fd);
	assert_true(DEPTH * sizeof(level) > 10 * PATH_MAX);

	fds = count_fds();
	few = fx->nofile;
	few.rlim_cur = 32;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &few), 0);
	i = tree_rmtree(fx->fd, "t", at(fx, "t", disp, sizeof(disp)), &st, &e);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &fx->nofile), 0);
	if (i)
		fail_msg("iso_rmtree: %s", iso_err_format(&e, buf, sizeof(buf)));
	assert_false(exists(fx->fd, "t"));
	assert_int_equal(st.files, DEPTH / 1000 + 1);
	assert_int_equal(st.dirs, DEPTH + 1);
	assert_int_equal(count_fds(), fds);
}

/* Requirement 7, for correctness only. */
static void test_flat_directory(void **state)
{
	enum { FILES = 20000 };
	struct fx *fx = *state;
	struct tree_rm_stats st = { 0 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX], name[32];
	int t, i, f;

	t = mk_dir(fx->fd, "t");
	for (i = 0; i < FILES; i++) {
		snprintf(name, sizeof(name), "file-%05d", i);
		f = openat(t, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		assert_true(f >= 0);
		close(f);
	}
	close(t);
	assert_int_equal(tree_rmtree(fx->fd, "t", at(fx, "t", disp, sizeof(disp)), &st, &e), 0);
	assert_false(exists(fx->fd, "t"));
	assert_int_equal(st.files, FILES);
	assert_int_equal(st.dirs, 1);
}

/* --- mount tests: in a child with its own mount namespace --- */

/* A mount namespace (in a user namespace mapped to root when not root). */
static int enter_mount_ns(void)
{
	if (unit_enter_ns(CLONE_NEWNS) < 0)
		return -1;
	/* Nothing mounted here may reach the host's namespace. */
	return mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL);
}

/* Mounts vanish with the child's namespace; the parent sees plain directories. */
static void run_in_mount_ns(int (*fn)(struct fx *), struct fx *fx)
{
	pid_t pid = unit_fork(WATCHDOG);

	if (pid == 0) {
		if (enter_mount_ns() < 0)
			_exit(NO_NAMESPACE);
		/*
		 * An fd opened before unshare() resolves paths in the old
		 * namespace, where the child's mounts do not exist.
		 */
		close(fx->fd);
		fx->fd = open(fx->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		_exit(fx->fd < 0 ? 1 : fn(fx));
	}
	unit_child_ok(unit_wait(pid),
		      "a private mount namespace (via a user namespace if not root)");
}

static int mount_tmpfs_with_file(const struct fx *fx, const char *rel)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", fx->path, rel);
	if (mount("tmpfs", path, "tmpfs", 0, "size=1m,mode=0700") < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/%s/inside", fx->path, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	return close(fd);
}

static void cleanup_after_child(struct fx *fx)
{
	struct iso_err e = { 0 };
	char disp[PATH_MAX], buf[512];

	if (tree_rmtree(fx->fd, "t", at(fx, "t", disp, sizeof(disp)), NULL, &e))
		fail_msg("cleanup: %s", iso_err_format(&e, buf, sizeof(buf)));
}

/* Requirements 2 and 5: a tmpfs (another device) below the tree. */
static int tmpfs_child(struct fx *fx)
{
	struct tree_rm_stats st = { 0 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX], want[PATH_MAX + 64];
	int fds = count_fds();

	CHILD_CHECK(mount_tmpfs_with_file(fx, "t/sub/mnt") == 0);
	snprintf(disp, sizeof(disp), "%s/t", fx->path);
	CHILD_CHECK(tree_rmtree(fx->fd, "t", disp, &st, &e) == -EBUSY);
	CHILD_CHECK(count_fds() == fds);
	snprintf(want, sizeof(want), "enter '%s/sub/mnt': is a mount point", disp);
	if (strcmp(e.msg, want)) {
		fprintf(stderr, "got  '%s'\nwant '%s'\n", e.msg, want);
		return 1;
	}
	CHILD_CHECK(e.errnum == 0);
	/* Nothing inside the mount touched; it and its parents stay. */
	CHILD_CHECK(exists(fx->fd, "t/sub/mnt/inside"));
	CHILD_CHECK(count_entries(fx->fd, "t") == 1);
	CHILD_CHECK(count_entries(fx->fd, "t/sub") == 1);
	/* Everything else went. */
	CHILD_CHECK(st.files == 5);
	CHILD_CHECK(st.dirs == 3);
	return 0;
}

static void test_mount_point_not_entered(void **state)
{
	struct fx *fx = *state;
	int t, sub, d;

	t = mk_dir(fx->fd, "t");
	mk_file(t, "a");
	sub = mk_dir(t, "sub");
	mk_file(sub, "b");
	close(mk_dir(sub, "mnt"));
	d = mk_dir(sub, "other");
	mk_file(d, "c");
	close(d);
	close(sub);
	d = mk_dir(t, "z");
	mk_file(d, "y");
	mk_file(d, "x");
	close(mk_dir(d, "w"));
	close(d);
	close(t);

	run_in_mount_ns(tmpfs_child, fx);
	cleanup_after_child(fx);
}

/* Requirement 2: a bind mount has the same st_dev; only the attribute tells. */
static int bind_child(struct fx *fx)
{
	struct tree_rm_stats st = { 0 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX], src[PATH_MAX], want[PATH_MAX + 64];
	struct stat a, b;

	snprintf(src, sizeof(src), "%s/out", fx->path);
	snprintf(disp, sizeof(disp), "%s/t/bind", fx->path);
	CHILD_CHECK(mount(src, disp, NULL, MS_BIND, NULL) == 0);
	CHILD_CHECK(fstatat(fx->fd, "t", &a, 0) == 0);
	CHILD_CHECK(fstatat(fx->fd, "t/bind", &b, 0) == 0);
	CHILD_CHECK(a.st_dev == b.st_dev);

	snprintf(disp, sizeof(disp), "%s/t", fx->path);
	CHILD_CHECK(tree_rmtree(fx->fd, "t", disp, &st, &e) == -EBUSY);
	snprintf(want, sizeof(want), "enter '%s/bind': is a mount point", disp);
	if (strcmp(e.msg, want)) {
		fprintf(stderr, "got  '%s'\nwant '%s'\n", e.msg, want);
		return 1;
	}
	CHILD_CHECK(exists(fx->fd, "out/keep"));
	CHILD_CHECK(exists(fx->fd, "t/bind/keep"));
	CHILD_CHECK(count_entries(fx->fd, "t") == 1);
	CHILD_CHECK(st.files == 1);
	return 0;
}

static void test_bind_mount_not_entered(void **state)
{
	struct fx *fx = *state;
	int t, o;

	o = mk_dir(fx->fd, "out");
	mk_file(o, "keep");
	close(o);
	t = mk_dir(fx->fd, "t");
	mk_file(t, "a");
	close(mk_dir(t, "bind"));
	close(t);

	run_in_mount_ns(bind_child, fx);
	assert_true(exists(fx->fd, "out/keep"));
	cleanup_after_child(fx);
}

enum { CHAIN = 40 };
#define CHAIN_LEVEL "level-of-a-chain"

/*
 * Requirement 5: two failures, one deep below (its path longer than e->msg);
 * the one reported is one of them, not a parent's ENOTEMPTY that follows.
 */
static int two_failures_child(struct fx *fx)
{
	struct tree_rm_stats st = { 0 };
	struct iso_err e = { 0 };
	char disp[PATH_MAX], rel[PATH_MAX], want[PATH_MAX + 64];
	size_t len = 0;
	int i, fds = count_fds();

	len += snprintf(rel + len, sizeof(rel) - len, "t/c");
	for (i = 0; i < CHAIN; i++)
		len += snprintf(rel + len, sizeof(rel) - len, "/" CHAIN_LEVEL);
	snprintf(rel + len, sizeof(rel) - len, "/mnt");
	CHILD_CHECK(mount_tmpfs_with_file(fx, rel) == 0);
	CHILD_CHECK(mount_tmpfs_with_file(fx, "t/m2") == 0);

	snprintf(disp, sizeof(disp), "%s/t", fx->path);
	CHILD_CHECK(tree_rmtree(fx->fd, "t", disp, &st, &e) == -EBUSY);
	CHILD_CHECK(count_fds() == fds);
	snprintf(want, sizeof(want), "enter '%s/m2': is a mount point", disp);
	if (strcmp(e.msg, want)) {
		/* The deep one: start and end of the path kept, the middle elided. */
		snprintf(want, sizeof(want), "enter '%s/c/", disp);
		CHILD_CHECK(!strncmp(e.msg, want, strlen(want)));
		CHILD_CHECK(strstr(e.msg, "..."));
		snprintf(want, sizeof(want), "/" CHAIN_LEVEL "/mnt': is a mount point");
		CHILD_CHECK(strlen(e.msg) > strlen(want));
		CHILD_CHECK(!strcmp(e.msg + strlen(e.msg) - strlen(want), want));
	}
	CHILD_CHECK(exists(fx->fd, "t/m2/inside"));
	snprintf(rel + len, sizeof(rel) - len, "/mnt/inside");
	CHILD_CHECK(exists(fx->fd, rel));
	/* Only the paths to the two mounts are left. */
	CHILD_CHECK(count_entries(fx->fd, "t") == 2);
	for (len = 3, i = 0; i <= CHAIN; i++) {
		rel[len] = '\0';
		CHILD_CHECK(count_entries(fx->fd, rel) == 1);
		len += 1 + strlen(CHAIN_LEVEL);
	}
	CHILD_CHECK(st.files == 3 + CHAIN);
	CHILD_CHECK(st.dirs == 2);
	return 0;
}

static void test_keeps_going_reports_first(void **state)
{
	struct fx *fx = *state;
	int t, fd, next, i;

	t = mk_dir(fx->fd, "t");
	mk_file(t, "a");
	mk_file(t, "b");
	close(mk_dir(t, "m2"));
	fd = mk_dir(t, "c");
	for (i = 0; i < CHAIN; i++) {
		mk_file(fd, "f");
		next = mk_dir(fd, CHAIN_LEVEL);
		close(fd);
		fd = next;
	}
	close(mk_dir(fd, "mnt"));
	close(fd);
	fd = mk_dir(t, "d");
	mk_file(fd, "e");
	close(mk_dir(fd, "g"));
	close(fd);
	close(t);

	run_in_mount_ns(two_failures_child, fx);
	cleanup_after_child(fx);
}

static const char *const records[] = { "outcome", "owner", "lock", NULL };

static bool always_stop(void *arg)
{
	(*(int *)arg)++;
	return true;
}

/* Records go last: a removal that stops (or fails) midway leaves them all. */
static void test_last_names_stay_when_stopped(void **state)
{
	struct fx *fx = *state;
	struct iso_err e = { 0 };
	int asked = 0;
	struct tree_rm_stop stop = { always_stop, &asked };
	int t = mk_dir(fx->fd, "t"), d = mk_dir(t, "home");
	char name[16];

	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		mk_file(d, name);
	}
	close(d);
	for (const char *const *r = records; *r; r++)
		mk_file(t, *r);
	assert_int_equal(tree_rmtree_last(fx->fd, "t", t, records, "T", &stop, &e), -ECANCELED);
	assert_true(asked > 0);
	assert_non_null(strstr(e.msg, "stopped"));
	for (const char *const *r = records; *r; r++)
		assert_true(exists(t, *r));
	/* what is left is removed by a later call without a stop */
	assert_int_equal(tree_rmtree_last(fx->fd, "t", t, records, "T", NULL, &e), 0);
	assert_false(exists(fx->fd, "t"));
	close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_removes_everything_and_counts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_top_is_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_unwritable_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deeper_than_path_max, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flat_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mount_point_not_entered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bind_mount_not_entered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_keeps_going_reports_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_last_names_stay_when_stopped, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
