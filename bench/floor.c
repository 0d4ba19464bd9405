// SPDX-License-Identifier: MIT
/*
 * floor ROOT CMD...     the least a run of isorun must do, as one small program
 * floor -p ROOT CMD...  the same with the command in a user+pid namespace of its own
 * floor -r CMD...       the least a relay of the command's stdout must do
 * floor -s DIR N        N holder scans of DIR back to back (to profile the scan)
 *
 * A floor does less than isorun and is timed beside it (bench/launch.sh): a line
 * above its target whose floor is above the target too cannot reach it by any
 * change that keeps what the floor does.
 *
 * ROOT: make the lean tree (a run directory in ROOT with an owner record, flocked,
 * and home/, tmp/, run/), start CMD as a child, wait for it, run isorun's own
 * holder scan on the tree (the teardown guard, which issue 17 keeps), remove the
 * tree.  No policy, cgroup, relay, environment, report or exec record; no error
 * reporting beyond the exit code.
 *
 * -p: as ROOT, but the child is born in a user, mount and pid namespace of its
 * own (clone3), maps root to the caller, mounts a fresh /proc and starts CMD
 * beside itself as init.
 *
 * -r: CMD's stdout is a pipe as large as isorun's (1 MiB), moved to our stdout by
 * blocking splices of a whole pipe; our stdout is grown to match, as isorun's
 * relay does.  No event loop, no launch, no second stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tree/holders.h"

extern char **environ;

static const char *const dirs[] = { "home", "tmp", "run" };

static int scan(const char *dir)
{
	struct tree_holder_query q = { .tree = dir, .exclude = getpid() };
	struct tree_holder *h;
	int n = tree_find_holders(&q, &h, NULL);

	if (n < 0) {
		fprintf(stderr, "floor: scan '%s': %s\n", dir, strerror(-n));
		return 1;
	}
	tree_holders_free(h, (size_t)n);
	return n > 0;
}

static int wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* The lean tree under ROOT; our cwd stays where it was, as isorun's does. */
static int make_tree(const char *root, char *path, size_t len, int *dirfd)
{
	int fd;

	snprintf(path, len, "%s/floor.XXXXXX", root);
	if (!mkdtemp(path))
		return -1;
	*dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (*dirfd < 0)
		return -1;
	fd = openat(*dirfd, "owner", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdirat(*dirfd, dirs[i], 0700) < 0)
			return -1;
	return fd;
}

static int remove_tree(const char *path, int dirfd, int owner)
{
	int r = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		r |= unlinkat(dirfd, dirs[i], AT_REMOVEDIR);
	r |= unlinkat(dirfd, "owner", 0);
	close(owner);
	close(dirfd);
	return r | rmdir(path);
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : write(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The namespace's init: a fresh /proc, the command beside it, its exit code. */
static int pidns_init(char **argv, uid_t uid, gid_t gid)
{
	char map[64];
	pid_t pid;

	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)uid);
	if (write_file("/proc/self/uid_map", map) < 0 ||
	    write_file("/proc/self/setgroups", "deny") < 0)
		return 125;
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)gid);
	if (write_file("/proc/self/gid_map", map) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
		return 125;
	if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ))
		return 127;
	return wait_child(pid);
}

/* A child in a user, mount and pid namespace of its own, as fork() returns it. */
static pid_t fork_pidns(void)
{
	struct clone_args a = {
		.flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID,
		.exit_signal = SIGCHLD,
	};

	return (pid_t)syscall(SYS_clone3, &a, sizeof(a));
}

static int run(const char *root, char **argv, bool pidns)
{
	char path[4096];
	uid_t uid = getuid();
	gid_t gid = getgid();
	int dirfd = -1, owner = make_tree(root, path, sizeof(path), &dirfd), r;
	pid_t pid;

	if (owner < 0)
		return 125;
	if (pidns) {
		pid = fork_pidns();
		if (pid == 0)
			_exit(pidns_init(argv, uid, gid));
		if (pid < 0)
			return 125;
	} else if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ)) {
		return 127;
	}
	r = wait_child(pid);
	if (scan(path))
		r = 1;
	return remove_tree(path, dirfd, owner) ? 1 : r;
}

static int relay(char **argv)
{
	posix_spawn_file_actions_t fa;
	int p[2], r;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return 1;
	(void)fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
	(void)fcntl(1, F_SETPIPE_SZ, 1 << 20);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (r)
		return 127;
	while (splice(p[0], NULL, 1, NULL, 1 << 20, SPLICE_F_MOVE) > 0)
		;
	return wait_child(pid);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "-r"))
		return relay(argv + 2);
	if (argc == 4 && !strcmp(argv[1], "-s")) {
		for (long i = atol(argv[3]); i > 0; i--)
			if (scan(argv[2]))
				return 1;
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "-p"))
		return run(argv[2], argv + 3, true);
	if (argc >= 3 && argv[1][0] != '-')
		return run(argv[1], argv + 2, false);
	fprintf(stderr, "usage: floor [-p] ROOT CMD... | floor -r CMD... | floor -s DIR N\n");
	return 2;
}
