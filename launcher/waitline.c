// SPDX-License-Identifier: MIT
/*
 * The line said when the settle begins (launcher/waitline.h).  The run's
 * processes are found from the gate's root down through each task's children
 * file: a read per process of the run, none per process of the host.
 */
#include "launcher/waitline.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/cleanup.h"
#include "common/num.h"
#include "common/proc.h"
#include "common/text.h"

struct walk {
	pid_t q[SUP_STILL_MAX];
	size_t n;
	bool cut;
};

/* The children every thread of pid made, onto the walk's queue. */
static int push_children(struct walk *w, pid_t pid)
{
	char dir[64], name[96], buf[16384];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/task", pid);
	d = opendir(dir); /* glibc opens it O_CLOEXEC */
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const char *p = buf;
		ssize_t n;
		int v;

		if (de->d_name[0] == '.')
			continue;
		snprintf(name, sizeof(name), "task/%.20s/children", de->d_name);
		n = iso_proc_read(pid, name, buf, sizeof(buf));
		if (n < 0)
			continue; /* the thread ended */
		if ((size_t)n == sizeof(buf) - 1)
			w->cut = true;
		while ((v = iso_next_pid(&p)) > 0) {
			if (w->n == ELEMENTSOF(w->q)) {
				w->cut = true;
				break;
			}
			w->q[w->n++] = v;
		}
	}
	closedir(d);
	return 0;
}

/* One process of the run: counted, and named while there is room, unless it is done. */
static void note(struct sup_still *st, pid_t pid)
{
	struct iso_proc p;
	char comm[sizeof(st->comm[0])];
	ssize_t n;

	if (iso_proc_stat(pid, &p) < 0 || p.state == 'Z' || p.state == 'X')
		return;
	if (st->n < SUP_STILL_NAMED) {
		n = iso_proc_read(pid, "comm", comm, sizeof(comm));
		if (n > 0 && comm[n - 1] == '\n')
			comm[n - 1] = '\0';
		st->pid[st->n] = pid;
		memcpy(st->comm[st->n], n > 0 ? comm : "?", n > 0 ? sizeof(comm) : 2);
	}
	st->n++;
}

int sup_still_running(pid_t root, struct sup_still *ret)
{
	_cleanup_free_ struct walk *w = calloc(1, sizeof(*w));
	int r;

	*ret = (struct sup_still){ 0 };
	if (!w)
		return -ENOMEM;
	r = push_children(w, root);
	if (r < 0)
		return r;
	for (size_t i = 0; i < w->n; i++) {
		note(ret, w->q[i]);
		(void)push_children(w, w->q[i]);
	}
	ret->more = w->cut;
	return 0;
}

void sup_still_line(FILE *f, const struct sup_still *st, const struct sup_still_wait *w)
{
	char dur[32];

	if (!st->n)
		return;
	fprintf(f, "isorun: command %s; %s%zu process%s still running (", w->how,
		st->more ? "more than " : "", st->n, st->n == 1 && !st->more ? "" : "es");
	for (size_t i = 0; i < st->n && i < SUP_STILL_NAMED; i++) {
		/* the name is the process's own choice (prctl, exec of any file name) */
		_cleanup_free_ char *comm = iso_escape(st->comm[i]);

		fprintf(f, "%spid %d `%s`", i ? ", " : "", st->pid[i], comm ? comm : "?");
	}
	fprintf(f, "%s); waiting up to %s (%s)%s\n", st->n > SUP_STILL_NAMED ? ", ..." : "",
		iso_format_duration(w->wait_ms, dur, sizeof(dur)), w->words,
		w->ctrl_c ? "; Ctrl-C stops them now" : "");
}
