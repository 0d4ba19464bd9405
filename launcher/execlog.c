// SPDX-License-Identifier: MIT
#include "launcher/execlog.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/proc.h"

static size_t slot_of(const struct sup_execlog *log, pid_t pid)
{
	/* pids come in sequence: a multiplicative hash spreads the runs of them */
	return ((uint32_t)pid * 2654435761u) & (log->cap - 1);
}

static struct sup_exec_rec *lookup(const struct sup_execlog *log, pid_t pid)
{
	if (!log->cap)
		return NULL;
	for (size_t i = slot_of(log, pid);; i = (i + 1) & (log->cap - 1)) {
		if (log->v[i].pid == pid || log->v[i].pid == 0)
			return &log->v[i];
	}
}

const struct sup_exec_rec *sup_execlog_get(const struct sup_execlog *log, pid_t pid)
{
	const struct sup_exec_rec *r = lookup(log, pid);

	return r && r->pid == pid ? r : NULL;
}

/* Move every record for which keep[] is set (NULL: all) into a table of `cap` slots. */
static int rebuild(struct sup_execlog *log, size_t cap, const bool *keep)
{
	struct sup_exec_rec *old = log->v;
	size_t old_cap = log->cap;

	log->v = calloc(cap, sizeof(*log->v));
	if (!log->v) {
		log->v = old;
		return -ENOMEM;
	}
	log->cap = cap;
	log->n = 0;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].pid)
			continue;
		if (keep && !keep[i]) {
			free(old[i].args);
			continue;
		}
		struct sup_exec_rec *slot = lookup(log, old[i].pid);
		if (slot) {
			*slot = old[i];
			log->n++;
		}
	}
	free(old);
	return 0;
}

/*
 * The table is full: keep the records of living processes and of their recorded
 * ancestors (a living daemon's dead parents are what it will be attributed to).
 * kill(pid, 0) may take a reused pid for alive: that only keeps a record longer.
 */
static int sweep(struct sup_execlog *log)
{
	_cleanup_free_ bool *keep = calloc(log->cap, sizeof(bool));

	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < log->cap; i++) {
		const struct sup_exec_rec *r = &log->v[i];
		if (!r->pid || (kill(r->pid, 0) < 0 && errno == ESRCH))
			continue;
		for (int depth = 0; r && depth < 64; depth++) {
			keep[r - log->v] = true;
			const struct sup_exec_rec *up = sup_execlog_get(log, r->ppid);
			r = up && up->id <= r->id && up != r ? up : NULL;
		}
	}
	return rebuild(log, log->cap, keep);
}

/* Room for one more record: grow, or sweep when the table is at its bound. */
static bool room(struct sup_execlog *log)
{
	if (log->n + 1 <= log->cap / 4 * 3)
		return true;
	if (log->cap < SUP_EXECLOG_MAX)
		return rebuild(log, log->cap ? log->cap * 2 : 256, NULL) == 0;
	return sweep(log) == 0 && log->n + 1 <= log->cap / 4 * 3;
}

static void store(struct sup_execlog *log, pid_t pid, const struct iso_ident *p, char *const *argv,
		  size_t argc, bool forked)
{
	char buf[SUP_EXECLOG_BYTES];
	struct sup_exec_rec *r;
	size_t len = 0, n = 0;
	bool trunc = argc > SUP_EXECLOG_ARGS;

	for (; n < argc && n < SUP_EXECLOG_ARGS && len < sizeof(buf); n++) {
		size_t l = strnlen(argv[n], sizeof(buf));
		if (len + l + 1 > sizeof(buf)) {
			/* the argument that does not fit is kept as far as it goes */
			l = sizeof(buf) - len - 1;
			trunc = true;
		}
		memcpy(buf + len, argv[n], l);
		buf[len + l] = '\0';
		len += l + 1;
	}
	r = lookup(log, pid);
	if (r && r->pid == pid) {
		free(r->args);
	} else if (room(log)) {
		r = lookup(log, pid); /* a grow or a sweep moved the slots */
		log->n++;
	} else {
		log->dropped++;
		return;
	}
	*r = (struct sup_exec_rec){ .pid = pid,
				    .ppid = p->ppid,
				    .id = p->id,
				    .len = (uint16_t)len,
				    .argc = (uint8_t)n,
				    .truncated = trunc,
				    .forked = forked,
				    .args = malloc(len ? len : 1) };
	if (r->args)
		memcpy(r->args, buf, len);
	else
		r->len = r->argc = 0;
}

/* The parent of an exec that never exec'd itself: its argv as it is now. */
static void store_parent(struct sup_execlog *log, pid_t ppid, uint64_t child_id)
{
	char buf[SUP_EXECLOG_BYTES];
	char *argv[SUP_EXECLOG_ARGS];
	struct iso_ident p;
	size_t argc = 0;
	ssize_t n;

	if (iso_proc_ident(ppid, log->pidfs, &p) < 0 || p.id > child_id)
		return;
	n = iso_proc_read(ppid, "cmdline", buf, sizeof(buf));
	for (ssize_t i = 0; i < n && argc < SUP_EXECLOG_ARGS; i += (ssize_t)strlen(buf + i) + 1)
		argv[argc++] = buf + i;
	store(log, ppid, &p, argv, argc, true);
}

void sup_execlog_add(struct sup_execlog *log, pid_t pid, char *const *argv, size_t argc,
		     const pid_t roots[2])
{
	const struct sup_exec_rec *up;
	struct iso_ident p;

	if (iso_proc_ident(pid, log->pidfs, &p) < 0)
		return; /* gone meanwhile: its exec fails too */
	up = sup_execlog_get(log, pid);
	if (p.ppid == roots[0] || p.ppid == roots[1] || p.ppid <= 1) {
		/* orphaned since its last exec (`setsid cmd &` in a script that ended): the
		 * parent that started it is the one its earlier exec saw */
		if (up && up->id == p.id)
			p.ppid = up->ppid;
		store(log, pid, &p, argv, argc, false);
		return;
	}
	store(log, pid, &p, argv, argc, false);
	up = sup_execlog_get(log, p.ppid);
	if (!up || up->id > p.id)
		store_parent(log, p.ppid, p.id);
}

void sup_execlog_free(struct sup_execlog *log)
{
	for (size_t i = 0; i < log->cap; i++)
		free(log->v[i].args);
	free(log->v);
	*log = (struct sup_execlog){ 0 };
}
