// SPDX-License-Identifier: MIT
/*
 * The signals control: the policy's contain-signals.  The selftest itself keeps
 * a child outside the run with SIGUSR1 blocked; the command sends it SIGUSR1
 * with kill(), and also SIGTERM to a child of its own.  Afterwards the outside
 * child's pending set says whether the signal got out.  --policy=off or
 * --policy-mode=log turns it red; under --pidns the outside child is not even
 * visible (ESRCH), which contains the signal as well.  Where the kernel has
 * Landlock's signal scope (Linux 6.12) the kernel refuses it with EPERM and
 * there is no finding (policy/scope.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/proc.h"
#include "selftest/selftest.h"

/* --internal-signal PID: SIGTERM to a child of its own, SIGUSR1 to PID; what happened. */
int st_mode_signal(char **args)
{
	int status;
	char *end;
	long target;
	pid_t child;

	if (!args[0])
		return 2;
	target = strtol(args[0], &end, 10);
	if (*end || target <= 1)
		return 2;
	fflush(stdout);
	child = fork();
	if (child < 0) {
		printf("inside: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		for (;;)
			pause();
	}
	if (kill(child, SIGTERM) < 0)
		printf("inside: %s\n", strerrorname_np(errno));
	else if (waitpid(child, &status, 0) == child && WIFSIGNALED(status) &&
		 WTERMSIG(status) == SIGTERM)
		printf("inside: delivered\n");
	else
		printf("inside: not delivered\n");
	if (kill((pid_t)target, SIGUSR1) < 0)
		printf("outside: %s\n", strerrorname_np(errno));
	else
		printf("outside: sent\n");
	return 0;
}

/* A child outside the run with SIGUSR1 blocked: it stays pending there. */
static pid_t start_outside(int *ready_fd)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		sigset_t s;

		sigemptyset(&s);
		sigaddset(&s, SIGUSR1);
		sigprocmask(SIG_BLOCK, &s, NULL);
		close(p[0]);
		(void)!write(p[1], "r", 1);
		for (;;)
			pause();
	}
	close(p[1]);
	*ready_fd = p[0];
	return pid;
}

/* SIGUSR1 pending in pid (the process's shared set or its thread's). */
static bool usr1_pending(pid_t pid)
{
	const char *fields[] = { "ShdPnd", "SigPnd" };

	for (size_t i = 0; i < 2; i++) {
		char buf[64];

		if (iso_proc_status(pid, fields[i], buf, sizeof(buf)) == 0 &&
		    strtoull(buf, NULL, 16) & (1ULL << (SIGUSR1 - 1)))
			return true;
	}
	return false;
}

static void judge(struct st_control *ctl, const struct st_run *r, bool got, pid_t pid,
		  const char *desc)
{
	char line[1024];
	bool inside = strstr(r->out, "inside: delivered\n");
	bool refused =
		st_err_line(r, line, sizeof(line), "isorun: refused: kill `SIGUSR1 to pid", NULL);

	if (got)
		st_result(ctl, ST_NOT_OK,
			  "a SIGUSR1 from inside the run reached pid %d outside it: %s", (int)pid,
			  desc);
	else if (!inside)
		st_result(ctl, ST_NOT_OK, "a SIGTERM to the run's own child did not arrive: %s",
			  desc);
	else if (strstr(r->out, "outside: ESRCH\n"))
		st_result(ctl, ST_OK,
			  "the process outside is not visible in the run's PID namespace (ESRCH); "
			  "a signal to the run's own child went through");
	else if (strstr(r->out, "outside: EPERM\n") && !refused && r->code == 0)
		/* the kernel's Landlock scope refused it: no round trip, so no finding */
		st_result(ctl, ST_OK,
			  "the kernel refused it (EPERM, Landlock's signal scope); "
			  "a signal to the run's own child went through");
	else if (!strstr(r->out, "outside: EPERM\n") || !refused)
		st_result(ctl, ST_NOT_OK, "the signal was not refused as a policy finding: %s",
			  desc);
	else if (r->code != 122)
		st_result(ctl, ST_NOT_OK, "the refusal did not fail the run with 122: %s", desc);
	else
		st_result(ctl, ST_OK, "exit 122; %s; a signal to the run's own child went through",
			  line);
}

void st_control_signals(struct st_ctx *c, struct st_control *ctl)
{
	const struct st_probe *np = &c->probes[ST_SP_NOTIFY];
	char pid_s[16], desc[600];
	const char *mode[3] = { ST_INTERNAL "signal", pid_s, NULL };
	int ready = -1, status;
	struct st_run r;
	pid_t pid;
	char b;

	if (!(c->fwd.policy && !strcmp(c->fwd.policy, "off")) && !c->fwd.pidns &&
	    np->verdict != ST_YES) {
		st_result(ctl, ST_NOT_MEASURABLE, "seccomp user notification: %s", np->reason);
		return;
	}
	pid = start_outside(&ready);
	if (pid < 0 || read(ready, &b, 1) != 1) {
		st_result(ctl, ST_NOT_MEASURABLE, "could not start a process outside the run: %s",
			  strerror(errno));
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		if (ready >= 0)
			close(ready);
		return;
	}
	close(ready);
	snprintf(pid_s, sizeof(pid_s), "%d", (int)pid);
	st_run_init(&r, c, NULL, mode);
	if (st_run_control(&r, ctl, desc, sizeof(desc)) == 0)
		judge(ctl, &r, usr1_pending(pid), pid, desc);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	st_check_trees(c, ctl, NULL);
}
