/* SPDX-License-Identifier: MIT */
/*
 * --pidns: the outer isorun (launcher/pidns.c, launcher/gate_pidns.c) and the
 * namespace's init (launcher/init.c) talk over one SOCK_SEQPACKET pair.  It
 * carries the start handshake, control from outside (cancel, timeout, go-ahead
 * to kill), and from inside the setup result, the command's status and the
 * survivors, named before they are killed.  Its EOF is each side's news that
 * the other is gone.  Both sides use this file; neither uses the other's.
 */
#ifndef ISO_NSMSG_H
#define ISO_NSMSG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/err.h"
#include "launcher/cache.h"
#include "launcher/opts.h"
#include "launcher/spawn.h"
#include "ns/ns.h"

/* struct pol_event as it crosses the socket (its origin pointer cannot) */
struct sup_ns_event_wire {
	pid_t pid;
	char call[24];
	char detail[512];
	char origin[300];
	int refused;
};

enum sup_ns_msg_type {
	/* outer -> init */
	SUP_NS_GO = 1,	 /* maps written; set up and start the command */
	SUP_NS_CANCEL,	 /* sig: to the command's group; --stop-signal to the rest */
	SUP_NS_TIMEOUT,	 /* --stop-signal to everything */
	SUP_NS_KILL_OK,	 /* survivors were recorded: kill them */
	SUP_NS_CONTINUE, /* the caller's shell continued us: hand back the terminal */
	SUP_NS_SWEEP,	 /* --timeout cut the settle short: stop, name and kill now */
	SUP_NS_FORWARD,	 /* sig to the command (status 1: to its process group) */
	/* init -> outer */
	SUP_NS_FAILED,	/* setup or exec failed: stage, err */
	SUP_NS_STARTED, /* the command runs: pid (inside); the listener rides along
			   (sig=EBUSY: an enclosing isorun holds it), as with FAILED */
	SUP_NS_EXITED,	/* the command's wait status */
	SUP_NS_LEAK,	/* one survivor, stopped */
	SUP_NS_LEAKS_DONE,
	SUP_NS_DONE,	     /* the namespace is empty but for init, which exits now */
	SUP_NS_STOPPED,	     /* the command was stopped from the terminal (Ctrl-Z) */
	SUP_NS_POLICY_EVENT, /* a call decided while the command started: in `event` */
	SUP_NS_BLIND,	     /* init could not see the namespace whole: why, in `cmdline` */
};

struct sup_ns_msg {
	int type;
	int sig;
	int status;
	int stage;
	pid_t pid;
	pid_t sid;
	uint64_t start;
	struct iso_err err;
	char cmdline[512];
	char cwd[512];
	char event[sizeof(struct sup_ns_event_wire)];
};

/* What init needs, all decided before clone: by cli/ (mounts, stop) and by the outer. */
struct sup_ns_plan {
	struct sup_mount_plan mounts;
	struct sup_stop_plan stop;
	const char *const *say; /* cli/'s spellings of the options (launcher/say.h) */
	struct sup_spawn spawn; /* the command, as the outer would start it */
	bool userns;
	uid_t inside_uid;
	gid_t inside_gid;
	/* --map-users: newuidmap/newgidmap write idmaps */
	bool ranged;
	/* --map-users could not be honoured: 125, never --pidns=try's fallback */
	bool map_failed;
	struct ns_idmaps idmaps;
	const char *tree; /* the tree, absolute */
	/*
	 * An ordinary user's tree below its gate (tree/gate.h): init mounts the
	 * overlay of `gate_tree` on `tree` before anything else; -1: no gate.
	 */
	int gate_tree, gate_in;
	char gate_why[200];	 /* from init: why the overlay is not over the gate ("": it is) */
	const char *tree_tmp;	 /* --private-tmp */
	const char *real_home;	 /* --protect-home, from the passwd entry */
	const char *empty_dir;	 /* --protect-home=hide */
	const char *const *keep; /* canonical paths left as they are inside the home */
	size_t n_keep;
	/* --cache: the caches kept between runs, bound back under --private-tmp too */
	const char *caches[SUP_N_CACHES];
	size_t n_caches;
};

int sup_ns_send(int sock, const struct sup_ns_msg *m);
int sup_ns_send_fd(int sock, const struct sup_ns_msg *m, int fd);
/* 1 on a message, 0 on EOF, -errno.  A passed fd lands in *ret_fd (NULL: closed). */
int sup_ns_recv(int sock, struct sup_ns_msg *m);
int sup_ns_recv_fd(int sock, struct sup_ns_msg *m, int *ret_fd);

#endif
