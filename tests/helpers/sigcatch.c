// SPDX-License-Identifier: MIT
/*
 * sigcatch DIR
 *
 * Blocks every signal it can (real-time 32 and 33 too, through the raw call)
 * and reads them from a signalfd; creates DIR/ready once they are blocked,
 * then waits for one signal, writes its number to DIR/got atomically
 * (DIR/got.tmp + rename) and exits 0.  A test sends a signal to isorun and
 * learns from DIR/got what reached the command, if anything.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>

#define PROG  "sigcatch"
#define USAGE PROG " DIR"
#include "common.h"

static void write_file(const char *dir, const char *name, const char *text)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(tmp, "we");
	if (!f || fputs(text, f) == EOF || fclose(f) == EOF || rename(tmp, path) < 0) {
		fprintf(stderr, PROG ": write '%s': %s\n", path, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	unsigned long mask = ~0UL & ~(1UL << (SIGKILL - 1)) & ~(1UL << (SIGSTOP - 1));
	struct signalfd_siginfo si;
	char num[16];
	int fd;

	if (argc != 2)
		usage();
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &mask, NULL, sizeof(mask)) < 0 ||
	    (fd = (int)syscall(SYS_signalfd4, -1, &mask, sizeof(mask), SFD_CLOEXEC)) < 0) {
		fprintf(stderr, PROG ": block signals: %s\n", strerror(errno));
		return 1;
	}
	write_file(argv[1], "ready", "");
	if (read(fd, &si, sizeof(si)) != (ssize_t)sizeof(si)) {
		fprintf(stderr, PROG ": read the signalfd: %s\n", strerror(errno));
		return 1;
	}
	snprintf(num, sizeof(num), "%u\n", si.ssi_signo);
	write_file(argv[1], "got", num);
	return 0;
}
