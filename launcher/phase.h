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

enum sup_phase {
	SUP_PH_RUNNING,
	SUP_PH_SETTLE,
	SUP_PH_CANCEL,
	SUP_PH_JOINED,
	SUP_PH_DONE,
	SUP_PH_COUNT
};

enum sup_phase_event {
	SUP_PE_NONE,
	SUP_PE_EXITED,	     /* the command's status is in, survivors may remain */
	SUP_PE_EMPTY,	     /* the tree is proven empty (and the command's status is in) */
	SUP_PE_TIMER,	     /* the phase's deadline passed */
	SUP_PE_SIGNAL,	     /* a signal that cancels the run (launcher/sigtable.h) */
	SUP_PE_FORWARD,	     /* a signal to pass on to the command */
	SUP_PE_STREAMS_DONE, /* every relayed pipe saw its EOF */
	SUP_PE_NOTHING_RAN,  /* the exec failed: only the pipes' EOF is left to wait for */
	SUP_PE_FAILED,	     /* a step after the start failed: stop everything */
	SUP_PE_COUNT
};

/* Performed in this order (launcher/supervise.c, perform()). */
enum sup_phase_action {
	SUP_PA_TIMED_OUT = 1u << 0,    /* the run timed out */
	SUP_PA_NOTE_CANCEL = 1u << 1,  /* the run was cancelled by the signal */
	SUP_PA_TAKE_HUNG = 1u << 2,    /* the tree as it is, before any signal */
	SUP_PA_GRACE_OVER = 1u << 3,   /* name who outlived the grace */
	SUP_PA_ARM_GRACE = 1u << 4,    /* --grace until the kill */
	SUP_PA_STOP = 1u << 5,	       /* ask the command and its tree to stop */
	SUP_PA_SWEEP = 1u << 6,	       /* cancelled in the settle: the survivors are leaks */
	SUP_PA_SETTLE = 1u << 7,       /* the settle window begins */
	SUP_PA_SETTLE_TIMER = 1u << 8, /* the settle window is over */
	SUP_PA_KILL = 1u << 9,	       /* kill everything that is left */
	SUP_PA_DRAIN = 1u << 10,       /* read the last of what the gate was told */
	SUP_PA_JOIN = 1u << 11,	       /* the tree is gone: wait a bounded time for the pipes */
	SUP_PA_LATE_CANCEL = 1u << 12, /* a cancel after the join */
	SUP_PA_FORWARD = 1u << 13,     /* pass the signal on */
	SUP_PA_LATE_FORWARD = 1u << 14 /* a signal to pass on after the join */
};

struct sup_phase_step {
	enum sup_phase next;
	unsigned actions; /* enum sup_phase_action, or-ed */
};

struct sup_phase_step sup_phase_next(enum sup_phase p, enum sup_phase_event ev);
const char *sup_phase_name(enum sup_phase p);
const char *sup_phase_event_name(enum sup_phase_event ev);

#endif
