// SPDX-License-Identifier: MIT
/*
 * Mounts made inside a fresh mount namespace: propagation, a new /proc, a /sys of
 * the new network namespace, a private /tmp and the operator's home made read-only
 * or hidden.  The rules are in
 * /work/shared/notes/kernel-primitives.md sections 5.2 and 5.3.
 */
#include "ns/ns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/cleanup.h"

#define HINT_FIT(h) _Static_assert(sizeof(h) <= sizeof(((struct iso_err *)0)->hint), #h " too long")

#define H_PRIVATE                                                                                  \
	"call it in a mount namespace of our own (unshare(CLONE_NEWNS)), with CAP_SYS_ADMIN over " \
	"it"
#define H_PROC_MASKED                                                                              \
	"/proc is partially masked (over-mounted, as in containers), so the kernel refuses a new " \
	"procfs"
#define H_PROC_EPERM                                                                               \
	"a new procfs needs a mount namespace owned by the PID namespace's user namespace, and a " \
	"/proc not partially masked as in containers"
#define H_BUSY "a file is open for writing below it; protect the home before starting anything"
#define H_HIDE_CWD                                                                                 \
	"the working directory is inside the hidden home and would bypass it; run from outside "   \
	"the home"

#define H_HOME_FD                                                                                  \
	"it would give write access around the home's protection; open it from outside the home, " \
	"or "                                                                                      \
	"for writing if the command may write it"

#define H_SYSFS_EPERM                                                                              \
	"a new sysfs needs a /sys not partially masked (as in containers); the host's /sys would " \
	"show and let root change the host's interfaces"

HINT_FIT(H_PRIVATE);
HINT_FIT(H_SYSFS_EPERM);
HINT_FIT(H_HOME_FD);
HINT_FIT(H_PROC_MASKED);
HINT_FIT(H_PROC_EPERM);
HINT_FIT(H_BUSY);
HINT_FIT(H_HIDE_CWD);

int ns_mounts_make_private(struct iso_err *e)
{
	int r;

	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == 0)
		return 0;
	r = iso_err_set(e, errno, "mark '/' MS_REC|MS_SLAVE");
	if (r == -EPERM || r == -EINVAL)
		iso_err_hint(e, H_PRIVATE);
	return r;
}

/*
 * Whether something is mounted below /proc other than on the permanently empty
 * directories procfs keeps for that purpose: the kernel then refuses a new procfs
 * in a user namespace (mount_too_revealing()).  Docker masks /proc/kcore & co.
 */
static bool proc_is_masked(void)
{
	static const char *const allowed[] = { "/proc/sys/fs/binfmt_misc", "/proc/fs/nfsd" };
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	bool masked = false;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	while (!masked && getline(&line, &cap, f) > 0) {
		char point[PATH_MAX];
		bool ok = false;

		/* id parent major:minor root mount-point ... */
		if (sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1)
			continue;
		if (strncmp(point, "/proc/", 6))
			continue;
		for (size_t i = 0; i < ELEMENTSOF(allowed); i++)
			ok = ok || !strcmp(point, allowed[i]);
		masked = !ok;
	}
	fclose(f);
	return masked;
}

int ns_mount_proc(struct iso_err *e)
{
	int r;

	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0)
		return 0;
	r = iso_err_set(e, errno, "mount 'proc' on '/proc'");
	if (r == -EPERM && proc_is_masked()) {
		iso_err_hint(e, H_PROC_MASKED);
		iso_err_cause(e, NS_CAUSE_PROC_MASKED);
	} else if (r == -EPERM) {
		iso_err_hint(e, H_PROC_EPERM);
	}
	return r;
}

/*
 * A lookup inside a detached mount never crosses a mount made on /proc or on
 * /proc/PID in a namespace: it has no children.  A new instance also shares no
 * options (hidepid, subset) with the /proc a remount could change.
 */
int ns_proc_private(struct iso_err *e)
{
	_cleanup_close_ int fs = fsopen("proc", FSOPEN_CLOEXEC), mnt = -1;
	int fd;

	if (fs >= 0 && fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		mnt = fsmount(fs, FSMOUNT_CLOEXEC,
			      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				      MOUNT_ATTR_NOEXEC);
	if (mnt < 0)
		mnt = (int)open_tree(AT_FDCWD, "/proc", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	if (mnt < 0)
		return iso_err_set(e, errno,
				   "open a procfs of the namespace's own (fsmount, open_tree)");
	fd = openat(mnt, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return iso_err_set(e, errno, "open the root of the namespace's own procfs");
	return fd;
}

int ns_private_tmp(const char *dir, struct iso_err *e)
{
	static const char *const targets[] = { "/tmp", "/var/tmp" };
	const char *done = NULL;
	struct stat st[ELEMENTSOF(targets)];
	bool exists[ELEMENTSOF(targets)];
	size_t i;

	if (!dir || !*dir)
		return iso_err_set(e, EINVAL, "bind-mount '' on '/tmp'");
	/* Decided before anything is mounted: a symlink /var/tmp -> /tmp is one place. */
	for (i = 0; i < ELEMENTSOF(targets); i++) {
		if (stat(targets[i], &st[i]) < 0) {
			if (errno != ENOENT && errno != ENOTDIR)
				return iso_err_set(e, errno, "stat '%s'", targets[i]);
			exists[i] = false;
		} else {
			exists[i] = S_ISDIR(st[i].st_mode);
		}
	}
	if (exists[0] && exists[1] && st[0].st_dev == st[1].st_dev && st[0].st_ino == st[1].st_ino)
		exists[1] = false;

	for (i = 0; i < ELEMENTSOF(targets); i++) {
		/*
		 * The second bind copies the first: `dir` may live below /tmp, where
		 * its path no longer leads once /tmp is covered.
		 */
		const char *src = done ? done : dir;
		int r;

		if (!exists[i])
			continue;
		if (mount(src, targets[i], NULL, MS_BIND | MS_REC, NULL) == 0) {
			done = targets[i];
			continue;
		}
		r = iso_err_set(e, errno, "bind-mount '%s' on '%s'", dir, targets[i]);
		if (done)
			(void)umount2(done, MNT_DETACH); /* all or nothing */
		return r;
	}
	return 0;
}

/* statvfs() flags as mount flags: the ones a remount must repeat when locked. */
static unsigned long locked_flags(const struct statvfs *sv)
{
	static const struct {
		unsigned long st, ms;
	} map[] = {
		{ ST_NOSUID, MS_NOSUID },	  { ST_NODEV, MS_NODEV },
		{ ST_NOEXEC, MS_NOEXEC },	  { ST_NOATIME, MS_NOATIME },
		{ ST_NODIRATIME, MS_NODIRATIME }, { ST_RELATIME, MS_RELATIME },
	};
	unsigned long flags = 0;

	for (size_t i = 0; i < ELEMENTSOF(map); i++)
		if (sv->f_flag & map[i].st)
			flags |= map[i].ms;
	return flags;
}

/*
 * The bind mount just made at `path` becomes read-only; on failure it is undone.
 * mount_setattr() sets RDONLY only (the locked nosuid/nodev/noexec/atime flags
 * stay), with AT_RECURSIVE for the submounts too.  The fallback, to drop with
 * Linux 5.12, is a bind remount, which must repeat the locked flags (EPERM
 * otherwise) and changes the top mount only, so submounts stay writable.
 */
static int bind_read_only(const char *path, unsigned int at_flags, const char *what,
			  struct iso_err *e)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	struct statvfs sv;
	int r;

	if (mount_setattr(AT_FDCWD, path, at_flags, &attr, sizeof(attr)) == 0)
		return 0;
	if (errno != ENOSYS)
		r = iso_err_set(e, errno, "make %s read-only (mount_setattr)", what);
	else if (statvfs(path, &sv) < 0)
		r = iso_err_set(e, errno, "statvfs '%s'", path);
	else if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_flags(&sv),
		       NULL) == 0)
		return 0;
	else
		r = iso_err_set(e, errno, "remount %s read-only", what);
	if (r == -EBUSY)
		iso_err_hint(e, H_BUSY);
	(void)umount2(path, MNT_DETACH);
	return r;
}

static int home_read_only(const char *home, struct iso_err *e)
{
	char what[PATH_MAX + 8];

	if (mount(home, home, NULL, MS_BIND | MS_REC, NULL) < 0)
		return iso_err_set(e, errno, "bind-mount '%s' on itself", home);
	snprintf(what, sizeof(what), "'%s'", home);
	return bind_read_only(home, AT_RECURSIVE, what, e);
}

/*
 * Hide: the empty directory over the home, and read-only as a mount, not only by
 * its mode: a root command keeps CAP_DAC_OVERRIDE, which a 0500 mode does not stop.
 */
static int home_cover(const char *empty, const char *home, struct iso_err *e)
{
	char what[PATH_MAX + 24];

	if (mount(empty, home, NULL, MS_BIND | MS_REC, NULL) < 0)
		return iso_err_set(e, errno, "bind-mount '%s' on '%s'", empty, home);
	snprintf(what, sizeof(what), "the cover of '%s'", home);
	return bind_read_only(home, 0, what, e);
}

/* Whether `path` is `dir` or below it; both canonical. */
static bool is_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/*
 * A working directory inside the home still points at the mount that was there
 * before: relative paths would write into the real home.  Entering it again by
 * name resolves it through the new mount.
 */
static int reenter_cwd(const char *real_home, const char *home, enum ns_home_mode mode,
		       struct iso_err *e)
{
	char cwd[PATH_MAX];
	int r;

	if (!getcwd(cwd, sizeof(cwd)) || !is_below(cwd, real_home))
		return 0;
	if (chdir(cwd) == 0)
		return 0;
	r = iso_err_set(e, errno, "enter '%s' again after covering '%s'", cwd, home);
	if (mode == NS_HOME_HIDE) {
		iso_err_hint(e, H_HIDE_CWD);
		iso_err_cause(e, NS_CAUSE_CWD_HIDDEN);
	}
	return r;
}

bool ns_home_covers(const char *home, const char *const *keep, size_t n_keep, const char *path)
{
	if (!is_below(path, home))
		return false;
	for (size_t i = 0; i < n_keep; i++)
		if (is_below(path, keep[i]))
			return false;
	return true;
}

/* `path` relative to `dir` when strictly below it (both canonical), else NULL. */
static const char *below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return path[1] ? path + 1 : NULL;
	if (strncmp(path, dir, n) != 0 || path[n] != '/')
		return NULL;
	return path + n + 1;
}

int ns_home_skeleton(const char *home, const char *empty, const char *const *keep, size_t n_keep,
		     struct iso_err *e)
{
	_cleanup_free_ char *real_home = realpath(home, NULL);

	if (!real_home)
		return iso_err_set(e, errno, "resolve '%s'", home);
	for (size_t i = 0; i < n_keep; i++) {
		const char *rel = below(keep[i], real_home);
		char path[PATH_MAX];
		size_t len;

		if (!rel)
			continue;
		len = (size_t)snprintf(path, sizeof(path), "%s/%s", empty, rel);
		if (len >= sizeof(path))
			return iso_err_set(e, ENAMETOOLONG, "make a mount point for '%s'", keep[i]);
		/* each component in turn: mkdir -p without following anything */
		for (char *p = path + strlen(empty) + 1;; p++) {
			bool last = *p == '\0';
			if (*p != '/' && !last)
				continue;
			*p = '\0';
			if (mkdir(path, 0700) < 0 && errno != EEXIST)
				return iso_err_set(e, errno, "make the mount point '%s'", path);
			if (last)
				break;
			*p = '/';
		}
	}
	/* then read-only like the empty directory itself: the hidden home takes no files */
	for (size_t i = 0; i < n_keep; i++) {
		const char *rel = below(keep[i], real_home);
		char path[PATH_MAX];

		if (!rel)
			continue;
		snprintf(path, sizeof(path), "%s/%s", empty, rel);
		for (char *p = path + strlen(path); p > path + strlen(empty); p--) {
			if (*p != '/' && *p != '\0')
				continue;
			*p = '\0';
			if (chmod(path, 0500) < 0)
				return iso_err_set(e, errno, "make '%s' read-only", path);
		}
	}
	return 0;
}

/*
 * Detached copies of the kept paths' mounts, taken before the home is covered: moved
 * back on top afterwards, they are the paths as they were (writable, visible).
 */
static int clone_keeps(const char *real_home, const char *const *keep, size_t n_keep, int *fds,
		       struct iso_err *e)
{
	for (size_t i = 0; i < n_keep; i++) {
		fds[i] = -1;
		if (!strcmp(keep[i], real_home)) {
			int r = iso_err_set(e, EINVAL,
					    "keep '%s' writable: it is the protected home "
					    "itself",
					    keep[i]);

			iso_err_cause(e, NS_CAUSE_HOME_KEPT);
			return r;
		}
		if (!below(keep[i], real_home))
			continue;
		/* AT_RECURSIVE: a mount below it may be locked to the ones above */
		fds[i] = (int)open_tree(AT_FDCWD, keep[i],
					OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (fds[i] < 0)
			return iso_err_set(e, errno, "copy the mounts at '%s' (open_tree)",
					   keep[i]);
	}
	return 0;
}

static int place_keeps(const char *const *keep, size_t n_keep, const int *fds, struct iso_err *e)
{
	for (size_t i = 0; i < n_keep; i++)
		if (fds[i] >= 0 &&
		    move_mount(fds[i], "", AT_FDCWD, keep[i], MOVE_MOUNT_F_EMPTY_PATH) < 0)
			return iso_err_set(e, errno,
					   "keep '%s' writable inside the home (move_mount)",
					   keep[i]);
	return 0;
}

static void close_keeps(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

int ns_protect_home(const char *home, enum ns_home_mode mode, const char *empty,
		    const char *const *keep, size_t n_keep, struct iso_err *e)
{
	_cleanup_free_ char *real_home = NULL;
	int *fds = NULL;
	int r;

	if (mode == NS_HOME_OFF)
		return 0;
	if (!home || home[0] != '/')
		return iso_err_set(e, EINVAL, "protect home '%s': not an absolute path",
				   home ? home : "");
	if (mode != NS_HOME_RO && mode != NS_HOME_HIDE)
		return iso_err_set(e, EINVAL, "protect home '%s': unknown mode %d", home,
				   (int)mode);
	if (mode == NS_HOME_HIDE && (!empty || !*empty))
		return iso_err_set(e, EINVAL, "hide '%s': no empty directory given", home);

	real_home = realpath(home, NULL);
	if (!real_home)
		return iso_err_set(e, errno, "resolve '%s'", home);

	fds = calloc(n_keep + 1, sizeof(*fds));
	if (!fds)
		return iso_err_set(e, ENOMEM, "protect home '%s'", home);
	r = clone_keeps(real_home, keep, n_keep, fds, e);
	if (r < 0) {
		close_keeps(fds, n_keep);
		return r;
	}
	if (mode == NS_HOME_RO)
		r = home_read_only(home, e);
	else
		r = home_cover(empty, home, e);
	if (r == 0)
		r = place_keeps(keep, n_keep, fds, e);
	close_keeps(fds, n_keep);
	if (r == 0)
		r = reenter_cwd(real_home, home, mode, e);
	if (r < 0)
		(void)umount2(home, MNT_DETACH);
	return r;
}

/*
 * One descriptor the command inherits (see ns_home_fds()).  It was opened in the
 * outer mount namespace, so it stays on the home's writable mount: a write through
 * /proc/self/fd/N, openat(N, ..., O_CREAT) or fchmod(N) never meets the read-only
 * cover.  Reopened through a read-only detached copy of its own mount, the new
 * description carries that mount, and every one of them fails with EROFS.
 */
static int home_fd_reopen(int fd, const char *path, int fl, const struct stat *was,
			  struct iso_err *e)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	_cleanup_close_ int tree = -1, nfd = -1;
	int open_fl = O_CLOEXEC | O_NOCTTY;
	int fdfl = fcntl(fd, F_GETFD);
	char link[64];
	struct stat now;

	/* AT_RECURSIVE: a directory's locked submounts come along, read-only too */
	tree = (int)open_tree(AT_FDCWD, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
	if (tree < 0)
		return iso_err_set(e, errno,
				   "fd %d ('%s') reaches into the protected home: "
				   "copy its mount (open_tree)",
				   fd, path);
	if (mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof(attr)) < 0)
		return iso_err_set(e, errno, "fd %d ('%s'): make its copy read-only", fd, path);
	if (fl & O_PATH)
		open_fl |= O_PATH;
	else
		open_fl |= O_RDONLY | (fl & O_NONBLOCK) | (S_ISDIR(was->st_mode) ? O_DIRECTORY : 0);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", tree);
	nfd = open(link, open_fl);
	if (nfd < 0)
		return iso_err_set(e, errno, "fd %d: reopen '%s' read-only", fd, path);
	if (fstat(nfd, &now) < 0)
		return iso_err_set(e, errno, "fd %d: stat '%s'", fd, path);
	/* renamed, replaced or deleted since it was opened: the name is another file */
	if (now.st_dev != was->st_dev || now.st_ino != was->st_ino)
		return iso_err_set(e, ESTALE, "fd %d: '%s' is no longer the file it was opened on",
				   fd, path);
	if (S_ISREG(was->st_mode) && !(fl & O_PATH)) {
		off_t off = lseek(fd, 0, SEEK_CUR);

		if (off > 0 && lseek(nfd, off, SEEK_SET) < 0)
			return iso_err_set(e, errno, "fd %d: keep the offset of '%s'", fd, path);
	}
	if (dup3(nfd, fd, fdfl >= 0 && (fdfl & FD_CLOEXEC) ? O_CLOEXEC : 0) < 0)
		return iso_err_set(e, errno, "fd %d: put the read-only '%s' in its place", fd,
				   path);
	return 0;
}

/* The home, canonical, and what in it stays as it is (--writable, the tree). */
struct home_scope {
	const char *real_home;
	const char *const *keep;
	size_t n_keep;
};

/* A descriptor that reaches into the home: where, with its flags and identity. */
struct home_fd {
	char path[PATH_MAX];
	int fl;
	struct stat st;
};

/* Whether fd `fd` needs home_fd_reopen(): 1 with *h filled, 0 if not, or -errno. */
static int home_fd_reaches(int fd, const struct home_scope *sc, struct home_fd *h,
			   struct iso_err *e)
{
	struct stat *st = &h->st;
	char *path = h->path;
	size_t len = sizeof(h->path);
	char link[64];
	ssize_t n;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return errno == EBADF ? 0 : iso_err_set(e, errno, "fd %d: F_GETFL", fd);
	if (fstat(fd, st) < 0)
		return iso_err_set(e, errno, "fd %d: fstat", fd);
	/*
	 * A file opened for writing was given to be written: `isorun ... >~/log`.  A
	 * pipe, socket or device is a channel, not a place in the home.
	 */
	if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
		return 0;
	if (S_ISREG(st->st_mode) && !(fl & O_PATH) && (fl & O_ACCMODE) != O_RDONLY)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, len - 1);
	if (n < 0)
		return iso_err_set(e, errno, "fd %d: readlink '%s'", fd, link);
	path[n] = '\0';
	if (!is_below(path, sc->real_home))
		return 0;
	for (size_t i = 0; i < sc->n_keep; i++)
		if (is_below(path, sc->keep[i]))
			return 0; /* --writable, or the tree: stays as it is */
	h->fl = fl;
	return 1;
}

int ns_home_fds(const char *home, const char *const *keep, size_t n_keep, const int *fds,
		size_t n_fds, struct iso_err *e)
{
	_cleanup_free_ char *real_home = realpath(home, NULL);
	const struct home_scope sc = { real_home, keep, n_keep };

	if (!real_home)
		return iso_err_set(e, errno, "resolve '%s'", home);
	for (size_t i = 0; i < n_fds; i++) {
		struct home_fd h = { .fl = 0 };
		int r = home_fd_reaches(fds[i], &sc, &h, e);

		if (r > 0)
			r = home_fd_reopen(fds[i], h.path, h.fl, &h.st, e);
		if (r < 0) {
			iso_err_hint(e, H_HOME_FD);
			iso_err_cause(e, NS_CAUSE_HOME_FD);
			return r;
		}
	}
	return 0;
}

/* --- /sys for a new network namespace ------------------------------------ */

/* A mount point as mountinfo escapes it (\040 for a space), decoded in place. */
static void mountinfo_unescape(char *s)
{
	char *w = s;

	for (; *s; s++, w++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*w = *s;
		}
	}
	*w = '\0';
}

struct sys_subs {
	char **path; /* the mounts on the top /sys mount, in mountinfo's order */
	int *fd;     /* their detached copies (open_tree), -1 before */
	size_t n;
};

static void sys_subs_free(struct sys_subs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->path[i]);
		if (s->fd[i] >= 0)
			close(s->fd[i]);
	}
	free(s->path);
	free(s->fd);
	*s = (struct sys_subs){ 0 };
}

static int sys_subs_add(struct sys_subs *s, const char *path)
{
	char **p = realloc(s->path, (s->n + 1) * sizeof(*p));
	int *fd;

	if (!p)
		return -ENOMEM;
	s->path = p;
	fd = realloc(s->fd, (s->n + 1) * sizeof(*fd));
	if (!fd)
		return -ENOMEM;
	s->fd = fd;
	s->path[s->n] = strdup(path);
	if (!s->path[s->n])
		return -ENOMEM;
	s->fd[s->n++] = -1;
	return 0;
}

/* One line of mountinfo: its id, its parent's, and where it is mounted (decoded). */
static bool mountinfo_entry(const char *line, long *id, long *parent, char point[PATH_MAX])
{
	if (sscanf(line, "%ld %ld %*s %*s %4095s", id, parent, point) != 3)
		return false;
	mountinfo_unescape(point);
	return true;
}

/*
 * The top mount at /sys: the one no other /sys mount stands on (mountinfo's
 * order is the order of mounting, not of stacking).  -1 when nothing is there.
 */
static long sys_top(FILE *f)
{
	_cleanup_free_ char *line = NULL;
	long ids[32], parents[32], top = -1;
	size_t cap = 0, n = 0;

	while (n < ELEMENTSOF(ids) && getline(&line, &cap, f) > 0) {
		char point[PATH_MAX];

		if (mountinfo_entry(line, &ids[n], &parents[n], point) && !strcmp(point, "/sys"))
			n++;
	}
	for (size_t i = 0; i < n && top < 0; i++) {
		bool covered = false;

		for (size_t j = 0; j < n; j++)
			covered = covered || parents[j] == ids[i];
		if (!covered)
			top = ids[i];
	}
	return top;
}

/* The mounts directly on the top mount at /sys (theirs come along with them). */
static int sys_submounts(struct sys_subs *s, struct iso_err *e)
{
	_cleanup_free_ char *line = NULL;
	size_t cap = 0;
	long top;
	int r = 0;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return iso_err_set(e, errno, "open '/proc/self/mountinfo'");
	top = sys_top(f);
	rewind(f);
	while (r == 0 && top >= 0 && getline(&line, &cap, f) > 0) {
		char point[PATH_MAX];
		long id, parent;

		if (mountinfo_entry(line, &id, &parent, point) && parent == top &&
		    !strncmp(point, "/sys/", 5))
			r = sys_subs_add(s, point);
	}
	fclose(f);
	if (r < 0)
		return iso_err_set(e, -r, "list the mounts below '/sys'");
	return 0;
}

static unsigned long sysfs_flags(const struct statvfs *sv)
{
	unsigned long fl = locked_flags(sv) | MS_NOSUID | MS_NODEV | MS_NOEXEC;

	if (sv->f_flag & ST_RDONLY)
		fl |= MS_RDONLY;
	/* no atime flag at all is strictatime, which a new mount must repeat too */
	if (!(fl & (MS_NOATIME | MS_RELATIME)))
		fl |= MS_STRICTATIME;
	return fl;
}

int ns_mount_sysfs(struct iso_err *e)
{
	struct sys_subs s = { 0 };
	struct statvfs sv;
	int r;

	/* no /sys here: no way to the host's interfaces through it */
	if (statvfs("/sys", &sv) < 0)
		return errno == ENOENT ? 0 : iso_err_set(e, errno, "statvfs '/sys'");
	r = sys_submounts(&s, e);
	/* AT_RECURSIVE: a mount below it may be locked to the ones above */
	for (size_t i = 0; r == 0 && i < s.n; i++) {
		s.fd[i] = (int)open_tree(AT_FDCWD, s.path[i],
					 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (s.fd[i] < 0)
			r = iso_err_set(e, errno, "copy the mounts at '%s' (open_tree)", s.path[i]);
	}
	if (r == 0 && mount("sysfs", "/sys", "sysfs", sysfs_flags(&sv), NULL) < 0) {
		r = iso_err_set(e, errno, "mount 'sysfs' on '/sys' for the new network namespace");
		if (r == -EPERM)
			iso_err_hint(e, H_SYSFS_EPERM);
	}
	for (size_t i = 0; r == 0 && i < s.n; i++)
		if (move_mount(s.fd[i], "", AT_FDCWD, s.path[i], MOVE_MOUNT_F_EMPTY_PATH) < 0 &&
		    errno != ENOENT) /* a directory this sysfs does not have */
			r = iso_err_set(e, errno, "move the mounts at '%s' back (move_mount)",
					s.path[i]);
	sys_subs_free(&s);
	return r;
}
