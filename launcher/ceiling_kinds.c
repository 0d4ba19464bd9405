// SPDX-License-Identifier: MIT
/*
 * The ceilings, one row each: the one description of a ceiling.  cli/ makes
 * the option (its key, isorun config, isorun.conf, the report's setting), the
 * value's parse and the --help line from a row; launcher/ceiling.c enforces
 * it (the cgroup file, else the fallback) and says what the cgroup counted.
 * A new ceiling is a row here, its SUP_CEIL_* name (launcher/opts.h) and its
 * key (cli/keys.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "launcher/ceiling.h"

/* RLIMIT_DATA bounds each process, not the run: only as try */
static void fallback_memory(bool userns, const char *const *say, struct sup_limit *l,
			    struct sup_ceiling_fallback *f)
{
	if (!l->try_)
		return;
	f->resource = RLIMIT_DATA;
	sup_limit_note(l, "rlimit",
		       "RLIMIT_DATA per process (heap and private writable mappings), "
		       "not the run's total");
}

/* RLIMIT_NPROC counts per (user namespace, uid): the run's own processes only in its own */
static void fallback_pids(bool userns, const char *const *say, struct sup_limit *l,
			  struct sup_ceiling_fallback *f)
{
	if (userns) {
		f->resource = RLIMIT_NPROC;
		f->exact = true;
		f->without_userns = "not enforced: no user namespace after all, and RLIMIT_NPROC "
				    "would count the host";
		sup_limit_note(l, "rlimit",
			       "RLIMIT_NPROC in the run's own user namespace: counts the run's "
			       "processes (and its init)");
		return;
	}
	sup_limit_note(l, NULL,
		       getuid() == 0 ? "RLIMIT_NPROC does not bind uid 0 outside a user namespace"
				     : "RLIMIT_NPROC would count every process of uid %u on the "
				       "host, not the run's: not applied without %s",
		       (unsigned)getuid(), sup_say(say, SUP_SAY_PIDNS));
}

static void fallback_cpu(bool userns, const char *const *say, struct sup_limit *l,
			 struct sup_ceiling_fallback *f)
{
	sup_limit_note(l, NULL, "RLIMIT_CPU bounds CPU seconds, not a share of a CPU: not applied");
}

/* PERCENT of one CPU per 100 ms period: 150 is 150000 of 100000 */
static void format_cpu(uint64_t v, char *buf, size_t len)
{
	snprintf(buf, len, "%" PRIu64 " 100000", v * 1000);
}

/*
 * The kernel's own bounds: pids.max takes at most PID_MAX_LIMIT (2^22), and a
 * CPU percentage of 10000 CPUs is 1000 s of quota per 100 ms period, far below
 * cpu.max's.
 */
const struct sup_ceiling_desc sup_ceiling_descs[SUP_N_CEILINGS] = {
	[SUP_CEIL_MEMORY] = {
		.name = "memory-max",
		.report = "memory_max",
		.metavar = "SIZE",
		.help = "memory ceiling of the whole run (512M, 2G); cgroup v2",
		.unit = SUP_CEIL_BYTES,
		.min = 1,
		.max = INT64_MAX,
		.want = "a size (512M, 2G)",
		.ctrl = CG_MEMORY,
		.file = "memory.max",
		.fallback = fallback_memory,
		.hit = { .file = "memory.events", .key = "oom_kill", .what = "memory ceiling",
			 .unit = " bytes", .one = "process", .many = "processes",
			 .verb = "OOM-killed" },
	},
	[SUP_CEIL_PIDS] = {
		.name = "pids-max",
		.report = "pids_max",
		.metavar = "N",
		.help = "process ceiling (cgroup v2, or RLIMIT_NPROC in the\n"
			"run's user namespace under %s)",
		.help_say = SUP_SAY_PIDNS,
		.unit = SUP_CEIL_COUNT,
		.min = 1,
		.max = 4194304,
		.want = "a number of processes from 1 to 4194304",
		.ctrl = CG_PIDS,
		.file = "pids.max",
		.fallback = fallback_pids,
		.hit = { .file = "pids.events", .key = "max", .what = "process ceiling",
			 .unit = "", .one = "fork", .many = "forks", .verb = "refused" },
	},
	[SUP_CEIL_CPU] = {
		.name = "cpu-max",
		.report = "cpu_max",
		.metavar = "PERCENT",
		.help = "CPU share of the run (150 = 1.5 CPUs); cgroup v2",
		.unit = SUP_CEIL_PERCENT,
		.min = 1,
		.max = 1000000,
		.want = "a percentage of one CPU from 1 to 1000000 (50, 150%)",
		.ctrl = CG_CPU,
		.file = "cpu.max",
		.format = format_cpu,
		.fallback = fallback_cpu,
	},
};
