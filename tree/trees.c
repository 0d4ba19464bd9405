// SPDX-License-Identifier: MIT
#include "tree/gate.h"
#include "tree/trees.h"
#include "tree/shield.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/io.h"
#include "common/num.h"
#include "common/cleanup.h"
#include "tree/tree.h"

/* isorun's own records are a few hundred bytes; anything far larger is not one */
#define RECORD_MAX (64 * 1024)

const char *tree_seen_name(enum tree_seen s)
{
	switch (s) {
	case TREE_SEEN_RUNNING:
		return "running";
	case TREE_SEEN_KEPT:
		return "kept";
	case TREE_SEEN_RETAINED:
		return "retained";
	case TREE_SEEN_ORPHANED:
		return "orphaned";
	case TREE_SEEN_UNKNOWN:
		return "unknown";
	case TREE_SEEN_UNREADABLE:
		break;
	}
	return "unreadable";
}

/* Opens `name` in dirfd as a regular file without following links or blocking. */
static int open_record(int dirfd, const char *name, struct stat *st, char *why, size_t len)
{
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		int r = -errno;
		if (r == -ENOENT)
			snprintf(why, len, "missing");
		else if (r == -ELOOP)
			snprintf(why, len, "a symbolic link, not isorun's file");
		else
			snprintf(why, len, "cannot open: %s", strerror(-r));
		return r;
	}
	if (fstat(fd, st) < 0) {
		int r = -errno;
		snprintf(why, len, "cannot stat: %s", strerror(-r));
		close(fd);
		return r;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, len, "not a regular file");
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* The whole record, NUL-terminated, malloc'ed into *ret; its fd into *keep unless NULL. */
static int read_record(int dirfd, const char *name, char **ret, struct stat *st, char *why,
		       size_t len, int *keep)
{
	_cleanup_close_ int fd = open_record(dirfd, name, st, why, len);
	_cleanup_free_ char *buf = NULL;
	size_t total = 0;
	ssize_t n;

	*ret = NULL;
	if (fd < 0)
		return fd;
	if (st->st_size > RECORD_MAX) {
		snprintf(why, len, "%lld bytes, too large to be isorun's", (long long)st->st_size);
		return -EFBIG;
	}
	buf = malloc(RECORD_MAX + 1);
	if (!buf) {
		snprintf(why, len, "out of memory");
		return -ENOMEM;
	}
	n = iso_read_all(fd, buf, RECORD_MAX);
	if (n < 0) {
		snprintf(why, len, "cannot read: %s", strerror((int)-n));
		return (int)n;
	}
	total = (size_t)n;
	buf[total] = '\0';
	if (strlen(buf) != total) {
		snprintf(why, len, "contains a NUL byte");
		return -EINVAL;
	}
	*ret = TAKE_PTR(buf);
	if (keep)
		*keep = TAKE_FD(fd);
	return 0;
}

int tree_read_record(int dirfd, const char *name, char **ret, struct iso_err *e)
{
	struct stat st;

	return read_record(dirfd, name, ret, &st, iso_err_text(e), sizeof(e->msg), NULL);
}

/* <id>/outcome: 1 with seen/reason set, 0 when absent, -EINVAL with why when unusable. */
/*
 * A shield that outlived its run's unmount, by device: holders through it are
 * matched by gc.  The record is the command's to rewrite, but an alias only
 * adds matches: a forged one can keep a tree, never remove one.
 */
static void read_shield_dev(struct tree_view *v, const json_t *dev)
{
	const char *s = json_is_string(dev) ? json_string_value(dev) : NULL, *end;
	uint64_t maj, min;

	if (s && iso_parse_digits(s, 10, &end, &maj) == 0 && *end == ':' &&
	    iso_parse_u64(end + 1, NULL, 0, UINT32_MAX, &min) == 0 && maj <= UINT32_MAX)
		v->alias_dev = makedev((unsigned)maj, (unsigned)min);
}

static int read_state(struct tree_view *v, char *why, size_t len)
{
	_cleanup_free_ char *text = NULL;
	json_error_t jerr;
	json_t *o, *state, *reason;
	struct stat st;
	int r = read_record(v->fd, TREE_OUTCOME, &text, &st, why, len, NULL);

	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return -EINVAL;
	o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	state = json_object_get(o, "state");
	reason = json_object_get(o, "reason");
	r = -EINVAL;
	if (!o)
		snprintf(why, len, "not JSON (line %d: %s)", jerr.line, jerr.text);
	else if (!json_is_string(state) || !json_is_string(reason))
		snprintf(why, len, "no \"state\" and \"reason\" strings");
	else if (strcmp(json_string_value(state), "kept") &&
		 strcmp(json_string_value(state), "retained"))
		snprintf(why, len, "unknown state \"%.40s\"", json_string_value(state));
	else {
		v->seen = strcmp(json_string_value(state), "kept") ? TREE_SEEN_RETAINED
								   : TREE_SEEN_KEPT;
		snprintf(v->reason, sizeof(v->reason), "%s", json_string_value(reason));
		read_shield_dev(v, json_object_get(o, "shield_dev"));
		r = 1;
	}
	json_decref(o);
	return r;
}

static void unreadable(struct tree_view *v, const char *what, const char *why)
{
	v->seen = TREE_SEEN_UNREADABLE;
	snprintf(v->reason, sizeof(v->reason), "%s%s", what, why);
}

/*
 * Without an owner record nothing is proven, but a partly failed removal may
 * have taken it and left the outcome record, whose reason is worth showing.
 */
static void owner_unusable(struct tree_view *v)
{
	struct tree_view recorded = { .fd = v->fd };
	char why[200];

	if (read_state(&recorded, why, sizeof(why)) > 0) {
		v->seen = TREE_SEEN_UNREADABLE;
		snprintf(v->reason, sizeof(v->reason),
			 "owner record: %s; its run recorded %s: %.300s", v->owner_why,
			 tree_seen_name(recorded.seen), recorded.reason);
		return;
	}
	unreadable(v, "owner record: ", v->owner_why);
}

/*
 * flock the lock: the owner record itself (`owner_fd`, taken over), or an
 * older tree's lock file.  TAKEN (kept open), HELD or FAILED, with why.
 */
static void probe_lock(struct tree_view *v, int owner_fd, bool keep_lock)
{
	const char *name = v->owner.lock_is_record ? TREE_OWNER : TREE_LOCK;
	struct stat st;
	char why[160];

	v->lock_probed = true;
	v->lock = TREE_LOCK_FAILED;
	if (v->owner.lock_is_record) {
		v->lock_fd = owner_fd;
	} else {
		close(owner_fd);
		v->lock_fd = open_record(v->fd, TREE_LOCK, &st, why, sizeof(why));
	}
	if (v->lock_fd < 0) {
		snprintf(v->lock_why, sizeof(v->lock_why), "lock: %s", why);
		return;
	}
	if (flock(v->lock_fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			v->lock = TREE_LOCK_HELD;
			snprintf(v->lock_why, sizeof(v->lock_why),
				 "its lock is held (by its owner, or by another isorun gc)");
		} else {
			snprintf(v->lock_why, sizeof(v->lock_why), "%s: flock: %s", name,
				 strerror(errno));
		}
		close(v->lock_fd);
		v->lock_fd = -1;
		return;
	}
	v->lock = TREE_LOCK_TAKEN;
	snprintf(v->lock_why, sizeof(v->lock_why), "its lock is free");
	if (!keep_lock) {
		/* our only reference: closing releases it */
		close(v->lock_fd);
		v->lock_fd = -1;
	}
}

/* The owner record's fields, or why it proves nothing in v->owner_why. */
static int owner_parse(const char *text, struct tree_view *v)
{
	struct iso_err e;
	int r = tree_owner_parse(text, &v->owner, &e);

	if (r < 0)
		iso_err_format(&e, v->owner_why, sizeof(v->owner_why));
	return r;
}

/*
 * The tree's directory, O_PATH: a live run's holder scan must not take ls or
 * gc for a holder; records are opened relative to it, and only sizing opens
 * the directory.  A run's tree below its gate has its records one level down.
 */
static bool open_view(int user_fd, const char *name, struct tree_view *v)
{
	int r;

	v->fd = openat(user_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (v->fd < 0) {
		if (errno == ENOTDIR || errno == ELOOP)
			unreadable(v, "not a directory", "");
		else
			unreadable(v, "cannot open: ", strerror(errno));
		return false;
	}
	r = tree_gate_records(v->fd);
	if (r >= 0) {
		close(v->fd);
		v->fd = r;
		v->gated = true;
	}
	return true;
}

/*
 * Free, but its owner lives: a run in its teardown, which let go of its lock
 * for its proof (a nested tree's tmpfs, tree/nest.h; an overlay shield's lock,
 * taken through it), or one about to exit.  Its lock is not kept, and nothing
 * more of it is opened (ls sizes it not, gc asks nothing): a reader in it
 * then would be a holder the proof meets.
 */
static void owner_busy(struct tree_view *v)
{
	if (v->lock != TREE_LOCK_TAKEN || v->fate != TREE_FATE_ALIVE)
		return;
	if (v->lock_fd >= 0)
		close(v->lock_fd);
	v->lock_fd = -1;
	v->lock = TREE_LOCK_HELD;
	snprintf(v->lock_why, sizeof(v->lock_why),
		 "its lock is free, but its owner lives (its teardown)");
}

void tree_view(int user_fd, const char *user_path, const char *name, const struct tree_host *h,
	       bool keep_lock, struct tree_view *v)
{
	_cleanup_free_ char *text = NULL;
	_cleanup_close_ int owner_fd = -1;
	struct iso_err e;
	struct stat st;
	char why[200];
	int r;

	*v = (struct tree_view){ .fd = -1, .lock_fd = -1, .fate = TREE_FATE_UNPROVABLE };
	snprintf(v->name, sizeof(v->name), "%s", name);
	if (snprintf(v->path, sizeof(v->path), "%s/%s", user_path, name) >= (int)sizeof(v->path)) {
		unreadable(v, "path too long", "");
		return;
	}
	if (!open_view(user_fd, name, v))
		return;
	r = read_record(v->fd, TREE_OWNER, &text, &st, v->owner_why, sizeof(v->owner_why),
			&owner_fd);
	if (r == 0)
		r = owner_parse(text, v);
	if (r < 0) {
		owner_unusable(v);
		return;
	}
	v->owner_ok = true;
	v->created = st.st_mtime;
	v->fate = tree_owner_fate(&v->owner, h, &e);
	iso_err_format(&e, v->fate_why, sizeof(v->fate_why));
	probe_lock(v, TAKE_FD(owner_fd), keep_lock);
	if (v->lock == TREE_LOCK_HELD) {
		v->seen = TREE_SEEN_RUNNING;
		if (v->fate == TREE_FATE_ALIVE)
			snprintf(v->reason, sizeof(v->reason), "%s", v->fate_why);
		else
			snprintf(v->reason, sizeof(v->reason), "%s; %s", v->lock_why, v->fate_why);
		return;
	}
	if (v->lock == TREE_LOCK_FAILED) {
		unreadable(v, "", v->lock_why);
		return;
	}
	r = read_state(v, why, sizeof(why));
	if (r < 0) {
		unreadable(v, "outcome record: ", why);
		return;
	}
	owner_busy(v);
	if (r > 0)
		return;
	if (v->fate == TREE_FATE_GONE) {
		v->seen = TREE_SEEN_ORPHANED;
		snprintf(v->reason, sizeof(v->reason),
			 "%s without recording an outcome (crashed or killed)", v->fate_why);
	} else {
		v->seen = TREE_SEEN_UNKNOWN;
		snprintf(v->reason, sizeof(v->reason), "nothing recorded, lock free, but %s",
			 v->fate_why);
	}
}

void tree_view_close(struct tree_view *v)
{
	if (v->lock_fd >= 0)
		close(v->lock_fd);
	if (v->fd >= 0)
		close(v->fd);
	v->lock_fd = v->fd = -1;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int tree_names(int user_fd, char ***ret)
{
	int fd = openat(user_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char **v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;

	*ret = NULL;
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		int r = -errno;
		close(fd);
		return r;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    tree_shield_is_own(de->d_name))
			continue;
		if (n == cap) {
			char **nv;
			cap = cap ? cap * 2 : 32;
			nv = realloc(v, cap * sizeof(*nv));
			if (!nv)
				goto nomem;
			v = nv;
		}
		v[n] = strdup(de->d_name);
		if (!v[n])
			goto nomem;
		n++;
		errno = 0;
	}
	if (errno) {
		int r = -errno;
		closedir(d);
		tree_names_free(v, n);
		return r;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_name);
	*ret = v;
	return (int)n;
nomem:
	closedir(d);
	tree_names_free(v, n);
	return -ENOMEM;
}

void tree_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
