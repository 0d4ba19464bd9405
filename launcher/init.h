/* SPDX-License-Identifier: MIT */
/* The namespace's init (launcher/init.c), started by the outer (launcher/pidns.c). */
#ifndef ISO_INIT_H
#define ISO_INIT_H

#include "launcher/nsmsg.h"

/* The init role; never returns. */
_Noreturn void sup_init_main(const struct sup_ns_plan *p, int sock);

#endif
