// SPDX-License-Identifier: MIT
#include "launcher/ceiling.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"
#include "launcher/say.h"
#include "tree/tree.h"

void sup_limit_note(struct sup_limit *l, const char *by, const char *fmt, ...)
{
	va_list ap;

	l->enforced_by = by;
	va_start(ap, fmt);
	vsnprintf(l->note, sizeof(l->note), fmt, ap);
	va_end(ap);
}

/*
 * No cgroup controller for this ceiling: what the kernel offers per process or
 * per user namespace (the row's fallback).  Returns true when that is the
 * ceiling as asked.
 */
static bool fallback(struct sup_ceilings *c, int kind, bool userns, struct sup_limit *l)
{
	struct sup_ceiling_fallback f = { .resource = -1 };

	sup_ceiling_descs[kind].fallback(userns, c->say, l, &f);
	if (f.resource >= 0) {
		c->rl_kind[c->n_rl] = kind;
		c->rl_without_userns[c->n_rl] = f.without_userns;
		c->rl[c->n_rl++] = (struct iso_rlimit){ f.resource, l->value };
	}
	return f.exact;
}

static int refuse(const struct sup_opts *o, int kind, const struct sup_limit *l, const char *why,
		  int cause, struct iso_err *e)
{
	iso_err_set(e, 0, "%s cannot be enforced: %s%s%s", o->plan.ceiling_opt[kind], why,
		    l->note[0] ? "; " : "", l->note);
	iso_err_cause(e, cause);
	iso_err_hint(e, "ask for it as try:VALUE to run with what can be enforced");
	return -EOPNOTSUPP;
}

/* One ceiling: its cgroup controller, else its fallback, else a refusal (unless try). */
static int plan_one(struct sup_ceilings *c, const struct sup_opts *o, int kind, bool userns,
		    struct sup_resources *res, struct iso_err *e)
{
	const struct sup_ceiling *asked = &o->plan.ceilings[kind];
	enum cg_ctrl ctrl = sup_ceiling_descs[kind].ctrl;
	struct sup_limit *l = &res->limits[kind];
	struct iso_err ce = { 0 };
	char why[400];
	int cause;

	*l = (struct sup_limit){
		.asked = true, .try_ = asked->try_, .value = asked->value, .hits = -1
	};
	if (c->want_cgroup && cg_host_enable(&c->host, ctrl, &ce) == 0) {
		c->ctrls |= ctrl;
		sup_limit_note(l, "cgroup", "%s", "the run's cgroup");
		return 0;
	}
	if (c->want_cgroup) {
		snprintf(why, sizeof(why), "%.*s", (int)sizeof(why) - 1, ce.msg);
		cause = ce.cause;
	} else {
		/* asked off, the host was not probed: that is the whole reason */
		if (c->host.usable || !c->host.why[0])
			snprintf(why, sizeof(why), "cgroups are off (%s)",
				 sup_say(c->say, SUP_SAY_CGROUP_OFF));
		else
			snprintf(why, sizeof(why), "%s", c->host.why);
		cause = c->host.cause;
	}
	if (fallback(c, kind, userns, l))
		return 0;
	if (!l->try_)
		return refuse(o, kind, l, why, cause, e);
	if (!l->enforced_by) {
		char n[sizeof(l->note)];
		snprintf(n, sizeof(n), "%s", l->note);
		snprintf(l->note, sizeof(l->note), "not enforced: %.150s%s%.80s", why,
			 n[0] ? "; " : "", n);
	}
	return 0;
}

int sup_ceilings_plan(struct sup_ceilings *c, const struct sup_opts *o, bool userns,
		      struct sup_resources *res, struct iso_err *e)
{
	c->say = o->say;
	if (o->plan.cgroup) {
		cg_host_probe(&c->host);
		c->want_cgroup = c->host.usable;
	} else {
		c->host = (struct cg_host){ .cause = CG_OK };
	}
	for (int k = 0; k < SUP_N_CEILINGS; k++) {
		if (!o->plan.ceilings[k].set)
			continue;
		int r = plan_one(c, o, k, userns, res, e);
		if (r < 0)
			return r;
	}
	return 0;
}

static int write_ceiling(struct sup_ceilings *c, int kind, uint64_t v, struct iso_err *e)
{
	const struct sup_ceiling_desc *d = &sup_ceiling_descs[kind];
	char val[64];

	if (d->format)
		d->format(v, val, sizeof(val));
	else
		snprintf(val, sizeof(val), "%" PRIu64, v);
	return cg_run_write(&c->run, d->file, val, e);
}

/* The record `ls`/`gc` read after a kill -9: the path, one line, 0600. */
static int write_record(int tree_fd, const char *path, struct iso_err *e)
{
	int fd = openat(tree_fd, TREE_CGROUP, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	int r = 0;

	if (fd < 0)
		return iso_err_set(e, errno, "write the tree's record '%s'", TREE_CGROUP);
	if (dprintf(fd, "%s\n", path) < 0)
		r = iso_err_set(e, errno, "write the tree's record '%s'", TREE_CGROUP);
	if (close(fd) < 0 && r == 0)
		r = iso_err_set(e, errno, "write the tree's record '%s'", TREE_CGROUP);
	return r;
}

int sup_ceilings_create(struct sup_ceilings *c, const struct sup_opts *o, const char *tree_id,
			int tree_fd, struct sup_resources *res, struct iso_err *e)
{
	char name[128];

	if (!c->want_cgroup)
		return 0;
	snprintf(name, sizeof(name), "isorun-%s", tree_id);
	if (cg_run_create(&c->run, &c->host, name, e) < 0) {
		struct iso_err ignored = { 0 };
		(void)cg_run_remove(&c->run, &ignored);
		/* none of the ceilings needed it: the run goes on without, as --cgroup=off */
		if (!c->ctrls)
			return 0;
		return -EIO;
	}
	c->have_cgroup = true;
	res->have_cgroup = true;
	if (write_record(tree_fd, c->run.path, e) < 0)
		return -EIO;
	c->tree_fd = tree_fd;
	snprintf(res->cgroup_path, sizeof(res->cgroup_path), "%s", c->run.path);
	for (int k = 0; k < SUP_N_CEILINGS; k++) {
		if (!o->plan.ceilings[k].set || !(c->ctrls & sup_ceiling_descs[k].ctrl))
			continue;
		if (write_ceiling(c, k, o->plan.ceilings[k].value, e) < 0)
			return -EIO;
	}
	return 0;
}

void sup_ceilings_spawn(const struct sup_ceilings *c, struct sup_spawn *sp)
{
	sp->in_cgroup = c->have_cgroup;
	sp->cg_dir_fd = c->run.dirfd;
	sp->cg_procs_fd = c->run.procs_fd;
	memcpy(sp->ceil_rlimits, c->rl, c->n_rl * sizeof(c->rl[0]));
	sp->n_ceil_rlimits = c->n_rl;
}

void sup_ceilings_no_userns(struct sup_ceilings *c, struct sup_resources *res)
{
	size_t w = 0;

	for (size_t i = 0; i < c->n_rl; i++) {
		if (c->rl_without_userns[i]) {
			sup_limit_note(&res->limits[c->rl_kind[i]], NULL, "%s",
				       c->rl_without_userns[i]);
			continue;
		}
		c->rl_kind[w] = c->rl_kind[i];
		c->rl_without_userns[w] = NULL;
		c->rl[w++] = c->rl[i];
	}
	c->n_rl = w;
}

int sup_ceilings_watch_fd(const struct sup_ceilings *c)
{
	return c->have_cgroup ? cg_run_watch_fd(&c->run) : -1;
}

/*
 * A task in uninterruptible sleep delays `frozen 1`: the freeze gets a second of
 * the kill's deadline, and the SIGSTOP walk that follows does not depend on it.
 */
#define ISO_FREEZE_WAIT_MS 1000

bool sup_ceilings_freeze(struct sup_ceilings *c, uint64_t deadline_ms)
{
	uint64_t now;

	if (!c->have_cgroup)
		return false;
	now = iso_now_ms();
	if (now + ISO_FREEZE_WAIT_MS < deadline_ms)
		deadline_ms = now + ISO_FREEZE_WAIT_MS;
	return cg_run_freeze(&c->run, deadline_ms) == 0;
}

/* Whether pid descends from root (a run's process: the supervisor is a subreaper). */
static bool descends_from(pid_t pid, pid_t root)
{
	for (int depth = 0; depth < 4096 && pid > 1; depth++) {
		struct iso_proc st;

		if (iso_proc_stat(pid, &st) < 0)
			return true; /* gone: nothing of a stranger's to spare */
		if (st.ppid == root)
			return true;
		pid = st.ppid;
	}
	return false;
}

/*
 * Whoever may write the caller's cgroup.procs (the command, as the same user)
 * can move a stranger into the run's cgroup: cgroup.kill would kill it.  Every
 * process of the run descends from the supervisor (its members are frozen, so
 * the chains hold still); one that does not is put back into the caller's
 * cgroup and named, never killed.
 */
static void evict_strangers(struct sup_ceilings *c)
{
	_cleanup_free_ pid_t *pids = NULL;
	pid_t self = getpid();
	size_t n = 0;

	if (cg_run_pids(&c->run, &pids, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char comm[64] = "?";
		int r;

		if (descends_from(pids[i], self))
			continue;
		if (iso_proc_read(pids[i], "comm", comm, sizeof(comm)) > 0)
			comm[strcspn(comm, "\n")] = '\0';
		r = cg_run_evict(&c->run, pids[i]);
		fprintf(stderr,
			"isorun: pid %d `%s` is not the run's but was moved into its cgroup: %s\n",
			(int)pids[i], comm,
			r == 0 ? "moved back to the caller's cgroup, not killed"
			       : "could not be moved back, not killed by the cgroup's kill");
		if (r < 0)
			c->stranger = true;
	}
}

void sup_ceilings_kill(struct sup_ceilings *c, uint64_t deadline_ms)
{
	if (!c->have_cgroup)
		return;
	evict_strangers(c);
	if (c->stranger) {
		/* one by one, the run's alone: cgroup.kill would reach the stranger */
		_cleanup_free_ pid_t *pids = NULL;
		size_t n = 0;

		if (cg_run_pids(&c->run, &pids, &n) == 0)
			for (size_t i = 0; i < n; i++)
				if (descends_from(pids[i], getpid()))
					(void)kill(pids[i], SIGKILL);
		(void)cg_run_write(&c->run, "cgroup.freeze", "0", NULL);
		return;
	}
	(void)cg_run_kill(&c->run);
	(void)cg_run_wait_empty(&c->run, deadline_ms);
}

static void rusage_of_children(struct sup_resources *res)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) < 0)
		return;
	res->have_rusage = true;
	res->cpu_user_ms =
		(uint64_t)ru.ru_utime.tv_sec * 1000 + (uint64_t)ru.ru_utime.tv_usec / 1000;
	res->cpu_system_ms =
		(uint64_t)ru.ru_stime.tv_sec * 1000 + (uint64_t)ru.ru_stime.tv_usec / 1000;
	res->max_rss_kib = (uint64_t)ru.ru_maxrss;
}

static bool by_cgroup(const struct sup_limit *l)
{
	return l->asked && l->enforced_by && !strcmp(l->enforced_by, "cgroup");
}

/* Each ceiling's count of what its cgroup refused or killed, while the cgroup exists. */
static void count_hits(struct sup_ceilings *c, struct sup_resources *res)
{
	for (int k = 0; k < SUP_N_CEILINGS; k++) {
		const struct sup_ceiling_desc *d = &sup_ceiling_descs[k];

		if (d->hit.file && by_cgroup(&res->limits[k]))
			res->limits[k].hits = cg_run_keyed(&c->run, d->hit.file, d->hit.key);
	}
}

/* The first ceiling its cgroup counted a hit of, in the table's order. */
static void say_hit(const struct sup_opts *o, struct sup_resources *res)
{
	for (int k = 0; k < SUP_N_CEILINGS; k++) {
		const struct sup_ceiling_desc *d = &sup_ceiling_descs[k];
		const struct sup_limit *l = &res->limits[k];

		if (!d->hit.file || !by_cgroup(l) || l->hits <= 0)
			continue;
		snprintf(res->ceiling_hit, sizeof(res->ceiling_hit),
			 "%s reached (%s %" PRIu64 "%s): %" PRId64 " %s %s", d->hit.what,
			 o->plan.ceiling_opt[k], l->value, d->hit.unit, l->hits,
			 l->hits == 1 ? d->hit.one : d->hit.many, d->hit.verb);
		return;
	}
}

/* What the counters say was hit; what an rlimit hit leaves unknown. */
static void find_hits(const struct sup_opts *o, bool failed, struct sup_resources *res)
{
	say_hit(o, res);
	if (!failed || res->ceiling_hit[0])
		return;
	for (int k = 0; k < SUP_N_CEILINGS; k++) {
		const struct sup_limit *l = &res->limits[k];
		if (l->asked && l->enforced_by && !strcmp(l->enforced_by, "rlimit")) {
			snprintf(res->ceiling_note, sizeof(res->ceiling_note),
				 "the command failed under %s %" PRIu64 " (%.120s); whether it "
				 "hit the ceiling is not observable (the kernel keeps no count of "
				 "refused rlimits)",
				 o->plan.ceiling_opt[k], l->value, l->note);
			return;
		}
	}
}

void sup_ceilings_finish(struct sup_ceilings *c, const struct sup_opts *o, bool failed,
			 struct sup_resources *res)
{
	struct iso_err e = { 0 };
	char buf[400];

	rusage_of_children(res);
	if (c->have_cgroup) {
		cg_run_stats(&c->run, &res->cg);
		count_hits(c, res);
		/* the join came first; the cgroup's own witness is bounded by the kill's */
		if (cg_run_populated(&c->run) == 1) {
			(void)cg_run_freeze(&c->run, 0);
			sup_ceilings_kill(c, SUP_CEILING_KILL_MS);
		}
		if (cg_run_remove(&c->run, &e) < 0)
			snprintf(res->cgroup_retained, sizeof(res->cgroup_retained), "%s",
				 iso_err_format(&e, buf, sizeof(buf)));
		/*
		 * A kept tree keeps no record of a cgroup that is gone.  A failed
		 * unlink is harmless: ls and gc believe a record only where its
		 * cgroup still exists.
		 */
		else if (c->tree_fd >= 0)
			(void)unlinkat(c->tree_fd, TREE_CGROUP, 0);
		c->have_cgroup = false;
	}
	find_hits(o, failed, res);
}

bool sup_resources_finding(const struct sup_resources *res)
{
	return res->ceiling_hit[0] || res->cgroup_retained[0];
}

void sup_resources_say(const struct sup_opts *o, const struct sup_resources *res, FILE *f)
{
	if (res->ceiling_hit[0])
		fprintf(f, "isorun: %s\n", res->ceiling_hit);
	if (res->ceiling_note[0] && o->verbosity >= 0)
		fprintf(f, "isorun: %s\n", res->ceiling_note);
	if (res->cgroup_retained[0]) {
		/* the command may make cgroups of its own inside the run's */
		_cleanup_free_ char *why = iso_escape(res->cgroup_retained);

		fprintf(f, "isorun: cgroup retained at %s: %s\n", res->cgroup_path,
			why ? why : "?");
	}
}

void sup_resources_say_usage(const struct sup_opts *o, const struct sup_resources *res, FILE *f)
{
	if (o->verbosity <= 0 || !res->have_rusage)
		return;
	fprintf(f,
		"isorun: resources: cpu %" PRIu64 " ms user, %" PRIu64
		" ms system; max rss %" PRIu64 " KiB",
		res->cpu_user_ms, res->cpu_system_ms, res->max_rss_kib);
	if (res->have_cgroup && res->cg.have_cpu)
		fprintf(f, "; cgroup cpu %" PRIu64 " us", res->cg.cpu_usage_us);
	if (res->have_cgroup && res->cg.memory_peak >= 0)
		fprintf(f, ", memory peak %" PRId64 " bytes", res->cg.memory_peak);
	if (res->have_cgroup && res->cg.pids_peak >= 0)
		fprintf(f, ", pids peak %" PRId64, res->cg.pids_peak);
	fputc('\n', f);
}

void sup_ceilings_close(struct sup_ceilings *c)
{
	cg_run_close(&c->run);
}

static json_t *opt_int(int64_t v)
{
	return v < 0 ? json_null() : json_integer((json_int_t)v);
}

static json_t *cgroup_json(const struct sup_resources *res)
{
	if (!res->have_cgroup)
		return json_null();
	return json_pack("{s:s, s:o, s:o, s:o, s:o}", "path", res->cgroup_path, "cpu_usage_us",
			 res->cg.have_cpu ? json_integer((json_int_t)res->cg.cpu_usage_us)
					  : json_null(),
			 "memory_peak", opt_int(res->cg.memory_peak), "pids_peak",
			 opt_int(res->cg.pids_peak), "oom_kill", opt_int(res->cg.oom_kill));
}

json_t *sup_resources_json(const struct sup_resources *res)
{
	json_t *limits = json_array();

	for (int k = 0; k < SUP_N_CEILINGS; k++) {
		const struct sup_limit *l = &res->limits[k];
		if (l->asked)
			json_array_append_new(limits, json_pack("{s:s, s:I, s:b, s:s?, s:s}",
								"name", sup_ceiling_descs[k].name,
								"value", (json_int_t)l->value,
								"try", l->try_, "enforced_by",
								l->enforced_by, "note", l->note));
	}
	return json_pack(
		"{s:o, s:o, s:o, s:o, s:o}", "cpu_user_ms",
		res->have_rusage ? json_integer((json_int_t)res->cpu_user_ms) : json_null(),
		"cpu_system_ms",
		res->have_rusage ? json_integer((json_int_t)res->cpu_system_ms) : json_null(),
		"max_rss_kib",
		res->have_rusage ? json_integer((json_int_t)res->max_rss_kib) : json_null(),
		"cgroup", cgroup_json(res), "limits", limits);
}
