// SPDX-License-Identifier: MIT
/*
 * The environment scan `isorun ls`/`gc` find an orphaned run's processes by:
 * the exact ISORUN_NAMESPACE=<tree> entry, read as a stream, against a fake
 * /proc (environ, stat and status files); near misses are never a match.
 */
#include "tree/orphans.h"

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

#define TREE "/tmp/isorun-1000/20261204T000000Z-abcdefghijklmnopqrst"

static void put(const char *dir, const char *name, const char *data, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* A fake /proc/PID with this environment (len bytes), state S, start `start`, uid. */
static void fake(const char *proc, int pid, const char *env, size_t len, char state,
		 unsigned long start, unsigned uid)
{
	char dir[PATH_MAX], stat[512], status[128];

	snprintf(dir, sizeof(dir), "%s/%d", proc, pid);
	assert_int_equal(mkdir(dir, 0700), 0);
	put(dir, "environ", env, len);
	snprintf(stat, sizeof(stat),
		 "%d (a) b) %c 1 %d %d 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 %lu 0 0", pid, state,
		 pid, pid, start);
	put(dir, "stat", stat, strlen(stat));
	snprintf(status, sizeof(status), "Name:\ta\nUid:\t%u\t%u\t%u\t%u\n", uid, uid, uid, uid);
	put(dir, "status", status, strlen(status));
}

static bool has(const char *env, size_t len, const char *entry)
{
	char path[PATH_MAX];
	int fd;
	bool r;

	assert_true(unit_mkdtemp(path, sizeof(path) - 8, "test_orphans-XXXXXX") == 0);
	put(path, "e", env, len);
	strcat(path, "/e");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	r = tree_environ_has(fd, entry);
	close(fd);
	unlink(path);
	rmdir(dirname(path));
	return r;
}

#define HAS(lit, entry) has(lit, sizeof(lit) - 1, entry)

static void test_environ_exact(void **state)
{
	const char *e = "ISORUN_NAMESPACE=" TREE;

	assert_true(HAS("A=1\0ISORUN_NAMESPACE=" TREE "\0B=2\0", e));
	assert_true(HAS("ISORUN_NAMESPACE=" TREE "\0", e));
	/* the last entry without its NUL */
	assert_true(HAS("A=1\0ISORUN_NAMESPACE=" TREE, e));
	/* near misses: longer, shorter, inside another value, another name */
	assert_false(HAS("ISORUN_NAMESPACE=" TREE "x\0", e));
	assert_false(HAS("ISORUN_NAMESPACE=" TREE "/home\0", e));
	assert_false(
		HAS("ISORUN_NAMESPACE=/tmp/isorun-1000/20261204T000000Z-abcdefghijklmnopqrs\0", e));
	assert_false(HAS("X_ISORUN_NAMESPACE=" TREE "\0", e));
	assert_false(HAS("A=ISORUN_NAMESPACE=" TREE "\0", e));
	assert_false(HAS("", e));
	assert_false(HAS("\0\0\0", e));
}

static void test_environ_large(void **state)
{
	/* the entry straddles read boundaries, after 100 KiB of other variables */
	size_t pad = 100 * 1024 + 3, n = strlen("ISORUN_NAMESPACE=" TREE);
	char *buf = malloc(pad + n + 2);

	assert_non_null(buf);
	memset(buf, 'a', pad);
	memcpy(buf, "PAD=", 4);
	buf[pad] = '\0';
	memcpy(buf + pad + 1, "ISORUN_NAMESPACE=" TREE, n);
	buf[pad + 1 + n] = '\0';
	assert_true(has(buf, pad + n + 2, "ISORUN_NAMESPACE=" TREE));
	buf[pad + n] = 'X';
	assert_false(has(buf, pad + n + 2, "ISORUN_NAMESPACE=" TREE));
	free(buf);
}

static void test_find_fake_proc(void **state)
{
	static const char run[] = "PATH=/bin\0ISORUN_NAMESPACE=" TREE "\0";
	static const char near[] = "ISORUN_NAMESPACE=" TREE "x\0";
	char proc[PATH_MAX / 2], cmd[PATH_MAX];
	struct tree_orphan_scan s = { 0 };
	struct tree_orphan_query q = { .tree = TREE, .uid = 0, .exclude = 30 };

	assert_int_equal(unit_mkdtemp(proc, sizeof(proc), "test_orphans-XXXXXX"), 0);
	q.proc = proc;
	fake(proc, 10, run, sizeof(run) - 1, 'S', 111, 1000);
	fake(proc, 11, near, sizeof(near) - 1, 'S', 112, 1000);
	fake(proc, 12, run, sizeof(run) - 1, 'Z', 113, 1000); /* a zombie: already dead */
	fake(proc, 30, run, sizeof(run) - 1, 'R', 114, 1000); /* ourselves */
	fake(proc, 1, run, sizeof(run) - 1, 'S', 1, 0);	      /* init: never the run's */
	fake(proc, 40, "", 0, 'S', 115, 1000);		      /* a cleared environment */
	assert_int_equal(tree_orphans_find(&q, &s), 1);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.v[0].pid, 10);
	assert_int_equal(s.v[0].start, 111);
	assert_int_equal(s.v[0].pidfd, -1);
	/* a rescan adds only what is new */
	fake(proc, 50, run, sizeof(run) - 1, 'S', 116, 1000);
	assert_int_equal(tree_orphans_find(&q, &s), 1);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.v[1].pid, 50);
	assert_int_equal(tree_orphans_find(&q, &s), 0);
	assert_int_equal(s.unreadable, 0);
	tree_orphans_free(&s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", proc);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_environ_exact),
		cmocka_unit_test(test_environ_large),
		cmocka_unit_test(test_find_fake_proc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
