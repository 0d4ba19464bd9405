// SPDX-License-Identifier: MIT
/*
 * The phase table.  A gate whose kill is synchronous (the subreaper's) answers
 * SUP_PA_SWEEP, SUP_PA_KILL and SUP_PA_SETTLE_TIMER with SUP_PE_EMPTY at once; one whose kill is
 * done by someone else (the namespace's init) stays in the phase until the tree's
 * end is seen.  An event a phase does not expect changes nothing.
 */
#include "launcher/phase.h"

#define TO(ph, acts)                                                                               \
	{                                                                                          \
		.next = (ph), .actions = (acts)                                                    \
	}

static const struct sup_phase_step table[SUP_PH_COUNT][SUP_PE_COUNT] = {
	[SUP_PH_RUNNING] = {
		[SUP_PE_NONE] = TO(SUP_PH_RUNNING, 0),
		[SUP_PE_EXITED] = TO(SUP_PH_SETTLE, SUP_PA_SETTLE),
		[SUP_PE_EMPTY] = TO(SUP_PH_JOINED, SUP_PA_DRAIN | SUP_PA_JOIN),
		[SUP_PE_TIMER] = TO(SUP_PH_CANCEL, SUP_PA_TIMED_OUT | SUP_PA_TAKE_HUNG | SUP_PA_ARM_GRACE | SUP_PA_STOP),
		[SUP_PE_SIGNAL] = TO(SUP_PH_CANCEL, SUP_PA_NOTE_CANCEL | SUP_PA_TAKE_HUNG | SUP_PA_ARM_GRACE | SUP_PA_STOP),
		[SUP_PE_FORWARD] = TO(SUP_PH_RUNNING, SUP_PA_FORWARD),
		[SUP_PE_STREAMS_DONE] = TO(SUP_PH_RUNNING, 0),
		[SUP_PE_NOTHING_RAN] = TO(SUP_PH_JOINED, SUP_PA_JOIN),
		[SUP_PE_FAILED] = TO(SUP_PH_CANCEL, SUP_PA_KILL),
	},
	[SUP_PH_SETTLE] = {
		[SUP_PE_NONE] = TO(SUP_PH_SETTLE, 0),
		[SUP_PE_EXITED] = TO(SUP_PH_SETTLE, 0),
		[SUP_PE_EMPTY] = TO(SUP_PH_JOINED, SUP_PA_DRAIN | SUP_PA_JOIN),
		[SUP_PE_TIMER] = TO(SUP_PH_SETTLE, SUP_PA_SETTLE_TIMER),
		/* the command is gone: what remains is leaked, cancelled or not */
		[SUP_PE_SIGNAL] = TO(SUP_PH_CANCEL, SUP_PA_NOTE_CANCEL | SUP_PA_ARM_GRACE | SUP_PA_SWEEP),
		[SUP_PE_FORWARD] = TO(SUP_PH_SETTLE, SUP_PA_FORWARD),
		[SUP_PE_STREAMS_DONE] = TO(SUP_PH_SETTLE, 0),
		[SUP_PE_NOTHING_RAN] = TO(SUP_PH_SETTLE, 0),
		[SUP_PE_FAILED] = TO(SUP_PH_CANCEL, SUP_PA_KILL),
	},
	[SUP_PH_CANCEL] = {
		[SUP_PE_NONE] = TO(SUP_PH_CANCEL, 0),
		[SUP_PE_EXITED] = TO(SUP_PH_CANCEL, 0),
		[SUP_PE_EMPTY] = TO(SUP_PH_JOINED, SUP_PA_DRAIN | SUP_PA_JOIN),
		[SUP_PE_TIMER] = TO(SUP_PH_CANCEL, SUP_PA_GRACE_OVER | SUP_PA_KILL),
		/* a second signal: no more grace */
		[SUP_PE_SIGNAL] = TO(SUP_PH_CANCEL, SUP_PA_GRACE_OVER | SUP_PA_KILL),
		[SUP_PE_FORWARD] = TO(SUP_PH_CANCEL, SUP_PA_FORWARD),
		[SUP_PE_STREAMS_DONE] = TO(SUP_PH_CANCEL, 0),
		[SUP_PE_NOTHING_RAN] = TO(SUP_PH_CANCEL, 0),
		[SUP_PE_FAILED] = TO(SUP_PH_CANCEL, SUP_PA_KILL),
	},
	[SUP_PH_JOINED] = {
		[SUP_PE_NONE] = TO(SUP_PH_JOINED, 0),
		[SUP_PE_EXITED] = TO(SUP_PH_JOINED, 0),
		[SUP_PE_EMPTY] = TO(SUP_PH_JOINED, 0),
		/* whoever still holds a pipe is outside the tree: the wait is over */
		[SUP_PE_TIMER] = TO(SUP_PH_DONE, 0),
		[SUP_PE_SIGNAL] = TO(SUP_PH_JOINED, SUP_PA_LATE_CANCEL),
		[SUP_PE_FORWARD] = TO(SUP_PH_JOINED, SUP_PA_LATE_FORWARD),
		[SUP_PE_STREAMS_DONE] = TO(SUP_PH_DONE, 0),
		[SUP_PE_NOTHING_RAN] = TO(SUP_PH_JOINED, 0),
		[SUP_PE_FAILED] = TO(SUP_PH_JOINED, 0),
	},
	[SUP_PH_DONE] = {
		[SUP_PE_NONE] = TO(SUP_PH_DONE, 0),
		[SUP_PE_EXITED] = TO(SUP_PH_DONE, 0),
		[SUP_PE_EMPTY] = TO(SUP_PH_DONE, 0),
		[SUP_PE_TIMER] = TO(SUP_PH_DONE, 0),
		[SUP_PE_SIGNAL] = TO(SUP_PH_DONE, 0),
		[SUP_PE_FORWARD] = TO(SUP_PH_DONE, 0),
		[SUP_PE_STREAMS_DONE] = TO(SUP_PH_DONE, 0),
		[SUP_PE_NOTHING_RAN] = TO(SUP_PH_DONE, 0),
		[SUP_PE_FAILED] = TO(SUP_PH_DONE, 0),
	},
};

struct sup_phase_step sup_phase_next(enum sup_phase p, enum sup_phase_event ev)
{
	if ((unsigned)p >= SUP_PH_COUNT || (unsigned)ev >= SUP_PE_COUNT)
		return (struct sup_phase_step){ .next = p, .actions = 0 };
	return table[p][ev];
}

const char *sup_phase_name(enum sup_phase p)
{
	static const char *const names[SUP_PH_COUNT] = { "RUNNING", "SETTLE", "CANCEL", "JOINED",
							 "DONE" };

	return (unsigned)p < SUP_PH_COUNT ? names[p] : "?";
}

const char *sup_phase_event_name(enum sup_phase_event ev)
{
	static const char *const names[SUP_PE_COUNT] = { "NONE",	 "EXITED",	"EMPTY",
							 "TIMER",	 "SIGNAL",	"FORWARD",
							 "STREAMS_DONE", "NOTHING_RAN", "FAILED" };

	return (unsigned)ev < SUP_PE_COUNT ? names[ev] : "?";
}
