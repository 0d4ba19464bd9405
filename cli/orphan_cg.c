// SPDX-License-Identifier: MIT
#include "cli/orphan_cg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"
#include "tree/tree.h"

/* how long gc waits for a killed cgroup to empty */
#define ORPHAN_KILL_MS 10000

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The record, read without following a link or blocking on a FIFO the command made. */
static int read_record(int tree_fd, char *buf, size_t len)
{
	_cleanup_close_ int fd =
		openat(tree_fd, ISO_TREE_CGROUP, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -EINVAL;
	n = read(fd, buf, len - 1);
	if (n <= 0)
		return -EINVAL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A record that names another cgroup than this tree's is not believed. */
static bool names_this_tree(const char *path, const char *tree_name)
{
	const char *base = strrchr(path, '/');

	return path[0] == '/' && base && !strncmp(base + 1, "isorun-", 7) &&
	       !strcmp(base + 8, tree_name);
}

int iso_cg_orphan_find(const struct iso_tree_view *v, struct iso_cg_orphan *o)
{
	char path[PATH_MAX];
	struct stat st;

	*o = (struct iso_cg_orphan){ 0 };
	if (v->fd < 0 || v->seen != ISO_SEEN_ORPHANED)
		return 0;
	if (read_record(v->fd, path, sizeof(path)) < 0 || !names_this_tree(path, v->name))
		return 0;
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return 0;
	snprintf(o->path, sizeof(o->path), "%s", path);
	if (cg_path_pids(o->path, &o->pids, &o->n) < 0)
		o->n = 0;
	return 1;
}

static void print_one(pid_t pid, const char *how, const char *path, FILE *f)
{
	_cleanup_free_ char *cmd = iso_proc_cmdline(pid, 200);
	/* the record it came from is a file in the tree */
	_cleanup_free_ char *shown = iso_escape(path);

	fprintf(f, "  %s: pid %d `%s` (in the run's cgroup %s)\n", how, (int)pid, cmd ? cmd : "?",
		shown ? shown : "?");
}

void iso_cg_orphan_print(const struct iso_cg_orphan *o, FILE *f)
{
	for (size_t i = 0; i < o->n; i++)
		print_one(o->pids[i], "live", o->path, f);
}

void iso_cg_orphan_json(const struct iso_cg_orphan *o, json_t *obj)
{
	json_t *procs = json_array();

	for (size_t i = 0; i < o->n; i++) {
		_cleanup_free_ char *cmd = iso_proc_cmdline(o->pids[i], 200);
		json_array_append_new(
			procs, json_pack("{s:i, s:s?}", "pid", (int)o->pids[i], "cmdline", cmd));
	}
	json_object_set_new(obj, "cgroup", o->path[0] ? json_string(o->path) : json_null());
	json_object_set_new(obj, "processes", procs);
}

int iso_cg_orphan_stop(const struct iso_cg_orphan *o, bool dry_run, FILE *f)
{
	struct cg_host h;
	struct cg_run run;
	struct iso_err e = { 0 };
	pid_t *pids = NULL;
	size_t n = 0;
	char buf[400];
	uint64_t deadline = mono_ms() + ORPHAN_KILL_MS;
	int r;

	if (dry_run) {
		for (size_t i = 0; i < o->n; i++)
			print_one(o->pids[i], "would stop", o->path, f);
		return 0;
	}
	cg_host_probe(&h);
	r = cg_run_open(&run, &h, o->path, &e);
	if (r == 0) {
		/* frozen first: the list named below is the whole of it, nothing forks past it */
		if (cg_run_freeze(&run, deadline) == 0 && cg_run_pids(&run, &pids, &n) == 0)
			for (size_t i = 0; i < n; i++)
				print_one(pids[i], "stopped", o->path, f);
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

void iso_cg_orphan_free(struct iso_cg_orphan *o)
{
	free(o->pids);
	o->pids = NULL;
	o->n = 0;
}
