// SPDX-License-Identifier: MIT
/*
 * The tree's shield (tree/shield.c): its names in the user directory, the
 * identity set's alias for the shield's device, and, as root of the host, the
 * proof itself against a holder through the shield and one through another
 * mount of it (each must fail the proof; a clean tree must pass it).
 */
#include "tests/unit/unit.h"

#include <limits.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "tree/shield.h"
#include "tree/treeid.h"

/* the beds are no nested trees: no tmpfs watch to hand over */
static int no_nest = -1;

static void test_own_names(void **state)
{
	(void)state;
	assert_true(tree_shield_is_own(".20261206T011646Z-nkcxooxiy7ygyqxdahfz.w"));
	assert_true(tree_shield_is_own(TREE_SHIELD_LOWER));
	assert_true(tree_shield_is_own(".20261206T011646Z-nkcxooxiy7ygyqxdahfz.l"));
	assert_false(tree_shield_is_own(".l"));
	/* a tree's own name, and near misses, are not the shield's */
	assert_false(tree_shield_is_own("20261206T011646Z-nkcxooxiy7ygyqxdahfz"));
	assert_false(tree_shield_is_own(".w"));
	assert_false(tree_shield_is_own("x.w"));
	assert_false(tree_shield_is_own(".emptyx"));
}

static void test_alias_matches_the_same_inode(void **state)
{
	struct tree_treeid t = { 0 };
	char dir[PATH_MAX];
	struct stat st;
	dev_t other = makedev(0, 4242);

	(void)state;
	assert_int_equal(unit_mkdtemp(dir, sizeof(dir), "shield.XXXXXX"), 0);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(tree_treeid_build(&t, dir, NULL), 0);
	assert_true(tree_treeid_has(&t, st.st_dev, st.st_ino));
	/* control: without an alias another device is another file */
	assert_false(tree_treeid_has(&t, other, st.st_ino));
	assert_false(tree_treeid_on_dev(&t, other));
	t.alias_dev = other;
	assert_true(tree_treeid_has(&t, other, st.st_ino));
	assert_true(tree_treeid_on_dev(&t, other));
	/* the alias is a device, not a wildcard: another inode on it is not the tree's */
	assert_false(tree_treeid_has(&t, other, st.st_ino + 1000003));
	tree_treeid_free(&t);
	rmdir(dir);
}

/* A root of the host with a tree on a filesystem that can carry a shield, or a skip. */
struct bed {
	char root[PATH_MAX], user[PATH_MAX + 16], tree[PATH_MAX + 32];
	int user_fd, tree_fd;
	bool own_fs; /* its tmpfs is mounted on root */
	struct tree_shield sh;
};

static bool bed_up(struct bed *b)
{
	FILE *f;

	snprintf(b->root, sizeof(b->root), "/dev/shm/isorun-unit.XXXXXX");
	if (!mkdtemp(b->root))
		return false;
	/*
	 * A tmpfs of its own in a mount namespace of its own: a namespace another
	 * run on this host made (a suite beside this one) shows /dev/shm without
	 * our shield, so a tree there would rightly be proven exposed.
	 */
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("isorun-unit", b->root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700") < 0)
		return false;
	b->own_fs = true;
	snprintf(b->user, sizeof(b->user), "%s/isorun-0", b->root);
	snprintf(b->tree, sizeof(b->tree), "%s/t", b->user);
	if (mkdir(b->user, 0711) < 0 || mkdir(b->tree, 0711) < 0)
		return false;
	f = fopen(strcat(strcpy((char[PATH_MAX + 40]){ 0 }, b->tree), "/owner"), "w");
	if (!f)
		return false;
	fclose(f);
	b->user_fd = open(b->user, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	b->tree_fd = open(b->tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return b->user_fd >= 0 && b->tree_fd >= 0 &&
	       tree_shield_raise(&b->sh, &(struct tree_shield_at){ b->user_fd, NULL, "t" },
				 b->tree_fd, b->tree, "owner", &no_nest) == 0;
}

static void bed_down(struct bed *b)
{
	char cmd[PATH_MAX + 16];

	tree_shield_unlock(&b->sh);
	tree_shield_forget(&b->sh);
	(void)umount2(b->tree, MNT_DETACH);
	if (b->user_fd >= 0)
		(void)tree_shield_remove_work(b->user_fd, "t", b->user, NULL);
	close(b->user_fd);
	close(b->tree_fd);
	if (b->own_fs)
		(void)umount2(b->root, MNT_DETACH);
	if (b->root[0] == '/') {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", b->root);
		(void)!system(cmd);
	}
}

static enum tree_shield_proof prove(struct bed *b)
{
	struct iso_err e;
	dev_t dev;

	enum tree_shield_proof p;

	tree_shield_unlock(&b->sh);
	p = tree_shield_prove(&(struct tree_shield_at){ b->user_fd, b->user, "t" }, &b->sh, &dev,
			      NULL, &e);
	tree_shield_forget(&b->sh);
	if (p != TREE_SHIELD_HELD)
		assert_int_equal(tree_shield_remove_work(b->user_fd, "t", b->user, NULL), 0);
	return p;
}

static void test_proof(void **state)
{
	struct bed b = { .user_fd = -1, .tree_fd = -1 };
	char file[PATH_MAX + 40], mnt[PATH_MAX + 40];
	int fd;

	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "# skip: only root's tree wears a shield\n");
		skip();
	}
	if (!bed_up(&b)) {
		bed_down(&b);
		unit_missing("a shield (overlayfs over a tree on /dev/shm)");
	}
	/* nothing holds it: proven */
	assert_int_equal(prove(&b), TREE_SHIELD_UNUSED);
	/* a descriptor through the shield: the unmount is refused */
	assert_int_equal(tree_shield_raise(&b.sh, &(struct tree_shield_at){ b.user_fd, NULL, "t" },
					   b.tree_fd, b.tree, "owner", &no_nest),
			 0);
	snprintf(file, sizeof(file), "%s/f", b.tree);
	fd = open(file, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(prove(&b), TREE_SHIELD_HELD);
	close(fd);
	(void)umount2(b.tree, MNT_DETACH);
	assert_int_equal(tree_shield_remove_work(b.user_fd, "t", b.user, NULL), 0);
	/* another mount of the shield: unmounted, but the superblock lives on */
	assert_int_equal(tree_shield_raise(&b.sh, &(struct tree_shield_at){ b.user_fd, NULL, "t" },
					   b.tree_fd, b.tree, "owner", &no_nest),
			 0);
	snprintf(mnt, sizeof(mnt), "%s/mnt", b.root);
	assert_int_equal(mkdir(mnt, 0700), 0);
	assert_int_equal(mount(b.tree, mnt, NULL, MS_BIND, NULL), 0);
	assert_int_equal(prove(&b), TREE_SHIELD_ELSEWHERE);
	(void)umount2(mnt, MNT_DETACH);
	bed_down(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_names),
		cmocka_unit_test(test_alias_matches_the_same_inode),
		cmocka_unit_test(test_proof),
	};
	return cmocka_run_group_tests_name("shield", tests, NULL, NULL);
}
