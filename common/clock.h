/* SPDX-License-Identifier: MIT */
/*
 * The monotonic clock, the one reading of it: deadlines and durations, never
 * set back by the wall clock's changes.
 */
#ifndef ISO_CLOCK_H
#define ISO_CLOCK_H

#include <stdint.h>
#include <time.h>

/* microseconds of CLOCK_MONOTONIC (it cannot fail with a valid clock and pointer) */
static inline uint64_t iso_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* milliseconds of CLOCK_MONOTONIC */
static inline uint64_t iso_now_ms(void)
{
	return iso_now_us() / 1000;
}

#endif
