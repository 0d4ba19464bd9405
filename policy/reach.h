/* SPDX-License-Identifier: MIT */
/* contain-signals, the other ways to reach a process: notify.c hands such a call to reach.c. */
#ifndef ISO_POLICY_REACH_H
#define ISO_POLICY_REACH_H

#include <linux/seccomp.h>

#include "policy/policy.h"

enum pol_reach_kind {
	PREACH_NONE,
	PREACH_FCNTL,	/* F_SETOWN, F_SETOWN_EX (fcntl, fcntl64) */
	PREACH_IOCTL,	/* FIOSETOWN, SIOCSPGRP */
	PREACH_SETPGID, /* into another group */
	PREACH_PTRACE,	/* PTRACE_ATTACH, PTRACE_SEIZE */
	PREACH_VMWRITE, /* process_vm_writev */
	PREACH_GETFD,	/* pidfd_getfd */
};

/* The kind of a call by its name (the other ABIs), PREACH_NONE for any other call. */
enum pol_reach_kind pol_reach_kind(const char *name);
/* The same by its x86_64 number. */
enum pol_reach_kind pol_reach_kind_nr(long nr);

/*
 * Decide one notified call and answer it: continue, do it ourselves for the
 * caller, or refuse it (EPERM and an event).  Same return as
 * pol_signal_handle(); `compat`: a 32-bit ABI.
 */
int pol_reach_handle(int listener, const struct seccomp_notif *req, enum pol_reach_kind kind,
		     bool compat, const struct pol *p, bool log_only, struct pol_event *ret,
		     struct iso_reader *rd, const struct pol_run *run);

#endif
