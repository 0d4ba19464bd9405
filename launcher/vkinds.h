/* SPDX-License-Identifier: MIT */
/*
 * The finding kinds, one row each, in the order the findings and the annotations
 * name them (the reason has an order of its own: each kind's reason_at).  From the
 * rows: enum sup_vkind (SUP_V_ID), the declaration of each kind's description
 * (`sup_vkind_name`, a struct sup_vkind_row of launcher/verdict.h) and the verdict's
 * table of them (launcher/verdict.c).  A description is defined where its kind is
 * found: the kinds with fields of their own in struct sup_outcome in
 * launcher/verdict.c; a new guard's in the file that finds it, beside its words,
 * with its evidence in the outcome's generic list (sup_found_add()).  A new guard
 * is that file and one row here.
 *
 * A header of its own, so that launcher/outcome.h can name a kind: it includes
 * nothing.
 *
 * ROW(ID, name): SUP_V_ID, described by sup_vkind_name.
 */
#ifndef ISO_VKINDS_H
#define ISO_VKINDS_H

#define SUP_VKIND_ROWS(ROW)                                                                        \
	ROW(SETUP, setup)		/* a setup step failed (125); maybe in a policy file */    \
	ROW(TIMEOUT, timeout)		/* --timeout fired */                                      \
	ROW(UNMEASURABLE, unmeasurable) /* the leak check did not run */                           \
	ROW(LEAK, leak)			/* one per leaked process */                               \
	ROW(REFUSAL, refusal)		/* one per policy event, refused or logged */              \
	ROW(RESIDUE, residue)		/* one per new entry in a --watch directory */             \
	ROW(RESIDUE_GAP, residue_gap)	/* one per --watch directory not checked */                \
	ROW(RESIDUE_NOTE, residue_note) /* a .gitignore not applied: never counts */               \
	ROW(IGNORED, ignored)		/* an entry a .gitignore or a glob ignored: info, -v */    \
	ROW(RETAINED, retained)		/* the tree could not be removed */                        \
	ROW(STILL_HELD, still_held)	/* the removed tree was still held (tree/release.h) */     \
	ROW(HOME_NOTE, home_note)	/* --protect-home may explain a failure: never counts */   \
	ROW(TMP_NOTE, tmp_note)		/* --private-tmp may explain a failure: never counts */    \
	ROW(HOME_WRITE, home_write)	/* --watch-home: a file written in the private home */     \
	ROW(CEILING, ceiling)		/* a ceiling was reached (the lines are ceiling.c's) */    \
	ROW(CGROUP, cgroup)		/* the run's cgroup could not be removed */                \
	ROW(STREAM_LOST, stream_lost)	/* relayed output that could not be written */             \
	ROW(UNDELIVERED, undelivered)	/* an output file of isorun's own (--report, --junit) */

#define SUP_V_ID_(ID, name) SUP_V_##ID,
enum sup_vkind { SUP_VKIND_ROWS(SUP_V_ID_) SUP_V_N_KINDS };
#undef SUP_V_ID_

#endif
