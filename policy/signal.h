/* SPDX-License-Identifier: MIT */
/* contain-signals inside policy/: kind_signals.c hands a signal call to signal.c. */
#ifndef ISO_POLICY_SIGNAL_H
#define ISO_POLICY_SIGNAL_H

#include "policy/kind.h"

enum pol_sig_kind {
	POL_PSIG_NONE,
	POL_PSIG_KILL,
	POL_PSIG_TKILL,
	POL_PSIG_TGKILL,
	POL_PSIG_QUEUE,	  /* rt_sigqueueinfo */
	POL_PSIG_TGQUEUE, /* rt_tgsigqueueinfo */
	POL_PSIG_PIDFD,	  /* pidfd_send_signal */
};

/*
 * A notified signal call (POL_NOTIF_NOT_MINE for any other call): let it
 * continue, send the signal ourselves through a pidfd, or refuse it (EPERM and
 * an event).  Same return as pol_notify_handle_with().
 */
int pol_signal_handle(const struct pol_notif *n);

/* In the run (policy/reach.c asks the same question). */
bool pol_signal_member(const struct pol_run *run, pid_t pid);
/* The pid a pidfd of ours stands for: -EBADF when it is none, -ESRCH gone. */
pid_t pol_signal_pidfd_pid(int fd);
/* pid is the calling thread's own process (or the thread itself). */
bool pol_signal_caller_in(pid_t pid, pid_t caller);
/* Whether the caller lives in a PID namespace made inside the run (its numbers are its own). */
bool pol_signal_caller_nested(pid_t caller);

#endif
