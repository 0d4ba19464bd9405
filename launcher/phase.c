// SPDX-License-Identifier: MIT
/*
 * The phase table.  A gate whose kill is synchronous (the subreaper's) answers
 * PA_SWEEP, PA_KILL and PA_SETTLE_TIMER with PE_EMPTY at once; one whose kill is
 * done by someone else (the namespace's init) stays in the phase until the tree's
 * end is seen.  An event a phase does not expect changes nothing.
 */
#include "launcher/phase.h"

#define TO(ph, acts)                                                                               \
	{                                                                                          \
		.next = (ph), .actions = (acts)                                                    \
	}

static const struct phase_step table[PH_COUNT][PE_COUNT] = {
	[PH_RUNNING] = {
		[PE_NONE] = TO(PH_RUNNING, 0),
		[PE_EXITED] = TO(PH_SETTLE, PA_SETTLE),
		[PE_EMPTY] = TO(PH_JOINED, PA_DRAIN | PA_JOIN),
		[PE_TIMER] = TO(PH_CANCEL, PA_TIMED_OUT | PA_TAKE_HUNG | PA_ARM_GRACE | PA_STOP),
		[PE_SIGNAL] = TO(PH_CANCEL, PA_NOTE_CANCEL | PA_TAKE_HUNG | PA_ARM_GRACE | PA_STOP),
		[PE_FORWARD] = TO(PH_RUNNING, PA_FORWARD),
		[PE_STREAMS_DONE] = TO(PH_RUNNING, 0),
		[PE_NOTHING_RAN] = TO(PH_JOINED, PA_JOIN),
		[PE_FAILED] = TO(PH_CANCEL, PA_KILL),
	},
	[PH_SETTLE] = {
		[PE_NONE] = TO(PH_SETTLE, 0),
		[PE_EXITED] = TO(PH_SETTLE, 0),
		[PE_EMPTY] = TO(PH_JOINED, PA_DRAIN | PA_JOIN),
		[PE_TIMER] = TO(PH_SETTLE, PA_SETTLE_TIMER),
		/* the command is gone: what remains is leaked, cancelled or not */
		[PE_SIGNAL] = TO(PH_CANCEL, PA_NOTE_CANCEL | PA_ARM_GRACE | PA_SWEEP),
		[PE_FORWARD] = TO(PH_SETTLE, PA_FORWARD),
		[PE_STREAMS_DONE] = TO(PH_SETTLE, 0),
		[PE_NOTHING_RAN] = TO(PH_SETTLE, 0),
		[PE_FAILED] = TO(PH_CANCEL, PA_KILL),
	},
	[PH_CANCEL] = {
		[PE_NONE] = TO(PH_CANCEL, 0),
		[PE_EXITED] = TO(PH_CANCEL, 0),
		[PE_EMPTY] = TO(PH_JOINED, PA_DRAIN | PA_JOIN),
		[PE_TIMER] = TO(PH_CANCEL, PA_GRACE_OVER | PA_KILL),
		/* a second signal: no more grace */
		[PE_SIGNAL] = TO(PH_CANCEL, PA_GRACE_OVER | PA_KILL),
		[PE_FORWARD] = TO(PH_CANCEL, PA_FORWARD),
		[PE_STREAMS_DONE] = TO(PH_CANCEL, 0),
		[PE_NOTHING_RAN] = TO(PH_CANCEL, 0),
		[PE_FAILED] = TO(PH_CANCEL, PA_KILL),
	},
	[PH_JOINED] = {
		[PE_NONE] = TO(PH_JOINED, 0),
		[PE_EXITED] = TO(PH_JOINED, 0),
		[PE_EMPTY] = TO(PH_JOINED, 0),
		/* whoever still holds a pipe is outside the tree: the wait is over */
		[PE_TIMER] = TO(PH_DONE, 0),
		[PE_SIGNAL] = TO(PH_JOINED, PA_LATE_CANCEL),
		[PE_FORWARD] = TO(PH_JOINED, PA_LATE_FORWARD),
		[PE_STREAMS_DONE] = TO(PH_DONE, 0),
		[PE_NOTHING_RAN] = TO(PH_JOINED, 0),
		[PE_FAILED] = TO(PH_JOINED, 0),
	},
	[PH_DONE] = {
		[PE_NONE] = TO(PH_DONE, 0),
		[PE_EXITED] = TO(PH_DONE, 0),
		[PE_EMPTY] = TO(PH_DONE, 0),
		[PE_TIMER] = TO(PH_DONE, 0),
		[PE_SIGNAL] = TO(PH_DONE, 0),
		[PE_FORWARD] = TO(PH_DONE, 0),
		[PE_STREAMS_DONE] = TO(PH_DONE, 0),
		[PE_NOTHING_RAN] = TO(PH_DONE, 0),
		[PE_FAILED] = TO(PH_DONE, 0),
	},
};

struct phase_step phase_next(enum phase p, enum phase_event ev)
{
	if ((unsigned)p >= PH_COUNT || (unsigned)ev >= PE_COUNT)
		return (struct phase_step){ .next = p, .actions = 0 };
	return table[p][ev];
}

const char *phase_name(enum phase p)
{
	static const char *const names[PH_COUNT] = { "RUNNING", "SETTLE", "CANCEL", "JOINED",
						     "DONE" };

	return (unsigned)p < PH_COUNT ? names[p] : "?";
}

const char *phase_event_name(enum phase_event ev)
{
	static const char *const names[PE_COUNT] = { "NONE",	     "EXITED",	    "EMPTY",
						     "TIMER",	     "SIGNAL",	    "FORWARD",
						     "STREAMS_DONE", "NOTHING_RAN", "FAILED" };

	return (unsigned)ev < PE_COUNT ? names[ev] : "?";
}
