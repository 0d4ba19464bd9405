/* SPDX-License-Identifier: MIT */
/* contain-signals, the other ways to reach a process: kind_signals.c hands such a call here. */
#ifndef ISO_POLICY_REACH_H
#define ISO_POLICY_REACH_H

#include "policy/kind.h"

enum pol_reach_kind {
	POL_PREACH_NONE,
	POL_PREACH_FCNTL,   /* F_SETOWN, F_SETOWN_EX (fcntl, fcntl64) */
	POL_PREACH_IOCTL,   /* FIOSETOWN, SIOCSPGRP */
	POL_PREACH_SETPGID, /* into another group */
	POL_PREACH_PTRACE,  /* PTRACE_ATTACH, PTRACE_SEIZE */
	POL_PREACH_VMWRITE, /* process_vm_writev */
	POL_PREACH_GETFD,   /* pidfd_getfd */
	/* the calls that change another process (issue 36 item 3) */
	POL_PREACH_PRLIMIT,   /* prlimit64 with a new limit */
	POL_PREACH_SETPRIO,   /* setpriority */
	POL_PREACH_IOPRIO,    /* ioprio_set */
	POL_PREACH_AFFINITY,  /* sched_setaffinity */
	POL_PREACH_SETSCHED,  /* sched_setscheduler */
	POL_PREACH_SETPARAM,  /* sched_setparam */
	POL_PREACH_SETATTR,   /* sched_setattr */
	POL_PREACH_MIGRATE,   /* migrate_pages */
	POL_PREACH_MOVEPAGES, /* move_pages */
	POL_PREACH_MADVISE,   /* process_madvise */
	POL_PREACH_PERF,      /* perf_event_open on a process */
};

/*
 * A notified call of these (POL_NOTIF_NOT_MINE for any other): continue, do
 * it ourselves for the caller, or refuse it (EPERM and an event).  Same return
 * as pol_signal_handle().
 */
int pol_reach_handle(const struct pol_notif *n);

#endif
