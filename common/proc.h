/* SPDX-License-Identifier: MIT */
/* Reading /proc: process identity, the descendant set, descriptions for reports. */
#ifndef ISO_PROC_H
#define ISO_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* A process as seen once in /proc.  (pid, start) names it even after pid reuse. */
struct iso_proc {
	pid_t pid;
	pid_t ppid;
	pid_t pgrp;
	pid_t sid;
	char state;	/* R S D T t Z X ... */
	uint64_t start; /* clock ticks after boot, /proc/PID/stat field 22 */
};

int iso_proc_stat(pid_t pid, struct iso_proc *ret);
/*
 * The same under procfd, a procfs of the caller's own (--pidns's init reads
 * through its private instance, which no mount on /proc covers); AT_FDCWD: /proc.
 * iso_proc_alive_at(), iso_proc_cmdline_at() and iso_proc_cwd_at() likewise.
 */
int iso_proc_stat_at(int procfd, pid_t pid, struct iso_proc *ret);
/* /proc/PID/NAME as it is (NUL bytes kept), at most len - 1 bytes, then a NUL: bytes or -errno. */
ssize_t iso_proc_read(pid_t pid, const char *name, char *buf, size_t len);
/* Alive: not a zombie, or a zombie leader (pthread_exit()) with a live thread. */
bool iso_proc_alive(const struct iso_proc *p);
bool iso_proc_alive_at(int procfd, const struct iso_proc *p);
/* A live thread of pid (its tid), or 0. */
pid_t iso_proc_live_thread(pid_t pid);
pid_t iso_proc_live_thread_at(const char *proc, pid_t pid);

/*
 * Every living process whose parent chain leads to `ancestor` (excluded),
 * zombies included, in one pass over /proc.  *ret is malloc'ed.
 * Returns the count or -errno.
 */
int iso_proc_descendants(pid_t ancestor, struct iso_proc **ret);

/*
 * The children pid's main thread made, from /proc/PID/task/PID/children: for a
 * single-threaded parent, all of them, in one read.  At most max into out.
 * Returns the count, -E2BIG when there are more, -ENOENT on a kernel without
 * CONFIG_PROC_CHILDREN (and when pid is gone), or -errno.
 */
int iso_proc_children(pid_t pid, pid_t *out, size_t max);

/* Command line (redacted, joined, at most max bytes); "[comm]" for a kernel-less argv. */
char *iso_proc_cmdline(pid_t pid, size_t max);
char *iso_proc_cmdline_at(int procfd, pid_t pid, size_t max);
/* readlink /proc/PID/cwd; NULL when it cannot be read. */
char *iso_proc_cwd(pid_t pid);
char *iso_proc_cwd_at(int procfd, pid_t pid);

/*
 * Who a process is and who its parent is, for the exec record: {ppid, id}, where
 * ids order processes by creation and never repeat.  With pidfs (Linux 6.9) and
 * PIDFD_GET_INFO (6.13) the id is the pidfs inode number, read without /proc:
 * a fresh process's /proc entry costs the first reader ~20 us to make, once per
 * exec.  Without them it is the start time in ticks (/proc/PID/stat), which ties
 * within a tick.  One run uses one kind: iso_proc_ident_probe() picks it.
 */
struct iso_ident {
	pid_t ppid;
	uint64_t id;
};
bool iso_proc_ident_probe(void);
int iso_proc_ident(pid_t pid, bool pidfs, struct iso_ident *ret);
/* The id of the process (pid, start) as iso_proc_ident() gives it, or -ESRCH when it is gone. */
int iso_proc_ident_of(const struct iso_proc *p, bool pidfs, struct iso_ident *ret);

/* pidfd_open + check that the pid still names the same process.  -ESRCH when not. */
int iso_pidfd_open_checked(const struct iso_proc *p);
int iso_pidfd_signal(int pidfd, int sig);

/* Clock ticks since boot now, for "alive N s after the command". */
uint64_t iso_proc_now_ticks(void);
long iso_proc_ticks_per_sec(void);

/*
 * The value of "FIELD:" in /proc/PID/status (pid 0: our own), blanks around it
 * dropped, into buf.  0, -ENOENT when the field is absent, or -errno.
 */
int iso_proc_status(pid_t pid, const char *field, char *buf, size_t len);

/* /proc/sys/kernel/random/boot_id without the newline; into buf. */
int iso_boot_id(char *buf, size_t len);

/*
 * isorun's own user namespace as /proc/self/uid_map shows it, read once, at the
 * first question: state 0 not yet, 1 read (a namespace other than the initial
 * one), -1 the initial one or unreadable (then no process is outside).
 */
struct iso_userns_view {
	int state;
	char self_map[512];
};
/*
 * Whether pid (under procfd, a /proc), a process of uid that refused to be
 * read, runs in a user namespace other than isorun's own, from what /proc
 * shows without ptrace access.  False when it cannot tell.
 */
bool iso_userns_outside(struct iso_userns_view *v, int procfd, pid_t pid, uid_t uid);

#endif
