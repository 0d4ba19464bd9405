// SPDX-License-Identifier: MIT
#include "cgroup/cgroup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/statfs.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/io.h"
#include "common/num.h"
#include "common/cleanup.h"

static const struct {
	enum cg_ctrl bit;
	const char *name;
} ctrls[] = {
	{ CG_MEMORY, "memory" }, { CG_PIDS, "pids" },	  { CG_CPU, "cpu" },
	{ CG_IO, "io" },	 { CG_CPUSET, "cpuset" }, { CG_HUGETLB, "hugetlb" },
	{ CG_RDMA, "rdma" },	 { CG_MISC, "misc" },
};

/*
 * What a run's cgroup in a test's tree has even where the tree has none of it:
 * the kernel makes these in a real one, a plain mkdir does not.
 */
static const char *const fake_files[] = { "cgroup.procs", "cgroup.events", "cgroup.freeze",
					  "cgroup.kill" };

const char *cg_ctrl_name(enum cg_ctrl c)
{
	for (size_t i = 0; i < ELEMENTSOF(ctrls); i++)
		if (ctrls[i].bit == c)
			return ctrls[i].name;
	return "?";
}

/* A whole small file at dirfd/name into buf; its length or -errno. */
static ssize_t read_small(int dirfd, const char *name, char *buf, size_t len)
{
	_cleanup_close_ int fd =
		openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return n;
}

static ssize_t read_path(const char *path, char *buf, size_t len)
{
	return read_small(AT_FDCWD, path, buf, len);
}

/* The controller bits named in a space-separated list. */
static unsigned parse_ctrls(const char *s)
{
	unsigned bits = 0;

	for (size_t i = 0; i < ELEMENTSOF(ctrls); i++) {
		size_t n = strlen(ctrls[i].name);
		for (const char *p = s; (p = strstr(p, ctrls[i].name)); p += n)
			if ((p == s || isspace((unsigned char)p[-1])) &&
			    (!p[n] || isspace((unsigned char)p[n])))
				bits |= ctrls[i].bit;
	}
	return bits;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] && r[3]) {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* The first cgroup2 mount point in /proc/self/mountinfo; 0 or -ENOENT. */
static int find_mount(char *out, size_t len)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/mountinfo", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char *sep = strstr(line, " - "), *mp, *save = NULL;
		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		/* id parent maj:min root mountpoint ... */
		mp = strtok_r(line, " ", &save);
		for (int i = 0; mp && i < 4; i++)
			mp = strtok_r(NULL, " ", &save);
		if (!mp)
			continue;
		unescape(mp);
		snprintf(out, len, "%s", mp);
		return 0;
	}
	return -ENOENT;
}

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return statfs(path, &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* /sys/fs/cgroup (unified) or /sys/fs/cgroup/unified (hybrid), when either is cgroup2. */
static bool known_mount(char *out, size_t len)
{
	static const char *const places[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };

	for (size_t i = 0; i < ELEMENTSOF(places); i++)
		if (is_cgroup2(places[i])) {
			snprintf(out, len, "%s", places[i]);
			return true;
		}
	return false;
}

/* The "0::PATH" line of /proc/self/cgroup: the caller's cgroup in the v2 hierarchy. */
static int find_own(char *out, size_t len)
{
	_cleanup_fclose_ FILE *f = fopen("/proc/self/cgroup", "re");
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		snprintf(out, len, "%s", line + 3);
		return 0;
	}
	return -ENOENT;
}

static void host_fail(struct cg_host *h, enum cg_cause c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void host_fail(struct cg_host *h, enum cg_cause c, const char *fmt, ...)
{
	va_list ap;

	h->usable = false;
	h->cause = c;
	va_start(ap, fmt);
	vsnprintf(h->why, sizeof(h->why), fmt, ap);
	va_end(ap);
}

/* Where the host's (or the test's) cgroup2 is, and the caller's cgroup in it. */
static bool locate(struct cg_host *h)
{
	const char *test = getenv(CG_TEST_ROOT_ENV);
	char rel[PATH_MAX / 2];

	if (test && *test) {
		h->fake = true;
		snprintf(h->mount, sizeof(h->mount), "%s", test);
		snprintf(h->own, sizeof(h->own), "%s", test);
		return true;
	}
	/* the usual places by one statfs each; the mount table (long on some hosts) after */
	if (!known_mount(h->mount, sizeof(h->mount)) &&
	    find_mount(h->mount, sizeof(h->mount)) < 0) {
		host_fail(h, CG_NO_MOUNT, "no cgroup2 file system is mounted");
		return false;
	}
	if (find_own(rel, sizeof(rel)) < 0) {
		host_fail(h, CG_NO_OWN_CGROUP, "/proc/self/cgroup has no cgroup2 (0::) line");
		return false;
	}
	if ((size_t)snprintf(h->own, sizeof(h->own), "%.*s%s", (int)(sizeof(h->own) / 2), h->mount,
			     strcmp(rel, "/") ? rel : "") >= sizeof(h->own)) {
		host_fail(h, CG_NO_OWN_CGROUP, "the caller's cgroup path is too long");
		return false;
	}
	return true;
}

void cg_host_probe(struct cg_host *h)
{
	char buf[512], path[PATH_MAX + 32];

	*h = (struct cg_host){ .usable = true };
	if (!locate(h))
		return;
	/* moving a process between two cgroups takes their common ancestor's cgroup.procs */
	snprintf(path, sizeof(path), "%s/cgroup.procs", h->own);
	if (access(h->own, W_OK) < 0 || access(path, W_OK) < 0) {
		host_fail(h, CG_NOT_DELEGATED,
			  "the caller's cgroup %s is not delegated to uid %u (%s)", h->own,
			  (unsigned)getuid(), strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", h->own);
	if (read_path(path, buf, sizeof(buf)) >= 0) {
		h->offered = parse_ctrls(buf);
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(h->offered_text, sizeof(h->offered_text), "%.100s", buf);
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", h->own);
	if (read_path(path, buf, sizeof(buf)) >= 0)
		h->enabled = parse_ctrls(buf);
}

/* One controller into own's subtree_control; the "no internal processes" rule may refuse. */
static int enable_one(struct cg_host *h, enum cg_ctrl c, struct iso_err *e)
{
	char path[PATH_MAX + 32], word[16];
	_cleanup_close_ int fd = -1;
	int len = snprintf(word, sizeof(word), "+%s", cg_ctrl_name(c));

	if (!(h->offered & c) || h->fake) {
		iso_err_set(e, 0,
			    "the %s controller is not enabled in the parent: %s/cgroup.controllers "
			    "offers '%s'",
			    cg_ctrl_name(c), h->own, h->offered_text);
		iso_err_cause(e, CG_NO_CONTROLLER);
		return -EOPNOTSUPP;
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", h->own);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, word, (size_t)len) != len) {
		int err = errno;
		iso_err_set(e, err, "enable the %s controller in '%s'%s", cg_ctrl_name(c), path,
			    err == EBUSY ? " (the cgroup holds processes itself)" : "");
		iso_err_cause(e, CG_NO_CONTROLLER);
		return -err;
	}
	h->enabled |= c;
	return 0;
}

int cg_host_enable(struct cg_host *h, unsigned want, struct iso_err *e)
{
	for (size_t i = 0; i < ELEMENTSOF(ctrls); i++) {
		if (!(want & ctrls[i].bit) || (h->enabled & ctrls[i].bit))
			continue;
		int r = enable_one(h, ctrls[i].bit, e);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A plain file of the directory open at dirfd (a test's tree may not say the type). */
static bool is_file(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_REG;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* A copy of the parent's file `name` in the run's cgroup of a test's tree (empty: none). */
static int fake_copy(struct cg_run *r, const char *name, struct iso_err *e)
{
	char src[PATH_MAX + 32], buf[4096];
	_cleanup_close_ int fd = -1;
	ssize_t n;

	snprintf(src, sizeof(src), "%s/%s", r->host->own, name);
	n = read_path(src, buf, sizeof(buf));
	if (n < 0)
		n = 0;
	fd = openat(r->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf, (size_t)n) != n)
		return iso_err_set(e, errno, "make '%s/%s'", r->path, name);
	return 0;
}

/*
 * The test's tree: each run's cgroup gets a copy of every file of the parent's
 * (the counters and events the test wrote there), and fake_files[] besides.  A
 * ceiling's own file is made by its write (cg_run_write()).
 */
static int fake_populate(struct cg_run *r, struct iso_err *e)
{
	DIR *d = opendir(r->host->own);
	struct dirent *de;
	int ret = 0;

	if (!d)
		return iso_err_set(e, errno, "read the test's cgroup tree '%s'", r->host->own);
	while (ret == 0 && (de = readdir(d)))
		if (is_file(dirfd(d), de))
			ret = fake_copy(r, de->d_name, e);
	closedir(d);
	for (size_t i = 0; ret == 0 && i < ELEMENTSOF(fake_files); i++) {
		struct stat st;
		if (fstatat(r->dirfd, fake_files[i], &st, AT_SYMLINK_NOFOLLOW) < 0)
			ret = fake_copy(r, fake_files[i], e);
	}
	return ret;
}

/* What fake_populate() and the writes made, so that the directory can go. */
static void fake_clear(struct cg_run *r)
{
	DIR *d = opendir(r->path);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (is_file(r->dirfd, de))
			(void)unlinkat(r->dirfd, de->d_name, 0);
	closedir(d);
}

/*
 * cgroup.events, open: the kernel marks the open file POLLPRI at each change of
 * populated or frozen, and a read through it clears the mark.  Not inotify:
 * closing an inotify instance that watched anything waits for the fsnotify
 * marks' SRCU grace period, milliseconds of every run (5-12 ms measured here).
 */
static int open_events(struct cg_run *r, struct iso_err *e)
{
	struct stat st;

	r->events_fd =
		openat(r->dirfd, "cgroup.events", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (r->events_fd < 0)
		return iso_err_set(e, errno, "watch '%s/cgroup.events' (open)", r->path);
	if (fstat(r->events_fd, &st) < 0)
		return iso_err_set(e, errno, "watch '%s/cgroup.events' (fstat)", r->path);
	if (!S_ISREG(st.st_mode))
		return iso_err_set(e, 0, "'%s/cgroup.events' is not a regular file", r->path);
	return 0;
}

int cg_run_create(struct cg_run *r, struct cg_host *h, const char *name, struct iso_err *e)
{
	*r = (struct cg_run)CG_RUN_INIT;
	r->host = h;
	if ((size_t)snprintf(r->path, sizeof(r->path), "%s/%s", h->own, name) >= sizeof(r->path))
		return iso_err_set(e, ENAMETOOLONG, "make the cgroup '%s/%s'", h->own, name);
	if (mkdir(r->path, 0755) < 0)
		return iso_err_set(e, errno, "make the cgroup '%s'", r->path);
	r->dirfd = open(r->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (r->dirfd < 0)
		return iso_err_set(e, errno, "open the cgroup '%s'", r->path);
	if (h->fake && fake_populate(r, e) < 0)
		return -EIO;
	r->procs_fd = openat(r->dirfd, "cgroup.procs", O_WRONLY | O_CLOEXEC);
	if (r->procs_fd < 0)
		return iso_err_set(e, errno, "open '%s/cgroup.procs'", r->path);
	return open_events(r, e);
}

/* The mount a descriptor lies on; 0 when the kernel cannot say (before 5.8). */
static uint64_t mount_id(int dirfd, const char *path, int flags)
{
	struct statx stx;

	if (statx(dirfd, path, flags, STATX_MNT_ID, &stx) < 0 || !(stx.stx_mask & STATX_MNT_ID))
		return 0;
	return stx.stx_mnt_id;
}

/*
 * The directory open at fd is `path` itself, below the host's cgroup2 mount (or
 * the test's tree) and on it: the path as the kernel names the descriptor is
 * the path given, so no symbolic link, "..", or mount of another place was
 * crossed.  A cgroup2 directory holds only the kernel's files: no FIFO, no link.
 */
static int check_cgroup_dir(const struct cg_host *h, int fd, const char *path, struct iso_err *e)
{
	char link[64], real[PATH_MAX], mount[PATH_MAX];
	struct statfs sf;
	struct stat st;
	size_t n;
	ssize_t len;

	if (!h->mount[0] || !realpath(h->mount, mount))
		return iso_err_set(e, 0, "'%s': no cgroup2 file system is mounted here", path);
	n = strlen(mount);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, real, sizeof(real) - 1);
	if (len < 0)
		return iso_err_set(e, errno, "'%s': read %s", path, link);
	real[len] = '\0';
	if (strcmp(real, path))
		return iso_err_set(e, 0,
				   "'%s' leads to '%s' (a symbolic link or \"..\" on the way)",
				   path, real);
	if (strncmp(path, mount, n) || path[n] != '/')
		return iso_err_set(e, 0, "'%s' is not below the cgroup2 mount %s", path, mount);
	if (fstat(fd, &st) < 0)
		return iso_err_set(e, errno, "'%s': fstat", path);
	if (st.st_uid != geteuid())
		return iso_err_set(e, 0,
				   "'%s' belongs to uid %u, not to uid %u that made the run's",
				   path, (unsigned)st.st_uid, (unsigned)geteuid());
	if (h->fake)
		return 0;
	if (fstatfs(fd, &sf) < 0)
		return iso_err_set(e, errno, "'%s': fstatfs", path);
	if (sf.f_type != CGROUP2_SUPER_MAGIC)
		return iso_err_set(e, 0, "'%s' is not on a cgroup2 file system", path);
	if (mount_id(fd, "", AT_EMPTY_PATH) != mount_id(AT_FDCWD, mount, 0))
		return iso_err_set(e, 0, "'%s' lies on another mount than %s", path, mount);
	return 0;
}

int cg_run_open(struct cg_run *r, struct cg_host *h, const char *path, struct iso_err *e)
{
	*r = (struct cg_run)CG_RUN_INIT;
	r->host = h;
	if ((size_t)snprintf(r->path, sizeof(r->path), "%s", path) >= sizeof(r->path))
		return iso_err_set(e, ENAMETOOLONG, "open the cgroup '%.200s...'", path);
	/* O_DIRECTORY: a FIFO or a device is refused without being opened */
	r->dirfd = open(r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (r->dirfd < 0)
		return iso_err_set(e, errno, "open the cgroup '%s'", r->path);
	if (check_cgroup_dir(h, r->dirfd, r->path, e) < 0)
		return -EPERM;
	return open_events(r, e);
}

int cg_run_write(struct cg_run *r, const char *file, const char *value, struct iso_err *e)
{
	/* a test's tree has only what the test put there: the write makes the file */
	int flags = r->host->fake ? O_CREAT | O_TRUNC | O_NOFOLLOW : 0;
	_cleanup_close_ int fd = openat(r->dirfd, file, O_WRONLY | O_CLOEXEC | flags, 0644);
	size_t len = strlen(value);

	if (fd < 0 || write(fd, value, len) != (ssize_t)len)
		return iso_err_set(e, errno, "write '%s' to '%s/%s'", value, r->path, file);
	return 0;
}

/* A counter as a cgroup file writes it, up to its line's end; -1 for anything else ("max"). */
static int64_t counter(const char *s)
{
	const char *end;
	uint64_t v;

	if (iso_parse_digits(s, 10, &end, &v) < 0 || v > INT64_MAX ||
	    (*end && *end != '\n' && *end != ' '))
		return -1;
	return (int64_t)v;
}

int64_t cg_run_keyed(struct cg_run *r, const char *file, const char *key)
{
	char buf[2048];
	size_t klen = strlen(key);

	if (read_small(r->dirfd, file, buf, sizeof(buf)) < 0)
		return -1;
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return counter(p + klen + 1);
	return -1;
}

static int64_t single(struct cg_run *r, const char *file)
{
	char buf[64];

	if (read_small(r->dirfd, file, buf, sizeof(buf)) <= 0)
		return -1;
	return counter(buf);
}

/* "key N" of cgroup.events, read through the watched descriptor: that clears its mark. */
static int64_t events_key(struct cg_run *r, const char *key)
{
	char buf[256];
	size_t klen = strlen(key);
	ssize_t n = pread(r->events_fd, buf, sizeof(buf) - 1, 0);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	for (char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, klen) && p[klen] == ' ')
			return counter(p + klen + 1);
	return -1;
}

int cg_run_populated(struct cg_run *r)
{
	int64_t v = events_key(r, "populated");

	return v < 0 ? -EIO : v > 0;
}

int cg_run_watch_fd(const struct cg_run *r)
{
	/* a test's tree is a plain file system: nothing marks its files, epoll refuses them */
	return r->host && r->host->fake ? -1 : r->events_fd;
}

int cg_run_on_event(struct cg_run *r)
{
	return cg_run_populated(r);
}

/* Until `key` in cgroup.events reads `want`, each change awaited on its mark. */
static int await_key(struct cg_run *r, const char *key, int64_t want, uint64_t deadline_ms)
{
	for (;;) {
		struct pollfd p = { .fd = r->events_fd, .events = POLLPRI };
		uint64_t now = iso_now_ms();

		if (events_key(r, key) == want)
			return 0;
		/* a test's tree has no kernel behind it to change the file */
		if (r->host->fake || now >= deadline_ms)
			return -ETIME;
		if (poll(&p, 1, (int)(deadline_ms - now)) < 0 && errno != EINTR)
			return -errno;
	}
}

int cg_run_freeze(struct cg_run *r, uint64_t deadline_ms)
{
	if (cg_run_write(r, "cgroup.freeze", "1", NULL) < 0)
		return -errno;
	if (r->host->fake)
		return 0;
	return await_key(r, "frozen", 1, deadline_ms);
}

/* cgroup.procs of a large run: ~8 bytes a pid, a million pids */
#define CG_PROCS_MAX (8u << 20)

/* All of a file at dirfd/name, never blocking, at most max bytes, NUL-terminated. */
static ssize_t read_whole(int dirfd, const char *name, char **ret, size_t max)
{
	_cleanup_close_ int fd =
		openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t total = 0, cap = 0;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	for (;;) {
		ssize_t n;
		size_t room;

		if (cap - total < 4096) {
			char *nb;
			if (cap >= max)
				return -EFBIG;
			cap = cap ? cap * 2 : 16384;
			nb = realloc(buf, cap + 1);
			if (!nb)
				return -ENOMEM;
			buf = nb;
		}
		room = cap - total;
		n = iso_read_all(fd, buf + total, room);
		if (n < 0)
			return n;
		total += (size_t)n;
		if ((size_t)n < room)
			break; /* short: its end */
	}
	buf[total] = '\0';
	*ret = TAKE_PTR(buf);
	return (ssize_t)total;
}

int cg_run_pids(struct cg_run *r, pid_t **pids, size_t *n)
{
	_cleanup_free_ char *text = NULL;
	pid_t *v = NULL;
	size_t cap = 0;
	ssize_t len = read_whole(r->dirfd, "cgroup.procs", &text, CG_PROCS_MAX);

	*pids = NULL;
	*n = 0;
	if (len < 0)
		return (int)len;
	for (char *p = text, *end; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p || pid <= 0 || pid > INT32_MAX || (*end && *end != '\n')) {
			free(v);
			*n = 0;
			return -EINVAL;
		}
		end += *end == '\n';
		if (*n == cap) {
			pid_t *nv = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));
			if (!nv) {
				free(v);
				*n = 0;
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = (pid_t)pid;
	}
	*pids = v;
	return 0;
}

int cg_run_evict(struct cg_run *r, pid_t pid)
{
	char path[PATH_MAX + 16], num[24];
	_cleanup_close_ int fd = -1;
	int len;

	if (r->host->fake)
		return -EOPNOTSUPP;
	snprintf(path, sizeof(path), "%s/cgroup.procs", r->host->own);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(num, sizeof(num), "%d", (int)pid);
	return write(fd, num, (size_t)len) == len ? 0 : -errno;
}

int cg_run_kill(struct cg_run *r)
{
	int ret = 0;

	/* cgroup.kill came with 5.14; before, the frozen members are killed one by one */
	if (cg_run_write(r, "cgroup.kill", "1", NULL) < 0) {
		pid_t *pids;
		size_t n;
		ret = cg_run_pids(r, &pids, &n);
		for (size_t i = 0; ret == 0 && i < n; i++)
			(void)kill(pids[i], SIGKILL);
		if (ret == 0)
			free(pids);
	}
	/* a SIGKILL ends a frozen task too; thawing lets nothing else run first */
	(void)cg_run_write(r, "cgroup.freeze", "0", NULL);
	return ret;
}

int cg_run_wait_empty(struct cg_run *r, uint64_t deadline_ms)
{
	if (r->host->fake)
		return 0;
	return await_key(r, "populated", 0, deadline_ms);
}

void cg_run_stats(struct cg_run *r, struct cg_stats *st)
{
	int64_t v = cg_run_keyed(r, "cpu.stat", "usage_usec");

	*st = (struct cg_stats){ .have_cpu = v >= 0 };
	if (v >= 0) {
		st->cpu_usage_us = (uint64_t)v;
		st->cpu_user_us = (uint64_t)cg_run_keyed(r, "cpu.stat", "user_usec");
		st->cpu_system_us = (uint64_t)cg_run_keyed(r, "cpu.stat", "system_usec");
	}
	st->memory_peak = single(r, "memory.peak");
	st->pids_peak = single(r, "pids.peak");
	st->oom_kill = cg_run_keyed(r, "memory.events", "oom_kill");
}

void cg_run_close(struct cg_run *r)
{
	if (r->procs_fd >= 0)
		close(r->procs_fd);
	if (r->events_fd >= 0)
		close(r->events_fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	r->procs_fd = r->events_fd = r->dirfd = -1;
}

/*
 * The run's cgroup may hold cgroups of its own: a nested isorun's, left empty
 * when that isorun was killed (cgroup.kill reached its processes).  They are
 * the run's residue and go with it, deepest first; a populated one stops the
 * removal (rmdir says EBUSY).
 */
static void remove_children(const char *path, int depth)
{
	DIR *d = depth > 32 ? NULL : opendir(path);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char sub[PATH_MAX];
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >= sizeof(sub))
			continue;
		remove_children(sub, depth + 1);
		(void)rmdir(sub);
	}
	closedir(d);
}

int cg_run_remove(struct cg_run *r, struct iso_err *e)
{
	if (r->dirfd >= 0 && r->host->fake)
		fake_clear(r);
	cg_run_close(r);
	if (!r->path[0])
		return 0;
	if (!r->host->fake)
		remove_children(r->path, 0);
	if (rmdir(r->path) < 0 && errno != ENOENT)
		return iso_err_set(e, errno, "remove the cgroup '%s'", r->path);
	r->path[0] = '\0';
	return 0;
}
