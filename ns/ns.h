/* SPDX-License-Identifier: MIT */
/*
 * ns/: the side effects of entering namespaces.  No printing here: every function
 * returns 0 or -errno and describes a failure in struct iso_err (common/err.h),
 * with a hint where the errno alone would mislead.  Only ns/ links libnl and libcap.
 */
#ifndef ISO_NS_H
#define ISO_NS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"

/* --- network (ns/netlo.c) ------------------------------------------------- */

/*
 * Bring `lo` up in the calling thread's current network namespace (IPv4
 * 127.0.0.1 and IPv6 ::1 appear with it), through libnl-route-3.  The netlink
 * socket is opened here, after the namespace was entered: one opened before
 * would configure the host's lo.
 */
int ns_loopback_up(struct iso_err *e);

/* --- capabilities (ns/caps.c) --------------------------------------------- */

/*
 * "CAP_NET_RAW,sys_ptrace" -> bit mask (bit n = capability n); unknown names are
 * errors; "all" is every capability the running kernel knows.
 */
int ns_caps_parse(const char *list, uint64_t *ret_keep, struct iso_err *e);

/* The capabilities a real-root command without --pidns loses (CAP_SYS_BOOT, ...). */
uint64_t ns_caps_host_dangerous(void);

/*
 * The capabilities that let a root command undo mounts made for it (umount,
 * ptrace of the namespace's init, open_by_handle_at past a covered path).
 */
uint64_t ns_caps_mount_undoers(void);
/* Every capability the running kernel knows. */
uint64_t ns_caps_all(void);
/* libcap's name of capability `c` ("cap_sys_admin"), "?" when unknown. */
const char *ns_caps_name(int c, char *buf, size_t len);

/*
 * Why a namespace step failed, where the command line has advice that names an
 * option (ns/ names none): the cause travels in iso_err.cause.
 */
enum ns_cause {
	NS_CAUSE_NONE,
	NS_CAUSE_NO_USERNS,   /* no user namespace to be had: running without one is the way */
	NS_CAUSE_PROC_MASKED, /* no new procfs here: the same */
	NS_CAUSE_CWD_HIDDEN,  /* the working directory lies in the home being hidden */
	NS_CAUSE_HOME_FD,     /* an inherited descriptor writes into the protected home */
	NS_CAUSE_HOME_KEPT,   /* a path kept writable is the protected home itself */
};

enum ns_caps_mode {
	/* empty bounding set but `keep`, ambient cleared (kept caps raised as ambient
	 * when the process has them), inheritable emptied but `keep` */
	NS_CAPS_EMPTY,
	/* real root (without a user namespace): drop ns_caps_host_dangerous() and
	 * `also_drop` but `keep` from the bounding set; identity and other caps stay */
	NS_CAPS_HOST_ROOT,
	/* an ordinary user without a namespace: the bounding set cannot be changed
	 * without CAP_SETPCAP; only ambient is cleared */
	NS_CAPS_UNPRIVILEGED,
};

/*
 * Called in the command's process just before execve: apply the mode, then set
 * no_new_privs.  Verifies the result (libcap's bulk calls ignore single failures).
 */
int ns_caps_apply(enum ns_caps_mode mode, uint64_t keep, uint64_t also_drop, struct iso_err *e);

/* --- user namespaces (ns/userns.c) ---------------------------------------- */

/*
 * From the parent, for a child created with CLONE_NEWUSER and waiting: write
 * "deny" to setgroups, then uid_map and gid_map (inside_uid outside_uid 1).
 * A failure carries the cause and a hint (AppArmor's restriction shows up here).
 */
int ns_userns_write_maps(pid_t child, uid_t inside_uid, gid_t inside_gid, uid_t outside_uid,
			 gid_t outside_gid, struct iso_err *e);

/*
 * Why this host refuses unprivileged user namespaces, probed in a throwaway child:
 * returns 0 when they are usable, or -errno with e->msg naming the exact cause and
 * e->hint the one-line fix: user.max_user_namespaces=0 (ENOSPC), Debian's
 * kernel.unprivileged_userns_clone=0 (EPERM), Ubuntu's
 * kernel.apparmor_restrict_unprivileged_userns=1 (created but the map write or first
 * mount fails), a seccomp filter of a surrounding container (EPERM while
 * /proc/self/status says Seccomp: 2), a multi-threaded caller (EINVAL), no
 * CONFIG_USER_NS.
 */
int ns_userns_diagnose(struct iso_err *e);

/* Explain an errno from clone/unshare(CLONE_NEWUSER...) the same way, without probing. */
void ns_userns_explain(int errnum, struct iso_err *e);

/* --- id ranges (ns/subid.c): --map-users --------------------------------- */

struct ns_subid {
	uint32_t start, count;
};
struct ns_idmap_line {
	uint32_t inside, outside, count;
};
/* What newuidmap and newgidmap are asked to write for a child. */
struct ns_idmaps {
	char newuidmap[256], newgidmap[256];
	struct ns_idmap_line uid[3], gid[3];
	size_t n_uid, n_gid;
};

/*
 * The first range of user `name` (or of `uid` written in digits) in `file`, in
 * /etc/subuid's format (NAME:START:COUNT): 1 found, 0 none (no file either),
 * -errno with e set when the file cannot be read.
 */
int ns_subid_find(const char *file, const char *name, uid_t uid, struct ns_subid *ret,
		  struct iso_err *e);
/*
 * The lines of a map that gives `inside` to `outside` alone and the range to the
 * other ids from 0 up (`inside` skipped): at most 3.
 */
size_t ns_idmap_lines(uint32_t inside, uint32_t outside, const struct ns_subid *range,
		      struct ns_idmap_line out[3]);
/*
 * The setuid helper `name` from NS_TOOL_DIRS only, never through PATH (an
 * entry inside the checkout is the command's to write): a regular file owned
 * by root, not writable by group or others, in a directory alike.  Into buf:
 * 0, or -ENOENT (buf empty).
 */
#define NS_TOOL_DIRS "/usr/bin:/bin"
int ns_find_tool(const char *name, char *buf, size_t len);
/*
 * From the parent, for a child created with CLONE_NEWUSER and waiting: run
 * newuidmap, then newgidmap, with the lines of `m`.  Each gets `timeout_ms`, then
 * is killed: the supervisor waits on nothing unbounded.  setgroups stays "allow",
 * as the helper leaves it: the admin gave the range.  A refusal carries the
 * helper's own first line.
 */
int ns_userns_write_ranges(pid_t child, const struct ns_idmaps *m, int timeout_ms,
			   struct iso_err *e);
/*
 * From inside the namespace, once nothing else runs in it: every entry below
 * `dir` on its filesystem owned by another id than uid:gid (the caller's own,
 * as the namespace names them) is chowned to them, symlinks themselves, so that
 * the caller can remove (or keep) the tree outside.  Mounts are not entered.
 * Any depth: one directory fd at a time, no recursion (ns/giveback.c).  Goes on
 * past a failure; the first is returned.
 */
int ns_idmap_give_back(const char *dir, uid_t uid, gid_t gid, struct iso_err *e);
/*
 * fn(arg, e) in a child of the caller in a user namespace of its own, mapped
 * with `m` by newuidmap and newgidmap (each bounded by `timeout_ms`): there the
 * caller is root over its own id and its ranges, so it can chmod, enter and
 * remove what a run gave to them.  The child dies with the caller.  fn's result
 * (its e) is the return: 0, or -errno with e set.
 */
int ns_in_ranges(const struct ns_idmaps *m, int timeout_ms, int (*fn)(void *arg, struct iso_err *e),
		 void *arg, struct iso_err *e);

/* --- mounts (ns/mounts.c), inside a fresh mount namespace ------------------ */

/* MS_REC|MS_SLAVE on "/": nothing mounted afterwards propagates to the host. */
int ns_mounts_make_private(struct iso_err *e);
/* A new procfs on /proc (the caller is in the new PID namespace's mount ns). */
int ns_mount_proc(struct iso_err *e);
/*
 * A procfs of the caller's PID namespace that no mount in any namespace covers:
 * a new instance, detached (fsopen/fsmount), or else a detached copy of the
 * /proc mount (open_tree), whose superblock it shares.  Returns a directory fd of
 * its root (close-on-exec, read-only), or -errno.
 */
int ns_proc_private(struct iso_err *e);
/*
 * A sysfs of the caller's own network namespace on /sys (after unshare(CLONE_NEWNET)):
 * the inherited one shows the host's interfaces.  What was mounted below /sys is
 * moved back on top, the old /sys's locked flags (read-only, nosuid...) repeated.
 */
int ns_mount_sysfs(struct iso_err *e);
/* Bind `dir` over /tmp and /var/tmp (where they exist). */
int ns_private_tmp(const char *dir, struct iso_err *e);

enum ns_home_mode { NS_HOME_OFF, NS_HOME_RO, NS_HOME_HIDE };
/*
 * The operator's real home `home` (from the passwd entry): NS_HOME_RO binds it on
 * itself and makes it read-only recursively, submounts included (mount_setattr
 * AT_RECURSIVE), carrying the locked flags; NS_HOME_HIDE puts the empty directory
 * `empty` over it.
 */
int ns_protect_home(const char *home, enum ns_home_mode mode, const char *empty,
		    const char *const *keep, size_t n_keep, struct iso_err *e);
/*
 * The paths of `keep` (canonical) that lie strictly below the home stay as they
 * were under either mode: writable and visible (the tree, --writable).  Returns
 * -EINVAL naming a path that is the home itself.  For NS_HOME_HIDE their mount
 * points are made beforehand, in the empty directory, by ns_home_skeleton().
 */
int ns_home_skeleton(const char *home, const char *empty, const char *const *keep, size_t n_keep,
		     struct iso_err *e);
/*
 * Whether ns_protect_home() will cover `path` (canonical): it is the home or below
 * it, and not at or below a `keep` path.  Writes there will fail with EROFS.
 */
bool ns_home_covers(const char *home, const char *const *keep, size_t n_keep, const char *path);

/* --- the run's own mounts, asked by the caller (ns/binds.c) ------------------ */

enum ns_mount_kind { NS_MOUNT_BIND, NS_MOUNT_RO_BIND, NS_MOUNT_TMPFS };
struct ns_mount {
	enum ns_mount_kind kind;
	const char *src;  /* canonical; NULL for a tmpfs */
	const char *dest; /* canonical, absolute */
	/* dest is made first (its missing directories, then a directory, or an empty
	 * file when src is not a directory): it lies in an earlier tmpfs of the list */
	bool make;
	bool file; /* src is not a directory */
};
/*
 * Mount each of `m` in order, in the caller's mount namespace.  A bind copies
 * the mounts below src too (AT_RECURSIVE); a read-only bind is made read-only,
 * submounts included, before it is attached, so no moment is writable.  A tmpfs
 * is nosuid,nodev, mode 0755, owned by the caller.  Stops at the first failure.
 */
int ns_mounts_apply(const struct ns_mount *m, size_t n, struct iso_err *e);

/*
 * Each of `fds` (the command's standard descriptors and --pass-fd) that is a
 * directory, or a file open read-only or O_PATH, at a path below the home (and not
 * below a `keep` path) is reopened in place, with the same identity, through a
 * read-only copy of its mount; called before ns_protect_home() covers the home.  A
 * file open for writing stays as it was given.  Fails naming the fd and path when
 * the path no longer leads to the same file.
 */
int ns_home_fds(const char *home, const char *const *keep, size_t n_keep, const int *fds,
		size_t n_fds, struct iso_err *e);

#endif
