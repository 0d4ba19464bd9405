// SPDX-License-Identifier: MIT
/*
 * Teardown: after the join, the tree's shield comes off (as root the kernel then
 * says whether anything holds the tree, tree/shield.h), the holders are named
 * when something may, and the tree is removed, retained with the reason, or
 * kept; a signal that cancels, or the removal's deadline, stops the removal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"
#include "launcher/mapusers.h"
#include "launcher/shell.h"
#include "launcher/sigtable.h"
#include "launcher/say.h"
#include "launcher/sup.h"
#include "launcher/verdict.h"
#include "tree/holders.h"
#include "tree/release.h"
#include "tree/rmtree.h"
#include "tree/treeid.h"

/*
 * Processes outside isorun's user namespace (bwrap --unshare-user, unshare -U,
 * a rootless container that shares the host's PIDs around isorun) cannot be
 * read from inside it, whatever their dumpability.  They are not holders of
 * the tree: it was made during the run, 0700, by isorun inside that
 * namespace.  What was not measured is said (`unseen`), never passed over.
 */
static void note_outside(const struct tree_holder *h, size_t n, char *unseen, size_t len)
{
	char list[300];

	tree_holders_list(h, n, list, sizeof(list));
	snprintf(unseen, len,
		 "holders not measured in %zu process%s outside isorun's user namespace, which "
		 "cannot read %s (%s); not holders of a tree made inside it (isorun run outside "
		 "that namespace measures %s)",
		 n, n > 1 ? "es" : "", n > 1 ? "them" : "it", list, n > 1 ? "them" : "it");
}

/*
 * Inside a toolbox or a devcontainer that shares the host's processes, every
 * run has dozens outside and none of them changes its verdict: one short line
 * says so; -v and the report's tree reason name them.
 */
static void say_outside(const struct sup *s, const char *unseen)
{
	size_t n = s->td.n_outside;

	if (s->o->verbosity > 0)
		fprintf(stderr, "isorun: %s\n", unseen);
	else if (s->o->verbosity == 0)
		fprintf(stderr,
			"isorun: holders not measured in %zu process%s outside isorun's user "
			"namespace, not holders of a tree made inside it (%s or the report names "
			"%s)\n",
			n, n > 1 ? "es" : "", sup_say(s->o->say, SUP_SAY_VERBOSE),
			n > 1 ? "them" : "it");
}

/*
 * Processes of the caller's that could not be read (not dumpable, or in a
 * Landlock domain isorun runs outside of: a nested run) hold nothing that is
 * known.  The scan cannot say; the kernel says after the removal, for every
 * process at once (tree/release.h): the tree goes, and a run whose removed
 * tree is still held fails, with these named.  Not while a relayed pipe is
 * open: its holder may be one of them.
 */
static bool merely_unreadable(const struct tree_holder *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (h[i].pipe_index != TREE_HOLDER_UNREADABLE)
			return false;
	return true;
}

/* The holder scan's query for this tree; `walk` is its buffer. */
static void tree_query(struct sup *s, struct tree_holder_query *q, char *walk, size_t wlen)
{
	q->tree = s->td.proof == TREE_SHIELD_UNUSED ? NULL : s->out->tree_path;
	/* the shield's end proved every namespace but those showing the tree bare */
	if (s->td.proof == TREE_SHIELD_EXPOSED && !s->td.exposed.all) {
		q->only_mntns = s->td.exposed.ns;
		q->n_only_mntns = s->td.exposed.n;
	}
	/* the tree as isorun holds it, not as its path now leads */
	snprintf(walk, wlen, "/proc/self/fd/%d/.", s->tree.fd);
	q->walk = walk;
	q->alias_dev = s->td.shield_dev;
	/* a nested tree's tmpfs is a superblock of its own: its device alone names a holder */
	if (s->td.shield.tmpfs && q->tree) {
		q->gone_dev = s->td.shield.dev;
		q->gone_ino = s->td.shield.ino;
	}
	s->td.n_lookers = 0;
	q->lookers = s->td.lookers;
	q->n_lookers = &s->td.n_lookers;
	q->max_lookers = ELEMENTSOF(s->td.lookers);
}

/* The tree's holders looked for again: the first one named into why, and its pid; 0: none. */
static pid_t rescan(struct sup *s, char *why, size_t len)
{
	struct tree_holder_query q = { .exclude = s->self };
	struct tree_holder *h = NULL;
	struct iso_err e = { 0 };
	char walk[64];
	size_t held;
	int n;

	pid_t named = 0;

	tree_query(s, &q, walk, sizeof(walk));
	n = tree_find_holders(&q, &h, NULL);
	if (n <= 0)
		return 0;
	held = tree_holders_split_outside(h, (size_t)n);
	if (held > 0 && !merely_unreadable(h, held)) {
		const struct tree_holder *first = tree_holder_first(h, held);
		_cleanup_free_ char *cmd = iso_proc_cmdline(first->pid, 80);

		tree_holder_describe(first, held - (size_t)(first - h), cmd, &e);
		iso_err_format(&e, why, len);
		named = first->pid;
	}
	tree_holders_free(h, (size_t)n);
	return named;
}

/*
 * A held shield whose holder the scan did not name: a loop device is one (named
 * from /sys); else the kernel is asked again, a few times, each once the isorun
 * ls and gc the scan saw looking at the tree have ended (their pidfds, a second
 * at most), with a fresh scan between.  Still held: the tree stays, with what
 * could hold it.
 */
#define HELD_ASKS  4
#define LOOKERS_MS 1000

static void wait_lookers(const pid_t *pids, size_t n)
{
	struct pollfd p[ELEMENTSOF(((struct sup_teardown *)0)->lookers)];
	uint64_t end = sup_now_ms() + LOOKERS_MS;
	size_t k = 0;

	for (size_t i = 0; i < n && k < ELEMENTSOF(p); i++) {
		int fd = (int)syscall(SYS_pidfd_open, pids[i], 0);
		if (fd >= 0)
			p[k++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	while (k > 0 && sup_now_ms() < end) {
		if (poll(p, k, (int)(end - sup_now_ms())) < 0 && errno != EINTR)
			break;
		for (size_t i = 0; i < k;)
			if (p[i].revents) {
				close(p[i].fd);
				p[i] = p[--k];
			} else {
				i++;
			}
	}
	while (k > 0)
		close(p[--k].fd);
}

/*
 * The kernel asked through the shield.  A nested tree's tmpfs is the tree
 * (tree/shield.h): the run's own descriptors in it go first, and the tree's
 * descriptor comes back on whatever is at its name afterwards.
 */
static enum tree_shield_proof prove_shield(struct sup *s, dev_t *dev, struct iso_err *e)
{
	struct tree_tree *t = &s->tree;
	struct iso_err again = { 0 };
	enum tree_shield_proof p;

	if (s->td.shield.tmpfs)
		tree_let_go(t);
	p = tree_shield_prove(&(struct tree_shield_at){ t->user_fd, t->user_path, t->id },
			      &s->td.shield, dev, &s->td.exposed, e);
	if (s->td.shield.tmpfs && tree_reopen(t, &again) < 0 && s->o->verbosity >= 0) {
		char buf[400];
		fprintf(stderr, "isorun: %s\n", iso_err_format(&again, buf, sizeof(buf)));
	}
	return p;
}

static bool still_held(struct sup *s, pid_t seen, char *why, size_t len)
{
	struct tree_tree *t = &s->tree;
	struct iso_err e = { 0 };
	char loops[160], named[sizeof(s->out->tree_reason)] = "";
	dev_t dev;

	if (tree_release_loops(s->out->tree_path, loops, sizeof(loops)) > 0) {
		snprintf(why, len,
			 "the kernel says the tree is held: loop device %s is backed by a file in "
			 "it (losetup -d)",
			 loops);
		return true;
	}
	/*
	 * A holder is named once seen at two asks in a row: one seen once may
	 * have been passing (an ls or gc reading the owner record, which it
	 * opens for a moment), and the next ask may go through.
	 */
	for (int i = 0; i < HELD_ASKS && s->td.proof == TREE_SHIELD_HELD && !why[0]; i++) {
		/* the command's own mounts hold the unmount, not the tree (a nested tree may) */
		(void)tree_shield_drop_children(t->path, s->td.shield.dev);
		wait_lookers(s->td.lookers, s->td.n_lookers);
		s->td.proof = prove_shield(s, &dev, &e);
		if (s->td.proof == TREE_SHIELD_HELD && i + 1 < HELD_ASKS) {
			pid_t p = rescan(s, named, sizeof(named));

			if (p && p == seen)
				snprintf(why, len, "%s", named);
			seen = p;
		}
	}
	if (why[0])
		return true;
	if (s->td.proof != TREE_SHIELD_HELD) {
		s->td.shield.up = false; /* this time the unmount went through */
		return false;
	}
	/* held at the last ask: the last one seen is named, or what could hold it */
	if (named[0]) {
		snprintf(why, len, "%s", named);
		return true;
	}
	tree_release_unnamed(s->out->tree_path,
			     "the kernel says the tree is held (its shield's unmount was refused, "
			     "asked again)",
			     &e);
	iso_err_format(&e, why, len);
	return true;
}

/*
 * The overlay over the gate outlived the run's namespace and the scan named
 * nobody: asked again once the ls and gc seen looking at the tree are gone
 * (a second at most).  Still alive: the tree stays, with what could hold it.
 */
static bool gate_still_held(struct sup *s, char *why, size_t len)
{
	struct iso_err e = { 0 };

	wait_lookers(s->td.lookers, s->td.n_lookers);
	if (tree_gate_ended(&s->td.gate, LOOKERS_MS) > 0) {
		s->td.proof = TREE_SHIELD_UNUSED;
		return false;
	}
	tree_release_unnamed(s->out->tree_path,
			     "the kernel says the tree is held (the overlay over its gate lives on "
			     "after the run's namespace ended)",
			     &e);
	iso_err_format(&e, why, len);
	return true;
}

/* The first holder in teardown's words into why; unreadable ones only: td.unread. */
static void name_holder(struct sup *s, const struct tree_holder *h, size_t held,
			const char *const *pipe_names, char *why, size_t len)
{
	const struct tree_holder *first = tree_holder_first(h, held);
	_cleanup_free_ char *cmd = iso_proc_cmdline(first->pid, 80);
	struct iso_err e;

	if (!pipe_names && merely_unreadable(h, held)) {
		tree_holder_describe(h, held, NULL, &e);
		iso_err_format(&e, s->td.unread, sizeof(s->td.unread));
	} else if (first->pipe_index >= 0 && pipe_names) {
		snprintf(why, len, "pipe still open (pid %d `%s` holds %s)", first->pid,
			 cmd ? cmd : "?", pipe_names[first->pipe_index]);
	} else {
		tree_holder_describe(first, held - (size_t)(first - h), cmd, &e);
		iso_err_format(&e, why, len);
	}
}

/* How long a nested tree's tmpfs may take to end once the scan named nobody. */
#define NEST_END_MS 1000

/*
 * A nested tree's files live on with what holds them: no removal afterwards
 * could hear that.  The copies in the command's namespace, gone with it, are
 * put from a workqueue, late on a loaded host: heard for a second more.
 */
static bool nest_lives_on(struct sup *s, char *why, size_t len)
{
	struct iso_err e = { 0 };

	if (!s->td.shield.tmpfs || s->td.proof == TREE_SHIELD_UNUSED ||
	    tree_shield_ended(&s->td.shield, NEST_END_MS))
		return false;
	tree_release_unnamed(
		s->out->tree_path,
		"the kernel says the tree is held (its tmpfs lives on after its "
		"unmount, with its files: a copy in a mount namespace of its own, or a "
		"detached mount)",
		&e);
	iso_err_format(&e, why, len);
	return true;
}

/*
 * Why the tree cannot be removed, or "" when nothing is in the way; `unseen`
 * says which processes were not measured, or is "".
 */

static void find_obstacle(struct sup *s, char *why, size_t len, char *unseen, size_t ulen)
{
	struct tree_holder_query q = { .exclude = s->self };
	struct tree_holder *h = NULL;
	char walk[64];
	size_t n_read = 0;
	pid_t first;
	struct iso_err e;
	ino_t pipes[2];
	const char *names[2];
	size_t held;
	int n;

	why[0] = '\0';
	unseen[0] = '\0';
	if (s->join_unproven) {
		snprintf(why, len, "leak check not measurable, so the join cannot be proven (%s)",
			 s->out->gate_unmeasurable);
		return;
	}
	if (s->gate->unmeasurable && s->gate->unmeasurable(s)) {
		snprintf(why, len, "leak check not measurable, so the join cannot be proven (%s)",
			 s->gate->unmeasurable(s));
		return;
	}
	q.pipes = pipes;
	for (int i = 0; i < 2; i++)
		if (s->relayed[i] && !s->streams[i].eof) {
			names[q.n_pipes] = s->streams[i].name;
			pipes[q.n_pipes++] = s->streams[i].ino;
		}
	tree_query(s, &q, walk, sizeof(walk));
	q.n_read = &n_read;
	/* the kernel proved the tree unused and the pipes saw their EOF: nothing to look for */
	if (!q.tree && !q.n_pipes)
		return;
	n = tree_find_holders(&q, &h, NULL);
	s->td.n_read = n_read;
	if (s->o->verbosity > 0)
		fprintf(stderr, "isorun: holders: %zu process%s read\n", n_read,
			n_read == 1 ? "" : "es");
	if (n < 0) {
		tree_holders_strerror(n, &e);
		iso_err_format(&e, why, len);
		return;
	}
	held = tree_holders_split_outside(h, (size_t)n);
	s->td.n_outside = (size_t)n - held;
	if (held < (size_t)n)
		note_outside(h + held, (size_t)n - held, unseen, ulen);
	if (held > 0)
		name_holder(s, h, held, q.n_pipes ? names : NULL, why, len);
	first = held > 0 ? tree_holder_first(h, held)->pid : 0;
	tree_holders_free(h, (size_t)n);
	/* the shield held, no pipe to look for: the kernel is asked again, the holder confirmed */
	if (held > 0 && !s->td.unread[0] && !(s->td.proof == TREE_SHIELD_HELD && !q.n_pipes))
		return;
	if (s->td.proof == TREE_SHIELD_HELD) {
		why[0] = '\0';
		if (still_held(s, first, why, len))
			return;
	}
	if (s->td.gate.up && s->td.proof == TREE_SHIELD_ELSEWHERE && gate_still_held(s, why, len))
		return;
	if (nest_lives_on(s, why, len))
		return;
	if (q.n_pipes)
		snprintf(why, len, "pipe still open (%s; its holder is not visible to isorun)",
			 names[0]);
}

enum tree_whereabouts { TREE_HERE, TREE_GONE, TREE_MOVED, TREE_REPLACED };

/*
 * Is the tree still the directory isorun made, at its path?  The command may
 * have deleted it (gone is gone: nothing left to remove), renamed it, or put
 * something else at its path; those two are not ours to remove.  Identity is
 * the (dev, ino) of the directory fd held since creation, not the path.
 */
static enum tree_whereabouts tree_whereabouts(const struct tree_tree *tree, dev_t shield)
{
	struct stat held, at_path;

	if (fstat(tree->fd, &held) < 0)
		return TREE_HERE; /* cannot tell: let the removal find out and say why */
	if (fstatat(tree->user_fd, tree->id, &at_path, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno != ENOENT)
			return TREE_HERE;
		/* a deleted directory has no links left; a renamed one still has its own */
		return held.st_nlink == 0 ? TREE_GONE : TREE_MOVED;
	}
	/* a shield still on the tree (held, its holders not named yet) shows its own inode */
	if ((at_path.st_dev != held.st_dev && (!shield || at_path.st_dev != shield)) ||
	    at_path.st_ino != held.st_ino)
		return TREE_REPLACED; /* even if ours is gone: what is there now is not ours */
	return TREE_HERE;
}

/*
 * Settles the outcome when the tree is no longer isorun's to remove: gone is
 * removed (exit unchanged); moved or replaced is retained, a finding, with
 * where it went when that can be told.  Returns false when the tree is here.
 */
static bool tree_gone_or_foreign(const struct tree_tree *tree, dev_t shield,
				 struct sup_outcome *out)
{
	char fdpath[64], where[PATH_MAX];
	ssize_t n;

	switch (tree_whereabouts(tree, shield)) {
	case TREE_HERE:
		return false;
	case TREE_GONE:
		out->tree_state = SUP_TREE_REMOVED;
		return true;
	case TREE_REPLACED:
		out->tree_state = SUP_TREE_RETAINED;
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "the tree was replaced by something else at its path; "
			 "not removed, not isorun's");
		return true;
	case TREE_MOVED:
		break;
	}
	out->tree_state = SUP_TREE_RETAINED;
	snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", tree->fd);
	n = readlink(fdpath, where, sizeof(where) - 1);
	if (n > 0) {
		where[n] = '\0';
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "the tree was moved away (now at %.400s); not removed", where);
	} else {
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "the tree was moved away; not removed");
	}
	return true;
}

/*
 * Asked now and then while the tree is removed: a signal that cancels
 * (launcher/sigtable.h) then cancels the run (128+N, as at any other time) and stops the
 * removal; so does the removal's deadline.  The rest of the tree is retained
 * with its records, for gc.
 */
static bool teardown_cancelled(void *arg)
{
	struct sup *s = arg;
	struct signalfd_siginfo si;

	if (s->td.remove_deadline_ms && sup_now_ms() >= s->td.remove_deadline_ms) {
		s->td.remove_overdue = true;
		return true;
	}

	while (read(s->loop.sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		int sig = (int)si.ssi_signo;

		if (sup_sig_cancels(sup_sig_class(sig))) {
			if (!s->out->cancelled_by)
				s->out->cancelled_by = sig;
			return true;
		}
	}
	return false;
}

/*
 * A setup that failed after the tree was made: remove it with the descriptors
 * set aside for this, and say `removed` only when it is.  What stays keeps its
 * records, so gc can take it.
 */
void sup_remove_after_setup_failure(struct tree_tree *tree, struct sup_outcome *out)
{
	struct iso_err e = { 0 };
	char buf[400];
	_cleanup_free_ char *path = NULL, *reason = NULL;

	tree_release_reserve(tree);
	if (tree_rmtree_last(tree->user_fd, tree->id, tree->fd, tree_records, tree->path, NULL,
			     &e) == 0) {
		out->tree_state = SUP_TREE_REMOVED;
		return;
	}
	out->tree_state = SUP_TREE_RETAINED;
	snprintf(out->tree_reason, sizeof(out->tree_reason), "removal failed: %s",
		 iso_err_format(&e, buf, sizeof(buf)));
	/* the failure names an entry of the tree: a name the command chose */
	path = iso_shell_quote(tree->path);
	reason = iso_escape(out->tree_reason);
	fprintf(stderr, "isorun: tree retained at %s: %s\n", path ? path : "?",
		reason ? reason : "?");
}

/* After the holders were named through a held shield: the tree shows on disk again. */
static void finish_shield(struct sup *s)
{
	struct tree_tree *t = &s->tree;
	struct iso_err e = { 0 };
	char buf[400];

	/* a nested tree's tmpfs is the tree: only its proof's unmount takes it off */
	if (s->td.shield.up && !s->td.shield.tmpfs)
		tree_shield_off(t->path);
	s->td.shield.up = false;
	if (!s->td.shield.work || (s->td.shield.tmpfs && tree_shield_present(t->user_fd, t->id)))
		return;
	if (tree_shield_remove_work(t->user_fd, t->id, t->user_path, &e) < 0 &&
	    s->o->verbosity >= 0)
		fprintf(stderr, "isorun: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	s->td.shield.work = false;
}

/*
 * ISORUN_TEST_FAULT=late-shield: before its shield, the tree waits (10 s at
 * most) for ".early", which a holder that walked in first makes there
 * (tests/helpers/earlyin.c): the window every root run has, held open; and an
 * ordinary user's before its gate.
 */
void sup_test_late_shield(int tree_fd)
{
	_cleanup_close_ int in = inotify_init1(IN_CLOEXEC);
	struct pollfd p = { .fd = in, .events = POLLIN };
	struct stat st;
	char at[64];

	snprintf(at, sizeof(at), "/proc/self/fd/%d", tree_fd);
	if (in < 0 || inotify_add_watch(in, at, IN_CREATE) < 0)
		return;
	if (fstatat(tree_fd, ".early", &st, AT_SYMLINK_NOFOLLOW) < 0)
		(void)poll(&p, 1, 10000);
}

/*
 * As root the tree wears its shield from just before the command starts: at
 * teardown the kernel then says whether anything holds the tree, and no
 * process is read unless something does (tree/shield.h).
 */
void sup_raise_shield(struct sup *s)
{
	struct iso_err e = { 0 };

	if (iso_test_fault("no-shield")) {
		snprintf(s->td.shield.why, sizeof(s->td.shield.why),
			 "turned off (ISORUN_TEST_FAULT)");
		return;
	}
	if (iso_test_fault("late-shield"))
		sup_test_late_shield(s->tree.fd);
	if (tree_shield_raise(&s->td.shield,
			      &(struct tree_shield_at){ s->tree.user_fd, NULL, s->tree.id },
			      s->tree.fd, s->tree.path, TREE_OWNER, &s->tree.nest_watch) < 0 &&
	    s->tree.nest_why[0])
		snprintf(s->td.shield.why, sizeof(s->td.shield.why),
			 "the tree is on another run's shield, and has %.120s", s->tree.nest_why);
	/* a nested tree's tmpfs has nothing below it: our descriptor there is no way past */
	if (s->td.shield.up && !s->td.shield.tmpfs && tree_park(&s->tree, &e) < 0) {
		char buf[400];

		/* a shield with a way past it in our own table proves nothing */
		snprintf(s->td.shield.why, sizeof(s->td.shield.why), "%.199s",
			 iso_err_format(&e, buf, sizeof(buf)));
		tree_shield_unlock(&s->td.shield);
		finish_shield(s);
	}
}

static const char *proof_words(const struct sup *s)
{
	switch (s->td.proof) {
	case TREE_SHIELD_UNUSED:
		return "proven by the kernel, no process read: the tree's shield ended with its "
		       "unmount";
	case TREE_SHIELD_HELD:
		return "every process read: the tree's shield is held through its mount";
	case TREE_SHIELD_ELSEWHERE:
		return "every process read: the tree's shield lives on after its unmount (another "
		       "mount of it, or a copy in a mount namespace)";
	case TREE_SHIELD_EXPOSED:
	case TREE_SHIELD_NONE:
		break;
	}
	return NULL;
}

/* The gate's overlay ended with the run's namespace, or something keeps it. */
static const char *gate_words(const struct sup *s)
{
	if (s->td.proof == TREE_SHIELD_UNUSED)
		return "proven by the kernel, no process read: the overlay over the tree's gate "
		       "ended with the run's namespace";
	if (s->td.proof == TREE_SHIELD_ELSEWHERE)
		return "every process read: the overlay over the tree's gate lives on after the "
		       "run's namespace (held through /proc/PID/root, a descriptor passed out of "
		       "the run, or a process that entered the namespace)";
	return NULL;
}

/*
 * The superblock of a namespace's last mount is put by the exiting task, or
 * from a workqueue a jiffy later: as for the shield, 200 ms.
 */
#define GATE_END_MS 200

static void prove_gate(struct sup *s)
{
	struct tree_gate *g = &s->td.gate;
	int r;

	if (!g->up) {
		snprintf(s->td.proof_why, sizeof(s->td.proof_why), "%s",
			 g->why[0] ? g->why : "no overlay over the tree's gate");
		return;
	}
	/* ISORUN_TEST_FAULT=gate-blind: the proof broken on purpose, the tests' control */
	r = iso_test_fault("gate-blind") ? 1 : tree_gate_ended(g, GATE_END_MS);
	s->td.proof = r > 0 ? TREE_SHIELD_UNUSED : TREE_SHIELD_ELSEWHERE;
	/* a holder through the overlay shows its device, and the tree's inode numbers */
	if (r <= 0)
		s->td.shield_dev = g->dev;
}

/* The tree back at its path from below its gate, before anything looks at the path. */
void sup_open_gate(struct sup *s)
{
	struct tree_tree *t = &s->tree;
	struct iso_err e = { 0 };

	if (tree_gate_open(&s->td.gate, t->user_fd, t->id, t->user_path, &e) < 0 &&
	    s->o->verbosity >= 0) {
		char buf[400];
		fprintf(stderr, "isorun: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	}
}

/* What the shield proved, raised on the host (root), and off again. */
static void lower_host_shield(struct sup *s, bool prove)
{
	struct iso_err e = { 0 };

	if (!s->td.shield.up) {
		snprintf(s->td.proof_why, sizeof(s->td.proof_why), "%s",
			 s->td.gate.why[0] ? s->td.gate.why : s->td.shield.why);
	} else if (prove) {
		s->td.proof = prove_shield(s, &s->td.shield_dev, &e);
		iso_err_format(&e, s->td.proof_why, sizeof(s->td.proof_why));
	}
	/*
	 * A shield gone before the proof (a root command unmounted it, lazily) may
	 * live on detached: holders through it still show the device it had.
	 */
	if (s->td.shield.up && !s->td.shield_dev)
		s->td.shield_dev = s->td.shield.dev;
	/* a held shield stays until the holders are named through it */
	if (s->td.proof != TREE_SHIELD_HELD)
		finish_shield(s);
}

/*
 * The shield comes off before anything looks at the tree's path, which then
 * shows the tree on disk, and the work directory goes with it.  A kept tree
 * needs no proof.
 */
void sup_lower_shield(struct sup *s, bool prove)
{
	struct tree_tree *t = &s->tree;
	struct iso_err e = { 0 };
	const char *words;

	s->td.proof = TREE_SHIELD_NONE;
	/* a nested tree's tmpfs whose command never started: its shield all the same */
	if (!s->td.shield.up && t->nest_watch >= 0)
		(void)tree_shield_raise(&s->td.shield,
					&(struct tree_shield_at){ t->user_fd, NULL, t->id }, t->fd,
					t->path, TREE_OWNER, &t->nest_watch);
	tree_shield_unlock(&s->td.shield);
	/* the tree's descriptor comes back first: teardown knows the tree by it */
	if (tree_unpark(t, &e) < 0 && s->o->verbosity >= 0) {
		char buf[400];
		fprintf(stderr, "isorun: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	}
	if (s->td.gate.closed) {
		if (prove)
			prove_gate(s);
		sup_open_gate(s);
	} else {
		lower_host_shield(s, prove);
	}
	words = s->td.gate.up ? gate_words(s) : proof_words(s);
	if (prove && s->o->verbosity > 0) {
		/* the scan's words name processes of the run */
		_cleanup_free_ char *why = iso_escape(s->td.proof_why);

		fprintf(stderr, "isorun: holders: %s%s\n",
			words ? ""
			: s->td.proof == TREE_SHIELD_EXPOSED && !s->td.exposed.all
				? "the processes of the mount namespaces that show it bare read: "
				: "every process read: ",
			words ? words
			: why ? why
			      : "?");
	}
}

/* The removal stopped (a signal, its deadline) or failed: the rest of the tree stays. */
/* In the child that acts as the ranges' root: its signals are not the run's; the deadline is. */
static bool past_deadline(void *arg)
{
	const struct sup *s = arg;

	return s->td.remove_deadline_ms && sup_now_ms() >= s->td.remove_deadline_ms;
}

static int remove_as_ranges_root(void *arg, struct iso_err *e)
{
	struct sup *s = arg;
	struct tree_tree *tree = &s->tree;
	struct tree_rm_stop stop = { past_deadline, s };

	return tree_rmtree_last(tree->user_fd, tree->id, tree->fd, tree_records, tree->path, &stop,
				e);
}

/*
 * What the command gave to a subordinate id and init did not give back (init
 * killed by a cancel whose grace ran out) the caller may not chmod or enter:
 * the rest of the tree, as the root of the ranges the run mapped.
 */
static int remove_rest_in_ranges(struct sup *s, int r, struct iso_err *e)
{
	struct iso_err again = { 0 };

	if ((r != -EPERM && r != -EACCES) || !s->ns.plan.ranged)
		return r;
	r = sup_map_users_again(&s->ns.plan.idmaps, remove_as_ranges_root, s, &again);
	if (r == 0)
		return 0;
	*e = again;
	if (s->td.remove_deadline_ms && sup_now_ms() >= s->td.remove_deadline_ms) {
		s->td.remove_overdue = true;
		return -ECANCELED;
	}
	return r;
}

static void removal_failed(struct sup *s, int r, const struct iso_err *e)
{
	struct sup_outcome *out = s->out;
	char sig[32], dur[32], buf[400];

	out->tree_state = SUP_TREE_RETAINED;
	if (r != -ECANCELED) {
		snprintf(out->tree_reason, sizeof(out->tree_reason), "removal failed: %s",
			 iso_err_format(e, buf, sizeof(buf)));
		return;
	}
	iso_format_duration(SUP_REMOVE_DEADLINE_MS, dur, sizeof(dur));
	if (s->td.remove_overdue)
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "removal still running after %s; the rest of the tree stays for "
			 "isorun gc",
			 dur);
	else
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "removal stopped by %s; the rest of the tree stays",
			 iso_signal_name(out->cancelled_by, sig, sizeof(sig)));
}

/*
 * Whether the tree is kept on purpose, and why in the outcome's reason (for ls
 * and the report).  On failure asks the verdict as it stands before teardown:
 * what teardown adds (a retained tree) keeps the tree anyway.
 */
static bool keep_on_purpose(struct sup *s)
{
	struct sup_outcome *out = s->out;
	struct sup_verdict v;

	if (s->o->keep == SUP_KEEP_ALWAYS) {
		snprintf(out->tree_reason, sizeof(out->tree_reason), "%s",
			 s->o->shell ? "isorun shell" : sup_say(s->o->say, SUP_SAY_KEEP));
		return true;
	}
	if (s->o->keep != SUP_KEEP_ON_FAILURE)
		return false;
	(void)sup_verdict_make(&v, s->o, out);
	if (v.exit != 0) {
		out->kept_on_failure = true;
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "%s: the run failed (exit %d: %s)",
			 sup_say(s->o->say, SUP_SAY_KEEP_FAILED), v.exit, v.reason);
	}
	sup_verdict_free(&v);
	return out->kept_on_failure;
}

/*
 * After the removal, the kernel's word that nothing holds what is left of the
 * tree (tree/release.h): what entered the tree before its shield, past it (a
 * shield moved away and back), or where no scan looks (a loop device, a
 * descriptor in flight).
 */
/* The finding: a removed tree something still held. */
const struct sup_vkind_row sup_vkind_still_held = {
	.title = "isorun: removed tree still held",
	.listed = SUP_LISTED,
	.reason_at = 6,
	.one = "removed tree still held",
};

static void prove_release(struct sup *s, const struct tree_release *rel)
{
	struct tree_tree *t = &s->tree;
	struct sup_outcome *out = s->out;
	struct iso_err e = { 0 };
	char why[sizeof(out->tree_reason)];
	struct stat st;
	dev_t disk = fstat(t->fd, &st) == 0 ? st.st_dev : 0;
	int r;

	/* our own last references to it: the owner record's lock, the tree's descriptor */
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	close(t->fd);
	t->lock_fd = t->fd = -1;
	r = rel->wd < 0 ? -EBADF : tree_release_prove(rel, out->tree_path, disk, s->self, &e);
	if (r > 0 && s->o->verbosity > 0)
		fprintf(stderr,
			"isorun: release: proven by the kernel: nothing holds the "
			"removed tree%s%s\n",
			s->td.unread[0] ? ", though " : "", s->td.unread);
	if (r > 0 && s->td.unread[0])
		snprintf(out->tree_reason, sizeof(out->tree_reason),
			 "%s; the kernel proved the removed tree released", s->td.unread);
	if (r != 0)
		return;
	iso_err_format(&e, why, sizeof(why));
	snprintf(out->tree_reason, sizeof(out->tree_reason), "%s", why);
	if (s->td.unread[0]) {
		size_t at = strlen(out->tree_reason);
		snprintf(out->tree_reason + at, sizeof(out->tree_reason) - at, "; %s",
			 s->td.unread);
	}
	(void)sup_found_add(out, SUP_V_STILL_HELD, true, out->tree_reason);
}

/* Remove the tree; then the kernel says whether anything still held it. */
static void remove_tree(struct sup *s, const char *unseen, uint64_t *t)
{
	struct tree_tree *tree = &s->tree;
	struct sup_outcome *out = s->out;
	struct tree_rm_stop stop = { teardown_cancelled, s };
	struct iso_err e = { 0 };
	struct tree_release rel;
	int r;

	tree_release_reserve(tree);
	/* the shield's instance, when there is one: a run closes one instance, not two */
	if (tree_release_watch(&rel, s->td.shield.watch >= 0 ? s->td.shield.watch : s->td.gate.in,
			       tree->fd, &e) < 0 &&
	    s->o->verbosity > 0) {
		char buf[400];
		fprintf(stderr, "isorun: release not measurable: %s\n",
			iso_err_format(&e, buf, sizeof(buf)));
	}
	if (s->o->verbosity > 0)
		fprintf(stderr, "isorun: removing %s\n", tree->path);
	s->td.remove_deadline_ms =
		sup_now_ms() + (iso_test_fault("slow-removal") ? 0 : SUP_REMOVE_DEADLINE_MS);
	r = tree_rmtree_last(tree->user_fd, tree->id, tree->fd, tree_records, tree->path, &stop,
			     &e);
	r = remove_rest_in_ranges(s, r, &e);
	s->td.remove_deadline_ms = 0;
	out->timing.removal = sup_lap(t);
	/* deleted or moved by someone else while we removed it: say so, not the failure */
	if (r < 0 && !tree_gone_or_foreign(tree, s->td.shield_dev, out))
		removal_failed(s, r, &e);
	if (r < 0) {
		tree_release_close(&rel);
		return;
	}
	out->tree_state = SUP_TREE_REMOVED;
	/* removed, and what was not measured on the way: the report's tree.reason */
	snprintf(out->tree_reason, sizeof(out->tree_reason), "%s", unseen);
	prove_release(s, &rel);
	tree_release_close(&rel);
	/* a signal in the last stretch of the removal still cancels: 128+N, never swallowed */
	(void)teardown_cancelled(s);
}

/*
 * An ordinary user's scan reads each of the user's processes (~100 us each): a
 * workstation's hundreds cost more than the run.  Under --pidns the tree's
 * gate (tree/gate.h) lets the kernel answer instead: one line says so, when
 * the scan was the expensive step (ISORUN_TEST_FAULT=scan-hint: always).
 */
#define SCAN_HINT_PROCS 500
#define SCAN_HINT_US	50000

static void scan_hint(const struct sup *s, uint64_t scan_us)
{
	bool forced = iso_test_fault("scan-hint");

	if (s->o->verbosity < 0 || getuid() == 0 || s->gate == &sup_gate_pidns)
		return;
	if (!forced && (s->td.n_read < SCAN_HINT_PROCS || scan_us < SCAN_HINT_US))
		return;
	fprintf(stderr,
		"isorun: holders: %zu processes read (%llu ms) to prove the tree unheld; under "
		"%s the kernel proves it, no process read\n",
		s->td.n_read, (unsigned long long)(scan_us / 1000),
		sup_say(s->o->say, SUP_SAY_PIDNS_FIX));
}

void sup_teardown(struct sup *s)
{
	struct tree_tree *tree = &s->tree;
	struct sup_outcome *out = s->out;
	char why[sizeof(out->tree_reason)], unseen[sizeof(out->tree_reason)];
	struct iso_err e = { 0 };
	uint64_t t;
	bool keep, homed;

	/* the proof, and a scan, may need the descriptors a full table left no room for */
	tree_release_reserve(tree);
	/* the shield's proof is the holder scan's first step, and timed with it */
	t = sup_now_us();
	keep = keep_on_purpose(s);
	/* a nested tree's tmpfs ends with its proof, and its files with it: its home is read first
	 */
	homed = !keep && s->td.shield.tmpfs && tree_unpark(tree, &e) == 0;
	if (homed)
		sup_collect_home(s);
	sup_lower_shield(s, !keep);
	/* the tree's own descriptor again, the shield off: nothing looks through it */
	if (!homed)
		sup_collect_home(s);
	if (keep) {
		out->tree_state = SUP_TREE_KEPT;
		return;
	}
	if (tree_gone_or_foreign(tree, s->td.shield_dev, out))
		return;
	find_obstacle(s, why, sizeof(why), unseen, sizeof(unseen));
	if (unseen[0])
		say_outside(s, unseen);
	/*
	 * Once the holders are named, the shield comes off (a retained tree is a
	 * plain directory); one that may still be in use is recorded by device, for
	 * gc to match.
	 */
	if (s->td.proof != TREE_SHIELD_UNUSED)
		tree->shield_dev = s->td.shield_dev;
	finish_shield(s);
	out->timing.scan = sup_lap(&t);
	scan_hint(s, out->timing.scan);
	if (why[0]) {
		out->tree_state = SUP_TREE_RETAINED;
		snprintf(out->tree_reason, sizeof(out->tree_reason), "%s", why);
		return;
	}
	remove_tree(s, unseen, &t);
}
