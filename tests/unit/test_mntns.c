// SPDX-License-Identifier: MIT
/*
 * Whether one mount namespace shows a tree bare (tree_mntns_judge(), tree/mntns.h),
 * on namespaces written out by hand: a path must lead into a copy of the shield
 * wherever a mount of the tree's file system shows it, whatever else is mounted.
 */
#include <string.h>
#include <sys/sysmacros.h>

#include "tree/mntns.h"
#include "tests/unit/unit.h"

#define DISK   makedev(254, 0)
#define SHIELD makedev(0, 99)
#define TMPFS  makedev(0, 42)
#define REL    "/tmp/isorun-0/T"

#define ROW(i, p, d, r, at)                                                                        \
	{                                                                                          \
		.id = (i), .parent = (p), .dev = (d), .root = (char *)(r), .point = (char *)(at)   \
	}

static int judge(const struct tree_mntns_row *rows, size_t n, char *where)
{
	const struct tree_mntns_query q = { .disk = DISK, .rel = REL, .shield = SHIELD };

	where[0] = '\0';
	return tree_mntns_judge(&q, rows, n, where, 256);
}

static void test_shield_on_the_only_disk_mount(void **state)
{
	const struct tree_mntns_row rows[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(2, 1, SHIELD, "/", REL),
	};
	char where[256];

	(void)state;
	assert_int_equal(judge(rows, 2, where), 0);
	/* control: without it, the disk shows the tree at its path */
	assert_int_equal(judge(rows, 1, where), 1);
	assert_string_equal(where, REL);
}

/*
 * Root's trees' directory bound on itself (tree_shield_share()): two mounts of
 * the disk contain the tree, and both lead into the shield mounted on the bind.
 */
static void test_shared_bind_of_the_trees_directory(void **state)
{
	const struct tree_mntns_row rows[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(5, 1, DISK, "/tmp/isorun-0", "/tmp/isorun-0"),
		ROW(9, 5, SHIELD, "/", REL),
	};
	/* the shield mounted on the disk's first mount, then hidden by the bind */
	const struct tree_mntns_row under[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(9, 1, SHIELD, "/", REL),
		ROW(5, 1, DISK, "/tmp/isorun-0", "/tmp/isorun-0"),
	};
	char where[256];

	(void)state;
	assert_int_equal(judge(rows, 3, where), 0);
	assert_int_equal(judge(under, 3, where), 1);
	assert_string_equal(where, REL);
}

/* A copy of the shield elsewhere covers nothing: the count of mounts is not the proof. */
static void test_shield_elsewhere_covers_nothing(void **state)
{
	const struct tree_mntns_row rows[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(2, 1, SHIELD, "/", "/mnt/elsewhere"),
	};
	char where[256];

	(void)state;
	assert_int_equal(judge(rows, 2, where), 1);
	assert_string_equal(where, REL);
}

/* Something over the shield, or over /tmp, is not the shield: bare (by a cwd below it). */
static void test_what_is_on_top_decides(void **state)
{
	const struct tree_mntns_row over_shield[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(2, 1, SHIELD, "/", REL),
		ROW(3, 2, TMPFS, "/", REL),
	};
	const struct tree_mntns_row over_tmp[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(3, 1, TMPFS, "/", "/tmp"),
	};
	char where[256];

	(void)state;
	assert_int_equal(judge(over_shield, 3, where), 1);
	assert_int_equal(judge(over_tmp, 2, where), 1);
	assert_string_equal(where, REL);
}

/* Each path a disk mount shows the tree at needs the shield, and a part of it mounted is bare. */
static void test_every_path_and_every_part(void **state)
{
	const struct tree_mntns_row two_paths[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(2, 1, SHIELD, "/", REL),
		ROW(4, 1, DISK, "/tmp", "/mnt/t"),
	};
	const struct tree_mntns_row part[] = {
		ROW(1, 1, DISK, "/", "/"),
		ROW(2, 1, SHIELD, "/", REL),
		ROW(6, 1, DISK, REL "/home", "/srv/h"),
	};
	char where[256];

	(void)state;
	assert_int_equal(judge(two_paths, 3, where), 1);
	assert_string_equal(where, "/mnt/t/isorun-0/T");
	assert_int_equal(judge(part, 3, where), 1);
	assert_string_equal(where, "/srv/h");
}

/* A namespace that shows nothing of the disk, or the disk without the tree, shows nothing. */
static void test_other_file_systems_show_nothing(void **state)
{
	const struct tree_mntns_row rows[] = {
		ROW(1, 1, TMPFS, "/", "/"),
		ROW(2, 1, DISK, "/home", "/home"),
	};
	char where[256];

	(void)state;
	assert_int_equal(judge(rows, 2, where), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shield_on_the_only_disk_mount),
		cmocka_unit_test(test_shared_bind_of_the_trees_directory),
		cmocka_unit_test(test_shield_elsewhere_covers_nothing),
		cmocka_unit_test(test_what_is_on_top_decides),
		cmocka_unit_test(test_every_path_and_every_part),
		cmocka_unit_test(test_other_file_systems_show_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
