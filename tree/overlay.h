/* SPDX-License-Identifier: MIT */
/* What root's shield (tree/shield.h) and an ordinary user's gate (tree/gate.h) share. */
#ifndef ISO_TREE_OVERLAY_H
#define ISO_TREE_OVERLAY_H

#include <stdbool.h>

/*
 * Whether an overlay's superblock watched on the inotify instance `in` ended
 * (IN_UNMOUNT), waiting up to `ms` milliseconds for each event.
 */
bool tree_overlay_ended(int in, int ms);

/*
 * Whether every step of `path` below dir_fd is a real directory, no link (the
 * last one too when `last`): what a walk by path may pass through.
 */
bool tree_overlay_real_dirs(int dir_fd, const char *path, bool last);

/* Remove overlayfs's work directory `name` in dir_fd (its known layout only). */
bool tree_overlay_remove_workdir(int dir_fd, const char *name);

#endif
