// SPDX-License-Identifier: MIT
#include "launcher/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Per wakeup, so one busy stream cannot starve the other or the signals. */
#define PUMP_BUDGET (1u << 20)

/*
 * A pipe we write to (`isorun ... | cat`) as large as the command's: each splice
 * then moves a whole buffer instead of the 64 KiB a default pipe takes, and the
 * reader wakes once per buffer.  Only ever grown, never shrunk; past the
 * per-user pipe limits the kernel refuses and the pipe stays as it was.
 */
static void grow_output(struct sup_stream *s)
{
	struct stat st;
	int sz;

	if (fstat(s->out, &st) < 0 || !S_ISFIFO(st.st_mode))
		return;
	sz = fcntl(s->out, F_GETPIPE_SZ);
	if (sz > 0 && (size_t)sz < s->chunk)
		(void)fcntl(s->out, F_SETPIPE_SZ, (int)s->chunk);
}

int sup_stream_open(struct sup_stream *s, const char *name, int out, bool capture)
{
	int p[2], sz;
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->out = out;
	s->capture = capture;
	s->use_splice = !capture;
	s->use_tee = capture;
	s->rd = s->wr = -1;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	s->rd = p[0];
	s->wr = p[1];
	/* room for bursts while isorun is busy elsewhere; the cap is the kernel's business */
	(void)fcntl(s->wr, F_SETPIPE_SZ, 1 << 20);
	/* a splice asks for the whole pipe: one call per wakeup when the output has room */
	sz = fcntl(s->wr, F_GETPIPE_SZ);
	s->chunk = sz > 0 ? (size_t)sz : 1 << 16;
	if (fcntl(s->rd, F_SETFL, O_NONBLOCK) < 0)
		return -errno;
	if (fstat(s->rd, &st) == 0)
		s->ino = st.st_ino;
	grow_output(s);
	return 0;
}

/* Whether fds a and b are one open file description (`>log 2>&1`, `1>&2`). */
static bool same_description(int a, int b)
{
	pid_t self = getpid();
	long k = syscall(SYS_kcmp, self, self, KCMP_FILE, a, b);
	int fa, fb;

	if (k >= 0)
		return k == 0;
	/*
	 * No kcmp (CONFIG_KCMP off, a seccomp profile refusing it): one description
	 * shows the same status flags and offset through both fds.  Two opens at the
	 * same offset look alike too; merging them writes the output in order through
	 * fd 1, where the bare command's two offsets would overwrite each other.
	 */
	fa = fcntl(a, F_GETFL);
	fb = fcntl(b, F_GETFL);
	return fa >= 0 && fa == fb && lseek(a, 0, SEEK_CUR) == lseek(b, 0, SEEK_CUR);
}

bool sup_outputs_shared(int a, int b)
{
	struct stat sa, sb;
	int fa, fb;

	if (fstat(a, &sa) < 0 || fstat(b, &sb) < 0)
		return false;
	if (sa.st_dev != sb.st_dev || sa.st_ino != sb.st_ino)
		return false;
	/* /dev/null keeps no order to lose, and the report keeps both tails apart */
	if (S_ISCHR(sa.st_mode) && sa.st_rdev == makedev(1, 3))
		return false;
	/* one pipe (however often opened) or one socket is one ordered buffer */
	if (S_ISFIFO(sa.st_mode) || S_ISSOCK(sa.st_mode))
		return true;
	if (same_description(a, b))
		return true;
	/* two opens of one file that both append: every write lands at the end, in order */
	fa = fcntl(a, F_GETFL);
	fb = fcntl(b, F_GETFL);
	return S_ISREG(sa.st_mode) && fa >= 0 && fb >= 0 && (fa & fb & O_APPEND);
}

static void keep_tail(struct sup_stream *s, const char *buf, size_t n)
{
	if (n >= SUP_TAIL_MAX) {
		memcpy(s->tail, buf + n - SUP_TAIL_MAX, SUP_TAIL_MAX);
		s->tail_head = 0;
		s->tail_len = SUP_TAIL_MAX;
		return;
	}
	for (size_t i = 0; i < n; i++) {
		s->tail[(s->tail_head + s->tail_len) % SUP_TAIL_MAX] = buf[i];
		if (s->tail_len < SUP_TAIL_MAX)
			s->tail_len++;
		else
			s->tail_head = (s->tail_head + 1) % SUP_TAIL_MAX;
	}
}

size_t sup_stream_tail(const struct sup_stream *s, char *buf)
{
	for (size_t i = 0; i < s->tail_len; i++)
		buf[i] = s->tail[(s->tail_head + i) % SUP_TAIL_MAX];
	buf[s->tail_len] = '\0';
	return s->tail_len;
}

/*
 * A whole write, waiting when our own output is a non-blocking file description.
 * Returns the bytes not written: 0, or what was left when a write failed (errno).
 */
static size_t write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd p = { .fd = fd, .events = POLLOUT };
				(void)poll(&p, 1, -1);
				continue;
			}
			return n;
		}
		buf += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Past a failed write the rest is read and dropped, so the command never blocks on it. */
static void relay_out(struct sup_stream *s, const char *buf, size_t n)
{
	size_t left;

	if (s->out_broken) {
		s->lost += n;
		return;
	}
	left = write_all(s->out, buf, n);
	if (left) {
		s->out_broken = true;
		s->out_err = errno;
		s->lost += left;
	}
}

/*
 * Wait until our own output takes bytes again: only where no event loop watches
 * it (a regular file, the drain at the end).  A slow reader slows the command,
 * as a direct pipe would.
 */
static void wait_writable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
}

/*
 * The output is full.  Returns true when it has room again (the pump waited,
 * because nobody else watches the output), false when the caller will say so.
 */
static bool output_full(struct sup_stream *s)
{
	s->fulls++;
	if (s->out_watched) {
		s->out_full = true;
		return false;
	}
	wait_writable(s->out);
	return true;
}

/*
 * A non-blocking splice or tee found nothing to move: an empty input or a full
 * output.  The input's count tells them apart only for the next try, since bytes
 * may have arrived after the call failed; so the call is made once more with
 * input known to be there (only isorun reads that pipe), and failing again, the
 * output is full.  Taking an empty input for a full output would wait for room
 * that never comes.  Returns true to try again, false to stop (the input is
 * empty, or the output full and out_full set).
 */
static bool retry_after_eagain(struct sup_stream *s, bool *input_seen)
{
	int avail = 0;

	if (*input_seen) {
		*input_seen = false;
		return output_full(s);
	}
	if (ioctl(s->rd, FIONREAD, &avail) < 0 || avail == 0)
		return false;
	*input_seen = true;
	return true;
}

/*
 * One splice to our output, or with `keep` a tee (the bytes stay in the
 * command's pipe, to be read for the tail), without waiting: our output's
 * description is the caller's and stays blocking, SPLICE_F_NONBLOCK is per
 * call.  Returns the bytes that went out; 0 when nothing moves now (the input
 * is empty, at its end: s->eof, or the output full: s->out_full); -errno when
 * the output refuses (EPIPE; EINVAL: no pipe for tee, an O_APPEND file or a
 * terminal for splice).
 */
static ssize_t move_some(struct sup_stream *s, bool keep, size_t len)
{
	bool seen = false;

	for (;;) {
		ssize_t n = keep ? tee(s->rd, s->out, len, SPLICE_F_NONBLOCK)
				 : splice(s->rd, NULL, s->out, NULL, len,
					  SPLICE_F_MOVE | SPLICE_F_NONBLOCK);

		if (n >= 0) {
			s->eof = n == 0;
			return n;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		if (!retry_after_eagain(s, &seen))
			return 0;
	}
}

/*
 * A captured stream into a pipe: tee the bytes out, then read exactly what went
 * out, for the tail.  Returns the bytes to read: what went out, 0 when nothing
 * is to be read now (*r set), or the whole buffer when the output is lost or
 * not a pipe.
 */
static size_t tee_some(struct sup_stream *s, size_t len, int *r)
{
	ssize_t n = move_some(s, true, len);

	*r = 0;
	if (n > 0)
		return (size_t)n;
	if (n == 0) {
		*r = s->eof ? 0 : -EAGAIN;
		return 0;
	}
	if (n == -EPIPE) {
		/* our reader left: read and drop the rest, as a plain write would find */
		s->out_broken = true;
		s->out_err = EPIPE;
	}
	s->use_tee = false;
	return len;
}

static int copy_some(struct sup_stream *s, size_t *moved)
{
	char buf[65536];
	size_t want = sizeof(buf);
	bool teed = s->use_tee && !s->out_broken;
	ssize_t n;
	int r = 0;

	if (teed) {
		want = tee_some(s, sizeof(buf), &r);
		if (!want)
			return r;
		teed = s->use_tee;
	}
	n = read(s->rd, buf, want);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0) {
		s->eof = true;
		return 0;
	}
	s->bytes += (uint64_t)n;
	*moved += (size_t)n;
	if (s->capture)
		keep_tail(s, buf, (size_t)n);
	if (!teed)
		relay_out(s, buf, (size_t)n);
	return 0;
}

/*
 * Splice what the command's pipe holds to our output: page references move,
 * no byte is copied.  One call moves a whole pipe's worth when the output has
 * room.  Returns 1 when bytes moved, 0 when nothing moves now (see move_some()), -1
 * when splicing does not work here (then copy).
 */
static int splice_some(struct sup_stream *s, size_t *moved)
{
	ssize_t n = move_some(s, false, s->chunk);

	if (n < 0)
		return -1;
	s->bytes += (uint64_t)n;
	*moved += (size_t)n;
	return n > 0;
}

int sup_stream_pump(struct sup_stream *s)
{
	size_t moved = 0;
	int r = 0;

	s->more = false;
	while (!s->eof && !s->out_full) {
		if (moved >= PUMP_BUDGET) {
			s->more = true;
			break;
		}
		if (s->use_splice && !s->out_broken) {
			r = splice_some(s, &moved);
			if (r == 0)
				break;
			if (r > 0)
				continue;
			s->use_splice = false;
		}
		r = copy_some(s, &moved);
		if (r == -EAGAIN) {
			r = 0;
			break;
		}
		if (r < 0)
			break;
	}
	return r;
}

int sup_stream_drain(struct sup_stream *s)
{
	bool watched = s->out_watched;
	int r, rounds = 0;

	/*
	 * No loop waits for room any more: the pump waits itself.  A pipe holds at
	 * most a budget's worth; a few rounds more, and a writer that outlived the
	 * run cannot keep the drain going.
	 */
	s->out_watched = false;
	s->out_full = false;
	do
		r = sup_stream_pump(s);
	while (r == 0 && s->more && ++rounds < 4);
	s->out_watched = watched;
	return r;
}

void sup_stream_close(struct sup_stream *s)
{
	if (s->rd >= 0)
		close(s->rd);
	if (s->wr >= 0)
		close(s->wr);
	s->rd = s->wr = -1;
}
