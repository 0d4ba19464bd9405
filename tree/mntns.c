// SPDX-License-Identifier: MIT
#include "tree/mntns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/types.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/fault.h"

/* Debian 12's headers are Linux 6.1's: the nsfs, listmount and statmount ABI by hand. */
struct mnt_ns_info {
	__u32 size;
	__u32 nr_mounts;
	__u64 mnt_ns_id;
};
#define NSIO		0xb7
#define NS_MNT_GET_INFO _IOR(NSIO, 10, struct mnt_ns_info)
#define NS_MNT_GET_NEXT _IOR(NSIO, 11, struct mnt_ns_info)
#define NS_MNT_GET_PREV _IOR(NSIO, 12, struct mnt_ns_info)

struct mnt_id_req {
	__u32 size;
	__u32 spare;
	__u64 mnt_id;
	__u64 param;
	__u64 mnt_ns_id;
};
#define LSMT_ROOT 0xffffffffffffffffULL

/* The fixed part of struct statmount up to what is read here; strings follow at 512. */
struct statmount_head {
	__u32 size;
	__u32 mnt_opts;
	__u64 mask;
	__u32 sb_dev_major;
	__u32 sb_dev_minor;
	__u64 sb_magic;
	__u32 sb_flags;
	__u32 fs_type;
	__u64 mnt_id;
	__u64 mnt_parent_id;
	__u32 mnt_id_old;
	__u32 mnt_parent_id_old;
	__u64 mnt_attr;
	__u64 mnt_propagation;
	__u64 mnt_peer_group;
	__u64 mnt_master;
	__u64 propagate_from;
	__u32 mnt_root;
	__u32 mnt_point;
};
#define STATMOUNT_STR_OFFSET 512
#define STATMOUNT_SB_BASIC   0x1U
#define STATMOUNT_MNT_BASIC  0x2U
#define STATMOUNT_MNT_ROOT   0x8U
#define STATMOUNT_MNT_POINT  0x10U
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x4000U
#endif
#ifndef SYS_statmount
#define SYS_statmount 457
#define SYS_listmount 458
#endif

struct mount_seen {
	uint64_t id, parent;
	dev_t dev;
	char root[PATH_MAX];
	char point[PATH_MAX];
};

/* One mount of namespace ns_id (0: ours), its device, root and mount point. */
static int stat_mount(uint64_t mnt_id, uint64_t ns_id, struct mount_seen *m)
{
	struct mnt_id_req req = { .size = sizeof(req),
				  .mnt_id = mnt_id,
				  .param = STATMOUNT_SB_BASIC | STATMOUNT_MNT_BASIC |
					   STATMOUNT_MNT_ROOT | STATMOUNT_MNT_POINT,
				  .mnt_ns_id = ns_id };
	_cleanup_free_ char *buf = malloc(STATMOUNT_STR_OFFSET + 2 * PATH_MAX);
	const struct statmount_head *h = (const void *)buf;
	const char *str;

	if (!buf)
		return -ENOMEM;
	str = buf + STATMOUNT_STR_OFFSET;
	if (syscall(SYS_statmount, &req, buf, STATMOUNT_STR_OFFSET + 2 * PATH_MAX, 0) < 0)
		return -errno;
	m->dev = makedev(h->sb_dev_major, h->sb_dev_minor);
	m->id = h->mnt_id;
	m->parent = h->mnt_parent_id;
	/* a path cut short could be taken for another: not read is not proven */
	if (snprintf(m->root, sizeof(m->root), "%s", str + h->mnt_root) >= (int)sizeof(m->root) ||
	    snprintf(m->point, sizeof(m->point), "%s", str + h->mnt_point) >= (int)sizeof(m->point))
		return -ENAMETOOLONG;
	return 0;
}

static int mount_id(int fd, uint64_t *id)
{
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID_UNIQUE, &stx) < 0)
		return -errno;
	if (!(stx.stx_mask & STATX_MNT_ID_UNIQUE))
		return -EOPNOTSUPP;
	*id = stx.stx_mnt_id;
	return 0;
}

int tree_mntns_fs_path(int fd, const char *path, char *out, size_t len)
{
	struct mount_seen m;
	uint64_t id;
	size_t plen;
	int r = mount_id(fd, &id);

	if (r < 0)
		return r;
	r = stat_mount(id, 0, &m);
	if (r < 0)
		return r;
	plen = strlen(m.point);
	if (!strcmp(m.point, "/"))
		plen = 0;
	else if (strncmp(path, m.point, plen) || (path[plen] && path[plen] != '/'))
		return -EXDEV;
	if (snprintf(out, len, "%s%s", strcmp(m.root, "/") ? m.root : "", path + plen) >= (int)len)
		return -ENAMETOOLONG;
	if (!out[0])
		snprintf(out, len, "/");
	return 0;
}

int tree_mntns_propagation(int fd, uint64_t *prop)
{
	struct mnt_id_req req = { .size = sizeof(req), .param = STATMOUNT_MNT_BASIC };
	struct statmount_head h;
	uint64_t id;
	int r = mount_id(fd, &id);

	if (r < 0)
		return r;
	req.mnt_id = id;
	if (syscall(SYS_statmount, &req, &h, sizeof(h), 0) < 0)
		return -errno;
	*prop = h.mnt_propagation;
	return 0;
}

#define STATMOUNT_SB_SOURCE 0x200U

/* What follows the head, up to the source's offset (Linux 6.8's struct statmount). */
struct statmount_source {
	struct statmount_head head;
	__u64 mnt_ns_id;
	__u32 fs_subtype;
	__u32 sb_source;
};

int tree_mntns_source(int fd, char *out, size_t len)
{
	_cleanup_free_ char *buf = malloc(STATMOUNT_STR_OFFSET + PATH_MAX);
	const struct statmount_source *sm = (const void *)buf;
	struct mnt_id_req req = { .size = sizeof(req), .param = STATMOUNT_SB_SOURCE };
	uint64_t id;
	int r;

	if (!buf)
		return -ENOMEM;
	r = mount_id(fd, &id);
	if (r < 0)
		return r;
	req.mnt_id = id;
	if (syscall(SYS_statmount, &req, buf, STATMOUNT_STR_OFFSET + PATH_MAX, 0) < 0)
		return -errno;
	if (!(sm->head.mask & STATMOUNT_SB_SOURCE))
		return -EOPNOTSUPP;
	if (snprintf(out, len, "%s", buf + STATMOUNT_STR_OFFSET + sm->sb_source) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int tree_mntns_mounted_on(int fd, int parent_fd)
{
	_cleanup_free_ char *buf = malloc(STATMOUNT_STR_OFFSET + PATH_MAX);
	const struct statmount_head *h = (const void *)buf;
	struct mnt_id_req req = { .size = sizeof(req),
				  .param = STATMOUNT_MNT_BASIC | STATMOUNT_MNT_ROOT };
	uint64_t parent, id;
	int r;

	if (!buf)
		return -ENOMEM;
	r = mount_id(fd, &id);
	req.mnt_id = id;
	if (r == 0)
		r = mount_id(parent_fd, &parent);
	if (r < 0)
		return r;
	if (syscall(SYS_statmount, &req, buf, STATMOUNT_STR_OFFSET + PATH_MAX, 0) < 0)
		return -errno;
	/* the whole of its file system, not a bind of a part of it, on the parent's mount */
	return h->mnt_parent_id == parent && h->mnt_id != parent &&
	       !strcmp(buf + STATMOUNT_STR_OFFSET + h->mnt_root, "/");
}

/* a is b or lies below it */
static bool below(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (!strcmp(b, "/"))
		return true;
	return !strncmp(a, b, n) && (a[n] == '\0' || a[n] == '/');
}

static const struct tree_mntns_row *row_of(const struct tree_mntns_row *rows, size_t n, uint64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].id == id)
			return &rows[i];
	return NULL;
}

/* The namespace's root: its own parent, or one whose parent is not in the namespace. */
static const struct tree_mntns_row *ns_root(const struct tree_mntns_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].parent == rows[i].id)
			return &rows[i];
	for (size_t i = 0; i < n; i++)
		if (!strcmp(rows[i].point, "/") && !row_of(rows, n, rows[i].parent))
			return &rows[i];
	return NULL;
}

/* The last of the mounts stacked on `cur` at exactly `at`. */
static const struct tree_mntns_row *stacked(const struct tree_mntns_row *rows, size_t n,
					    const struct tree_mntns_row *cur, const char *at)
{
	for (bool more = true; more;) {
		more = false;
		for (size_t i = 0; i < n; i++)
			if (&rows[i] != cur && rows[i].parent == cur->id &&
			    !strcmp(rows[i].point, at)) {
				cur = &rows[i];
				more = true;
				break;
			}
	}
	return cur;
}

/* The mount a lookup of the absolute `path` ends on: the one on top at it. */
static const struct tree_mntns_row *top_at(const struct tree_mntns_row *rows, size_t n,
					   const char *path)
{
	const struct tree_mntns_row *cur = ns_root(rows, n);
	char at[PATH_MAX];
	size_t i = 0;

	if (!cur || snprintf(at, sizeof(at), "%s", path) >= (int)sizeof(at))
		return NULL;
	cur = stacked(rows, n, cur, "/");
	while (at[i]) {
		char c;

		for (i++; at[i] && at[i] != '/'; i++)
			;
		c = at[i];
		at[i] = '\0';
		cur = stacked(rows, n, cur, at);
		at[i] = c;
	}
	return cur;
}

int tree_mntns_judge(const struct tree_mntns_query *q, const struct tree_mntns_row *rows, size_t n,
		     char *where, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		const struct tree_mntns_row *m = &rows[i], *top;
		const char *point = strcmp(m->point, "/") ? m->point : "";
		char v[PATH_MAX];

		if (m->dev != q->disk)
			continue;
		/* a mount of a part of the tree: what it shows, it shows bare */
		if (below(m->root, q->rel) && strcmp(m->root, q->rel)) {
			snprintf(where, len, "%s", m->point);
			return 1;
		}
		if (!below(q->rel, m->root))
			continue;
		/* where this mount shows the tree: it must lead into a copy of the shield */
		if (snprintf(v, sizeof(v), "%s%s", point,
			     q->rel + (strcmp(m->root, "/") ? strlen(m->root) : 0)) >=
		    (int)sizeof(v))
			return -ENAMETOOLONG;
		top = top_at(rows, n, v[0] ? v : "/");
		if (!top || top->dev != q->shield || strcmp(top->root, "/")) {
			snprintf(where, len, "%s", v[0] ? v : "/");
			return 1;
		}
	}
	return 0;
}

struct ns_rows {
	struct tree_mntns_row *row;
	size_t n, cap;
};

static void rows_free(struct ns_rows *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->row[i].root);
		free(r->row[i].point);
	}
	free(r->row);
	*r = (struct ns_rows){ 0 };
}

static int rows_add(struct ns_rows *r, const struct mount_seen *m)
{
	struct tree_mntns_row *row;

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct tree_mntns_row *p = reallocarray(r->row, cap, sizeof(*p));
		if (!p)
			return -ENOMEM;
		r->row = p;
		r->cap = cap;
	}
	row = &r->row[r->n];
	*row = (struct tree_mntns_row){ .id = m->id,
					.parent = m->parent,
					.dev = m->dev,
					.root = strdup(m->root),
					.point = strdup(m->point) };
	r->n++;
	return row->root && row->point ? 0 : -ENOMEM;
}

/* Every mount of namespace ns_id (0: ours) into r; 0 with none when it ended meanwhile. */
static int ns_read(uint64_t ns_id, struct ns_rows *rows)
{
	uint64_t ids[256];
	struct mnt_id_req req = {
		.size = sizeof(req), .mnt_id = LSMT_ROOT, .param = 0, .mnt_ns_id = ns_id
	};
	_cleanup_free_ struct mount_seen *m = malloc(sizeof(*m));

	if (!m)
		return -ENOMEM;
	for (;;) {
		long n = syscall(SYS_listmount, &req, ids, ELEMENTSOF(ids), 0);
		if (n < 0)
			return errno == ENOENT ? 0 : -errno; /* the namespace ended meanwhile */
		for (long i = 0; i < n; i++) {
			int r = stat_mount(ids[i], ns_id, m);
			/* a mount gone meanwhile shows nothing; one that cannot be read fails the
			 * proof */
			if (r < 0 && r != -ENOENT)
				return r;
			if (r == 0 && (r = rows_add(rows, m)) < 0)
				return r;
		}
		if (n < (long)ELEMENTSOF(ids))
			break;
		req.param = ids[n - 1];
	}
	return 0;
}

/* 1 when namespace ns_id shows the directory bare (where: at which path), 0, or -errno. */
static int ns_exposes(const struct tree_mntns_query *q, uint64_t ns_id, char *where, size_t len)
{
	struct ns_rows rows = { 0 };
	int r = ns_read(ns_id, &rows);

	if (r == 0)
		r = tree_mntns_judge(q, rows.row, rows.n, where, len);
	rows_free(&rows);
	return r;
}

static uint64_t ns_id_of(int fd)
{
	struct mnt_ns_info info = { .size = sizeof(info) };

	return ioctl(fd, NS_MNT_GET_INFO, &info) < 0 ? 0 : info.mnt_ns_id;
}

static void note_seen(struct tree_mntns_seen *seen, int nsfd)
{
	struct stat st;

	if (fstat(nsfd, &st) < 0 || seen->n == TREE_MNTNS_SEEN_MAX)
		seen->all = true;
	else
		seen->ns[seen->n++] = st.st_ino;
}

/*
 * Every namespace from `fd` on in one direction; `own` is skipped.  *found once
 * one shows the tree bare (why names the first); with q->seen, each is noted.
 */
static int walk(const struct tree_mntns_query *q, int fd, unsigned long dir, uint64_t own,
		bool *found, char *why, size_t len)
{
	_cleanup_close_ int cur = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	char where[PATH_MAX];

	if (cur < 0)
		return -errno;
	for (;;) {
		struct mnt_ns_info info = { .size = sizeof(info) };
		int next = ioctl(cur, dir, &info);
		int r;

		if (next < 0)
			return errno == ENOENT ? 0 : -errno;
		close(cur);
		cur = next;
		if (info.mnt_ns_id == own)
			continue;
		r = ns_exposes(q, info.mnt_ns_id, where, sizeof(where));
		if (r < 0)
			return r;
		if (r == 0)
			continue;
		if (!*found)
			snprintf(why, len,
				 "mount namespace %llu shows the tree without its shield at %.200s",
				 (unsigned long long)info.mnt_ns_id, where);
		*found = true;
		if (!q->seen)
			return 1;
		note_seen(q->seen, cur);
	}
}

int tree_mntns_exposed(const struct tree_mntns_query *q, struct iso_err *e)
{
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);
	_cleanup_close_ int self = open("/proc/self/ns/mnt", O_RDONLY | O_CLOEXEC);
	char where[PATH_MAX];
	bool found = false;
	uint64_t own;
	int r;

	if (q->seen)
		*q->seen = (struct tree_mntns_seen){ 0 };
	if (self < 0)
		return -errno;
	own = ns_id_of(self);
	if (!own)
		return -errno;
	r = ns_exposes(q, 0, where, sizeof(where));
	if (r > 0) {
		snprintf(why, len, "the tree is also reachable without its shield at %.200s",
			 where);
		if (q->seen)
			q->seen->all = true;
		return 1;
	}
	if (r == 0)
		r = walk(q, self, NS_MNT_GET_PREV, own, &found, why, len);
	if (r >= 0 && (!found || q->seen))
		r = walk(q, self, NS_MNT_GET_NEXT, own, &found, why, len);
	return r < 0 ? r : found;
}

bool tree_mntns_initial_userns(void)
{
	char map[64];
	ssize_t n;
	_cleanup_close_ int fd = open("/proc/self/uid_map", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	n = read(fd, map, sizeof(map) - 1);
	if (n <= 0)
		return false;
	map[n] = '\0';
	return !strcmp(map, "         0          0 4294967295\n");
}

#define OVERLAYFS_MAGIC 0x794c7630

static bool shared(int root_fd, const char *name)
{
	_cleanup_close_ int fd =
		openat(root_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	uint64_t prop = 0;

	return fd >= 0 && tree_mntns_propagation(fd, &prop) == 0 && (prop & MS_SHARED);
}

int tree_mntns_share(int root_fd, const char *name)
{
	_cleanup_close_ int lock = -1, clone = -1, dir = -1;
	struct mount_attr attr = { .propagation = MS_SHARED };

	/*
	 * On an overlay too (a run inside another's): its trees are tmpfs mounts
	 * of their own (tree/shield.h), whose copies must be its slaves.
	 */
	if (geteuid() != 0 || !tree_mntns_initial_userns() || iso_test_fault("no-share") ||
	    shared(root_fd, name))
		return 0;
	/* another run making it now: this one goes without */
	lock = openat(root_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lock < 0 || flock(lock, LOCK_EX | LOCK_NB) < 0)
		return -errno;
	if (shared(root_fd, name))
		return 0;
	dir = openat(root_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir < 0)
		return -errno;
	clone = open_tree(dir, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (clone < 0 ||
	    move_mount(clone, "", dir, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0 ||
	    mount_setattr(clone, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return -errno;
	return 0;
}

/* `name` in `parent` is a bind of that very directory, from the parent's mount: ours. */
static bool bound_on_itself(const char *parent, const char *name)
{
	_cleanup_close_ int up = open(parent, O_PATH | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int fd =
		up < 0 ? -1 : openat(up, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	_cleanup_free_ struct mount_seen *m = malloc(sizeof(*m));
	char rel[PATH_MAX], want[PATH_MAX + NAME_MAX + 2];
	uint64_t id, up_id, prop = 0;

	if (!m || fd < 0 || mount_id(fd, &id) < 0 || mount_id(up, &up_id) < 0 ||
	    stat_mount(id, 0, m) < 0 || tree_mntns_propagation(fd, &prop) < 0 ||
	    tree_mntns_fs_path(up, parent, rel, sizeof(rel)) < 0)
		return false;
	snprintf(want, sizeof(want), "%s/%s", strcmp(rel, "/") ? rel : "", name);
	return (prop & MS_SHARED) && m->parent == up_id && id != up_id && !strcmp(m->root, want);
}

int tree_mntns_unshare(const char *dir)
{
	const char *slash = strrchr(dir, '/');
	char parent[PATH_MAX];
	struct stat st;

	if (!slash || slash == dir || (size_t)(slash - dir) >= sizeof(parent))
		return 0;
	memcpy(parent, dir, slash - dir);
	parent[slash - dir] = '\0';
	/* a system's temporary directory lives for the boot, and the bind with it */
	if (geteuid() != 0 || stat(parent, &st) < 0 || (st.st_mode & 01777) == 01777 ||
	    !bound_on_itself(parent, slash + 1))
		return 0;
	/* refused while a run, a shield, an ls or a gc uses it: that one takes it off */
	return umount2(dir, UMOUNT_NOFOLLOW) < 0 ? -errno : 0;
}
