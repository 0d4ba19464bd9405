// SPDX-License-Identifier: MIT
/*
 * spew BYTES [STREAM]
 *
 * Writes exactly BYTES bytes to stdout (STREAM 1, the default) or stderr
 * (STREAM 2) and exits 0.  BYTES is a decimal number with an optional suffix
 * k (x1024) or M (x1048576).  Short writes, EINTR and a non-blocking output
 * (EAGAIN: poll() for POLLOUT) are handled; a write error exits 1 (SIGPIPE
 * keeps its default action).  STREAM 12 alternates, one write(2) per line:
 * the even lines go to stdout, the odd ones to stderr, so where both are one
 * file the order of the lines in it is the order of the writes.
 *
 * The stream is a sequence of 64-byte lines, each numbered so that a lost,
 * duplicated or reordered chunk of any size shows:
 *
 *	0123456789abcdef0123456789abcdef0123456789abcdef012345 00000000\n
 *	0123456789abcdef0123456789abcdef0123456789abcdef012345 00000001\n
 *	...
 *
 * (the number is the line index in 8 lowercase hex digits, wrapping after
 * 2^32 lines), cut after BYTES bytes, so the last line may be partial.  To get
 * the expected output, run spew itself outside the relay and compare.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#define PROG	 "spew"
#define USAGE	 PROG " BYTES[k|M] [1|2|12]"
#define LINE_LEN 64
#define BUF_LEN	 ((size_t)LINE_LEN * 1024)
#include "common.h"

static const char line_head[] = "0123456789abcdef0123456789abcdef0123456789abcdef012345 ";

static uint64_t parse_bytes(const char *s)
{
	uint64_t v = 0, mult = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		usage();
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			usage();
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == 'k')
		mult = 1024, p++;
	else if (*p == 'M')
		mult = 1024ULL * 1024, p++;
	if (*p || v > UINT64_MAX / mult)
		usage();
	return v * mult;
}

static void fill_line(char *dst, uint32_t n)
{
	static const char hex[] = "0123456789abcdef";

	memcpy(dst, line_head, sizeof(line_head) - 1);
	for (int i = 7; i >= 0; i--, n >>= 4)
		dst[sizeof(line_head) - 1 + i] = hex[n & 0xf];
	dst[LINE_LEN - 1] = '\n';
}

/* Line by line, even lines to stdout and odd ones to stderr. */
static void alternate(uint64_t left)
{
	char buf[LINE_LEN];
	uint32_t line = 0;

	while (left > 0) {
		size_t len = left < LINE_LEN ? (size_t)left : LINE_LEN;
		int fd = line % 2 ? STDERR_FILENO : STDOUT_FILENO;

		fill_line(buf, line++);
		if (write_all(fd, buf, len) < 0)
			die("write", fd == STDOUT_FILENO ? "stdout" : "stderr");
		left -= len;
	}
}

int main(int argc, char **argv)
{
	static char buf[BUF_LEN];
	uint64_t left;
	uint32_t line = 0;
	int fd = STDOUT_FILENO;

	_Static_assert(sizeof(line_head) - 1 + 8 + 1 == LINE_LEN, "line layout");

	if (argc < 2 || argc > 3)
		usage();
	left = parse_bytes(argv[1]);
	if (argc == 3) {
		if (!strcmp(argv[2], "2"))
			fd = STDERR_FILENO;
		else if (!strcmp(argv[2], "12"))
			fd = -1;
		else if (strcmp(argv[2], "1") != 0)
			usage();
	}
	if (fd < 0) {
		alternate(left);
		return 0;
	}

	while (left > 0) {
		size_t len = left < BUF_LEN ? (size_t)left : BUF_LEN;

		for (size_t off = 0; off < len; off += LINE_LEN)
			fill_line(buf + off, line++);
		/* write_all() waits out a non-blocking stdout (EAGAIN) with poll(). */
		if (write_all(fd, buf, len) < 0)
			die("write", fd == STDOUT_FILENO ? "stdout" : "stderr");
		left -= len;
	}
	return 0;
}
