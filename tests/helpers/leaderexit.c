// SPDX-License-Identifier: MIT
/*
 * leaderexit PIDFILE [SECONDS]
 *
 * A process whose main thread has exited while another thread runs on: to
 * /proc its thread-group leader is a zombie (`Z`), yet the process is alive.
 * It forks and the parent exits, so it outlives whoever started it; the child
 * calls setsid(), starts a second thread and calls pthread_exit() in the main
 * thread.  The second thread joins the main one (so the leader really is gone),
 * then writes the process's pid to PIDFILE atomically (PIDFILE.tmp + rename)
 * and sleeps SECONDS (default 300) before it exits, which ends the process.
 */
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define PROG  "leaderexit"
#define USAGE PROG " PIDFILE [SECONDS]"
#include "common.h"

struct job {
	pthread_t main;
	const char *pidfile;
	unsigned long seconds;
};

static void *survivor(void *arg)
{
	const struct job *j = arg;
	struct timespec ts = { .tv_sec = (time_t)j->seconds };
	int r = pthread_join(j->main, NULL);

	if (r)
		die_errnum(r, "join the main thread", NULL);
	write_pidfile(AT_FDCWD, j->pidfile, die);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	exit(0);
}

int main(int argc, char **argv)
{
	static struct job j;
	pthread_t t;
	pid_t pid;
	int r;

	if (argc < 2 || argc > 3)
		usage();
	j.pidfile = argv[1];
	j.seconds = argc == 3 ? parse_ulong(argv[2], 1, 86400) : 300;
	pid = fork();
	if (pid < 0)
		die("fork", NULL);
	if (pid > 0)
		return 0;
	if (setsid() < 0)
		die("setsid", NULL);
	j.main = pthread_self();
	r = pthread_create(&t, NULL, survivor, &j);
	if (r)
		die_errnum(r, "pthread_create", NULL);
	pthread_exit(NULL);
}
