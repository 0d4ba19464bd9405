/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's phases as one pure function: (phase, event) -> (next phase,
 * actions).  It knows no gate, no process and no clock; the supervisor
 * (launcher/supervise.c) performs the actions, and a gate (launcher/gate.h)
 * does the part that differs between the subreaper and the PID namespace.
 *
 *   RUNNING --command exits--> SETTLE --window over / tree empty--> JOINED
 *   RUNNING --signal/timeout--> CANCEL --grace over / tree empty--> JOINED
 *   JOINED --pipes at EOF, or deadline--> DONE
 */
#ifndef ISO_PHASE_H
#define ISO_PHASE_H

enum phase { PH_RUNNING, PH_SETTLE, PH_CANCEL, PH_JOINED, PH_DONE, PH_COUNT };

enum phase_event {
	PE_NONE,
	PE_EXITED,	 /* the command's status is in, survivors may remain */
	PE_EMPTY,	 /* the tree is proven empty (and the command's status is in) */
	PE_TIMER,	 /* the phase's deadline passed */
	PE_SIGNAL,	 /* a signal that cancels the run (launcher/sigtable.h) */
	PE_FORWARD,	 /* a signal to pass on to the command */
	PE_STREAMS_DONE, /* every relayed pipe saw its EOF */
	PE_NOTHING_RAN,	 /* the exec failed: only the pipes' EOF is left to wait for */
	PE_FAILED,	 /* a step after the start failed: stop everything */
	PE_COUNT
};

/* Performed in this order (launcher/supervise.c, perform()). */
enum phase_action {
	PA_TIMED_OUT = 1u << 0,	   /* the run timed out */
	PA_NOTE_CANCEL = 1u << 1,  /* the run was cancelled by the signal */
	PA_TAKE_HUNG = 1u << 2,	   /* the tree as it is, before any signal */
	PA_GRACE_OVER = 1u << 3,   /* name who outlived the grace */
	PA_ARM_GRACE = 1u << 4,	   /* --grace until the kill */
	PA_STOP = 1u << 5,	   /* ask the command and its tree to stop */
	PA_SWEEP = 1u << 6,	   /* cancelled in the settle: the survivors are leaks */
	PA_SETTLE = 1u << 7,	   /* the settle window begins */
	PA_SETTLE_TIMER = 1u << 8, /* the settle window is over */
	PA_KILL = 1u << 9,	   /* kill everything that is left */
	PA_DRAIN = 1u << 10,	   /* read the last of what the gate was told */
	PA_JOIN = 1u << 11,	   /* the tree is gone: wait a bounded time for the pipes */
	PA_LATE_CANCEL = 1u << 12, /* a cancel after the join */
	PA_FORWARD = 1u << 13,	   /* pass the signal on */
	PA_LATE_FORWARD = 1u << 14 /* a signal to pass on after the join */
};

struct phase_step {
	enum phase next;
	unsigned actions; /* enum phase_action, or-ed */
};

struct phase_step phase_next(enum phase p, enum phase_event ev);
const char *phase_name(enum phase p);
const char *phase_event_name(enum phase_event ev);

#endif
