// SPDX-License-Identifier: MIT
/*
 * The controls of the guards that change what the command may do: the real
 * home under --protect-home=ro, the service guard and the deny-list of the
 * policy, and --net=isolated.  Each runs with the guard on by default and
 * turns red when a forwarded option breaks it (--protect-home=off, --policy=off,
 * --policy-mode=log, --net=host).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "selftest/selftest.h"

static bool policy_off(const struct st_ctx *c)
{
	return c->fwd.policy && !strcmp(c->fwd.policy, "off");
}

/* --- --protect-home=ro -------------------------------------------------------- */

/*
 * The caller's real home, from passwd, into home: a directory the caller can
 * write to, or a refused write there would prove nothing (else not measurable).
 */
static bool writable_home(struct st_control *ctl, char *home, size_t len)
{
	const struct passwd *pw;
	struct stat st;

	errno = 0;
	pw = getpwuid(getuid());
	if (!pw || !pw->pw_dir || pw->pw_dir[0] != '/') {
		st_result(ctl, ST_NOT_MEASURABLE, "uid %u has no home in the passwd database",
			  (unsigned)getuid());
		return false;
	}
	snprintf(home, len, "%s", pw->pw_dir);
	if (stat(home, &st) < 0 || !S_ISDIR(st.st_mode)) {
		st_result(ctl, ST_NOT_MEASURABLE, "the real home %s is not a directory: %s", home,
			  strerror(errno ? errno : ENOTDIR));
		return false;
	}
	if (access(home, W_OK) < 0) {
		st_result(ctl, ST_NOT_MEASURABLE,
			  "the real home %s is not writable by uid %u anyway (%s): a refused "
			  "write would prove nothing",
			  home, (unsigned)getuid(), strerror(errno));
		return false;
	}
	return true;
}

void st_control_home(struct st_ctx *c, struct st_control *ctl)
{
	const char *const opts[] = { c->says[ST_SAY_HOME_RO], NULL };
	const char *mode = c->fwd.protect_home ? c->fwd.protect_home : "ro";
	const char *argv[3] = { ST_INTERNAL "create", NULL, NULL };
	const struct st_probe *mp = &c->probes[ST_SP_MOUNTNS];
	char path[PATH_MAX + 64], desc[600];
	unsigned char rnd[6];
	struct stat st;
	struct st_run r;
	char home[PATH_MAX];
	bool created;

	if (!writable_home(ctl, home, sizeof(home)))
		return;
	if (strcmp(mode, "off") != 0 && mp->verdict != ST_YES) {
		st_result(ctl, ST_NOT_MEASURABLE, "mount namespaces: %s", mp->reason);
		return;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		st_result(ctl, ST_NOT_OK, "getrandom: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s%s.isorun-selftest-%d-%02x%02x%02x%02x%02x%02x", home,
		 home[strlen(home) - 1] == '/' ? "" : "/", (int)getpid(), rnd[0], rnd[1], rnd[2],
		 rnd[3], rnd[4], rnd[5]);
	if (lstat(path, &st) == 0) {
		st_result(ctl, ST_NOT_MEASURABLE, "%s exists already", path);
		return;
	}
	argv[1] = path;
	st_run_init(&r, c, opts, argv);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	created = lstat(path, &st) == 0;
	if (created) {
		st_result(ctl, ST_NOT_OK,
			  "a write from inside the run reached the real home: %s "
			  "was created",
			  path);
		/* the selftest must not leave it there, whatever the verdict */
		if (unlink(path) < 0)
			st_append(ctl, "could not remove it: %s", strerror(errno));
		else
			st_append(ctl, "removed it");
	} else if (!strncmp(r.out, "refused: ", 9)) {
		st_result(ctl, ST_OK,
			  "a write to %s from inside the run was %.*s; the real home is "
			  "unchanged",
			  home, (int)strcspn(r.out, "\n"), r.out);
	} else if (!strncmp(r.out, "created", 7)) {
		st_result(ctl, ST_OK,
			  "the write landed in the empty directory over the real home "
			  "(%s); the real home is unchanged",
			  c->says[ST_SAY_HOME_HIDE]);
	} else {
		st_result(ctl, ST_NOT_OK, "the write was never tried: %s", desc);
	}
	if (ctl->result == ST_OK && r.code != 0 && r.code != 1)
		st_result(ctl, ST_NOT_OK, "the home is unchanged, but isorun failed: %s", desc);
	st_check_trees(c, ctl, NULL);
}

/* --- the service guard -------------------------------------------------------- */

void st_control_service(struct st_ctx *c, struct st_control *ctl)
{
	static const char *const mode[] = { ST_INTERNAL "service", NULL };
	const struct st_probe *np = &c->probes[ST_SP_NOTIFY];
	char path_env[8192], ran[PATH_MAX + 32], desc[600], line[1024];
	_cleanup_free_ char *log = NULL;
	const char *opts[3] = { c->says[ST_SAY_SETENV], path_env, NULL };
	const char *path = getenv("PATH");
	bool restart_ran, active_ran, refused;
	struct st_run r;
	size_t cap = 0;
	FILE *f;

	if (!policy_off(c) && np->verdict != ST_YES) {
		if (np->err == EBUSY)
			st_result(ctl, ST_NOT_MEASURABLE,
				  "an enclosing isorun or container holds the seccomp listener "
				  "(EBUSY): it decides the execs of an isorun started here, whose "
				  "refusals cannot be observed from here");
		else
			st_result(ctl, ST_NOT_MEASURABLE, "seccomp user notification: %s",
				  np->reason);
		return;
	}
	snprintf(ran, sizeof(ran), "%s/systemctl.ran", c->dir);
	snprintf(path_env, sizeof(path_env), "PATH=%s/bin:%s", c->dir,
		 path && *path ? path : "/usr/bin:/bin");
	st_run_init(&r, c, opts, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	/* what the stand-in recorded: the calls that really ran */
	f = fopen(ran, "re");
	restart_ran = active_ran = false;
	if (f) {
		char *l = NULL;

		while (getline(&l, &cap, f) > 0) {
			restart_ran |= !strcmp(l, "restart selftest-unit\n");
			active_ran |= !strcmp(l, "is-active selftest-unit\n");
		}
		free(l);
		fclose(f);
		(void)unlink(ran);
	}
	refused = st_err_line(&r, line, sizeof(line),
			      "isorun: refused: execve `systemctl restart selftest-unit`", NULL);
	if (restart_ran)
		st_result(ctl, ST_NOT_OK,
			  "`systemctl restart selftest-unit` ran (the stand-in "
			  "recorded it): %s",
			  desc);
	else if (!strstr(r.out, "restart: exec refused: "))
		st_result(ctl, ST_NOT_OK, "`systemctl restart` did not fail as a refused exec: %s",
			  desc);
	else if (!refused)
		st_result(ctl, ST_NOT_OK,
			  "`systemctl restart` failed but isorun did not report a "
			  "refusal: %s",
			  desc);
	else if (!active_ran)
		st_result(ctl, ST_NOT_OK, "`systemctl is-active` was not let through: %s; %s",
			  strstr(r.out, "is-active") ? strstr(r.out, "is-active") : "", desc);
	else if (r.code != 122)
		st_result(ctl, ST_NOT_OK, "the refusal did not fail the run with 122: %s", desc);
	else
		st_result(ctl, ST_OK, "exit 122; %s; `systemctl is-active` ran", line);
	st_check_trees(c, ctl, NULL);
}

/* --- the deny-list ------------------------------------------------------------ */

void st_control_denylist(struct st_ctx *c, struct st_control *ctl)
{
	static const char *const mode[] = { ST_INTERNAL "syscalls", NULL };
	const struct st_probe *sp = &c->probes[ST_SP_SECCOMP];
	char desc[600], allowed[256] = "", refused[256] = "", before[256] = "";
	struct st_run r;

	if (!policy_off(c) && sp->verdict != ST_YES) {
		st_result(ctl, ST_NOT_MEASURABLE, "seccomp filters: %s", sp->reason);
		return;
	}
	/* refused already out here: an enclosing filter would hide a broken policy */
	for (int i = 0; i < ST_N_DENY_CALLS; i++) {
		int err = st_deny_call(i);

		if (err != EFAULT && err != EBADF)
			snprintf(before + strlen(before), sizeof(before) - strlen(before),
				 "%s%s (%s)", before[0] ? ", " : "", st_deny_calls[i],
				 strerrorname_np(err) ? strerrorname_np(err) : "succeeded");
	}
	if (before[0]) {
		st_result(ctl, ST_NOT_MEASURABLE,
			  "without isorun these calls already fail with something other than the "
			  "kernel's EFAULT/EBADF: %s (an enclosing filter?)",
			  before);
		return;
	}
	st_run_init(&r, c, NULL, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	for (size_t i = 0; i < ST_N_DENY_CALLS; i++) {
		const char *name = st_deny_calls[i];
		char key[64], err[32] = "";
		const char *at;

		snprintf(key, sizeof(key), "%s: ", name);
		at = strstr(r.out, key);
		if (at)
			sscanf(at + strlen(key), "%31s", err);
		/* the kernel's own answer to the invalid argument means it got through */
		char *list = !strcmp(err, "EPERM") ? refused : allowed;
		size_t used = strlen(list);

		snprintf(list + used, 256 - used, "%s%s%s%s%s", used ? ", " : "", name,
			 list == allowed ? " (" : "", list == allowed ? (err[0] ? err : "?") : "",
			 list == allowed ? ")" : "");
	}
	if (r.code != 0)
		st_result(ctl, ST_NOT_OK, "the calls were not made: %s", desc);
	else if (allowed[0])
		st_result(ctl, ST_NOT_OK,
			  "let through: %s (the kernel's own errno for an invalid "
			  "argument)",
			  allowed);
	else
		st_result(ctl, ST_OK, "refused with EPERM: %s (with harmless invalid arguments)",
			  refused);
	st_check_trees(c, ctl, NULL);
}

/* --- --net=isolated ----------------------------------------------------------- */

void st_control_net(struct st_ctx *c, struct st_control *ctl)
{
	const char *const opts[] = { c->says[ST_SAY_NET_ISOLATED], NULL };
	const char *net = c->fwd.net ? c->fwd.net : "isolated";
	const struct st_probe *np = &c->probes[ST_SP_NETNS];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	_cleanup_close_ int l = -1, s = -1;
	char desc[600], port[16];
	const char *mode[3] = { ST_INTERNAL "connect", port, NULL };
	struct st_run r;

	if (strcmp(net, "host") != 0 && np->verdict != ST_YES) {
		st_result(ctl, ST_NOT_MEASURABLE, "network namespaces: %s", np->reason);
		return;
	}
	/* a listener on the host's loopback, and proof that it answers from here */
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || s < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 4) < 0 ||
	    getsockname(l, (struct sockaddr *)&sa, &len) < 0 ||
	    connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		st_result(ctl, ST_NOT_MEASURABLE,
			  "no listener on the host's 127.0.0.1 answers even from here: %s",
			  strerror(errno));
		return;
	}
	snprintf(port, sizeof(port), "%u", (unsigned)ntohs(sa.sin_port));
	st_run_init(&r, c, opts, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) < 0)
		return;
	if (!strncmp(r.out, "connected", 9))
		st_result(ctl, ST_NOT_OK, "the run reached the host's listener on 127.0.0.1:%s",
			  port);
	else if (r.code == 1 && !strncmp(r.out, "refused: ", 9))
		st_result(ctl, ST_OK,
			  "a connect from inside the run to the host's listener on 127.0.0.1:%s "
			  "failed: %.*s",
			  port, (int)strcspn(r.out + 9, "\n"), r.out + 9);
	else
		st_result(ctl, ST_NOT_OK, "the connection was never tried: %s", desc);
	st_check_trees(c, ctl, NULL);
}
