// SPDX-License-Identifier: MIT
#include "tree/evidence.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/cleanup.h"
#include "common/proc.h"

static int get_uint(json_t *o, const char *key, uint64_t max, bool required, uint64_t *ret,
		    char *why, size_t len)
{
	json_t *v = json_object_get(o, key);

	if (!v) {
		if (required)
			snprintf(why, len, "no \"%s\"", key);
		return required ? -EINVAL : 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max) {
		snprintf(why, len, "\"%s\" is not a number in [0, %llu]", key,
			 (unsigned long long)max);
		return -EINVAL;
	}
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

int tree_owner_parse(const char *text, struct tree_owner_rec *ret, struct iso_err *e)
{
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);
	json_error_t jerr;
	json_t *o = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	json_t *boot, *lock;
	uint64_t pid = 0, start = 0, uid = 0, pidns = 0;
	int r = -EINVAL;

	*ret = (struct tree_owner_rec){ 0 };
	if (!o) {
		snprintf(why, len, "not JSON (line %d: %s)", jerr.line, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(o)) {
		snprintf(why, len, "not a JSON object");
		goto out;
	}
	if (get_uint(o, "pid", INT_MAX, true, &pid, why, len) < 0 ||
	    get_uint(o, "start_time", INT64_MAX, true, &start, why, len) < 0 ||
	    get_uint(o, "uid", UINT32_MAX - 1, true, &uid, why, len) < 0 ||
	    get_uint(o, "pidns", INT64_MAX, false, &pidns, why, len) < 0)
		goto out;
	if (pid == 0) {
		snprintf(why, len, "\"pid\" is 0");
		goto out;
	}
	boot = json_object_get(o, "boot_id");
	if (!json_is_string(boot) || json_string_length(boot) >= sizeof(ret->boot_id) ||
	    strlen(json_string_value(boot)) != json_string_length(boot)) {
		snprintf(why, len, boot ? "\"boot_id\" is not a boot id" : "no \"boot_id\"");
		goto out;
	}
	lock = json_object_get(o, "lock");
	if (lock && (!json_is_string(lock) || strcmp(json_string_value(lock), "owner"))) {
		/* a lock elsewhere is a layout this isorun does not know: nothing is proven */
		snprintf(why, len, "\"lock\" is not \"owner\"");
		goto out;
	}
	ret->lock_is_record = lock != NULL;
	snprintf(ret->boot_id, sizeof(ret->boot_id), "%s", json_string_value(boot));
	ret->pid = (pid_t)pid;
	ret->start_time = start;
	ret->uid = (uid_t)uid;
	ret->pidns = pidns;
	r = 0;
out:
	json_decref(o);
	return r;
}

void tree_host_current(struct tree_host *h)
{
	struct stat st;

	*h = (struct tree_host){ .proc = "/proc", .uid = geteuid() };
	if (iso_boot_id(h->boot_id, sizeof(h->boot_id)) < 0)
		h->boot_id[0] = '\0';
	if (stat("/proc/self/ns/pid", &st) == 0)
		h->pidns = (uint64_t)st.st_ino;
}

int tree_pid_stat(const char *proc, pid_t pid, char *state, uint64_t *start)
{
	char path[PATH_MAX], buf[1024];
	const char *p;
	unsigned long long st = 0;
	_cleanup_close_ int fd = -1;
	ssize_t n;

	if (snprintf(path, sizeof(path), "%s/%d/stat", proc, (int)pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = iso_read_all(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: the fields start after the LAST ')' */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1,
			 " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d "
			 "%*d %llu",
			 state, &st) != 2)
		return -EIO;
	*start = st;
	return 0;
}

enum tree_fate tree_owner_fate(const struct tree_owner_rec *o, const struct tree_host *h,
			       struct iso_err *e)
{
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);
	uint64_t start = 0;
	char state = 0;
	int r;

	if (o->uid != h->uid) {
		snprintf(why, len, "the owner record names uid %u, not uid %u", (unsigned)o->uid,
			 (unsigned)h->uid);
		return TREE_FATE_UNPROVABLE;
	}
	if (!o->boot_id[0] || !h->boot_id[0]) {
		snprintf(why, len, "%s, so the boots cannot be compared",
			 o->boot_id[0] ? "the current boot id is unknown"
				       : "the owner record has no boot id");
		return TREE_FATE_UNPROVABLE;
	}
	if (strcmp(o->boot_id, h->boot_id) != 0) {
		snprintf(why, len, "the owner ran in another boot (boot id %s, now %s)", o->boot_id,
			 h->boot_id);
		return TREE_FATE_GONE;
	}
	/* a pid means something only in the namespace it was taken in */
	if (!o->pidns || !h->pidns || o->pidns != h->pidns) {
		if (!o->pidns)
			snprintf(why, len,
				 "the owner record has no PID namespace, so pid %d cannot be "
				 "checked",
				 (int)o->pid);
		else if (!h->pidns)
			snprintf(why, len,
				 "this PID namespace is unknown, so pid %d cannot be checked",
				 (int)o->pid);
		else
			snprintf(why, len,
				 "the owner ran in another PID namespace (pid:[%llu], here "
				 "pid:[%llu]), so pid %d cannot be checked from here",
				 (unsigned long long)o->pidns, (unsigned long long)h->pidns,
				 (int)o->pid);
		return TREE_FATE_UNPROVABLE;
	}
	r = tree_pid_stat(h->proc, o->pid, &state, &start);
	if (r == -ESRCH) {
		snprintf(why, len, "owner pid %d is gone", (int)o->pid);
		return TREE_FATE_GONE;
	}
	if (r < 0) {
		snprintf(why, len, "cannot read %s/%d/stat: %s", h->proc, (int)o->pid,
			 r == -EIO ? "unparsable" : strerror(-r));
		return TREE_FATE_UNPROVABLE;
	}
	if (start != o->start_time) {
		snprintf(why, len,
			 "owner pid %d is gone (the pid now names a process started at tick %llu, "
			 "the owner at %llu)",
			 (int)o->pid, (unsigned long long)start, (unsigned long long)o->start_time);
		return TREE_FATE_GONE;
	}
	/* a zombie never runs again: it only waits for its parent to reap it */
	if (state == 'Z' || state == 'X') {
		snprintf(why, len, "owner pid %d has exited (a zombie, not yet reaped)",
			 (int)o->pid);
		return TREE_FATE_GONE;
	}
	snprintf(why, len, "owner pid %d is alive", (int)o->pid);
	return TREE_FATE_ALIVE;
}

bool tree_gc_verdict(const struct tree_gc_facts *f, struct iso_err *e)
{
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);

	if (f->owner_error) {
		snprintf(why, len, "%s", f->owner_error);
		return false;
	}
	if (f->fate != TREE_FATE_GONE) {
		snprintf(why, len, "%s", f->fate_why ? f->fate_why : "the owner's fate is unknown");
		return false;
	}
	if (f->lock != TREE_LOCK_TAKEN) {
		snprintf(why, len, "%s", f->lock_why ? f->lock_why : "the lock was not taken");
		return false;
	}
	if (f->holders != 0) {
		snprintf(why, len, "%s",
			 f->holder_why ? f->holder_why : "holders could not be ruled out");
		return false;
	}
	if (f->unreadable && f->note_unreadable)
		snprintf(why, len,
			 "%s; its lock is free; no process has a file, cwd or root in it (%zu "
			 "processes' fds could not be read)",
			 f->fate_why ? f->fate_why : "the owner is gone", f->unreadable);
	else
		snprintf(why, len, "%s; its lock is free; no process has a file, cwd or root in it",
			 f->fate_why ? f->fate_why : "the owner is gone");
	return true;
}
