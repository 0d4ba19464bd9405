/* SPDX-License-Identifier: MIT */
/*
 * Scope-bound cleanup, after systemd's src/basic/macro.h.  Every variable
 * carrying one of these attributes must be initialised where it is declared.
 * Ownership leaves a scope only through TAKE_FD / TAKE_PTR.
 */
#ifndef ISO_CLEANUP_H
#define ISO_CLEANUP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void iso_freep(void *p)
{
	free(*(void **)p);
}

static inline void iso_closep(int *fd)
{
	if (*fd >= 0) {
		int saved = errno;
		(void)close(*fd);
		errno = saved;
	}
}

static inline void iso_fclosep(FILE **f)
{
	if (*f)
		(void)fclose(*f);
}

#define _cleanup_free_	 _cleanup_(iso_freep)
#define _cleanup_fclose_ _cleanup_(iso_fclosep)
#define _cleanup_close_	 _cleanup_(iso_closep)

#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd_ = (fd);                                                                   \
		(fd) = -1;                                                                         \
		_fd_;                                                                              \
	})

#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _p_ = (p);                                                           \
		(p) = NULL;                                                                        \
		_p_;                                                                               \
	})

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

#endif
