/* SPDX-License-Identifier: MIT */
/*
 * The ids of an ordinary user's namespace (issue 27): the /etc/subuid lines
 * isorun reads, the maps it asks newuidmap for, and the id filter against the
 * real kernel (in forked children: as root the filter is what says EPERM, as
 * an ordinary user it must let the user's own id and -1 through).
 */
#include "ns/ns.h"
#include "policy/policy.h"
#include "tree/rmtree.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <limits.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "unit.h"

static char dir[PATH_MAX];

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static void test_subid_find(void **state)
{
	char path[PATH_MAX + 16];
	struct ns_subid r = { 0 };
	struct iso_err e = { 0 };

	snprintf(path, sizeof(path), "%s/subuid", dir);
	write_text(path, "other:100000:65536\n"
			 "bad line\n"
			 "ci:1:0\n"	     /* count 0: not a range */
			 "ci:4294967295:2\n" /* past 2^32 */
			 "1001:200000:1000\n"
			 "ci:300000:10\n");
	/* by uid in digits when the name's lines are unusable; the first usable one */
	assert_int_equal(ns_subid_find(path, "ci", 1001, &r, &e), 1);
	assert_int_equal(r.start, 200000);
	assert_int_equal(r.count, 1000);
	assert_int_equal(ns_subid_find(path, "ci", 1002, &r, &e), 1);
	assert_int_equal(r.start, 300000);
	assert_int_equal(ns_subid_find(path, "other", 5, &r, &e), 1);
	assert_int_equal(r.start, 100000);
	assert_int_equal(ns_subid_find(path, "nobody", 5, &r, &e), 0);
	assert_int_equal(ns_subid_find(path, NULL, 5, &r, &e), 0);
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(ns_subid_find(path, "ci", 1001, &r, &e), 0);
	/* a directory cannot be read: an error naming it */
	assert_true(ns_subid_find(dir, "ci", 1001, &r, &e) < 0);
	assert_non_null(strstr(e.msg, dir));
}

/* A newuidmap first in PATH (an activated virtualenv in the checkout) is never the one taken. */
static void test_find_tool(void **state)
{
	char planted[PATH_MAX + 16], path[PATH_MAX + 64], got[256];
	const char *saved = getenv("PATH");
	char *keep = saved ? strdup(saved) : NULL;
	int r;

	snprintf(planted, sizeof(planted), "%s/newuidmap", dir);
	write_text(planted, "#!/bin/sh\nexit 0\n");
	assert_int_equal(chmod(planted, 0755), 0);
	snprintf(path, sizeof(path), "%s:/usr/bin:/bin", dir);
	assert_int_equal(setenv("PATH", path, 1), 0);
	r = ns_find_tool("newuidmap", got, sizeof(got));
	assert_true(r == 0 || r == -ENOENT);
	if (r == 0)
		assert_true(!strcmp(got, "/usr/bin/newuidmap") || !strcmp(got, "/bin/newuidmap"));
	else
		assert_string_equal(got, "");
	/* nor a tool only PATH knows */
	assert_int_equal(ns_find_tool("isorun-no-such-tool", got, sizeof(got)), -ENOENT);
	if (keep)
		assert_int_equal(setenv("PATH", keep, 1), 0);
	free(keep);
	(void)unlink(planted);
}

static void test_idmap_lines(void **state)
{
	const struct ns_subid range = { 100000, 65536 };
	struct ns_idmap_line l[3];

	/* --map-root: 0 is the caller, 1.. the range */
	assert_int_equal(ns_idmap_lines(0, 1001, &range, l), 2);
	assert_true(l[0].inside == 0 && l[0].outside == 1001 && l[0].count == 1);
	assert_true(l[1].inside == 1 && l[1].outside == 100000 && l[1].count == 65536);
	/* the caller's own id: the range around it, 0..65536 but 1001 */
	assert_int_equal(ns_idmap_lines(1001, 1001, &range, l), 3);
	assert_true(l[0].inside == 1001 && l[0].outside == 1001 && l[0].count == 1);
	assert_true(l[1].inside == 0 && l[1].outside == 100000 && l[1].count == 1001);
	assert_true(l[2].inside == 1002 && l[2].outside == 101001 && l[2].count == 64535);
	/* an id past the range: the range from 0, the id alone above it */
	assert_int_equal(ns_idmap_lines(70000, 70000, &range, l), 2);
	assert_true(l[1].inside == 0 && l[1].outside == 100000 && l[1].count == 65536);
}

/* In a child: the filter for uid:gid, then each call's answer against `want`. */
static int child_calls(uid_t uid, gid_t gid, const char *file)
{
	struct sock_filter *bpf = NULL;
	struct iso_err e = { 0 };
	size_t len = 0;
	uid_t other = uid == 65534 ? 65533 : 65534;
	int fd;

	CHILD_CHECK(pol_idfilter_build(uid, gid, &bpf, &len, &e) == 0);
	CHILD_CHECK(pol_filter_install(bpf, len, false, "ids", &e) == 0);
	free(bpf);
	errno = 0;
	CHILD_CHECK(syscall(SYS_setuid, (long)other) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_setgid, (long)other) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_setreuid, -1L, (long)other) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_setregid, (long)other, 0xffffffffL) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_setresuid, -1L, -1L, (long)other) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_setresgid, (long)other, -1L, -1L) < 0 && errno == EPERM);
	/* the upper half of a register is not the id: 2^32 + other is still other */
	CHILD_CHECK(syscall(SYS_setuid, 0x100000000L | other) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_chown, file, (long)other, -1L) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_lchown, file, -1L, (long)other) < 0 && errno == EPERM);
	CHILD_CHECK(syscall(SYS_fchownat, AT_FDCWD, file, (long)other, -1L, 0L) < 0 &&
		    errno == EPERM);
	fd = open(file, O_RDONLY | O_CLOEXEC);
	CHILD_CHECK(fd >= 0);
	CHILD_CHECK(syscall(SYS_fchown, fd, -1L, (long)other) < 0 && errno == EPERM);
	/* its own ids and -1, either width of it, reach the kernel */
	CHILD_CHECK(syscall(SYS_fchown, fd, (long)uid, (long)gid) == 0);
	close(fd);
	CHILD_CHECK(syscall(SYS_chown, file, -1L, 0xffffffffL) == 0);
	CHILD_CHECK(syscall(SYS_fchownat, AT_FDCWD, file, (long)uid, -1L, 0L) == 0);
	CHILD_CHECK(syscall(SYS_setresuid, -1L, 0xffffffffL, -1L) == 0);
	CHILD_CHECK(syscall(SYS_setresgid, (long)gid, -1L, -1L) == 0);
	CHILD_CHECK(syscall(SYS_setuid, (long)uid) == 0);
	/* setuid(-1) is the kernel's EINVAL, as bare */
	CHILD_CHECK(syscall(SYS_setuid, -1L) < 0 && errno == EINVAL);
	/* setfsuid is not filtered: it answers with the old id */
	CHILD_CHECK(syscall(SYS_setfsuid, (long)other) >= 0);
	/* other calls with ids in them pass */
	CHILD_CHECK(syscall(SYS_getresuid, NULL, NULL, NULL) < 0 && errno == EFAULT);
	return 0;
}

static void test_idfilter_kernel(void **state)
{
	char file[PATH_MAX + 16];
	pid_t pid;

	snprintf(file, sizeof(file), "%s/owned", dir);
	write_text(file, "");
	pid = unit_fork(30);
	if (pid == 0)
		_exit(child_calls(getuid(), getgid(), file));
	assert_int_equal(unit_wait(pid), 0);
	assert_int_equal(unlink(file), 0);
}

/*
 * The filter run on a seccomp_data of our making: the ABIs this kernel cannot
 * run here (i386, whose emulation is off; x32) are checked by their numbers.
 * Only the instructions pol_idfilter_build() emits are known.
 */
static uint32_t run_bpf(const struct sock_filter *f, size_t len, const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *i = &f[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			assert_true(i->k + 4 <= sizeof(*d));
			memcpy(&a, (const char *)d + i->k, 4);
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= i->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JA:
			pc += i->k;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			fail_msg("instruction %#x at %zu", i->code, pc);
		}
	}
	fail_msg("the filter ran off its end");
	return 0;
}

static uint32_t verdict(const struct sock_filter *f, size_t len, uint32_t arch, uint32_t abi,
			const char *call, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3)
{
	struct seccomp_data d = { .arch = arch, .args = { a0, a1, a2, a3 } };
	int nr = seccomp_syscall_resolve_name_arch(abi, call);

	assert_true(nr >= 0);
	d.nr = nr;
	return run_bpf(f, len, &d);
}

#define EPERM_RET (SECCOMP_RET_ERRNO | EPERM)

static void test_idfilter_abis(void **state)
{
	struct sock_filter *f = NULL;
	struct iso_err e = { 0 };
	size_t n = 0;

	if (seccomp_arch_native() != SCMP_ARCH_X86_64)
		skip();
	assert_int_equal(pol_idfilter_build(1001, 1002, &f, &n, &e), 0);
	/* i386's old calls take 16-bit ids: -1 is 0xffff, the upper half is not read */
	assert_int_equal(verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "setuid", 65534, 0, 0, 0),
			 EPERM_RET);
	assert_int_equal(verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "setuid", 1001, 0, 0, 0),
			 SECCOMP_RET_ALLOW);
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "setuid", 0x10000 | 1001, 0, 0, 0),
		SECCOMP_RET_ALLOW);
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "setresgid", 0xffff, 1002, 0xffff, 0),
		SECCOMP_RET_ALLOW);
	assert_int_equal(verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "chown", 0, 0xffff, 7, 0),
			 EPERM_RET);
	/* ... and the *32 calls full ones, where 0xffff is an id like any other */
	assert_int_equal(verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "setuid32", 0xffff, 0, 0, 0),
			 EPERM_RET);
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "setuid32", 0xffffffff, 0, 0, 0),
		SECCOMP_RET_ALLOW);
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "lchown32", 0, 1001, 65534, 0),
		EPERM_RET);
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_I386, SCMP_ARCH_X86, "fchownat", 0, 0, 1001, 1002),
		SECCOMP_RET_ALLOW);
	/* x32 shares x86_64's audit value, its numbers carry the x32 bit */
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_X86_64, SCMP_ARCH_X32, "setreuid", 0xffffffff, 0, 0, 0),
		EPERM_RET);
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_X86_64, SCMP_ARCH_X32, "fchown", 3, 1001, 1002, 0),
		SECCOMP_RET_ALLOW);
	assert_int_equal(verdict(f, n, AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, "setresuid",
				 0xffffffffffffffffULL, 1001, 65534, 0),
			 EPERM_RET);
	/* the gid is the gid's: a uid's value there is another id */
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, "setgid", 1001, 0, 0, 0),
		EPERM_RET);
	/* other calls and architectures pass */
	assert_int_equal(verdict(f, n, AUDIT_ARCH_X86_64, SCMP_ARCH_X86_64, "getuid", 0, 0, 0, 0),
			 SECCOMP_RET_ALLOW);
	assert_int_equal(
		verdict(f, n, AUDIT_ARCH_AARCH64, SCMP_ARCH_AARCH64, "setuid", 65534, 0, 0, 0),
		SECCOMP_RET_ALLOW);
	free(f);
}

/* Levels of the tree test_give_back_deep walks: past any recursion's or fd table's bound. */
#define DEEP 3000

/* The bottom directory of `top`'s chain of d, or -1. */
static int deep_bottom(int top)
{
	int fd = fcntl(top, F_DUPFD_CLOEXEC, 3);

	for (int i = 0; fd >= 0 && i < DEEP; i++) {
		int next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(fd);
		fd = next;
	}
	return fd;
}

/*
 * --map-users' give-back (issue 36 item 4): every entry at every depth, with
 * one fd at a time; a link to a directory outside is chowned itself, never
 * followed.  As root to another id; as a user to its own (then the walk alone).
 */
static void test_give_back_deep(void **state)
{
	uid_t to = getuid() == 0 ? 12345 : getuid();
	gid_t tg = getuid() == 0 ? 12345 : getgid();
	char top[PATH_MAX + 16], out[PATH_MAX + 16];
	struct iso_err e = { 0 };
	struct stat st;
	int fd, dfd, parent;

	(void)state;
	snprintf(top, sizeof(top), "%s/deep", dir);
	snprintf(out, sizeof(out), "%s/outside", dir);
	assert_int_equal(mkdir(top, 0700), 0);
	assert_int_equal(mkdir(out, 0700), 0);
	fd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(fd >= 0);
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	for (int i = 0; i < DEEP; i++) {
		int next;

		assert_int_equal(symlinkat(out, dfd, "out"), 0);
		assert_int_equal(mkdirat(dfd, "d", 0700), 0);
		next = openat(dfd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		assert_true(next >= 0);
		close(dfd);
		dfd = next;
	}
	close(dfd);
	assert_int_equal(ns_idmap_give_back(top, to, tg, &e), 0);
	dfd = deep_bottom(fd);
	assert_true(dfd >= 0);
	assert_int_equal(fstat(dfd, &st), 0);
	assert_int_equal(st.st_uid, to);
	assert_int_equal(st.st_gid, tg);
	parent = openat(dfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(fstatat(parent, "out", &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(st.st_uid, to);
	close(parent);
	close(dfd);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_uid, getuid());
	close(fd);
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_int_equal(tree_rmtree(fd, "deep", top, NULL, &e), 0);
	close(fd);
	assert_int_equal(rmdir(out), 0);
}

static int setup(void **state)
{
	return unit_mkdtemp(dir, sizeof(dir), "isorun-test-idmap.XXXXXX");
}

static int teardown(void **state)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/subuid", dir);
	(void)unlink(path);
	snprintf(path, sizeof(path), "%s/owned", dir);
	(void)unlink(path);
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subid_find),	cmocka_unit_test(test_find_tool),
		cmocka_unit_test(test_idmap_lines),	cmocka_unit_test(test_give_back_deep),
		cmocka_unit_test(test_idfilter_kernel), cmocka_unit_test(test_idfilter_abis),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
