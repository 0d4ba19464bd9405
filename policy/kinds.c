// SPDX-License-Identifier: MIT
/*
 * The rule kinds, in the order their rules are printed, compiled and asked
 * about a notified call (policy/kind.h).  A new kind: its file, and its name
 * here (declared and listed).
 */
#include "common/cleanup.h"
#include "policy/kind.h"

const struct pol_kind *const pol_kinds[] = {
	&pol_kind_deny,
	&pol_kind_guard,
	&pol_kind_socket,
	&pol_kind_signals,
};
const size_t pol_n_kinds = ELEMENTSOF(pol_kinds);

_Static_assert(ELEMENTSOF(pol_kinds) <= ELEMENTSOF(((struct pol *)0)->kind_rules),
	       "struct pol has a slot for each kind");

void **pol_kind_rules(struct pol *p, const struct pol_kind *k)
{
	for (size_t i = 0; i < pol_n_kinds; i++)
		if (pol_kinds[i] == k)
			return &p->kind_rules[i];
	return NULL;
}

const void *pol_kind_rules_of(const struct pol *p, const struct pol_kind *k)
{
	for (size_t i = 0; i < pol_n_kinds; i++)
		if (pol_kinds[i] == k)
			return p->kind_rules[i];
	return NULL;
}
