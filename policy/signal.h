/* SPDX-License-Identifier: MIT */
/* contain-signals inside policy/: notify.c hands a signal call to signal.c. */
#ifndef ISO_POLICY_SIGNAL_H
#define ISO_POLICY_SIGNAL_H

#include <linux/seccomp.h>

#include "policy/policy.h"

enum pol_sig_kind {
	PSIG_NONE,
	PSIG_KILL,
	PSIG_TKILL,
	PSIG_TGKILL,
	PSIG_QUEUE,   /* rt_sigqueueinfo */
	PSIG_TGQUEUE, /* rt_tgsigqueueinfo */
	PSIG_PIDFD,   /* pidfd_send_signal */
};

/* The kind of a call by its name (the other ABIs), PSIG_NONE for any other call. */
enum pol_sig_kind pol_signal_kind(const char *name);
/* The same by its x86_64 number. */
enum pol_sig_kind pol_signal_kind_nr(long nr);

/*
 * Decide one notified signal call and answer it: let it continue, send the
 * signal ourselves through a pidfd, or refuse it (EPERM and an event).  Same
 * return as pol_notify_handle_exec().  `compat`: a 32-bit ABI (its siginfo).
 */
int pol_signal_handle(int listener, const struct seccomp_notif *req, enum pol_sig_kind kind,
		      bool compat, const struct pol *p, bool log_only, struct pol_event *ret,
		      struct iso_reader *rd, const struct pol_run *run);

/* In the run (policy/reach.c asks the same question). */
bool pol_signal_member(const struct pol_run *run, pid_t pid);
/* The pid a pidfd of ours stands for: -EBADF when it is none, -ESRCH gone. */
pid_t pol_signal_pidfd_pid(int fd);
/* pid is the calling thread's own process (or the thread itself). */
bool pol_signal_caller_in(pid_t pid, pid_t caller);
/* Whether the caller lives in a PID namespace made inside the run (its numbers are its own). */
bool pol_signal_caller_nested(pid_t caller);

#endif
