/* SPDX-License-Identifier: MIT */
/*
 * The leak gate's two strategies behind one interface.  The subreaper gate
 * (launcher/gate_subreaper.c): isorun is a child subreaper, every descendant
 * stays its descendant, "no child left" is the proof the tree is empty, and
 * isorun stops, names and kills the survivors itself.  The PID-namespace gate
 * (launcher/gate_pidns.c): the command runs under an init of its own
 * (launcher/init.c), which runs the settle and the sweep inside and reports by
 * message; init's end is the kernel's proof.  The supervisor (launcher/supervise.c)
 * calls these for the actions of the phase table (launcher/phase.h) and never
 * asks which gate it has.  A NULL member does nothing.
 */
#ifndef ISO_GATE_H
#define ISO_GATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "common/err.h"
#include "launcher/phase.h"
#include "launcher/spawn.h"

struct sup;

struct sup_gate_ops {
	/* the report's "pidns" */
	bool namespaced;
	/* start the command (s->cmd): 0 (s->fail says whether it exec'd), or -errno */
	int (*start)(struct sup *s, struct sup_spawn *sp, int *listener, struct iso_err *e);
	/* attribution's roots once the command runs */
	void (*attrib)(struct sup *s);
	/* the terminal goes to the command */
	void (*tty)(struct sup *s);
	/* s->cmd was reaped with this status */
	void (*on_reaped)(struct sup *s, int status);
	/* after a batch of reaps: SUP_PE_EXITED, SUP_PE_EMPTY or SUP_PE_NONE */
	enum sup_phase_event (*children)(struct sup *s);
	/* SUP_PA_SETTLE */
	void (*settle)(struct sup *s);
	/* SUP_PA_SETTLE_TIMER, SUP_PA_SWEEP, SUP_PA_KILL: SUP_PE_EMPTY when the tree is gone on
	 * return */
	enum sup_phase_event (*settle_timer)(struct sup *s);
	enum sup_phase_event (*sweep)(struct sup *s, int sig);
	enum sup_phase_event (*kill)(struct sup *s);
	/* SUP_PA_STOP: sig, or 0 for a timeout */
	void (*stop)(struct sup *s, int sig, bool from_terminal);
	/* SUP_PA_DRAIN */
	void (*drain)(struct sup *s);
	/* SUP_PA_LATE_CANCEL */
	enum sup_phase_event (*late_cancel)(struct sup *s, int sig);
	/* SUP_PA_FORWARD, SUP_PA_LATE_FORWARD */
	void (*forward)(struct sup *s, int sig);
	void (*late_forward)(struct sup *s, int sig);
	/* a message on the gate's socket (SRC_INIT) */
	void (*on_message)(struct sup *s);
	/* where the tree's walk starts: the process whose descendants are the run */
	pid_t (*root)(const struct sup *s);
	/* why the join cannot be proven by this gate, or NULL */
	const char *(*unmeasurable)(const struct sup *s);
	void (*close)(struct sup *s);
};

extern const struct sup_gate_ops sup_gate_subreaper;
extern const struct sup_gate_ops sup_gate_pidns;

#endif
