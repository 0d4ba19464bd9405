// SPDX-License-Identifier: MIT
/*
 * The controls of the leak gate and the teardown: a clean command passes in
 * silence, a setsid daemon is named and fails the run, and a holder of a file
 * in the tree makes isorun retain it.  Each must fail when its guard is broken
 * (`--leaks=ignore` turns the daemon control red).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "selftest/selftest.h"

const char *st_gate_unmeasurable(const struct st_ctx *c, char *buf, size_t len)
{
	const struct st_probe *sr = &c->probes[ST_SP_SUBREAPER], *pn = &c->probes[ST_SP_PIDNS];

	if (c->fwd.pidns && !strcmp(c->fwd.pidns, "on"))
		return NULL; /* asked for: its failure is the control's to show */
	if (sr->verdict == ST_YES)
		return NULL;
	if (pn->verdict == ST_YES && c->fwd.pidns)
		return NULL;
	snprintf(buf, len, "no subreaper, so isorun retains every tree: %s", sr->reason);
	return buf;
}

/* Informational notices a clean run may print; anything else is a finding. */
static bool only_notices(const struct st_ctx *c, const char *err)
{
	const char *const ok[] = {
		"isorun: pidns: not available (",
		"isorun: policy: service guard enforced by the enclosing isorun",
		/* the caller's PATH may name directories the option hides */
		c->says[ST_SAY_HIDE_NOTICE],
		c->says[ST_SAY_TMP_NOTICE],
	};

	while (*err) {
		size_t n = strcspn(err, "\n");
		bool known = false;

		for (size_t i = 0; i < ELEMENTSOF(ok); i++)
			if (!strncmp(err, ok[i], strlen(ok[i])))
				known = true;
		if (!known)
			return false;
		err += n;
		if (*err)
			err++;
	}
	return true;
}

void st_control_clean(struct st_ctx *c, struct st_control *ctl)
{
	static const char *const mode[] = { ST_INTERNAL "clean", NULL };
	char why[512], desc[600];
	struct st_run r;

	if (st_gate_unmeasurable(c, why, sizeof(why))) {
		st_result(ctl, ST_NOT_MEASURABLE, "%s", why);
		return;
	}
	st_run_init(&r, c, NULL, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	if (r.code == 0 && only_notices(c, r.err))
		st_result(ctl, ST_OK, "exit 0, nothing on stderr, tree removed");
	else
		st_result(ctl, ST_NOT_OK, "a command that leaves nothing did not pass silently: %s",
			  desc);
	st_check_trees(c, ctl, NULL);
}

void st_control_daemon(struct st_ctx *c, struct st_control *ctl)
{
	/* the gate's window: the daemon never exits on its own, so no race to lose */
	const char *const opts[] = { c->says[ST_SAY_SETTLE_200MS_ARG], NULL };
	static const char *const mode[] = { ST_INTERNAL "daemon", NULL };
	char why[512], desc[600], line[1024], session[48];
	struct st_run r;
	long daemon = 0;

	if (st_gate_unmeasurable(c, why, sizeof(why))) {
		st_result(ctl, ST_NOT_MEASURABLE, "%s", why);
		return;
	}
	st_run_init(&r, c, opts, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	if (sscanf(r.out, "daemon %ld", &daemon) != 1) {
		st_result(ctl, ST_NOT_OK, "the command did not start its daemon: %s", desc);
	} else {
		/* setsid made the daemon its session's leader: sid = its own pid */
		snprintf(session, sizeof(session), "session %ld,", daemon);
		if (st_err_line(&r, line, sizeof(line), "isorun: leaked (warning): pid ",
				ST_INTERNAL "daemon`", session, NULL))
			st_result(ctl, ST_NOT_OK,
				  "the daemon was named only as a warning and the run passed: %s",
				  desc);
		else if (!st_err_line(&r, line, sizeof(line), "isorun: leaked: pid ",
				      ST_INTERNAL "daemon`", session, NULL))
			st_result(ctl, ST_NOT_OK,
				  "a setsid daemon (pid %ld) outlived the command and was not "
				  "named as leaked: %s",
				  daemon, desc);
		else if (r.code != 122)
			st_result(ctl, ST_NOT_OK,
				  "the daemon was named but the run did not fail "
				  "with 122: %s",
				  desc);
		else
			st_result(ctl, ST_OK, "exit 122; %s", line);
	}
	st_check_trees(c, ctl, NULL);
}

struct holder {
	const struct st_ctx *c;
	char home[PATH_MAX];
	int fd;	    /* our descriptor inside the tree */
	int errnum; /* why it could not be opened */
};

/*
 * An ordinary user's tree under --pidns lies below its gate while the run
 * lives (tree/gate.h): from outside, the home is reached through the run's
 * root, as /proc/INIT/root, init being isorun's child.
 */
static int open_through_run(const char *home)
{
	char path[PATH_MAX + 64], kids[64] = "";
	long init = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)st_child_pid,
		 (int)st_child_pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, kids, sizeof(kids) - 1);
		kids[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	init = strtol(kids, NULL, 10);
	if (init <= 0)
		return -ENOENT;
	snprintf(path, sizeof(path), "/proc/%ld/root%s", init, home);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The command told us its HOME: hold the tree open, then let the command finish. */
static void hold(struct st_run *r, const char *line)
{
	struct holder *h = r->data;

	if (h->home[0] || r->stdin_fd < 0)
		return;
	snprintf(h->home, sizeof(h->home), "%s", line);
	h->fd = open(h->home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (h->fd < 0 && (errno == ENOENT || errno == EACCES)) {
		int fd = open_through_run(h->home);
		h->fd = fd < 0 ? -1 : fd;
		errno = fd < 0 ? -fd : 0;
	}
	if (h->fd < 0)
		h->errnum = errno;
	(void)!write(r->stdin_fd, "x", 1);
	close(r->stdin_fd);
	r->stdin_fd = -1;
}

void st_control_holder(struct st_ctx *c, struct st_control *ctl)
{
	static const char *const mode[] = { ST_INTERNAL "hold", NULL };
	struct holder h = { .c = c, .fd = -1 };
	char why[512], desc[600], line[2048], tree[PATH_MAX], pid[32], *slash;
	_cleanup_free_ char *quoted = NULL;
	struct st_run r;

	if (st_gate_unmeasurable(c, why, sizeof(why))) {
		st_result(ctl, ST_NOT_MEASURABLE, "%s", why);
		return;
	}
	st_run_init(&r, c, NULL, mode);
	r.with_stdin = true;
	r.on_line = hold;
	r.data = &h;
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	snprintf(tree, sizeof(tree), "%s", h.home);
	slash = strrchr(tree, '/');
	if (slash)
		*slash = '\0';
	quoted = iso_shell_quote(tree);
	snprintf(pid, sizeof(pid), "pid %d ", (int)getpid());
	if (!h.home[0]) {
		st_result(ctl, ST_NOT_OK, "the command never said where its tree is: %s", desc);
	} else if (h.fd < 0) {
		st_result(ctl, ST_NOT_OK, "open the command's HOME '%s': %s", h.home,
			  strerror(h.errnum));
	} else if (!quoted || strncmp(tree, c->user_root, strlen(c->user_root)) != 0) {
		st_result(ctl, ST_NOT_OK, "the command's HOME '%s' is not in a tree under %s",
			  h.home, c->user_root);
	} else if (!st_err_line(&r, line, sizeof(line), "isorun: tree retained at ", quoted, pid,
				NULL)) {
		st_result(ctl, ST_NOT_OK,
			  "this selftest (pid %d) held %s open, yet isorun did not retain the tree "
			  "naming it: %s",
			  (int)getpid(), h.home, desc);
	} else if (r.code != 122) {
		st_result(ctl, ST_NOT_OK,
			  "the tree was retained but the run did not fail with "
			  "122: %s",
			  desc);
	} else {
		st_result(ctl, ST_OK, "exit 122; %s", line);
	}
	/* the holder is us: let go, then remove what isorun rightly kept */
	if (h.fd >= 0)
		close(h.fd);
	st_check_trees(c, ctl, ctl->result == ST_OK ? tree : NULL);
}
