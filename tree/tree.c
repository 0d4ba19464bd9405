// SPDX-License-Identifier: MIT
#include "tree/tree.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fdpass.h"
#include "common/proc.h"
#include "tree/rmtree.h"
#include "tree/mntns.h"
#include "tree/nest.h"
#include "common/text.h"

/* the lock last: whoever finds the owner record finds it locked or takeable */
const char *const tree_records[] = { TREE_CGROUP, TREE_OUTCOME_TMP, TREE_OUTCOME, TREE_SETTINGS,
				     TREE_OWNER,  TREE_LOCK,	    NULL };

/* an earlier layout's cover for --protect-home=hide: an old tree may still hold it */
static const char *const former_names[] = { "empty", NULL };

static const char *reserved_in(const char *const *names, const char *sub, size_t l)
{
	for (; *names; names++)
		if (strlen(*names) == l && !strncmp(sub, *names, l))
			return *names;
	return NULL;
}

const char *tree_reserved(const char *sub)
{
	size_t l = strcspn(sub, "/");
	const char *r = reserved_in(tree_records, sub, l);

	return r ? r : reserved_in(former_names, sub, l);
}

/* tmp/ is a /tmp: sticky and open to all, reachable below 0711 parents */
const struct tree_dir tree_dirs[] = {
	{ "home", 0700 },
	{ "tmp", 01777 },
	{ "run", 0700 }, /* XDG_RUNTIME_DIR must exist, 0700 (the base-directory spec) */
	{ NULL, 0 },
};

const struct tree_var tree_vars[] = {
	{ "HOME", "home" },
	{ "USERPROFILE", "home" },
	{ "TMPDIR", "tmp" },
	{ "TMP", "tmp" },
	{ "TEMP", "tmp" },
	{ "XDG_CACHE_HOME", "home/.cache" },
	{ "XDG_CONFIG_HOME", "home/.config" },
	{ "XDG_DATA_HOME", "home/.local/share" },
	{ "XDG_STATE_HOME", "home/.local/state" },
	{ "XDG_RUNTIME_DIR", "run" },
	{ NULL, NULL },
};

mode_t tree_dir_mode(void)
{
	/*
	 * Root's commands drop to other uids and expect $TMPDIR to work like /tmp, so
	 * the way down to tmp/ must be searchable by them (never listable).  An
	 * ordinary user cannot become another uid: its directories stay 0700.
	 */
	return geteuid() == 0 ? 0711 : 0700;
}

/* mkdirat, then the exact mode: the caller's umask must not decide it. */
/*
 * ISORUN_TEST_FAULT=tree:STEP fails that step of making a tree with EIO (the
 * tests' stand-in for a file system that refuses it), so that every step's undo
 * is tested.  STEP: home, tmp, run, owner, lock, write.
 */
static bool faulty(const char *step)
{
	const char *f = getenv("ISORUN_TEST_FAULT");

	if (!f || strncmp(f, "tree:", 5) != 0 || strcmp(f + 5, step) != 0)
		return false;
	errno = EIO;
	return true;
}

static int mkdir_mode(int dirfd, const char *name, mode_t mode)
{
	if (mkdirat(dirfd, name, mode) < 0)
		return -errno;
	if (fchmodat(dirfd, name, mode, 0) < 0)
		return -errno;
	return 0;
}

const char *tree_root(const char *root)
{
	const char *r = root;

	if (!r || !*r)
		r = getenv("ISORUN_ROOT");
	if (!r || !*r)
		r = getenv("TMPDIR");
	if (!r || !*r)
		r = "/tmp";
	return r;
}

int tree_open_user_dir(const char *given, bool create, char *path, size_t len, struct iso_err *e)
{
	_cleanup_close_ int rootfd = -1, fd = -1;
	/* canonical, because holders are found by comparing /proc readlinks with it */
	_cleanup_free_ char *root = realpath(given, NULL);
	char name[32];
	struct stat st;
	uid_t uid = geteuid();

	if (!root)
		return iso_err_set(e, errno, "resolve root directory '%s'", given);
	snprintf(name, sizeof(name), "isorun-%u", (unsigned)uid);
	if (snprintf(path, len, "%s%s%s", root, root[strlen(root) - 1] == '/' ? "" : "/", name) >=
	    (int)len) {
		iso_err_set(e, ENAMETOOLONG, "'%s'", root);
		iso_err_cause(e, TREE_CAUSE_ROOT);
		return -ENAMETOOLONG;
	}
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return iso_err_set(e, errno, "open root directory '%s'", root);
	if (create && mkdirat(rootfd, name, 0700) < 0 && errno != EEXIST)
		return iso_err_set(e, errno, "create '%s'", path);
	/* before the open: the trees' descriptor is then on the shared bind */
	if (create)
		(void)tree_mntns_share(rootfd, name);
	fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			return iso_err_set(e, 0, "refusing '%s': not a real directory (a symlink?)",
					   path);
		return iso_err_set(e, errno, "open '%s'", path);
	}
	/* Verify what we opened, not the name: the name can be swapped afterwards. */
	if (fstat(fd, &st) < 0)
		return iso_err_set(e, errno, "stat '%s'", path);
	if (!S_ISDIR(st.st_mode))
		return iso_err_set(e, 0, "refusing '%s': not a directory", path);
	if (st.st_uid != uid)
		return iso_err_set(e, 0, "refusing '%s': owned by uid %u, not by uid %u", path,
				   (unsigned)st.st_uid, (unsigned)uid);
	if (st.st_mode & 022)
		return iso_err_set(e, 0, "refusing '%s': mode %04o is group or world writable",
				   path, (unsigned)(st.st_mode & 07777));
	/* as root, one made 0700 (by an older isorun, or a umask) is opened up to 0711 */
	if (create && tree_dir_mode() == 0711 && (st.st_mode & 07777) != 0711 &&
	    fchmod(fd, 0711) < 0)
		return iso_err_set(e, errno, "chmod 0711 '%s'", path);
	return TAKE_FD(fd);
}

/*
 * A sortable UTC stamp, then 20 random characters (100 bits): the tree dir is
 * reachable by other uids as root (0711), so its name is what keeps it private.
 */
int tree_new_id(char *buf, size_t len, struct iso_err *e)
{
	/* 32 symbols: a byte's low 5 bits pick one without bias */
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
	unsigned char rnd[TREE_ID_RANDOM];
	char stamp[32];
	struct tm tm;
	size_t n;
	ssize_t got;

	iso_utc(time(NULL), &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	/* blocking only before the pool is initialised at boot: never a guessable name */
	do
		got = getrandom(rnd, sizeof(rnd), 0);
	while (got < 0 && errno == EINTR);
	if (got != (ssize_t)sizeof(rnd))
		return iso_err_set(e, got < 0 ? errno : EIO, "getrandom() for the tree's name");
	n = (size_t)snprintf(buf, len, "%s-", stamp);
	for (size_t i = 0; i < sizeof(rnd) && n + 1 < len; i++)
		buf[n++] = alphabet[rnd[i] & 31];
	buf[n] = '\0';
	return 0;
}

/*
 * The owner record's JSON, one line, malloc'ed; NULL when out of memory.
 * first_argv: the command that made a re-entered tree (its old record's), which
 * stays the tree's command for `isorun ls`; NULL: argv.
 */
static char *owner_text(char *const *argv, json_t *first_argv)
{
	json_t *o = json_object(), *av = first_argv ? json_incref(first_argv) : json_array();
	struct iso_proc self;
	_cleanup_free_ char *cwd = NULL;
	char boot[64] = "";
	struct stat ns;
	char *text;

	if (!o || !av) {
		json_decref(o);
		json_decref(av);
		return NULL;
	}
	for (size_t i = 0; !first_argv && argv[i]; i++) {
		_cleanup_free_ char *red = iso_redact(argv[i]);
		json_array_append_new(av, json_string(red ? red : "?"));
	}
	(void)iso_boot_id(boot, sizeof(boot));
	json_object_set_new(o, "pid", json_integer(getpid()));
	if (iso_proc_stat(getpid(), &self) == 0)
		json_object_set_new(o, "start_time", json_integer((json_int_t)self.start));
	json_object_set_new(o, "boot_id", json_string(boot));
	json_object_set_new(o, "uid", json_integer(geteuid()));
	json_object_set_new(o, "argv", av);
	/* where isorun was started, for `isorun ls` (which checkout left this tree) */
	cwd = getcwd(NULL, 0);
	if (cwd)
		json_object_set_new(o, "cwd", json_string(cwd));
	if (stat("/proc/self/ns/pid", &ns) == 0)
		json_object_set_new(o, "pidns", json_integer((json_int_t)ns.st_ino));
	/* this record is the lock: a reader flocks it, not an older tree's `lock` file */
	json_object_set_new(o, "lock", json_string(TREE_OWNER));
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	return text;
}

/*
 * The owner record, which is also the run's lock: created, locked, then written,
 * so that a reader that parses it (ls, gc) always finds it locked while the run
 * lives.  An empty or partial record proves nothing to gc, which leaves it be.
 */
static int write_owner(struct tree_tree *t, char *const *argv, struct iso_err *e)
{
	_cleanup_free_ char *text = owner_text(argv, NULL);
	size_t len;

	if (!text)
		return iso_err_set(e, ENOMEM, "owner record");
	t->lock_fd = faulty("owner")
			     ? -1
			     : openat(t->fd, TREE_OWNER,
				      O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (t->lock_fd < 0)
		return iso_err_set(e, errno, "create '%s/owner'", t->path);
	if (faulty("lock") || flock(t->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return iso_err_set(e, errno, "lock '%s/owner'", t->path);
	len = strlen(text);
	text[len] = '\n'; /* one write: the NUL's place is ours */
	errno = 0;
	if (faulty("write") || write(t->lock_fd, text, len + 1) != (ssize_t)(len + 1))
		return iso_err_set(e, errno ? errno : EIO, "write '%s/owner'", t->path);
	return 0;
}

static int populate(struct tree_tree *t, char *const *argv, struct iso_err *e)
{
	for (const struct tree_dir *d = tree_dirs; d->sub; d++) {
		int r = faulty(d->sub) ? -errno : mkdir_mode(t->fd, d->sub, d->mode);

		if (r < 0)
			return iso_err_set(e, -r, "create '%s/%s'", t->path, d->sub);
	}
	return write_owner(t, argv, e);
}

void tree_release_reserve(struct tree_tree *t)
{
	for (int i = 0; i < TREE_RESERVE; i++) {
		if (t->reserve[i] > 0)
			close(t->reserve[i]);
		t->reserve[i] = 0;
	}
}

/* Before anything exists: a limit too low to remove a tree refuses to make one. */
static int take_reserve(struct tree_tree *t, struct iso_err *e)
{
	for (int i = 0; i < TREE_RESERVE; i++) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			int r = iso_err_set(e, errno,
					    "set aside descriptors to remove the tree with "
					    "(the descriptor limit is too low)");
			tree_release_reserve(t);
			return r;
		}
		t->reserve[i] = fd;
	}
	return 0;
}

/*
 * Nothing of a failed setup may stay behind.  What was made is undone name by
 * name: no walk into the tree, which on a file system with files of its own (a
 * cgroup2 directory has cgroup.procs and others in each one made) would fail to
 * unlink what isorun never made and keep the rest.  The walk is only the fallback.
 */
static void unmake(struct tree_tree *t, struct iso_err *e)
{
	struct iso_err rm = { 0 };
	char hint[sizeof(e->hint)], why[sizeof(rm.msg) + 64];
	bool left = false;
	size_t n = 0;

	if (t->lock_fd >= 0)
		close(t->lock_fd);
	t->lock_fd = -1;
	tree_release_reserve(t);
	if (t->fd >= 0) {
		if (unlinkat(t->fd, TREE_OWNER, 0) < 0 && errno != ENOENT)
			left = true;
		while (tree_dirs[n].sub)
			n++;
		while (n--)
			if (unlinkat(t->fd, tree_dirs[n].sub, AT_REMOVEDIR) < 0 && errno != ENOENT)
				left = true;
		close(t->fd);
		t->fd = -1;
	}
	/* a nested tree's tmpfs: what was made in it goes with it */
	if (t->nest_watch >= 0) {
		close(t->nest_watch);
		t->nest_watch = -1;
		tree_nest_off(t->user_fd, t->id);
	}
	if (!left && unlinkat(t->user_fd, t->id, AT_REMOVEDIR) == 0)
		return;
	/* 125 promises nothing is left: when something is, the error says what */
	if (tree_rmtree(t->user_fd, t->id, t->path, NULL, &rm) < 0) {
		static const char pre[] = "left behind, remove it by hand: ";
		size_t w = strlen(iso_err_format(&rm, why, sizeof(why)));

		/* cut short if need be: the path is at its front */
		if (sizeof(pre) + w > sizeof(hint))
			w = sizeof(hint) - sizeof(pre);
		memcpy(hint, pre, sizeof(pre) - 1);
		memcpy(hint + sizeof(pre) - 1, why, w);
		hint[sizeof(pre) - 1 + w] = '\0';
		iso_err_hint(e, hint);
	}
}

/* A tree not yet opened, and the descriptors its teardown will need, taken now. */
static int tree_begin(struct tree_tree *t, struct iso_err *e)
{
	t->user_fd = t->fd = t->lock_fd = t->park = t->nest_watch = -1;
	t->parked = false;
	t->shield_dev = 0;
	t->reentries = 0;
	t->first_reason[0] = '\0';
	t->nest_why[0] = '\0';
	memset(t->reserve, 0, sizeof(t->reserve));
	return take_reserve(t, e);
}

int tree_create(struct tree_tree *t, const char *root, char *const *argv, struct iso_err *e)
{
	return tree_create_as(t, root, NULL, argv, false, e);
}

int tree_create_as(struct tree_tree *t, const char *root, const char *id, char *const *argv,
		   bool may_nest, struct iso_err *e)
{
	int r;

	r = tree_begin(t, e);
	if (r < 0)
		return r;
	r = tree_open_user_dir(root, true, t->user_path, sizeof(t->user_path), e);
	if (r < 0) {
		tree_release_reserve(t);
		return r;
	}
	t->user_fd = r;
	for (int attempt = 0;; attempt++) {
		/* the name asked for first (the run's outputs carry it), then fresh ones */
		if (attempt == 0 && id && id[0])
			r = snprintf(t->id, sizeof(t->id), "%s", id) < (int)sizeof(t->id) ? 0 : -1;
		else
			r = -1;
		if (r < 0 && (r = tree_new_id(t->id, sizeof(t->id), e)) < 0)
			return r;
		r = mkdir_mode(t->user_fd, t->id, tree_dir_mode());
		if (r == 0)
			break;
		errno = -r;
		if (errno != EEXIST || attempt > 16)
			return iso_err_set(e, errno, "create '%s/%s'", t->user_path, t->id);
	}
	if (snprintf(t->path, sizeof(t->path), "%s/%s", t->user_path, t->id) >=
	    (int)sizeof(t->path)) {
		(void)unlinkat(t->user_fd, t->id, AT_REMOVEDIR);
		return iso_err_set(e, ENAMETOOLONG, "create '%s/%s'", t->user_path, t->id);
	}
	/* inside another root run's shield: a tmpfs of its own, before anything is made in it */
	if (may_nest) {
		struct iso_err ne = { 0 };

		t->nest_watch = tree_nest_mount(t->user_fd, t->id, tree_dir_mode(), &ne);
		iso_err_format(&ne, t->nest_why, sizeof(t->nest_why));
	}
	t->fd = openat(t->user_fd, t->id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->fd < 0)
		r = iso_err_set(e, errno, "open '%s'", t->path);
	else
		r = populate(t, argv, e);
	if (r < 0)
		unmake(t, e);
	return r;
}

/* The command could have left one at the name: ours is made fresh, never through a link. */
static int fresh_record(struct tree_tree *t, const char *name, struct iso_err *e)
{
	int fd;

	if (unlinkat(t->fd, name, 0) < 0 && errno != ENOENT)
		return iso_err_set(e, errno, "remove '%s/%s'", t->path, name);
	fd = openat(t->fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return iso_err_set(e, errno, "create '%s/%s'", t->path, name);
	return fd;
}

int tree_write_record(struct tree_tree *t, const char *name, const char *text, struct iso_err *e)
{
	_cleanup_close_ int fd = -1;
	size_t len = strlen(text);
	struct stat st;

	/* a tree the command deleted has no place for it; what it left at the name goes */
	if (fstat(t->fd, &st) == 0 && st.st_nlink == 0)
		return 0;
	fd = fresh_record(t, name, e);
	if (fd < 0)
		return fd;
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len)
		return iso_err_set(e, errno ? errno : EIO, "write '%s/%s'", t->path, name);
	return 0;
}

/*
 * A `cgroup` record whose cgroup still exists may point at the old run's
 * processes: the tree is refused.  One whose cgroup is gone is stale: removed,
 * as the new run may make its own.  The path is only looked at, never opened.
 */
static int adopt_cgroup_record(struct tree_tree *t, struct iso_err *e)
{
	_cleanup_close_ int fd =
		openat(t->fd, TREE_CGROUP, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char text[PATH_MAX] = "";
	struct stat st;
	ssize_t n;

	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return iso_err_set(e, EEXIST, "'%s/%s': not isorun's record", t->path, TREE_CGROUP);
	n = read(fd, text, sizeof(text) - 1);
	text[n > 0 ? n : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (text[0] == '/' && lstat(text, &st) == 0)
		return iso_err_set(e, EEXIST, "its run's cgroup %s still exists", text);
	if (unlinkat(t->fd, TREE_CGROUP, 0) < 0)
		return iso_err_set(e, errno, "remove '%s/%s'", t->path, TREE_CGROUP);
	return 0;
}

/* The tree's own directory and owner record, verified ours, the lock taken. */
static int adopt_open(struct tree_tree *t, const char *name, struct iso_err *e)
{
	struct stat st;

	t->fd = openat(t->user_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->fd < 0)
		return iso_err_set(e, errno, "open '%s'", t->path);
	if (fstat(t->fd, &st) < 0)
		return iso_err_set(e, errno, "stat '%s'", t->path);
	if (st.st_uid != geteuid())
		return iso_err_set(e, EPERM, "'%s' is owned by uid %u", t->path,
				   (unsigned)st.st_uid);
	t->lock_fd =
		openat(t->fd, TREE_OWNER, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (t->lock_fd < 0)
		return iso_err_set(e, errno, "open '%s/%s'", t->path, TREE_OWNER);
	if (fstat(t->lock_fd, &st) < 0)
		return iso_err_set(e, errno, "stat '%s/%s'", t->path, TREE_OWNER);
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
		return iso_err_set(e, EPERM, "'%s/%s' is not isorun's record", t->path, TREE_OWNER);
	if (flock(t->lock_fd, LOCK_EX | LOCK_NB) < 0)
		return iso_err_set(e, errno == EWOULDBLOCK ? EBUSY : errno, "lock '%s/%s'", t->path,
				   TREE_OWNER);
	return adopt_cgroup_record(t, e);
}

/*
 * A record of the tree as JSON, or NULL: a regular file (no link, no FIFO) of at
 * most HISTORY_MAX bytes, read so (the command may have rewritten it).
 */
#define HISTORY_MAX (64 * 1024)
static json_t *read_json(int dirfd, const char *name)
{
	_cleanup_close_ int fd =
		openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *buf = NULL;
	size_t total = 0;
	struct stat st;
	ssize_t r = 1;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !(buf = malloc(HISTORY_MAX)))
		return NULL;
	while (total < HISTORY_MAX && (r = read(fd, buf + total, HISTORY_MAX - total)) > 0)
		total += (size_t)r;
	if (r < 0 || total == HISTORY_MAX)
		return NULL;
	return json_loadb(buf, total, JSON_REJECT_DUPLICATES, NULL);
}

/*
 * What the kept tree's records say of how it came to be: the command that made
 * it (the old owner record's argv, a list of strings, or NULL), why it was kept
 * and how often it was re-entered (the old outcome's).  Records the command
 * could rewrite: shown, escaped, never acted on; a bad one is left out.
 */
static json_t *read_history(struct tree_tree *t)
{
	json_t *o, *av = NULL, *first, *reason, *n;

	if ((o = read_json(t->fd, TREE_OUTCOME))) {
		first = json_object_get(o, "first_reason");
		reason = json_object_get(o, "reason");
		n = json_object_get(o, "reentries");
		snprintf(t->first_reason, sizeof(t->first_reason), "%s",
			 json_is_string(first)	  ? json_string_value(first)
			 : json_is_string(reason) ? json_string_value(reason)
						  : "");
		if (json_is_integer(n) && json_integer_value(n) > 0 &&
		    json_integer_value(n) < 1000000)
			t->reentries = (unsigned)json_integer_value(n);
		json_decref(o);
	}
	t->reentries++;
	if (!(o = read_json(t->fd, TREE_OWNER)))
		return NULL;
	av = json_object_get(o, "argv");
	for (size_t i = 0; json_is_array(av) && i < json_array_size(av); i++)
		if (!json_is_string(json_array_get(av, i)))
			av = NULL;
	av = json_is_array(av) && json_array_size(av) ? json_incref(av) : NULL;
	json_decref(o);
	return av;
}

/*
 * This run's owner record in place of the old one (the lock stays; the command
 * that made the tree stays its command), home/ tmp/ run/ there.
 */
static int adopt_take(struct tree_tree *t, char *const *argv, struct iso_err *e)
{
	json_t *first_argv = read_history(t);
	_cleanup_free_ char *text = owner_text(argv, first_argv);
	size_t len;

	json_decref(first_argv);
	if (!text)
		return iso_err_set(e, ENOMEM, "owner record");
	for (const struct tree_dir *d = tree_dirs; d->sub; d++) {
		int r = mkdir_mode(t->fd, d->sub, d->mode);

		if (r < 0 && r != -EEXIST)
			return iso_err_set(e, -r, "create '%s/%s'", t->path, d->sub);
	}
	len = strlen(text);
	text[len] = '\n';
	if (ftruncate(t->lock_fd, 0) < 0)
		return iso_err_set(e, errno, "truncate '%s/%s'", t->path, TREE_OWNER);
	errno = 0;
	if (pwrite(t->lock_fd, text, len + 1, 0) != (ssize_t)(len + 1))
		return iso_err_set(e, errno ? errno : EIO, "write '%s/%s'", t->path, TREE_OWNER);
	/* last: until here the tree reads as it was left (kept) */
	if (unlinkat(t->fd, TREE_OUTCOME, 0) < 0 && errno != ENOENT)
		return iso_err_set(e, errno, "remove '%s/%s'", t->path, TREE_OUTCOME);
	return 0;
}

int tree_adopt(struct tree_tree *t, const char *root, const char *name, char *const *argv,
	       struct iso_err *e)
{
	int r;

	r = tree_begin(t, e);
	if (r < 0)
		return r;
	r = tree_open_user_dir(root, false, t->user_path, sizeof(t->user_path), e);
	if (r < 0)
		return r;
	t->user_fd = r;
	if (snprintf(t->id, sizeof(t->id), "%s", name) >= (int)sizeof(t->id) ||
	    snprintf(t->path, sizeof(t->path), "%s/%s", t->user_path, name) >= (int)sizeof(t->path))
		return iso_err_set(e, ENAMETOOLONG, "'%s/%s'", t->user_path, name);
	r = adopt_open(t, name, e);
	if (r >= 0)
		r = adopt_take(t, argv, e);
	if (r < 0 && t->fd >= 0) {
		/* a tree not ours to take: left as it is, never removed */
		close(t->fd);
		t->fd = -1;
	}
	return r;
}

int tree_mkdir_sub(struct tree_tree *t, const char *sub, struct iso_err *e)
{
	_cleanup_free_ char *copy = strdup(sub);
	char *p;

	if (!copy) {
		iso_err_set(e, ENOMEM, "%s", "");
		iso_err_cause(e, TREE_CAUSE_ENV_DIR);
		return -ENOMEM;
	}
	for (p = copy;; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;
			*p = '\0';
			if (mkdirat(t->fd, copy, 0700) < 0 && errno != EEXIST)
				return iso_err_set(e, errno, "create '%s/%s'", t->path, copy);
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/*
 * The outcome's JSON: a re-entered tree's reason is why it was first kept,
 * then its re-entries and the last run's own reason; first_reason and
 * reentries carry them to the next re-entry.
 */
static json_t *state_json(const struct tree_tree *t, const char *state, const char *reason)
{
	char count[16];
	json_t *o;

	if (!t->reentries)
		return json_pack("{s:s, s:s}", "state", state, "reason", reason);
	snprintf(count, sizeof(count), "%u", t->reentries);
	o = json_pack("{s:s, s:s, s:I}", "state", state, "first_reason", t->first_reason,
		      "reentries", (json_int_t)t->reentries);
	if (o && json_object_set_new(o, "reason",
				     json_sprintf("%s%sre-entered %s%s, last by %s",
						  t->first_reason, t->first_reason[0] ? "; " : "",
						  t->reentries == 1 ? "once" : count,
						  t->reentries == 1 ? "" : " times", reason)) < 0) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int write_state(struct tree_tree *t, const char *state, const char *reason,
		       struct iso_err *e)
{
	static const char tmp[] = TREE_OUTCOME_TMP;
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int fd = -1;
	json_t *o = state_json(t, state, reason);
	size_t len;

	if (!o)
		return iso_err_set(e, ENOMEM, "outcome record");
	if (t->shield_dev && json_object_set_new(o, "shield_dev",
						 json_sprintf("%u:%u", major(t->shield_dev),
							      minor(t->shield_dev))) < 0) {
		json_decref(o);
		return iso_err_set(e, ENOMEM, "outcome record");
	}
	text = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!text)
		return iso_err_set(e, ENOMEM, "outcome record");
	len = strlen(text);
	fd = fresh_record(t, tmp, e);
	if (fd < 0)
		return fd;
	errno = 0;
	if (write(fd, text, len) != (ssize_t)len || write(fd, "\n", 1) != 1) {
		int r = iso_err_set(e, errno ? errno : EIO, "write '%s/%s'", t->path, tmp);
		(void)unlinkat(t->fd, tmp, 0);
		return r;
	}
	/* a reader sees the whole record or none */
	if (renameat(t->fd, tmp, t->fd, TREE_OUTCOME) < 0) {
		int r = iso_err_set(e, errno, "rename '%s/%s'", t->path, tmp);
		(void)unlinkat(t->fd, tmp, 0);
		return r;
	}
	return 0;
}

int tree_record_state(struct tree_tree *t, bool kept, const char *reason, struct iso_err *e)
{
	struct stat st;

	/* a tree the command deleted (or replaced) has no place for a record */
	if (t->fd < 0 || (fstat(t->fd, &st) == 0 && st.st_nlink == 0))
		return 0;
	return write_state(t, kept ? "kept" : "retained", reason, e);
}

int tree_park(struct tree_tree *t, struct iso_err *e)
{
	_cleanup_close_ int nul = -1;
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return iso_err_set(e, errno, "make a socket to park the tree's descriptor");
	r = iso_send_record(sv[0], "t", 1, t->fd);
	close(sv[0]);
	nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (r < 0 || nul < 0 || dup3(nul, t->fd, O_CLOEXEC) < 0) {
		r = iso_err_set(e, r < 0 ? -r : errno, "park the descriptor of '%s'", t->path);
		close(sv[1]);
		return r;
	}
	t->park = sv[1];
	t->parked = true;
	return 0;
}

int tree_unpark(struct tree_tree *t, struct iso_err *e)
{
	char c;
	int fd = -1;
	ssize_t n;

	if (!t->parked)
		return 0;
	n = iso_recv_record(t->park, &c, 1, &fd);
	close(t->park);
	t->parked = false;
	if (n != 1 || fd < 0 || dup3(fd, t->fd, O_CLOEXEC) < 0) {
		int r = iso_err_set(e,
				    n < 0    ? -n
				    : fd < 0 ? EPROTO
					     : errno,
				    "take back the descriptor of '%s'", t->path);
		if (fd >= 0)
			close(fd);
		return r;
	}
	close(fd);
	return 0;
}

void tree_let_go(struct tree_tree *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	if (t->fd >= 0)
		close(t->fd);
	t->lock_fd = t->fd = -1;
}

int tree_reopen(struct tree_tree *t, struct iso_err *e)
{
	t->fd = openat(t->user_fd, t->id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	return t->fd < 0 ? iso_err_set(e, errno, "open '%s' again", t->path) : 0;
}

void tree_close(struct tree_tree *t)
{
	if (t->nest_watch >= 0)
		close(t->nest_watch);
	t->nest_watch = -1;
	if (t->parked) {
		close(t->park);
		t->parked = false;
	}
	tree_release_reserve(t);
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	if (t->fd >= 0)
		close(t->fd);
	if (t->user_fd >= 0) {
		close(t->user_fd);
		/* after the close: our own descriptor of the trees' directory would refuse it */
		(void)tree_mntns_unshare(t->user_path);
	}
	t->lock_fd = t->fd = t->user_fd = -1;
}
