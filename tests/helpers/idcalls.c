// SPDX-License-Identifier: MIT
/*
 * idcalls CALL ARG...: one change of identity or owner by the raw system call,
 * and its answer on stdout: "ok", the errno's name (EPERM, EINVAL), or for
 * setfsuid/setfsgid the id they return.  An id is a number or -1; "-1L" passes
 * -1 sign-extended to 64 bits, as Go's syscall package does.
 *   setuid ID | setgid ID | setreuid R E | setregid R E | setresuid R E S |
 *   setresgid R E S | setfsuid ID | setfsgid ID |
 *   chown PATH U G | lchown PATH U G | fchown PATH U G | fchownat PATH U G
 */
#define PROG  "idcalls"
#define USAGE "idcalls CALL ARG... (see the source)"
#include "common.h"

#include <sys/syscall.h>

/* An id as the register carries it: 32 bits, or -1 over all 64 ("-1L"). */
static long id_arg(const char *s)
{
	char *end;
	long v;

	if (!strcmp(s, "-1L"))
		return -1L;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < -1 || v > 0xffffffffL)
		usage();
	return (long)(unsigned int)v;
}

static long ids(int argc, char **argv, int from, int n, long nr)
{
	long a[3] = { 0 };

	if (argc != from + n)
		usage();
	for (int i = 0; i < n; i++)
		a[i] = id_arg(argv[from + i]);
	return syscall(nr, a[0], a[1], a[2]);
}

static long owner(int argc, char **argv, const char *call)
{
	long u, g, r;
	int fd;

	if (argc != 5)
		usage();
	u = id_arg(argv[3]);
	g = id_arg(argv[4]);
	if (!strcmp(call, "chown"))
		return syscall(SYS_chown, argv[2], u, g);
	if (!strcmp(call, "lchown"))
		return syscall(SYS_lchown, argv[2], u, g);
	if (!strcmp(call, "fchownat"))
		return syscall(SYS_fchownat, AT_FDCWD, argv[2], u, g, 0L);
	fd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		perror(PROG ": open");
		exit(1);
	}
	r = syscall(SYS_fchown, fd, u, g);
	close(fd);
	return r;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		long nr;
		int n;
	} calls[] = {
		{ "setuid", SYS_setuid, 1 },	   { "setgid", SYS_setgid, 1 },
		{ "setreuid", SYS_setreuid, 2 },   { "setregid", SYS_setregid, 2 },
		{ "setresuid", SYS_setresuid, 3 }, { "setresgid", SYS_setresgid, 3 },
		{ "setfsuid", SYS_setfsuid, 1 },   { "setfsgid", SYS_setfsgid, 1 },
	};
	long r = -2;

	if (argc < 3)
		usage();
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(argv[1], calls[i].name)) {
			r = ids(argc, argv, 2, calls[i].n, calls[i].nr);
			if (!strncmp(argv[1], "setfs", 5)) {
				printf("%ld\n", r);
				fflush(stdout);
				_exit(0);
			}
		}
	if (r == -2) {
		if (strcmp(argv[1], "chown") && strcmp(argv[1], "lchown") &&
		    strcmp(argv[1], "fchown") && strcmp(argv[1], "fchownat"))
			usage();
		r = owner(argc, argv, argv[1]);
	}
	if (r < 0)
		printf("%s\n", strerrorname_np(errno));
	else
		printf("ok\n");
	/* no exit handlers: LeakSanitizer's cannot read this process once its ids changed */
	fflush(stdout);
	_exit(0);
}
