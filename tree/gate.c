// SPDX-License-Identifier: MIT
/*
 * The tree's gate (tree/gate.h): the tree one level down below a directory
 * nobody enters by path, an overlay of it in the run's own mount namespace,
 * and the overlay's end as the kernel's word that nothing holds the tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fdpass.h"
#include "tree/gate.h"
#include "tree/overlay.h"
#include "tree/tree.h"

/*
 * chmod of a directory of isorun's by name, never through a link: glibc
 * before 2.39 does AT_SYMLINK_NOFOLLOW with a descriptor of its own, which a
 * run at its descriptor limit does not have; a look first needs none.
 */
static int chmod_dir(int dir_fd, const char *name, mode_t mode)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	return fchmodat(dir_fd, name, mode, 0) < 0 ? -errno : 0;
}

/*
 * While the run lives, isorun's own descriptor of the gate would be a way past
 * it (/proc/ISORUN/fd/N, for any process of the user's): it waits in flight in
 * a socket of isorun's, out of the descriptor table, /dev/null at its number.
 */
int tree_gate_park(struct tree_gate *g, struct iso_err *e)
{
	_cleanup_close_ int nul = -1;
	int sv[2], r;

	if (!g->closed || g->parked)
		return 0;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return iso_err_set(e, errno, "make a socket to park the gate's descriptor");
	r = iso_send_record(sv[0], "g", 1, g->fd);
	close(sv[0]);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r < 0 || nul < 0 || dup3(nul, g->fd, O_CLOEXEC) < 0) {
		r = iso_err_set(e, r < 0 ? -r : errno, "park the gate's descriptor");
		close(sv[1]);
		return r;
	}
	g->park = sv[1];
	g->parked = true;
	return 0;
}

static int unpark(struct tree_gate *g)
{
	char c;
	int fd = -1;
	ssize_t n;

	if (!g->parked)
		return 0;
	n = iso_recv_record(g->park, &c, 1, &fd);
	close(g->park);
	g->parked = false;
	if (n != 1 || fd < 0 || dup3(fd, g->fd, O_CLOEXEC) < 0) {
		int r = n < 0 ? (int)n : fd < 0 ? -EPROTO : -errno;
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	return 0;
}

void tree_gate_init(struct tree_gate *g)
{
	*g = (struct tree_gate){ .fd = -1, .in = -1, .release_wd = -1, .park = -1 };
}

void tree_gate_free(struct tree_gate *g)
{
	if (g->parked)
		close(g->park);
	g->parked = false;
	if (g->fd >= 0)
		close(g->fd);
	if (g->in >= 0)
		close(g->in);
	g->fd = g->in = -1;
	g->closed = g->up = false;
}

static int gate_name(const char *id, char *out, size_t len)
{
	if (snprintf(out, len, ".%s%s", id, TREE_GATE_SUFFIX) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* The gate's layers, and the gate itself, named `name` in dir_fd: by path, no descriptor. */
static int remove_gate(int dir_fd, const char *name)
{
	char path[PATH_MAX];

	/* a leftover is in the user directory, which the user's commands can write */
	if (!tree_overlay_real_dirs(dir_fd, name, true))
		return -ENOTDIR;
	if (snprintf(path, sizeof(path), "%s/%s", name, TREE_GATE_WORK) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (tree_overlay_real_dirs(dir_fd, path, true))
		(void)tree_overlay_remove_workdir(dir_fd, path);
	snprintf(path, sizeof(path), "%s/%s", name, TREE_GATE_LOWER);
	(void)unlinkat(dir_fd, path, AT_REMOVEDIR);
	return unlinkat(dir_fd, name, AT_REMOVEDIR) < 0 ? -errno : 0;
}

/*
 * The gate's hidden name is in the user directory, which a command of the
 * user's can write: what it put there goes, or aside when it is a directory
 * with something in it (".<id>.g~XXXXXXXX", none of isorun's shapes).
 */
static int clear_name(int user_fd, const char *name)
{
	char aside[NAME_MAX + 1];
	unsigned int rnd = 0;

	if (unlinkat(user_fd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (unlinkat(user_fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd = (unsigned int)getpid();
	if (snprintf(aside, sizeof(aside), "%s~%08x", name, rnd) >= (int)sizeof(aside))
		return -ENAMETOOLONG;
	return renameat2(user_fd, name, user_fd, aside, RENAME_NOREPLACE) < 0 ? -errno : 0;
}

/*
 * Tree below the gate (fd) back at `id`: out to the gate's hidden name, then
 * one exchange, so that the path never leads nowhere; the gate, now at the
 * hidden name, goes.  Modes first: taking a name out of the gate writes it.
 */
static int reopen(int fd, int user_fd, const char *id, const char *name)
{
	/*
	 * The tree's own mode is the command's to change through the overlay: a
	 * directory moved to another parent must be writable, and one left 0100
	 * would look gated to ls and gc.
	 */
	int r = fchmod(fd, 0700) < 0 ? -errno : chmod_dir(fd, TREE_GATE_TREE, 0700);

	if (r == 0)
		r = clear_name(user_fd, name);
	if (r == 0 && renameat(fd, TREE_GATE_TREE, user_fd, name) < 0)
		r = -errno;
	if (r == 0 && renameat2(user_fd, name, user_fd, id, RENAME_EXCHANGE) < 0) {
		r = -errno;
		(void)renameat(user_fd, name, fd, TREE_GATE_TREE);
	}
	/* still below its gate: gc must know it for one */
	if (r < 0)
		(void)fchmod(fd, TREE_GATE_MODE);
	return r;
}

/* The gate made beside the tree, with its layers, at the hidden name. */
static int make_gate(int user_fd, const char *name, struct iso_err *e)
{
	int fd;

	if (mkdirat(user_fd, name, 0700) < 0)
		return iso_err_set(e, errno, "make the tree's gate '%s'", name);
	fd = openat(user_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || mkdirat(fd, TREE_GATE_WORK, 0700) < 0 ||
	    mkdirat(fd, TREE_GATE_LOWER, 0700) < 0) {
		int r = iso_err_set(e, errno, "make the tree's gate '%s'", name);
		if (fd >= 0)
			close(fd);
		(void)remove_gate(user_fd, name);
		return r;
	}
	return fd;
}

/*
 * What passes the gate is the release proof's (tree/release.h): its watch is
 * taken now, on the instance init's overlay watch joins, the same mask the
 * proof asks for later (which then finds it: no watch more is needed at the
 * end, when a process of the user's could have taken every one left).  A run
 * that cannot have it has no gate.
 */
static int watch_release(struct tree_gate *g, int tree_fd, struct iso_err *e)
{
	char at[64];

	g->in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (g->in < 0)
		return iso_err_set(e, errno, "watch the tree (inotify)");
	snprintf(at, sizeof(at), "/proc/self/fd/%d", tree_fd);
	g->release_wd = inotify_add_watch(g->in, at, IN_DELETE_SELF | IN_ONLYDIR);
	if (g->release_wd < 0) {
		int r = iso_err_set(e, errno, "watch the tree's release");
		close(g->in);
		g->in = -1;
		return r;
	}
	return 0;
}

/* What the tree below the gate must be: the directory isorun made, by identity. */
static bool holds_tree(int fd, const struct stat *top)
{
	struct stat st;

	return fstatat(fd, TREE_GATE_TREE, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == top->st_dev && st.st_ino == top->st_ino;
}

int tree_gate_close(struct tree_gate *g, int user_fd, const char *id, int tree_fd,
		    struct iso_err *e)
{
	char name[NAME_MAX + 1];
	struct stat top;
	int fd;

	if (gate_name(id, name, sizeof(name)) < 0)
		return iso_err_set(e, ENAMETOOLONG, "name the gate of '%s'", id);
	if (fstat(tree_fd, &top) < 0)
		return iso_err_set(e, errno, "stat the tree '%s'", id);
	if (watch_release(g, tree_fd, e) < 0)
		return -EIO;
	fd = make_gate(user_fd, name, e);
	if (fd < 0)
		return fd;
	/* the gate takes the tree's name in one step, then the tree goes below it */
	if (renameat2(user_fd, id, user_fd, name, RENAME_EXCHANGE) < 0) {
		int r = iso_err_set(e, errno, "put the tree '%s' below its gate", id);
		close(fd);
		(void)remove_gate(user_fd, name);
		return r;
	}
	if (renameat(user_fd, name, fd, TREE_GATE_TREE) < 0 || !holds_tree(fd, &top) ||
	    fchmod(fd, TREE_GATE_MODE) < 0) {
		int r = iso_err_set(e, errno ? errno : EXDEV, "put the tree '%s' below its gate",
				    id);
		if (holds_tree(fd, &top))
			(void)reopen(fd, user_fd, id, name);
		else
			(void)renameat2(user_fd, id, user_fd, name, RENAME_EXCHANGE);
		close(fd);
		(void)remove_gate(user_fd, name);
		return r;
	}
	g->fd = fd;
	g->closed = true;
	return 0;
}

/* In init, the overlay just mounted at `path`: our own, showing the tree's inodes, watched. */
static int watch_overlay(const char *path, const struct stat *upper, int in)
{
	_cleanup_close_ int fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char at[64];
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return -errno;
	/* samefs overlayfs shows the upper layer's inode numbers: a holder is matched by them */
	if (st.st_ino != upper->st_ino || st.st_dev == upper->st_dev)
		return -EXDEV;
	snprintf(at, sizeof(at), "/proc/self/fd/%d", fd);
	if (inotify_add_watch(in, at, IN_UNMOUNT | IN_ONLYDIR) < 0)
		return -errno;
	return 0;
}

/*
 * The layers as this namespace shows them: overlayfs clones its upper layer's
 * mount, which must be one of the caller's namespace (a descriptor opened
 * before it leads to the host's: EINVAL).  Nothing of the command's runs yet;
 * the tree is checked by identity.
 */
static int open_layers(const char *path, const struct stat *upper, int fds[3])
{
	_cleanup_close_ int gate = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	static const char *const names[3] = { TREE_GATE_TREE, TREE_GATE_WORK, TREE_GATE_LOWER };
	struct stat st;

	if (gate < 0)
		return -errno;
	for (int i = 0; i < 3; i++) {
		fds[i] = openat(gate, names[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fds[i] < 0)
			return -errno;
	}
	if (fstat(fds[0], &st) < 0)
		return -errno;
	return st.st_dev == upper->st_dev && st.st_ino == upper->st_ino ? 0 : -EXDEV;
}

static int mount_overlay(const char *path, const struct stat *upper, int in)
{
	int fds[3] = { -1, -1, -1 }, r = open_layers(path, upper, fds);
	char opts[200];

	snprintf(opts, sizeof(opts),
		 "lowerdir=/proc/self/fd/%d,upperdir=/proc/self/fd/%d,workdir=/proc/self/fd/%d,"
		 "volatile,userxattr",
		 fds[2], fds[0], fds[1]);
	if (r == 0 && mount("isorun", path, "overlay", 0, opts) < 0)
		r = -errno;
	else if (r == 0 && (r = watch_overlay(path, upper, in)) < 0)
		(void)umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return r;
}

/* Where no overlay goes: the tree bound at its path, the holder scan's to prove. */
static int bind_tree(const char *path, const struct stat *upper, struct iso_err *e)
{
	char src[PATH_MAX], *why = e->msg;
	size_t len = sizeof(e->msg), at_len = strlen(why);
	struct stat at;

	snprintf(src, sizeof(src), "%s/" TREE_GATE_TREE, path);
	if (mount(src, path, NULL, MS_BIND, NULL) < 0) {
		int err = errno;
		snprintf(why + at_len, len - at_len, "; bind the tree to its path: %s",
			 strerror(err));
		return -err;
	}
	if (stat(path, &at) < 0 || at.st_ino != upper->st_ino || at.st_dev != upper->st_dev) {
		(void)umount2(path, MNT_DETACH | UMOUNT_NOFOLLOW);
		snprintf(why + at_len, len - at_len, "; the tree below its gate moved");
		return -EXDEV;
	}
	return 1;
}

int tree_gate_mount(int tree_fd, int in, const char *path, struct iso_err *e)
{
	struct stat upper;
	int r;

	if (fstat(tree_fd, &upper) < 0)
		return iso_err_set(e, errno, "stat the tree below its gate");
	r = in < 0 ? -EBADF : mount_overlay(path, &upper, in);
	if (r == 0)
		return 0;
	iso_err_set(e, 0, "no overlay of the tree in the run's namespace (%s)", strerror(-r));
	return bind_tree(path, &upper, e);
}

/* Our own fdinfo: "inotify wd:1 ino:... sdev:..." once init's watch is on the instance. */
void tree_gate_learn(struct tree_gate *g)
{
	char path[64], buf[1024];
	unsigned long sdev;
	const char *at;
	ssize_t n;
	int fd;

	if (g->in < 0)
		return;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", g->in);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* init's overlay watch, not the release's (taken first, on the tree on disk) */
	for (at = strstr(buf, "inotify wd:"); at; at = strstr(at + 1, "inotify wd:")) {
		unsigned int wd;
		if (sscanf(at, "inotify wd:%x", &wd) == 1 && (int)wd != g->release_wd)
			break;
	}
	at = at ? strstr(at, " sdev:") : NULL;
	if (!at || sscanf(at, " sdev:%lx", &sdev) != 1)
		return;
	/* the kernel's own encoding: 12 bits of major above 20 of minor */
	g->dev = makedev((unsigned)(sdev >> 20), (unsigned)(sdev & 0xfffff));
	g->up = true;
}

int tree_gate_ended(const struct tree_gate *g, int ms)
{
	if (!g->up)
		return 0;
	return tree_overlay_ended(g->in, ms) ? 1 : 0;
}

int tree_gate_open(struct tree_gate *g, int user_fd, const char *id, const char *user_path,
		   struct iso_err *e)
{
	char name[NAME_MAX + 1];
	int r;

	if (!g->closed)
		return 0;
	if (gate_name(id, name, sizeof(name)) < 0)
		return iso_err_set(e, ENAMETOOLONG, "name the gate of '%s'", id);
	r = unpark(g);
	if (r < 0)
		return iso_err_set(e, -r, "take back the gate's descriptor of '%s/%s'", user_path,
				   id);
	r = reopen(g->fd, user_fd, id, name);
	if (r < 0)
		return iso_err_set(e, -r, "take the tree '%s/%s' out of its gate", user_path, id);
	g->closed = false;
	/* a layer an overlay still uses stays; gc's sweep takes it once the tree is gone */
	(void)remove_gate(user_fd, name);
	return 0;
}

int tree_gate_records(int dir_fd)
{
	struct stat st;
	int fd;

	if (fstat(dir_fd, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOENT;
	/*
	 * 0100: a run's gate.  Any other mode: one an isorun killed on the way in
	 * or out left (0700): the layers beside `.t`, the records only below it.
	 */
	if ((st.st_mode & 07777) != TREE_GATE_MODE &&
	    (fstatat(dir_fd, TREE_OWNER, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	     (fstatat(dir_fd, TREE_GATE_WORK, &st, AT_SYMLINK_NOFOLLOW) < 0 &&
	      fstatat(dir_fd, TREE_GATE_LOWER, &st, AT_SYMLINK_NOFOLLOW) < 0)))
		return -ENOENT;
	fd = openat(dir_fd, TREE_GATE_TREE, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0 && fstatat(fd, TREE_OWNER, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		close(fd);
		return -ENOENT;
	}
	return fd < 0 ? -errno : fd;
}

int tree_gate_undo(int user_fd, const char *id, const char *user_path, struct iso_err *e)
{
	_cleanup_close_ int at = openat(user_fd, id, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char self[64];
	struct tree_gate g;
	int below, r;

	if (at < 0)
		return errno == ENOENT ? 0 : iso_err_set(e, errno, "open '%s/%s'", user_path, id);
	below = tree_gate_records(at);
	if (below < 0)
		return 0;
	close(below);
	/* the gate itself, not what its path may lead to now; opened up to be listed */
	snprintf(self, sizeof(self), "/proc/self/fd/%d", at);
	tree_gate_init(&g);
	if (chmod(self, 0700) < 0 ||
	    (g.fd = openat(at, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return iso_err_set(e, errno, "open the gate of '%s/%s'", user_path, id);
	g.closed = true;
	r = tree_gate_open(&g, user_fd, id, user_path, e);
	tree_gate_free(&g);
	return r < 0 ? r : 1;
}

int tree_gate_remove_left(int user_fd, const char *name, const char *user_path, struct iso_err *e)
{
	int r;

	r = chmod_dir(user_fd, name, 0700);
	if (r < 0)
		return r == -ENOENT ? 0 : iso_err_set(e, -r, "open '%s/%s'", user_path, name);
	/*
	 * Only what isorun makes in a gate goes: a tree caught in transit (a run
	 * killed between two renames) is not a gate's leftover, and stays.
	 */
	r = remove_gate(user_fd, name);
	if (r < 0 && r != -ENOENT)
		return iso_err_set(e, -r, "remove '%s/%s'", user_path, name);
	return 0;
}

/* Whether `rel` below dir_fd's `dir` exists, as a regular file (`file`) or any entry. */
static bool has(int dir_fd, const char *dir, const char *rel, bool file)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path) ||
	    !tree_overlay_real_dirs(dir_fd, dir, true))
		return false;
	return fstatat(dir_fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       (!file || S_ISREG(st.st_mode));
}

int tree_gate_recover(int user_fd, const char *id, const char *user_path, struct iso_err *e)
{
	char name[NAME_MAX + 1];

	if (gate_name(id, name, sizeof(name)) < 0)
		return 0;
	/* the hidden name holds a tree (its owner record); the tree's name, a gate's layers */
	if (!has(user_fd, name, TREE_OWNER, true) || has(user_fd, id, TREE_OWNER, false) ||
	    (!has(user_fd, id, TREE_GATE_WORK, false) && !has(user_fd, id, TREE_GATE_LOWER, false)))
		return 0;
	if (renameat2(user_fd, name, user_fd, id, RENAME_EXCHANGE) < 0)
		return iso_err_set(e, errno, "put the tree '%s/%s' back at its path", user_path,
				   id);
	(void)remove_gate(user_fd, name);
	return 1;
}
