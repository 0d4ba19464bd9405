/* SPDX-License-Identifier: MIT */
#ifndef ISO_RELAY_H
#define ISO_RELAY_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SUP_TAIL_MAX 4096

/*
 * One of the command's output streams: the command writes into a pipe, isorun
 * moves the bytes to its own fd in order.  Keeps the last SUP_TAIL_MAX bytes when
 * `capture` is set (then tee'd to a pipe and read, or copied; otherwise spliced
 * where the kernel can).
 */
struct sup_stream {
	const char *name; /* "stdout" */
	int rd;		  /* read end, O_NONBLOCK; -1 when not relayed (a terminal) */
	int wr;		  /* write end until handed to the command */
	int out;	  /* isorun's own fd */
	ino_t ino;	  /* the pipe, to find who still holds it */
	bool eof;
	bool capture;
	bool use_splice;
	bool use_tee;	  /* captured and the output is a pipe: tee, then read what went out */
	bool out_watched; /* the caller waits for room (EPOLLOUT) in its loop; else the pump does */
	bool out_full;	  /* the output took nothing: pump again once it has room */
	bool more;	  /* the budget ran out with input left: pump again soon */
	uint64_t fulls;	  /* how often the output was full */
	size_t chunk;	  /* what one splice asks for: the pipe's size */
	bool out_broken;  /* a write failed; keep draining so the command never blocks */
	int out_err;	  /* that write's errno: EPIPE, our reader left; else output was lost */
	uint64_t lost;	  /* bytes read from the command but never written */
	uint64_t bytes;
	char tail[SUP_TAIL_MAX];
	size_t tail_len, tail_head;
};

/*
 * Whether writes to fds a and b land in one ordered stream: one open file
 * description, one pipe or socket, or one regular file both append to.  The
 * command then gets one pipe for both, so the order is the order it wrote.
 * /dev/null is never shared: it keeps no order.
 */
bool sup_outputs_shared(int a, int b);

int sup_stream_open(struct sup_stream *s, const char *name, int out, bool capture);
/*
 * Move what is there now, up to a budget, never waiting on our output when the
 * caller watches it (out_watched): a full output sets out_full and ends the pump,
 * so a reader that stopped reading cannot stop the supervisor.  Sets s->eof at
 * end of stream, s->more when input is left.  Returns 0 or -errno.
 */
int sup_stream_pump(struct sup_stream *s);
/* The end of a run: everything in the pipe now goes out, waiting for room as a writer would. */
int sup_stream_drain(struct sup_stream *s);
/* The tail in order, into buf (SUP_TAIL_MAX + 1); returns its length. */
size_t sup_stream_tail(const struct sup_stream *s, char *buf);
void sup_stream_close(struct sup_stream *s);
/* The command's output did not all arrive, for a reason other than a reader that left. */
static inline bool sup_stream_lost(const struct sup_stream *s)
{
	return s && s->out_broken && s->out_err != EPIPE;
}

#endif
