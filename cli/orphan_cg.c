// SPDX-License-Identifier: MIT
#include "cli/orphan_cg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/clock.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"
#include "tree/tree.h"
#include "tree/trees.h"

/* how long gc waits for a killed cgroup to empty */
#define ORPHAN_KILL_MS 10000

/* The record's one line: a FIFO, a link, a huge or many-line file is refused, saying so. */
static int read_record(int tree_fd, char *buf, size_t len, char *why, size_t wlen)
{
	_cleanup_free_ char *text = NULL;
	struct iso_err e;
	int r = tree_read_record(tree_fd, TREE_CGROUP, &text, &e);
	size_t n;

	if (r < 0) {
		iso_err_format(&e, why, wlen);
		return r;
	}
	n = strcspn(text, "\n");
	if (text[n] && text[n + 1]) {
		snprintf(why, wlen, "more than one line");
		return -EINVAL;
	}
	if (n == 0 || n >= len) {
		snprintf(why, wlen, n ? "a path too long" : "empty");
		return -EINVAL;
	}
	memcpy(buf, text, n);
	buf[n] = '\0';
	return 0;
}

/* A record that names another cgroup than this tree's is not believed. */
static bool names_this_tree(const char *path, const char *tree_name)
{
	const char *base = strrchr(path, '/');

	return path[0] == '/' && base && !strncmp(base + 1, "isorun-", 7) &&
	       !strcmp(base + 8, tree_name);
}

/*
 * isorun's run cgroup holds the command's processes only: one that holds this
 * gc or ls, or any of its ancestors (pid 1, the caller's shell), is not the run's.
 */
static pid_t holds_our_line(const pid_t *pids, size_t n)
{
	for (pid_t p = getpid(); p > 0;) {
		struct iso_proc st;

		for (size_t i = 0; i < n; i++)
			if (pids[i] == p || pids[i] == 1)
				return pids[i];
		if (p == 1 || iso_proc_stat(p, &st) < 0)
			break;
		p = st.ppid;
	}
	return 0;
}

static int refuse(struct cli_cg_orphan *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int refuse(struct cli_cg_orphan *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->refused, sizeof(o->refused), fmt, ap);
	va_end(ap);
	free(o->pids);
	o->pids = NULL;
	o->n = 0;
	o->path[0] = '\0';
	return -1;
}

/* The cgroup the record names, checked as cg_run_open checks it, and its processes. */
static int open_and_list(const char *path, struct cli_cg_orphan *o)
{
	struct cg_host h;
	struct cg_run run;
	struct iso_err e = { 0 };
	char buf[400];
	pid_t ours;
	int r;

	cg_host_probe(&h);
	r = cg_run_open(&run, &h, path, &e);
	if (r == -ENOENT && h.mount[0] && !strncmp(path, h.mount, strlen(h.mount)) &&
	    path[strlen(h.mount)] == '/') {
		cg_run_close(&run);
		return 0; /* the run's cgroup is gone already */
	}
	if (r == 0) {
		r = cg_run_pids(&run, &o->pids, &o->n);
		if (r < 0)
			iso_err_set(&e, r == -EINVAL ? 0 : -r,
				    "'%s/cgroup.procs' is not a list of pids", path);
	}
	cg_run_close(&run);
	if (r < 0)
		return refuse(o, "%s", iso_err_format(&e, buf, sizeof(buf)));
	ours = holds_our_line(o->pids, o->n);
	if (ours)
		return refuse(o, "'%s' holds pid %d, this isorun's own or one of its ancestors",
			      path, (int)ours);
	snprintf(o->path, sizeof(o->path), "%s", path);
	return 1;
}

int cli_cg_orphan_find(const struct tree_view *v, struct cli_cg_orphan *o)
{
	char path[PATH_MAX], why[200];
	int r;

	*o = (struct cli_cg_orphan){ 0 };
	if (v->fd < 0 || v->seen != TREE_SEEN_ORPHANED)
		return 0;
	r = read_record(v->fd, path, sizeof(path), why, sizeof(why));
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return refuse(o, "%s", why);
	if (!names_this_tree(path, v->name))
		return refuse(o, "'%.300s' is not named after this tree", path);
	return open_and_list(path, o);
}

static void print_one(pid_t pid, const char *how, const char *path, FILE *f)
{
	_cleanup_free_ char *cmd = iso_proc_cmdline(pid, 200);
	/* the record it came from is a file in the tree */
	_cleanup_free_ char *shown = iso_escape(path);

	fprintf(f, "  %s: pid %d `%s` (in the run's cgroup %s)\n", how, (int)pid, cmd ? cmd : "?",
		shown ? shown : "?");
}

void cli_cg_orphan_print(const struct cli_cg_orphan *o, FILE *f)
{
	for (size_t i = 0; i < o->n; i++)
		print_one(o->pids[i], "live", o->path, f);
}

void cli_cg_orphan_json(const struct cli_cg_orphan *o, json_t *obj)
{
	json_t *procs = json_object_get(obj, "processes");

	for (size_t i = 0; json_is_array(procs) && i < o->n; i++) {
		_cleanup_free_ char *cmd = iso_proc_cmdline(o->pids[i], 200);
		json_array_insert_new(procs, i,
				      json_pack("{s:i, s:s, s:s}", "pid", (int)o->pids[i], "cmd",
						cmd ? cmd : "?", "found_by", "cgroup"));
	}
	json_object_set_new(obj, "cgroup", o->path[0] ? json_string(o->path) : json_null());
	if (o->refused[0])
		json_object_set_new(obj, "cgroup_refused", json_string(o->refused));
}

int cli_cg_orphan_stop(const struct cli_cg_orphan *o, bool dry_run, FILE *f)
{
	struct cg_host h;
	struct cg_run run;
	struct iso_err e = { 0 };
	pid_t *pids = NULL;
	size_t n = 0;
	char buf[400];
	uint64_t deadline = iso_now_ms() + ORPHAN_KILL_MS;
	int r;

	if (dry_run) {
		for (size_t i = 0; i < o->n; i++)
			print_one(o->pids[i], "would kill", o->path, f);
		return 0;
	}
	cg_host_probe(&h);
	r = cg_run_open(&run, &h, o->path, &e);
	if (r == 0) {
		/* frozen first: the list named below is the whole of it, nothing forks past it */
		if (cg_run_freeze(&run, deadline) == 0 && cg_run_pids(&run, &pids, &n) == 0)
			for (size_t i = 0; i < n; i++)
				print_one(pids[i], "killed", o->path, f);
		free(pids);
		(void)cg_run_kill(&run);
		r = cg_run_wait_empty(&run, deadline);
		if (r < 0)
			iso_err_set(&e, -r, "empty the cgroup '%s' after cgroup.kill", o->path);
	}
	if (r == 0)
		r = cg_run_remove(&run, &e);
	else
		cg_run_close(&run);
	if (r < 0) {
		fflush(f);
		fprintf(stderr, "isorun: gc: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	}
	return r;
}

void cli_cg_orphan_free(struct cli_cg_orphan *o)
{
	free(o->pids);
	o->pids = NULL;
	o->n = 0;
}
