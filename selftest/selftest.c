// SPDX-License-Identifier: MIT
/*
 * isorun selftest [--json] [WEAKENING OPTION]...: probe the host, then run the
 * live controls in a private directory that is removed at the end.
 *
 * Exit: 0 when every control this host supports passed, 1 when one is not ok
 * (or the private directory could not be removed), 125 for bad usage or when
 * the selftest could not set itself up, 128+N when cancelled by signal N.
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/version.h"
#include "common/cleanup.h"
#include "tree/rmtree.h"
#include "selftest/selftest.h"

static volatile sig_atomic_t cancelled;

/*
 * A signal meant for the selftest reaches the control's isorun too: one sent
 * by a process (kill) is passed on; one from the terminal already went to the
 * whole foreground group, and a second copy would cut isorun's grace short.
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int pid = st_child_pid;

	cancelled = sig;
	if (pid > 0 && si && si->si_code == SI_USER)
		kill(pid, sig);
}

void st_fwd_free(struct st_fwd *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->argv[i]);
	f->n = 0;
}

static void handle_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ELEMENTSOF(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	/* a control's isorun that died early must not take us down on a write */
	signal(SIGPIPE, SIG_IGN);
}

static int write_stand_in(const struct st_ctx *c)
{
	static const char script[] = "#!/bin/sh\n"
				     "# isorun selftest: a stand-in that records how it was run\n"
				     "printf '%s\\n' \"$*\" >>\"${0%/*}/../systemctl.ran\"\n";
	char path[PATH_MAX + 32];
	int fd;

	snprintf(path, sizeof(path), "%s/bin/systemctl", c->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (fd < 0 || write(fd, script, sizeof(script) - 1) != (ssize_t)(sizeof(script) - 1)) {
		fprintf(stderr, "isorun: selftest: write '%s': %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return close(fd) < 0 ? -1 : 0;
}

/* Is `path` inside the caller's real home (from the passwd entry)? */
static bool in_real_home(const char *path)
{
	const struct passwd *pw = getpwuid(getuid());
	_cleanup_free_ char *home = pw && pw->pw_dir ? realpath(pw->pw_dir, NULL) : NULL;
	size_t n = home ? strlen(home) : 0;

	return n && !strncmp(path, home, n) && (path[n] == '/' || home[n - 1] == '/');
}

/*
 * Under --protect-home=hide a binary in the real home is hidden from the
 * commands: they run a copy in the private directory instead.
 */
static int command_binary(struct st_ctx *c)
{
	_cleanup_close_ int in = -1, out = -1;
	ssize_t n;

	snprintf(c->cmd, sizeof(c->cmd), "%s", c->self);
	if (!c->fwd.protect_home || strcmp(c->fwd.protect_home, "hide") != 0 ||
	    !in_real_home(c->self))
		return 0;
	snprintf(c->cmd, sizeof(c->cmd), "%s/bin/isorun", c->dir);
	in = open(c->self, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(stderr, "isorun: selftest: open '%s': %s\n", c->self, strerror(errno));
		return -1;
	}
	out = open(c->cmd, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (out < 0) {
		fprintf(stderr, "isorun: selftest: create '%s': %s\n", c->cmd, strerror(errno));
		return -1;
	}
	while ((n = copy_file_range(in, NULL, out, NULL, 1 << 20, 0)) > 0)
		;
	if (n < 0) {
		fprintf(stderr, "isorun: selftest: copy '%s' to '%s': %s\n", c->self, c->cmd,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* The private directory: $TMPDIR (else /tmp)/isorun-selftest.XXXXXX, 0700. */
static int setup(struct st_ctx *c)
{
	static const char *const subs[] = { "root", "bin", "mnt" };
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX + 16], *resolved;

	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	c->self = realpath("/proc/self/exe", NULL);
	if (!c->self) {
		fprintf(stderr, "isorun: selftest: resolve '/proc/self/exe': %s\n",
			strerror(errno));
		return -1;
	}
	if ((size_t)snprintf(c->dir, sizeof(c->dir), "%s/isorun-selftest.XXXXXX", tmp) >=
	    sizeof(c->dir) - 64) {
		fprintf(stderr, "isorun: selftest: TMPDIR '%s': path too long\n", tmp);
		c->dir[0] = '\0';
		return -1;
	}
	if (!mkdtemp(c->dir)) {
		fprintf(stderr, "isorun: selftest: create a private directory in '%s': %s\n", tmp,
			strerror(errno));
		c->dir[0] = '\0';
		return -1;
	}
	/* isorun names trees by their resolved path: so must the controls */
	resolved = realpath(c->dir, NULL);
	if (!resolved || strlen(resolved) >= sizeof(c->dir) - 64) {
		fprintf(stderr, "isorun: selftest: resolve '%s': %s\n", c->dir,
			strerror(resolved ? ENAMETOOLONG : errno));
		free(resolved);
		return -1;
	}
	snprintf(c->dir, sizeof(c->dir), "%s", resolved);
	free(resolved);
	for (size_t i = 0; i < ELEMENTSOF(subs); i++) {
		snprintf(path, sizeof(path), "%s/%s", c->dir, subs[i]);
		if (mkdir(path, 0700) < 0) {
			fprintf(stderr, "isorun: selftest: create '%s': %s\n", path,
				strerror(errno));
			return -1;
		}
	}
	snprintf(c->root, sizeof(c->root), "%s/root", c->dir);
	snprintf(c->user_root, sizeof(c->user_root), "%s/isorun-%u", c->root, (unsigned)getuid());
	return write_stand_in(c) < 0 ? -1 : command_binary(c);
}

/* Removes the private directory; false with the reason in err when it stays. */
static bool cleanup(const struct st_ctx *c, char *err, size_t len)
{
	_cleanup_free_ char *parent = NULL;
	struct iso_err e = { 0 };
	const char *base;
	int fd;

	if (!c->dir[0])
		return true;
	parent = strdup(c->dir);
	if (!parent) {
		snprintf(err, len, "out of memory");
		return false;
	}
	*strrchr(parent, '/') = '\0';
	base = strrchr(c->dir, '/') + 1;
	fd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, len, "open '%s': %s", parent, strerror(errno));
		return false;
	}
	if (tree_rmtree(fd, base, c->dir, NULL, &e) < 0) {
		iso_err_format(&e, err, len);
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

static void run_controls(struct st_ctx *c)
{
	static void (*const fns[ST_SC_COUNT])(struct st_ctx *, struct st_control *) = {
		[ST_SC_CLEAN] = st_control_clean,     [ST_SC_DAEMON] = st_control_daemon,
		[ST_SC_HOLDER] = st_control_holder,   [ST_SC_HOME] = st_control_home,
		[ST_SC_SERVICE] = st_control_service, [ST_SC_DENYLIST] = st_control_denylist,
		[ST_SC_SIGNALS] = st_control_signals, [ST_SC_NET] = st_control_net,
		[ST_SC_PIDS] = st_control_pids,	      [ST_SC_MEMORY] = st_control_memory,
	};

	for (int i = 0; i < ST_SC_COUNT; i++) {
		struct st_control *ctl = &c->controls[i];

		ctl->exit_code = -1;
		ctl->result = ST_NOT_RUN;
		if (cancelled) {
			snprintf(ctl->detail, sizeof(ctl->detail), "cancelled before it ran");
		} else {
			fns[i](c, ctl);
			st_sweep(ctl);
			if (cancelled) {
				char was[sizeof(ctl->detail)];

				/* a cancelled run proves nothing either way */
				snprintf(was, sizeof(was), "%s", ctl->detail);
				st_result(ctl, ST_NOT_RUN, "cancelled while it ran: %s", was);
			}
		}
		st_print_control(c, i);
	}
}

int st_selftest(bool json, struct st_fwd *fwd, const char *const *says)
{
	struct st_ctx *c;
	char clean_err[512] = "";
	bool cleaned;
	int code;

	c = calloc(1, sizeof(*c));
	if (!c) {
		fprintf(stderr, "isorun: selftest: out of memory\n");
		st_fwd_free(fwd);
		return ST_EXIT_USAGE;
	}
	c->json = json;
	c->says = says;
	c->fwd = *fwd;
	*fwd = (struct st_fwd){ 0 };
	handle_signals();
	/* whatever a broken guard lets escape comes back to us, to be named and killed */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		fprintf(stderr,
			"isorun: selftest: PR_SET_CHILD_SUBREAPER: %s (escapees of a "
			"control go unnoticed)\n",
			strerror(errno));
	if (setup(c) < 0) {
		cleanup(c, clean_err, sizeof(clean_err));
		free(c->self);
		st_fwd_free(&c->fwd);
		free(c);
		return ST_EXIT_USAGE;
	}
	if (!c->json) {
		printf("isorun selftest %s: uid %u, %s\n", ISO_VERSION, (unsigned)getuid(),
		       c->self);
		fflush(stdout);
	}
	st_probe_all(c, st_print_probe);
	run_controls(c);
	cleaned = cleanup(c, clean_err, sizeof(clean_err));
	code = st_print_verdict(c, cleaned, cleaned ? NULL : clean_err, (int)cancelled);
	free(c->self);
	st_fwd_free(&c->fwd);
	free(c);
	return code;
}
