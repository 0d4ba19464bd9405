// SPDX-License-Identifier: MIT
/*
 * The rule kinds, in the order their rules are printed, compiled and asked
 * about a notified call (policy/kind.h).  A new kind: its file, and a line here.
 */
#include "common/cleanup.h"
#include "policy/kind.h"

extern const struct pol_kind pol_kind_deny, pol_kind_guard, pol_kind_socket, pol_kind_signals;

const struct pol_kind *const pol_kinds[] = {
	&pol_kind_deny,
	&pol_kind_guard,
	&pol_kind_socket,
	&pol_kind_signals,
};
const size_t pol_n_kinds = ELEMENTSOF(pol_kinds);
