// SPDX-License-Identifier: MIT
#include "common/num.h"
#include "common/proc.h"
#include "common/fault.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/reader.h"
#include "common/text.h"

/* A path under /proc: under procfd (iso_proc_stat_at()), or AT_FDCWD's /proc. */
static const char *proc_root(int procfd)
{
	return procfd == AT_FDCWD ? "/proc" : ".";
}

static ssize_t read_small(int dirfd, const char *path, char *buf, size_t len)
{
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - (size_t)total);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		total += n;
		/*
		 * procfs hands over a file this small in one read: a short one is its end
		 * (seq_file's single show; cmdline and environ go on until the count or
		 * their end), so the read that would only say EOF is skipped.
		 */
		if ((size_t)total < len - 1)
			break;
	}
	buf[total] = '\0';
	return total;
}

struct small_read {
	int dirfd;
	char path[96];
	char *buf;
	size_t len;
	ssize_t n;
};

static void small_read_run(void *arg)
{
	struct small_read *sr = arg;

	sr->n = read_small(sr->dirfd, sr->path, sr->buf, sr->len);
}

static void small_read_free(void *arg)
{
	struct small_read *sr = arg;

	free(sr->buf);
	free(sr);
}

/*
 * cmdline and environ are the process's own memory, read page by page by the
 * kernel: a page the process made wait (a userfaultfd range, a FUSE mapping)
 * would hold the reader.  Through the supervisor's reader while it has one,
 * into buffers of the job's own; -ETIMEDOUT past the deadline.
 */
static ssize_t read_memory_file(int dirfd, const char *path, char *buf, size_t len)
{
	struct iso_reader *r = iso_reader_proc();
	struct small_read *sr;
	ssize_t n;
	int rc;

	if (!r)
		return read_small(dirfd, path, buf, len);
	sr = calloc(1, sizeof(*sr));
	if (!sr || !(sr->buf = malloc(len))) {
		free(sr);
		return -ENOMEM;
	}
	snprintf(sr->path, sizeof(sr->path), "%s", path);
	sr->dirfd = dirfd;
	sr->len = len;
	rc = iso_reader_run(r, small_read_run, sr, small_read_free);
	if (rc < 0) {
		if (rc != -ETIMEDOUT)
			small_read_free(sr);
		return rc;
	}
	n = sr->n;
	if (n >= 0)
		memcpy(buf, sr->buf, (size_t)n + 1);
	small_read_free(sr);
	return n;
}

static bool is_memory_file(const char *name)
{
	return !strcmp(name, "cmdline") || !strcmp(name, "environ");
}

ssize_t iso_proc_read(pid_t pid, const char *name, char *buf, size_t len)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return is_memory_file(name) ? read_memory_file(AT_FDCWD, path, buf, len)
				    : read_small(AT_FDCWD, path, buf, len);
}

int iso_proc_stat(pid_t pid, struct iso_proc *ret)
{
	return iso_proc_stat_at(AT_FDCWD, pid, ret);
}

int iso_proc_stat_at(int procfd, pid_t pid, struct iso_proc *ret)
{
	char path[64], buf[1024];
	const char *p;
	unsigned long long start = 0;
	int ppid = 0, sid = 0, pgrp = 0;
	char state = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%d/stat", proc_root(procfd), pid);
	n = read_small(procfd, path, buf, sizeof(buf));
	if (n < 0)
		return n == -ENOENT ? -ESRCH : (int)n;
	/* comm may hold spaces and parentheses: fields start after the LAST ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -EIO;
	if (sscanf(p + 2,
		   "%c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
		   &state, &ppid, &pgrp, &sid, &start) != 5)
		return -EIO;
	*ret = (struct iso_proc){
		.pid = pid, .ppid = ppid, .pgrp = pgrp, .sid = sid, .state = state, .start = start
	};
	return 0;
}

/*
 * A live thread of pid, or 0, under PROC (the procfs mount, or a test's copy).  A
 * leader that called pthread_exit() is a zombie in /proc while its other threads
 * run: the process lives as long as any of them.
 */
static pid_t live_thread(int dirfd, const char *proc, pid_t pid)
{
	char path[PATH_MAX], buf[512];
	struct dirent *de;
	pid_t found = 0;
	DIR *d;
	int fd;

	snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
	fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (!found && (de = readdir(d))) {
		long tid = iso_parse_pid(de->d_name);
		const char *p;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "%s/%d/task/%ld/stat", proc, pid, tid);
		if (read_small(dirfd, path, buf, sizeof(buf)) <= 0)
			continue;
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X' && p[2] != '\0')
			found = (pid_t)tid;
	}
	closedir(d);
	return found;
}

pid_t iso_proc_live_thread_at(const char *proc, pid_t pid)
{
	return live_thread(AT_FDCWD, proc, pid);
}

pid_t iso_proc_live_thread(pid_t pid)
{
	return live_thread(AT_FDCWD, "/proc", pid);
}

bool iso_proc_alive(const struct iso_proc *p)
{
	return iso_proc_alive_at(AT_FDCWD, p);
}

bool iso_proc_alive_at(int procfd, const struct iso_proc *p)
{
	if (p->state == 'X')
		return false;
	return p->state != 'Z' || live_thread(procfd, proc_root(procfd), p->pid) > 0;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct iso_proc *x = a, *y = b;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every process in /proc, sorted by pid, into *ret; returns how many, or -errno. */
static ssize_t proc_table(struct iso_proc **ret)
{
	DIR *d = opendir("/proc");
	struct iso_proc *all = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;

	*ret = NULL;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		long pid = iso_parse_pid(de->d_name);
		struct iso_proc p;

		if (pid <= 0 || iso_proc_stat((pid_t)pid, &p) < 0)
			continue; /* not a process, or gone meanwhile */
		if (n == cap) {
			struct iso_proc *na = reallocarray(all, cap ? cap * 2 : 256, sizeof(*na));

			if (!na) {
				free(all);
				closedir(d);
				return -ENOMEM;
			}
			all = na;
			cap = cap ? cap * 2 : 256;
		}
		all[n++] = p;
	}
	closedir(d);
	if (n)
		qsort(all, n, sizeof(*all), cmp_pid);
	*ret = all;
	return (ssize_t)n;
}

enum { UNKNOWN, INSIDE, OUTSIDE };

/*
 * Whether all[i] descends from `ancestor`, by climbing its parent chain until a
 * process already judged (memo `in`), the ancestor, or the top; every process
 * climbed through gets the same verdict.  A chain longer than the table is a
 * cycle of pids reused between two reads: outside.
 */
static void judge(const struct iso_proc *all, size_t n, pid_t ancestor, unsigned char *in,
		  size_t *chain, size_t i)
{
	unsigned char verdict = OUTSIDE;
	size_t depth = 0, k = i;

	while (in[k] == UNKNOWN && depth < n) {
		struct iso_proc key = { .pid = all[k].ppid };
		const struct iso_proc *parent;

		chain[depth++] = k;
		if (all[k].ppid == ancestor) {
			verdict = INSIDE;
			break;
		}
		parent = all[k].ppid > 0 ? bsearch(&key, all, n, sizeof(*all), cmp_pid) : NULL;
		if (!parent)
			break;
		k = (size_t)(parent - all);
		if (in[k] != UNKNOWN)
			verdict = in[k];
	}
	for (size_t c = 0; c < depth; c++)
		in[chain[c]] = verdict;
}

int iso_proc_descendants(pid_t ancestor, struct iso_proc **ret)
{
	struct iso_proc *all, *out;
	unsigned char *in;
	size_t *chain, nout = 0;
	ssize_t n = proc_table(&all);

	*ret = NULL;
	if (n < 0)
		return (int)n;
	in = calloc((size_t)n + 1, sizeof(*in));
	chain = calloc((size_t)n + 1, sizeof(*chain));
	out = calloc((size_t)n + 1, sizeof(*out));
	if (!in || !chain || !out) {
		free(in);
		free(chain);
		free(out);
		free(all);
		return -ENOMEM;
	}
	for (size_t i = 0; i < (size_t)n; i++) {
		if (in[i] == UNKNOWN)
			judge(all, (size_t)n, ancestor, in, chain, i);
		if (in[i] == INSIDE)
			out[nout++] = all[i];
	}
	free(in);
	free(chain);
	free(all);
	*ret = out;
	return (int)nout;
}

int iso_proc_children(pid_t pid, pid_t *out, size_t max)
{
	char name[32], buf[512];
	size_t count = 0;
	const char *p = buf;
	ssize_t n;

	snprintf(name, sizeof(name), "task/%d/children", pid);
	n = iso_proc_read(pid, name, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	/* a full buffer may have cut the list: the caller asks the slow way */
	if ((size_t)n == sizeof(buf) - 1)
		return -E2BIG;
	for (;;) {
		int v = iso_next_pid(&p);

		if (v == 0)
			break;
		if (v < 0)
			return -EIO;
		if (count == max)
			return -E2BIG;
		out[count++] = (pid_t)v;
	}
	return (int)count;
}

char *iso_proc_cmdline(pid_t pid, size_t max)
{
	return iso_proc_cmdline_at(AT_FDCWD, pid, max);
}

char *iso_proc_cmdline_at(int procfd, pid_t pid, size_t max)
{
	const char *proc = proc_root(procfd);
	char path[64];
	_cleanup_free_ char *buf = malloc(8192);
	const char *args[256];
	size_t argc = 0;
	pid_t tid;
	ssize_t n;

	if (!buf)
		return NULL;
	snprintf(path, sizeof(path), "%s/%d/cmdline", proc, pid);
	n = read_memory_file(procfd, path, buf, 8192);
	if (n == -ETIMEDOUT)
		return strdup("(not read: its memory made the read wait)");
	if (n <= 0 && (tid = live_thread(procfd, proc, pid)) > 0) {
		/* a leader gone by pthread_exit() left its memory to the live threads */
		snprintf(path, sizeof(path), "%s/%d/task/%d/cmdline", proc, pid, tid);
		n = read_memory_file(procfd, path, buf, 8192);
	}
	if (n <= 0) {
		char comm[64];
		snprintf(path, sizeof(path), "%s/%d/comm", proc, pid);
		n = read_small(procfd, path, comm, sizeof(comm));
		if (n <= 0)
			return strdup("?");
		comm[strcspn(comm, "\n")] = '\0';
		char *r = NULL;
		if (asprintf(&r, "[%s]", comm) < 0)
			return NULL;
		return r;
	}
	for (ssize_t i = 0; i < n && argc < ELEMENTSOF(args);) {
		args[argc++] = buf + i;
		i += (ssize_t)strlen(buf + i) + 1;
	}
	return iso_join_cmdline(args, argc, max);
}

char *iso_proc_cwd(pid_t pid)
{
	return iso_proc_cwd_at(AT_FDCWD, pid);
}

char *iso_proc_cwd_at(int procfd, pid_t pid)
{
	const char *proc = proc_root(procfd);
	char path[64];
	char *buf = malloc(PATH_MAX);
	ssize_t n;
	pid_t tid;

	if (!buf)
		return NULL;
	snprintf(path, sizeof(path), "%s/%d/cwd", proc, pid);
	n = readlinkat(procfd, path, buf, PATH_MAX - 1);
	if (n < 0 && (tid = live_thread(procfd, proc, pid)) > 0) {
		/* as for the command line: a zombie leader's live threads keep the cwd */
		snprintf(path, sizeof(path), "%s/%d/task/%d/cwd", proc, pid, tid);
		n = readlinkat(procfd, path, buf, PATH_MAX - 1);
	}
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* linux/pidfd.h of 6.13; Debian 12's headers predate it */
#define ISO_PIDFD_THREAD   O_EXCL
#define ISO_PIDFD_INFO_PID 1ULL
struct iso_pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	int32_t exit_code;
};
#define ISO_PIDFD_GET_INFO _IOWR(0xFF, 11, struct iso_pidfd_info)

static int pidfs_ident(int fd, struct iso_ident *ret)
{
	struct iso_pidfd_info info = { .mask = ISO_PIDFD_INFO_PID };
	struct stat st;

	if (ioctl(fd, ISO_PIDFD_GET_INFO, &info) < 0 || fstat(fd, &st) < 0)
		return -errno;
	*ret = (struct iso_ident){ .ppid = (pid_t)info.ppid, .id = (uint64_t)st.st_ino };
	return 0;
}

/*
 * Kernels whose pidfs inode numbers come from one counter, in creation order:
 * 6.13 (PIDFD_GET_INFO) to 6.19.  From 7.0 each CPU hands out its own batch
 * ("pidfs: implement ino allocation without the pidmap lock"): unique, but a child
 * may get a lower number than its parent, and the record's "a parent is older than
 * its child" would cut chains.
 */
static bool pidfs_ino_ordered(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return false;
	return major == 6 && minor >= 13 && minor <= 19;
}

bool iso_proc_ident_probe(void)
{
	_cleanup_close_ int fd = -1;
	struct iso_ident me;
	/* st_ino holds the whole 64-bit number only in a 64-bit build */
	if (iso_test_fault("no-pidfs") || sizeof(ino_t) < 8 || sizeof(long) < 8 ||
	    !pidfs_ino_ordered())
		return false;
	/* pidfs is there on these kernels; a seccomp profile may still refuse the calls */
	fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	return fd >= 0 && pidfs_ident(fd, &me) == 0 && me.ppid == getppid();
}

int iso_proc_ident(pid_t pid, bool pidfs, struct iso_ident *ret)
{
	struct iso_proc p;
	int fd, r;

	if (!pidfs) {
		r = iso_proc_stat(pid, &p);
		if (r == 0)
			*ret = (struct iso_ident){ .ppid = p.ppid, .id = p.start };
		return r;
	}
	/* a thread's own: an exec is notified with the caller's tid */
	fd = (int)syscall(SYS_pidfd_open, pid, ISO_PIDFD_THREAD);
	if (fd < 0)
		return errno == EINVAL ? -ESRCH : -errno;
	r = pidfs_ident(fd, ret);
	if (r == -ESRCH) {
		/* 6.13 says ESRCH for a parent outside our pid namespace (ppid 0): /proc says 0 */
		struct stat st;

		if (fstat(fd, &st) == 0 && iso_proc_stat(pid, &p) == 0) {
			*ret = (struct iso_ident){ .ppid = p.ppid, .id = (uint64_t)st.st_ino };
			r = 0;
		}
	}
	close(fd);
	return r;
}

int iso_proc_ident_of(const struct iso_proc *p, bool pidfs, struct iso_ident *ret)
{
	struct iso_proc now;
	int r = iso_proc_ident(p->pid, pidfs, ret);

	if (r < 0)
		return r;
	if (!pidfs)
		return ret->id == p->start ? 0 : -ESRCH;
	/* the pid may have been reused since (pid, start) was read: the same one after? */
	if (iso_proc_stat(p->pid, &now) < 0 || now.start != p->start)
		return -ESRCH;
	return 0;
}

int iso_pidfd_open_checked(const struct iso_proc *p)
{
	struct iso_proc now;
	int fd = (int)syscall(SYS_pidfd_open, p->pid, 0);

	if (fd < 0)
		return -errno;
	/* The pid may have been reused between the /proc read and the open. */
	if (iso_proc_stat(p->pid, &now) < 0 || now.start != p->start) {
		close(fd);
		return -ESRCH;
	}
	/* pidfd_open() without PIDFD_CLOEXEC-like flag is always O_CLOEXEC */
	return fd;
}

int iso_pidfd_signal(int pidfd, int sig)
{
	if (syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0) < 0)
		return -errno;
	return 0;
}

long iso_proc_ticks_per_sec(void)
{
	long t = sysconf(_SC_CLK_TCK);
	return t > 0 ? t : 100;
}

uint64_t iso_proc_now_ticks(void)
{
	struct timespec ts;

	/* /proc/PID/stat start times count from boot, as CLOCK_BOOTTIME does */
	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * (uint64_t)iso_proc_ticks_per_sec() +
	       (uint64_t)ts.tv_nsec / (1000000000ULL / (uint64_t)iso_proc_ticks_per_sec());
}

int iso_boot_id(char *buf, size_t len)
{
	ssize_t n = read_small(AT_FDCWD, "/proc/sys/kernel/random/boot_id", buf, len);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int iso_proc_status(pid_t pid, const char *field, char *buf, size_t len)
{
	size_t flen = strlen(field);
	_cleanup_free_ char *line = NULL;
	_cleanup_fclose_ FILE *f = NULL;
	char path[64];
	size_t cap = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/status", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *v = line + flen + 1;

		if (strncmp(line, field, flen) || line[flen] != ':')
			continue;
		v += strspn(v, " \t");
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		return 0;
	}
	return -ENOENT;
}

/* The text of the uid_map at `name` under procfd, or "" (then false). */
static bool read_uid_map(int procfd, const char *name, char *buf, size_t len)
{
	_cleanup_close_ int fd = openat(procfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	if (n < 0 || (size_t)n == len - 1)
		return false; /* unreadable, or longer than any map compared here */
	buf[n] = '\0';
	return true;
}

/* The initial user namespace's map: all of the ids, unchanged. */
static bool initial_map(const char *map)
{
	unsigned int first, lower, count;
	int end = 0;

	return sscanf(map, "%u %u %u %n", &first, &lower, &count, &end) == 3 && map[end] == '\0' &&
	       first == 0 && lower == 0 && count == UINT32_MAX;
}

/*
 * Whether pid, a process of uid (as isorun's namespace shows it) that refused
 * to be read, runs in a user namespace other than isorun's: an ancestor's or a
 * sibling's, as around isorun run in `bwrap --unshare-user`, `unshare -U` or a
 * rootless container that shares the host's process list.  The kernel refuses
 * such a process to isorun whatever its dumpability (ptrace needs the target
 * in the reader's user namespace or in one where it holds CAP_SYS_PTRACE).
 * Neither test below needs ptrace access:
 *  - /proc/PID/uid_map shows the map of the target's namespace in isorun's
 *    terms: a process of isorun's own namespace shows exactly isorun's
 *    /proc/self/uid_map, one outside mostly a text of its own (an id
 *    unmapped here reads 4294967295);
 *  - a sibling made with the same map (a second bwrap, another isorun's
 *    --pidns of the same user) shows the same text: but a process of isorun's
 *    own namespace that refuses a reader of its uid is not dumpable, and the
 *    directory /proc/PID/fd of a dumpable process belongs to its uid, that of
 *    a non-dumpable one to a root.  Where isorun's uid is unmapped (every id
 *    then reads as the overflow uid) the owner says nothing.
 * A descendant namespace's processes do not refuse isorun (the owner of a
 * namespace holds every capability in it).  In the initial user namespace
 * every other one is a descendant: never outside.
 */
bool iso_userns_outside(struct iso_userns_view *v, int procfd, pid_t pid, uid_t uid)
{
	char name[40], map[sizeof(v->self_map)];
	struct stat st;

	if (v->state == 0)
		v->state = read_uid_map(procfd, "self/uid_map", v->self_map, sizeof(v->self_map)) &&
					   !initial_map(v->self_map)
				   ? 1
				   : -1;
	if (v->state < 0)
		return false;
	snprintf(name, sizeof(name), "%d/uid_map", pid);
	if (!read_uid_map(procfd, name, map, sizeof(map)))
		return false;
	if (strcmp(map, v->self_map) != 0)
		return true;
	snprintf(name, sizeof(name), "%d/fd", pid);
	return v->self_map[0] != '\0' && fstatat(procfd, name, &st, 0) == 0 && st.st_uid == uid;
}
