// SPDX-License-Identifier: MIT
/*
 * The controls of the ceilings: a fork storm stopped at --pids-max, an
 * allocation refused or OOM-killed at --memory-max.  Each runs only where this
 * host can enforce the ceiling as asked (a cgroup2 controller, or for processes
 * RLIMIT_NPROC in a user namespace of the run's own); elsewhere it is `not
 * measurable`, with the reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup/cgroup.h"
#include "selftest/selftest.h"

/* the storm's and the allocation's own bounds: far above the ceilings asked */
#define STORM_CAP "200"
#define STORM_MAX 200 /* STORM_CAP as a number: the storm keeps that many pids */
#define ALLOC_MIB "256"

/* The controller reaches a run's cgroup: usable, and handed to the caller's cgroup. */
static bool controller(const struct cg_host *h, enum cg_ctrl c)
{
	return h->usable && ((h->enabled | h->offered) & c);
}

void st_control_pids(struct st_ctx *c, struct st_control *ctl)
{
	const char *const with_cg[] = { c->says[ST_SAY_PIDS_MAX_16_ARG], NULL };
	const char *const with_ns[] = { c->says[ST_SAY_PIDS_MAX_16_ARG], c->says[ST_SAY_PIDNS],
					NULL };
	static const char *const mode[] = { ST_INTERNAL "forkstorm", STORM_CAP, NULL };
	bool userns = getuid() != 0 && c->probes[ST_SP_USERNS].verdict == ST_YES &&
		      c->probes[ST_SP_PIDNS].verdict == ST_YES;
	char desc[600];
	struct cg_host h;
	struct st_run r;

	cg_host_probe(&h);
	if (!controller(&h, CG_PIDS) && !userns) {
		st_result(ctl, ST_NOT_MEASURABLE,
			  "no pids controller for a run's cgroup (%s), and RLIMIT_NPROC binds "
			  "only in a user namespace of the run's own (%s)",
			  h.usable ? "not handed down" : h.why,
			  getuid() == 0 ? "uid 0 is exempt outside one" : "none here");
		return;
	}
	st_run_init(&r, c, controller(&h, CG_PIDS) ? with_cg : with_ns, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	if (r.code != 0 && !strncmp(r.out, "refused after ", 14))
		st_result(ctl, ST_OK, "a fork storm under %s (%s%s) was %.*s",
			  c->says[ST_SAY_PIDS_MAX_16],
			  controller(&h, CG_PIDS) ? "cgroup pids.max" : "RLIMIT_NPROC, ",
			  controller(&h, CG_PIDS) ? "" : c->says[ST_SAY_PIDNS],
			  (int)strcspn(r.out, "\n"), r.out);
	else
		st_result(ctl, ST_NOT_OK, "a fork storm was not stopped at %s: %s%.*s",
			  c->says[ST_SAY_PIDS_MAX_16], desc, (int)strcspn(r.out, "\n"), r.out);
	st_check_trees(c, ctl, NULL);
}

void st_control_memory(struct st_ctx *c, struct st_control *ctl)
{
	const char *const opts[] = { c->says[ST_SAY_MEMORY_MAX_32M_ARG], NULL };
	static const char *const mode[] = { ST_INTERNAL "alloc", ALLOC_MIB, NULL };
	char desc[600], line[300];
	struct cg_host h;
	struct st_run r;

	cg_host_probe(&h);
	if (!controller(&h, CG_MEMORY)) {
		st_result(ctl, ST_NOT_MEASURABLE,
			  "no memory controller for a run's cgroup (%s); a per-process "
			  "RLIMIT_DATA is not the run's ceiling",
			  h.usable ? "not handed down" : h.why);
		return;
	}
	st_run_init(&r, c, opts, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	if (r.code != 0 && st_err_line(&r, line, sizeof(line), "memory ceiling reached", NULL))
		st_result(ctl, ST_OK, "an allocation of %s MiB under %s: %s", ALLOC_MIB,
			  c->says[ST_SAY_MEMORY_MAX_32M], line);
	else if (r.code != 0 && !strncmp(r.out, "refused after ", 14))
		st_result(ctl, ST_OK, "an allocation of %s MiB under %s was %.*s", ALLOC_MIB,
			  c->says[ST_SAY_MEMORY_MAX_32M], (int)strcspn(r.out, "\n"), r.out);
	else
		st_result(ctl, ST_NOT_OK, "%s MiB were allocated under %s: %s", ALLOC_MIB,
			  c->says[ST_SAY_MEMORY_MAX_32M], desc);
	st_check_trees(c, ctl, NULL);
}

/*
 * --internal-forkstorm CAP: fork waiting children until refused or CAP, then
 * kill and reap them: left behind, they would be the run's leaks, and the run
 * would wait out its --settle (3 s) before it could end.
 */
int st_mode_forkstorm(char **args)
{
	long cap = args[0] ? strtol(args[0], NULL, 10) : STORM_MAX, n = 0;
	pid_t kids[STORM_MAX];
	int err = 0;

	if (cap < 0 || cap > STORM_MAX)
		cap = STORM_MAX;
	for (; n < cap; n++) {
		pid_t pid = fork();
		if (pid == 0) {
			/* bounded even if nothing stops it */
			alarm(10);
			pause();
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		kids[n] = pid;
	}
	for (long i = 0; i < n; i++)
		(void)kill(kids[i], SIGKILL);
	for (long i = 0; i < n; i++)
		(void)waitpid(kids[i], NULL, 0);
	if (!err) {
		printf("made %ld children, none refused\n", n);
		return 0;
	}
	printf("refused after %ld children: %s\n", n, strerror(err));
	return 1;
}

/* --internal-alloc MIB: touch MIB MiB, one at a time, until refused. */
int st_mode_alloc(char **args)
{
	long mib = args[0] ? strtol(args[0], NULL, 10) : 256;

	for (long i = 0; i < mib; i++) {
		char *p = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);
		if (p == MAP_FAILED) {
			printf("refused after %ld MiB: %s\n", i, strerror(errno));
			return 1;
		}
		memset(p, 1, 1 << 20);
	}
	printf("allocated %ld MiB\n", mib);
	return 0;
}
