/* SPDX-License-Identifier: MIT */
/*
 * ISORUN_TEST_FAULT=NAME: a failure or a slow phase on purpose, for the paths
 * no real run reaches on demand (docs/decisions/0027-architecture.md):
 * "after-start", "slow-removal", "slow-exec-record", "no-children-file",
 * "no-shield", "late-shield", "late-exec-word", "no-pidfs", "no-uidmap"
 * (newuidmap and newgidmap taken for missing), "empty-listing",
 * "unnamed-survivors", "stalled-start", "apparmor-userns" (the AppArmor knob
 * taken for 1), "no-clone-into-cgroup" (clone3 taken for refused), "no-share"
 * (root's trees' directory left unshared, tree/shield.h) (and
 * tree.c's "tree:STEP").
 */
#ifndef ISO_FAULT_H
#define ISO_FAULT_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static inline bool iso_test_fault(const char *name)
{
	const char *f = getenv("ISORUN_TEST_FAULT");

	return f && strcmp(f, name) == 0;
}

#endif
