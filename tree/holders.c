// SPDX-License-Identifier: MIT
#include "tree/holders.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/kcmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/num.h"
#include "common/nowait.h"
#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"
#include "common/reader.h"
#include "tree/tree.h"
#include "tree/treeid.h"

struct found {
	struct tree_holder *v;
	size_t n, cap;
	ino_t mntns[64]; /* mount namespaces whose mountinfo was read */
	size_t n_mntns;
	uid_t uid;		       /* the caller's: its refused processes are not measurable */
	struct iso_userns_view userns; /* isorun's user namespace, read at the first refusal */
	/*
	 * The stdio buffer of the procfs file being read.  seq_file hands out at
	 * most one page per read(); stdio's default for procfs (st_blksize 1 KiB)
	 * took four reads for each, and a library-heavy process's maps is tens
	 * of pages.
	 */
	char io[4096];
};

/*
 * The process being scanned, and where /proc shows it: "PID", or
 * "PID/task/TID" when only one of its threads still has a cwd, fds and mm.
 */
struct target {
	pid_t pid;
	char base[48];
};

static bool inside(const char *tree, const char *target)
{
	size_t tlen = strlen(tree);

	/* a removed tree's top reads "TREE (deleted)" */
	return strncmp(target, tree, tlen) == 0 && (target[tlen] == '\0' || target[tlen] == '/' ||
						    !strcmp(target + tlen, " (deleted)"));
}

static int add(struct found *f, pid_t pid, const char *what, const char *target, int pipe_index)
{
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 16;
		struct tree_holder *nv = realloc(f->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		f->v = nv;
		f->cap = cap;
	}
	f->v[f->n] = (struct tree_holder){ .pid = pid, .pipe_index = pipe_index };
	snprintf(f->v[f->n].what, sizeof(f->v[f->n].what), "%s", what);
	f->v[f->n].target = strdup(target);
	if (!f->v[f->n].target)
		return -ENOMEM;
	f->n++;
	return 0;
}

/*
 * Whether the object behind a magic link is in the tree: by identity, so any path
 * to it counts (a bind mount, a symlink).  A file already unlinked from the tree
 * but still open is no longer in the set, nor is what lies below a subdirectory
 * the walk could not read; such an object on the tree's device is judged by its
 * link text, as before.
 */
/*
 * An O_PATH descriptor of the tree's top directory is how `isorun ls` and `gc`
 * look at a tree: it can neither read, write nor list, and it pins nothing
 * rmtree cares about.  Read from fdinfo, only for a match; 1 when it is one.
 * fdinfo is read after the stat, and a live ls or gc closes and reuses its
 * descriptors meanwhile: the flags count only when fdinfo is still there (to
 * open and to read) and names the inode the stat saw.  Else the user's
 * directory that took a closed top's number lent the top its flags, and a run
 * beside a loop of ls and gc was retained (1 run in 200).
 */
#define FD_CHANGED (-1) /* the descriptor is no longer what stat() saw */
static int top_opath(const struct tree_holder_query *q, int fdfd, const char *name,
		     const struct stat *st)
{
	char path[64], info[256];
	const char *fl, *in;
	unsigned int flags;
	unsigned long long ino;
	ssize_t n;
	int fd, err;

	if (!q->ids || !tree_treeid_on_dev(q->ids, st->st_dev) || st->st_ino != q->ids->root_ino ||
	    !isdigit((unsigned char)name[0]))
		return 0;
	snprintf(path, sizeof(path), "../fdinfo/%s", name);
	fd = openat(fdfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? FD_CHANGED : 0;
	n = read(fd, info, sizeof(info) - 1);
	err = errno;
	close(fd);
	/* opened while the descriptor was there, read after it was closed */
	if (n < 0 && err == ENOENT)
		return FD_CHANGED;
	if (n <= 0)
		return 0;
	info[n] = '\0';
	in = strstr(info, "\nino:");
	if (in && sscanf(in, "\nino: %llu", &ino) == 1 && ino != (unsigned long long)st->st_ino)
		return FD_CHANGED;
	fl = strstr(info, "flags:");
	return fl && sscanf(fl, "flags: %o", &flags) == 1 && (flags & O_PATH);
}

/*
 * A file reached through a shield taken off lazily shows a path from the
 * shield's root ("/home/f"): where the tree has that path with that inode,
 * that is the file.
 */
static const char *shield_path(const struct tree_holder_query *q, dev_t dev, ino_t ino,
			       const char *target, char *buf, size_t len)
{
	_cleanup_close_ int top = -1;
	struct stat st;

	if (!q->alias_dev || dev != q->alias_dev || target[0] != '/' || inside(q->tree, target))
		return target;
	/* within the tree only: a mount in it may be a file system that does not answer */
	top = open(q->walk ? q->walk : q->tree, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (snprintf(buf, len, "%s%s", q->tree, target) >= (int)len || top < 0 ||
	    iso_stat_here(top, target + 1, &st) < 0 || st.st_ino != ino)
		return target;
	return buf;
}

/* check_link(): the link is not there (an fd closed meanwhile, a task past exit_fs()) */
#define LINK_ABSENT 1

/*
 * The file behind a /proc link, from the attributes the kernel has cached:
 * a plain stat() asks a FUSE or network file system whose attributes expired,
 * and one that never answers (a stalled server, a hung mount anyone on the
 * host has a process in) would hold the scan, every signal blocked, for good.
 * Following the link itself asks nothing; the identity is in the cache.
 */
static int stat_cached(int dirfd, const char *name, struct stat *st)
{
	return iso_stat_cached(dirfd, name, 0, st);
}

static int check_link(const struct tree_holder_query *q, struct found *f, int dirfd, pid_t pid,
		      const char *name, const char *what)
{
	char target[PATH_MAX], full[PATH_MAX];
	struct stat st;
	ssize_t n;
	int m, top, tries = 0;

again:
	m = -2;
	if (stat_cached(dirfd, name, &st) < 0)
		return errno == ENOENT ? LINK_ABSENT : 0;
	if (S_ISFIFO(st.st_mode)) {
		for (size_t i = 0; i < q->n_pipes; i++)
			if (st.st_ino == q->pipes[i])
				m = (int)i;
	}
	/* a named FIFO in the tree is a tree file like any other */
	if (m == -2 && q->ids &&
	    (tree_treeid_has(q->ids, st.st_dev, st.st_ino) ||
	     ((st.st_nlink == 0 || q->ids->partial) && tree_treeid_on_dev(q->ids, st.st_dev))))
		m = -1;
	if (m == -2)
		return 0;
	top = m == -1 ? top_opath(q, dirfd, name, &st) : 0;
	/* closed or reused meanwhile: what is there now is judged afresh (a few times) */
	if (top == FD_CHANGED && ++tries < 4)
		goto again;
	if (top > 0 && q->lookers && *q->n_lookers < q->max_lookers &&
	    (*q->n_lookers == 0 || q->lookers[*q->n_lookers - 1] != pid))
		q->lookers[(*q->n_lookers)++] = pid;
	if (top > 0)
		return 0;
	n = readlinkat(dirfd, name, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	if (m >= 0 && strncmp(target, "pipe:[", 6))
		return 0; /* a named FIFO with a pipe's inode number */
	if (m == -1 && !tree_treeid_has(q->ids, st.st_dev, st.st_ino) && !inside(q->tree, target))
		return 0;
	if (m == -1)
		return add(f, pid, what,
			   shield_path(q, st.st_dev, st.st_ino, target, full, sizeof(full)), m);
	return add(f, pid, what, target, m);
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/*
 * Every kernel thread shares one files_struct, kthreadd's (init_files: kthreads
 * are made with CLONE_FILES); no user process does (init and the usermode
 * helpers get their own).  kcmp(KCMP_FILES) against kthreadd is one syscall
 * without a procfs lookup, about half the cost of the exe readlink below, and
 * most of a machine's pids are kernel threads.  The reference is used only when
 * pid 2 has no exe link: in a container's PID namespace pid 2 is an ordinary
 * process, and whatever shares its fd table would be skipped with it.
 */
#define KTHREADD 2

static bool kthreadd_is_reference(int procfd)
{
	char exe[8];
	char name[16];

	snprintf(name, sizeof(name), "%d/exe", KTHREADD);
	return readlinkat(procfd, name, exe, sizeof(exe)) < 0 && errno == ENOENT &&
	       syscall(SYS_kcmp, KTHREADD, KTHREADD, KCMP_FILES, 0, 0) == 0;
}

/* /proc/PID/WHAT as a stream, or NULL when it cannot be read (gone, not ours). */
static FILE *open_proc_file(struct found *f, int procfd, const struct target *t, const char *what)
{
	char name[80];
	FILE *fp;
	int fd;

	snprintf(name, sizeof(name), "%s/%s", t->base, what);
	fd = openat(procfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	fp = fdopen(fd, "r");
	if (!fp)
		close(fd);
	else
		(void)setvbuf(fp, f->io, _IOFBF, sizeof(f->io));
	return fp;
}

/*
 * A maps line's device and inode: "start-end perms offset MAJ:MIN INODE  PATH".
 * By hand: sscanf cost more than the kernel's formatting of the line.  *path
 * points at the path (or the end of the line).  False for a malformed line.
 */
static bool maps_fields(char *line, dev_t *dev, unsigned long *ino, char **path)
{
	uint64_t maj, min, n;
	const char *end;
	char *p = line;

	for (int i = 0; i < 3; i++) {
		p = strchr(p, ' ');
		if (!p)
			return false;
		p++;
	}
	if (iso_parse_digits(p, 16, &end, &maj) < 0 || *end != ':' ||
	    iso_parse_digits(end + 1, 16, &end, &min) < 0 || *end != ' ' ||
	    iso_parse_digits(end + 1, 10, &end, &n) < 0 || maj > UINT32_MAX || min > UINT32_MAX)
		return false;
	*ino = (unsigned long)n;
	*path = line + (end - line) + strspn(end, " ");
	*dev = makedev(maj, min);
	return true;
}

/* A mapping of a tree file, the descriptor closed or not (ld.so closes it). */
static int scan_maps(const struct tree_holder_query *q, struct found *f, int procfd,
		     const struct target *t)
{
	_cleanup_fclose_ FILE *fp = open_proc_file(f, procfd, t, "maps");
	char line[PATH_MAX + 128], full[PATH_MAX];
	int r = 0;

	if (!fp)
		return 0;
	while (r == 0 && fgets(line, sizeof(line), fp)) {
		unsigned long ino;
		char *path;
		dev_t dev;

		if (!maps_fields(line, &dev, &ino, &path) || !ino)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (!tree_treeid_has(q->ids, dev, (ino_t)ino) &&
		    !(q->gone_dev && dev == q->gone_dev && inside(q->tree, path)))
			continue;
		r = add(f, t->pid, "mapping",
			*path ? shield_path(q, dev, (ino_t)ino, path, full, sizeof(full)) : "?",
			-1);
		break; /* one mapping names the holder; a library maps several */
	}
	return r;
}

/*
 * A mount whose root is a tree directory (a bind mount elsewhere) keeps the data
 * reachable: rmtree would delete what the mount shows.  Each mount namespace is
 * read once; only mounts of the tree's device with a root other than the
 * filesystem's are looked at, through the process's own root.
 */
static int scan_mounts(const struct tree_holder_query *q, struct found *f, int procfd,
		       const struct target *t)
{
	char name[80], line[2 * PATH_MAX];
	_cleanup_fclose_ FILE *fp = NULL;
	struct stat st;
	int r = 0, rc;

	snprintf(name, sizeof(name), "%s/ns/mnt", t->base);
	if (fstatat(procfd, name, &st, 0) < 0)
		return 0;
	for (size_t i = 0; i < f->n_mntns; i++)
		if (f->mntns[i] == st.st_ino)
			return 0;
	if (f->n_mntns < ELEMENTSOF(f->mntns))
		f->mntns[f->n_mntns++] = st.st_ino;
	fp = open_proc_file(f, procfd, t, "mountinfo");
	if (!fp)
		return 0;
	while (r == 0 && fgets(line, sizeof(line), fp)) {
		char root[PATH_MAX], mp[PATH_MAX], at[PATH_MAX + 80];
		unsigned int maj, min;

		if (sscanf(line, "%*d %*d %u:%u %4095s %4095s", &maj, &min, root, mp) != 4 ||
		    !tree_treeid_on_dev(q->ids, makedev(maj, min)))
			continue;
		iso_unescape_octal(mp);
		/*
		 * The disk's root is the whole filesystem; the shield's is the tree,
		 * and a copy of it at the tree's own path (a mount namespace made
		 * during the run) shows it where it is, like the disk did before.
		 */
		if (!strcmp(root, "/") &&
		    (makedev(maj, min) == q->ids->root_dev || !strcmp(mp, q->tree)))
			continue;
		snprintf(at, sizeof(at), "%s/root%s", t->base, mp);
		/* the walk looks up every component, on file systems the command may serve */
		rc = iso_reader_fstatat(iso_reader_proc(), procfd, at, &st, 0);
		if (rc == -ETIMEDOUT)
			r = add(f, t->pid, "mount", mp, TREE_HOLDER_STALLED);
		else if (rc == 0 && tree_treeid_has(q->ids, st.st_dev, st.st_ino))
			r = add(f, t->pid, "mount", mp, -1);
	}
	return r;
}

/*
 * From /proc/PID/status (readable even when the fds are not): whether the
 * process runs as the caller's uid (real or effective, as isorun's user
 * namespace shows it) and, with `capless`, with no effective capability.
 * An ordinary user's process with capabilities holds them in a user namespace
 * of its own (bwrap, a rootless container, another isorun being set up): it is
 * unreadable because of that namespace, not because it hid itself.
 */
static bool of_caller(struct found *f, int procfd, pid_t pid, bool capless)
{
	struct target t = { .pid = pid };
	_cleanup_fclose_ FILE *fp = NULL;
	unsigned int ruid, euid, kthread = 0;
	unsigned long long capeff;
	char line[256];
	int got = 0;

	/* one read of the status for both fields: this runs for every other user's process */
	snprintf(t.base, sizeof(t.base), "%d", pid);
	fp = open_proc_file(f, procfd, &t, "status");
	while (fp && got != 3 && fgets(line, sizeof(line), fp)) {
		/*
		 * (where the kernel has the field, before CapEff) a kernel thread refuses root of a
		 * user namespace (kcmp) and runs as uid 0, and holds no file of a user's
		 */
		if (sscanf(line, "Kthread: %u", &kthread) == 1 && kthread)
			return false;
		if (sscanf(line, "Uid: %u %u", &ruid, &euid) == 2)
			got |= 1;
		else if (sscanf(line, "CapEff: %llx", &capeff) == 1)
			got |= 2;
	}
	return got == 3 && (ruid == f->uid || euid == f->uid) && (!capless || capeff == 0);
}

/*
 * What a process that refused to be read is for the tree: 0 (nothing),
 * TREE_HOLDER_UNREADABLE or TREE_HOLDER_OUTSIDE.  An ordinary user's own
 * process with no capability refuses it when it is not dumpable, or when it
 * runs outside isorun's user namespace.  Root of the initial user namespace
 * is refused only by a process with a capability it lacks (PID 1 of a
 * container that dropped one): not counted.  Root of a user namespace of its
 * own is refused by every process outside it; those of its uid could hold the
 * tree, capabilities or not (root's processes have them).
 */
static int refusal_kind(struct found *f, int procfd, pid_t pid)
{
	if (f->uid == 0)
		return iso_userns_outside(&f->userns, procfd, pid, f->uid) &&
				       of_caller(f, procfd, pid, false)
			       ? TREE_HOLDER_OUTSIDE
			       : 0;
	if (!of_caller(f, procfd, pid, true))
		return 0;
	return iso_userns_outside(&f->userns, procfd, pid, f->uid) ? TREE_HOLDER_OUTSIDE
								   : TREE_HOLDER_UNREADABLE;
}

static int refused(const struct tree_holder_query *q, struct found *f, int procfd, pid_t pid,
		   size_t *unreadable)
{
	char name[40], comm[64] = "?";
	int fd, kind;

	struct iso_proc p;

	(*unreadable)++;
	kind = q->ids ? refusal_kind(f, procfd, pid) : 0;
	if (!kind)
		return 0;
	/*
	 * a dead non-dumpable task still refuses us, and holds nothing; asked only
	 * here, for our own, not of every other user's process on the clean path
	 */
	if (iso_proc_stat(pid, &p) == 0 && !iso_proc_alive(&p)) {
		(*unreadable)--;
		return 0;
	}
	snprintf(name, sizeof(name), "%d/comm", pid);
	fd = openat(procfd, name, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, comm, sizeof(comm) - 1);
		comm[n > 0 ? n : 0] = '\0';
		comm[strcspn(comm, "\n")] = '\0';
		close(fd);
	}
	return add(f, pid, kind == TREE_HOLDER_OUTSIDE ? "outside userns" : "not measurable", comm,
		   kind);
}

/* The task has passed exit_mm(): it never runs user code again (a zombie, or dying). */
static bool lost_mm(int procfd, const struct target *t)
{
	char name[80], exe[8];

	snprintf(name, sizeof(name), "%s/exe", t->base);
	return readlinkat(procfd, name, exe, sizeof(exe)) < 0 && errno == ENOENT;
}

/*
 * EACCES: ptrace_may_access() refused us, or the task lost its mm between the
 * exe probe and here (its /proc files then belong to root): LINK_ABSENT then,
 * for the caller to look at the other threads.
 */
/* One scan's state: the query, what it found, /proc, its buffer, what it could not read. */
struct scan {
	const struct tree_holder_query *q;
	struct found *f;
	int procfd;
	char *buf;
	size_t buflen;
	size_t *unreadable;
};

static int scan_fds(struct scan *sc, const struct target *t)
{
	const struct tree_holder_query *q = sc->q;
	struct found *f = sc->f;
	int procfd = sc->procfd;
	char *buf = sc->buf;
	size_t buflen = sc->buflen;
	char name[80];
	size_t seen = 0;
	int fdfd, r = 0;

	snprintf(name, sizeof(name), "%s/fd", t->base);
	fdfd = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fdfd < 0) {
		if (errno != EACCES && errno != EPERM)
			return 0;
		return lost_mm(procfd, t) ? LINK_ABSENT
					  : refused(q, f, procfd, t->pid, sc->unreadable);
	}
	for (;;) {
		long n = syscall(SYS_getdents64, fdfd, buf, buflen);
		if (n <= 0)
			break;
		for (long off = 0; off < n && r == 0;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			char what[24];
			off += d->d_reclen;
			if (d->d_name[0] == '.')
				continue;
			seen++;
			snprintf(what, sizeof(what), "fd %.16s", d->d_name);
			r = check_link(q, f, fdfd, t->pid, d->d_name, what);
			if (r == LINK_ABSENT)
				r = 0; /* closed meanwhile */
		}
		if (r < 0 || (size_t)n + 512 < buflen)
			break;
	}
	close(fdfd);
	/* root reads a leader past exit_files() as no fds: its live threads hold them */
	if (r == 0 && seen == 0 && lost_mm(procfd, t))
		return LINK_ABSENT;
	return r;
}

static const char *const tree_links[] = { "cwd", "root", "exe" };

/* LINK_ABSENT: no cwd, the task has passed exit_fs() (and exit_files() before it). */
static int scan_tree_links(const struct tree_holder_query *q, struct found *f, int procfd,
			   const struct target *t)
{
	char name[80];
	int r = 0;

	for (size_t i = 0; i < ELEMENTSOF(tree_links) && r == 0; i++) {
		snprintf(name, sizeof(name), "%s/%s", t->base, tree_links[i]);
		r = check_link(q, f, procfd, t->pid, name, tree_links[i]);
		if (r == LINK_ABSENT && i > 0)
			r = 0;
	}
	if (r == 0)
		r = scan_maps(q, f, procfd, t);
	if (r == 0)
		r = scan_mounts(q, f, procfd, t);
	return r;
}

/* One task's links, mappings, mounts and fds; LINK_ABSENT when it is past its exit_mm(). */
static int scan_task(struct scan *sc, const struct target *t)
{
	int r = 0;

	if (sc->q->ids)
		r = scan_tree_links(sc->q, sc->f, sc->procfd, t);
	if (r != 0)
		return r;
	return scan_fds(sc, t);
}

/*
 * /proc/PID shows a task past its exit: a zombie, a process in the middle of its
 * exit, or one whose main thread called pthread_exit() while other threads run
 * on.  A task past exit_mm() never runs user code again, so what it still has
 * open is not held by it; but /proc/PID then describes only the dead leader (no
 * cwd, no maps, fds readable by root alone), and the live threads hold the
 * process's files: they are read through /proc/PID/task/TID.  Threads need not
 * share their fds or cwd (CLONE_FILES and CLONE_FS are optional with
 * CLONE_THREAD), so each live one with a table or fs of its own is read until
 * one holds something.
 */
static int scan_threads(struct scan *sc, pid_t pid)
{
	struct target t = { .pid = pid };
	size_t before = sc->f->n;
	pid_t first = 0; /* the first thread read in full */
	char name[40], dents[4096];
	_cleanup_close_ int dfd = -1;
	int r = 0;

	snprintf(name, sizeof(name), "%d/task", pid);
	dfd = openat(sc->procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0; /* gone */
	for (;;) {
		long n = syscall(SYS_getdents64, dfd, dents, sizeof(dents));
		if (n <= 0)
			return 0;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(dents + off);
			long tid = iso_parse_pid(d->d_name);
			off += d->d_reclen;
			if (tid <= 0 || tid == pid)
				continue;
			/*
			 * a thread with the fd table and fs of one already read shows
			 * nothing new (the mm is shared, and a mount namespace goes
			 * with the fs): without this a process of 2,000 threads and
			 * 200 fds costs every run's scan seconds
			 */
			if (first && syscall(SYS_kcmp, first, (pid_t)tid, KCMP_FILES, 0, 0) == 0 &&
			    syscall(SYS_kcmp, first, (pid_t)tid, KCMP_FS, 0, 0) == 0)
				continue;
			snprintf(t.base, sizeof(t.base), "%d/task/%ld", pid, tid);
			r = scan_task(sc, &t);
			if (r < 0 || sc->f->n > before)
				return r < 0 ? r : 0;
			if (r == 0 && !first)
				first = (pid_t)tid;
		}
	}
}

/*
 * For an ordinary user, a dumpable process of a third user costs two fstatats
 * and no read (issue 25): the directory /proc/PID belongs to the process's
 * effective uid, dumpable or not, and the files in it turn root's when it is
 * not dumpable.  A directory owned by neither the caller nor root, with an `fd`
 * that is not root's, is someone else's dumpable process: refused() would find
 * it not ours, and its status is not read.  A non-dumpable one goes the long
 * way: a set-user-ID program of a third user's run by the caller has the
 * caller's real uid, and is not measurable.
 */
static bool third_users(const struct found *f, int procfd, const struct target *t)
{
	char fd[64];
	struct stat st;

	if (f->uid == 0 || fstatat(procfd, t->base, &st, 0) < 0 || st.st_uid == f->uid ||
	    st.st_uid == 0)
		return false;
	snprintf(fd, sizeof(fd), "%s/fd", t->base);
	return fstatat(procfd, fd, &st, 0) == 0 && st.st_uid != 0;
}

/*
 * The scan is O(every fd on the system) and sits on every run's clean path, so it
 * makes as few syscalls as it can: raw getdents64 into one buffer (no DIR), no
 * per-process directory fd, and no second getdents when the first one left room
 * (procfs stops filling only at the end or when the buffer is full).  Each link is
 * one fstatat (identity), with a readlink only for a match, to name it.
 *
 * It starts with the exe link, one call that sorts out most of the system cheaply.
 * ENOENT: a kernel thread, or a task past exit_mm() (scan_threads()).
 * EACCES/EPERM: ptrace_may_access() refused us, and the cwd, root and every fd link
 * go through the same check; without this a process isorun may list but not read
 * (PID 1 here, with a capability our root lacks, holds 258 fds) costs one refused
 * readlink per fd.
 */
static int scan_pid(struct scan *sc, pid_t pid, bool kcmp_ref)
{
	const struct tree_holder_query *q = sc->q;
	struct found *f = sc->f;
	int procfd = sc->procfd;
	struct target t = { .pid = pid };
	char name[64], exe[8];
	int r;

	snprintf(t.base, sizeof(t.base), "%d", pid);
	if (third_users(f, procfd, &t)) {
		(*sc->unreadable)++;
		return 0;
	}
	if (kcmp_ref) {
		long k = syscall(SYS_kcmp, KTHREADD, pid, KCMP_FILES, 0, 0);

		if (k == 0 || (k < 0 && errno == ESRCH))
			return 0;
		/*
		 * kcmp passed the ptrace check the links below make too (real
		 * instead of fs credentials: the same for isorun): no exe probe.
		 * A task past its exit finds no cwd.
		 */
		if (k > 0)
			goto links;
		if (errno == EACCES || errno == EPERM)
			return refused(q, f, procfd, pid, sc->unreadable);
	}
	snprintf(name, sizeof(name), "%s/exe", t.base);
	if (readlinkat(procfd, name, exe, sizeof(exe)) < 0) {
		if (errno == EACCES || errno == EPERM)
			return refused(q, f, procfd, pid, sc->unreadable);
		if (errno == ENOENT)
			return scan_threads(sc, pid);
		return 0;
	}
links:
	r = scan_task(sc, &t);
	if (r == LINK_ABSENT)
		return scan_threads(sc, pid);
	return r;
}

/* Whether pid runs in one of the query's mount namespaces; true when that cannot be told. */
static bool in_mntns(const struct tree_holder_query *q, int procfd, pid_t pid)
{
	char name[64];
	struct stat st;

	snprintf(name, sizeof(name), "%d/ns/mnt", pid);
	if (fstatat(procfd, name, &st, 0) < 0)
		return true;
	for (size_t i = 0; i < q->n_only_mntns; i++)
		if (q->only_mntns[i] == st.st_ino)
			return true;
	return false;
}

static int scan_all(const struct tree_holder_query *q, struct found *f, char *buf,
		    size_t *unreadable)
{
	size_t npids = 0, cap = 0;
	_cleanup_free_ pid_t *pids = NULL;
	_cleanup_close_ int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct scan sc;
	bool kcmp_ref;
	int r = 0;

	if (procfd < 0)
		return -errno;
	/* the pid list first: the same buffer then serves every fd directory */
	for (;;) {
		long n = syscall(SYS_getdents64, procfd, buf, 65536);
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			long pid = iso_parse_pid(d->d_name);
			off += d->d_reclen;
			if (pid <= 0 || (pid_t)pid == q->exclude)
				continue;
			if (npids == cap) {
				pid_t *np;
				cap = cap ? cap * 2 : 512;
				np = realloc(pids, cap * sizeof(*np));
				if (!np)
					return -ENOMEM;
				pids = np;
			}
			pids[npids++] = (pid_t)pid;
		}
	}
	kcmp_ref = kthreadd_is_reference(procfd);
	sc = (struct scan){ q, f, procfd, buf, 65536, unreadable };
	for (size_t i = 0; i < npids && r == 0; i++) {
		if (q->n_only_mntns && !q->n_pipes && !in_mntns(q, procfd, pids[i]))
			continue;
		if (q->n_read)
			(*q->n_read)++;
		r = scan_pid(&sc, pids[i], kcmp_ref);
	}
	return r;
}

int tree_find_holders(const struct tree_holder_query *q, struct tree_holder **ret,
		      size_t *ret_unreadable)
{
	struct found f = { .uid = geteuid() };
	struct tree_holder_query qq = *q;
	struct tree_treeid ids = { 0 };
	size_t unreadable = 0;
	_cleanup_free_ char *buf = malloc(65536);
	int r = 0;

	*ret = NULL;
	if (!buf)
		return -ENOMEM;
	if (q->tree && q->gone_dev) {
		/* nothing to walk: whatever is still held of it is on its device, unlinked */
		ids.root_dev = q->gone_dev;
		ids.root_ino = q->gone_ino;
		ids.partial = true;
		qq.ids = &ids;
	} else if (q->tree) {
		/* ls and gc open isorun's records beside a live run: holding them holds nothing */
		r = tree_treeid_build(&ids, q->walk ? q->walk : q->tree, tree_records);
		if (r < 0)
			return r;
		ids.alias_dev = q->alias_dev;
		qq.ids = &ids;
	}
	r = scan_all(&qq, &f, buf, &unreadable);
	tree_treeid_free(&ids);
	if (ret_unreadable)
		*ret_unreadable = unreadable;
	if (r < 0) {
		tree_holders_free(f.v, f.n);
		return r;
	}
	*ret = f.v;
	return (int)f.n;
}

void tree_holders_free(struct tree_holder *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(h[i].target);
	free(h);
}

static bool merely_unseen(const struct tree_holder *h)
{
	return h->pipe_index == TREE_HOLDER_UNREADABLE || h->pipe_index == TREE_HOLDER_OUTSIDE ||
	       h->pipe_index == TREE_HOLDER_STALLED;
}

const struct tree_holder *tree_holder_first(const struct tree_holder *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!merely_unseen(&h[i]))
			return &h[i];
	return n ? &h[0] : NULL;
}

size_t tree_holders_split_outside(struct tree_holder *h, size_t n)
{
	size_t k = 0;

	/* a stable partition: the holders keep the order the scan found them in */
	for (size_t i = 0; i < n; i++)
		if (h[i].pipe_index != TREE_HOLDER_OUTSIDE) {
			struct tree_holder keep = h[i];
			memmove(&h[k + 1], &h[k], (i - k) * sizeof(*h));
			h[k++] = keep;
		}
	return k;
}

/* The entries of h[0..n) whose pipe_index is `kind`, "pid N (comm), ..."; how many. */
static size_t list_kind(const struct tree_holder *h, size_t n, int kind, char *buf, size_t len)
{
	size_t used = 0, count = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		int w;

		if (kind != 0 && h[i].pipe_index != kind)
			continue;
		count++;
		if (used >= len)
			continue;
		w = snprintf(buf + used, len - used, "%spid %d (%s)", used ? ", " : "", h[i].pid,
			     h[i].target);
		if (w > 0)
			used += (size_t)w;
	}
	if (used >= len && len > 4)
		memcpy(buf + len - 4, "...", 4); /* cut short, and says so */
	return count;
}

void tree_holders_list(const struct tree_holder *h, size_t n, char *buf, size_t len)
{
	(void)list_kind(h, n, 0, buf, len);
}

/* Appends to the string in buf, truncating. */
static void __attribute__((format(printf, 3, 4)))
append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

#define UNSEEN_MINE                                                                                \
	"%s%s %s the caller's but cannot be inspected (not dumpable: fds, cwd and mappings "       \
	"unreadable)"
#define UNSEEN_OUTSIDE                                                                             \
	"%s%s %s outside isorun's user namespace, which cannot read %s (run isorun outside "       \
	"that namespace to measure %s)"
#define UNSEEN_STALLED                                                                             \
	"%smount%s in the namespace of %s could not be looked at within %d ms (a file system "     \
	"on the way stopped answering): part of the tree may be mounted there"

/*
 * Processes that could not be read, each kind in its own words.  The lists
 * share what the words leave of the message, so that what to do about it (run
 * isorun outside that namespace) is never the part cut off.
 */
static void describe_unseen(const struct tree_holder *h, size_t n, char *why, size_t len)
{
	char mine[400], outside[400], stalled[400], none[1];
	size_t nu = list_kind(h, n, TREE_HOLDER_UNREADABLE, none, 0);
	size_t no = list_kind(h, n, TREE_HOLDER_OUTSIDE, none, 0);
	size_t ns = list_kind(h, n, TREE_HOLDER_STALLED, none, 0);
	size_t kinds = !!nu + !!no + !!ns, words = sizeof("holders not measurable");
	size_t share;

	/* each format's length, and 16 for the short words its other %s take */
	words += (nu ? sizeof(UNSEEN_MINE) + 16 : 0) + (no ? sizeof(UNSEEN_OUTSIDE) + 16 : 0) +
		 (ns ? sizeof(UNSEEN_STALLED) + 16 : 0);
	share = kinds && len > words + 40 * kinds ? (len - words) / kinds : 40;
	if (share > sizeof(mine))
		share = sizeof(mine);
	(void)list_kind(h, n, TREE_HOLDER_UNREADABLE, mine, share);
	(void)list_kind(h, n, TREE_HOLDER_OUTSIDE, outside, share);
	(void)list_kind(h, n, TREE_HOLDER_STALLED, stalled, share);
	snprintf(why, len, "holders not measurable");
	if (nu)
		append(why, len, UNSEEN_MINE, ": ", mine, nu > 1 ? "are" : "is");
	if (no)
		append(why, len, UNSEEN_OUTSIDE, nu ? "; " : ": ", outside, no > 1 ? "run" : "runs",
		       no > 1 ? "them" : "it", no > 1 ? "them" : "it");
	if (ns)
		append(why, len, UNSEEN_STALLED, nu || no ? "; " : ": ", ns > 1 ? "s" : "", stalled,
		       ISO_READER_DEADLINE_MS);
}

void tree_holder_describe(const struct tree_holder *h, size_t n, const char *cmd, struct iso_err *e)
{
	char *why = iso_err_text(e);
	size_t len = sizeof(e->msg);

	if (!cmd)
		cmd = "?";
	if (merely_unseen(h))
		describe_unseen(h, n, why, len);
	else if (!strcmp(h->what, "cwd") || !strcmp(h->what, "root"))
		snprintf(why, len, "pid %d `%s` has its %s in it (%s)", h->pid, cmd, h->what,
			 h->target);
	else if (!strcmp(h->what, "exe"))
		snprintf(why, len, "pid %d `%s` runs a program from it (%s)", h->pid, cmd,
			 h->target);
	else if (!strcmp(h->what, "mapping"))
		snprintf(why, len, "pid %d `%s` has %s mapped", h->pid, cmd, h->target);
	else if (!strcmp(h->what, "mount"))
		snprintf(why, len, "part of it is mounted at %s (mount namespace of pid %d `%s`)",
			 h->target, h->pid, cmd);
	else
		snprintf(why, len, "pid %d `%s` holds %s open (%s)", h->pid, cmd, h->target,
			 h->what);
}

void tree_holders_strerror(int n, struct iso_err *e)
{
	if (n == -E2BIG)
		iso_err_set(e, 0,
			    "holders not measurable: more than %u entries to match by identity",
			    TREE_TREEID_MAX);
	else
		iso_err_set(e, n, "cannot inspect /proc for holders");
}
