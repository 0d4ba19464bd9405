/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's half of the service guard: receive one notification, read
 * the call's arguments from the target, decide, answer.
 *
 * Reading: process_vm_readv(), or /proc/PID/mem when that is refused (EPERM:
 * the two use different credentials; ENOSYS: a seccomp filter on us), one page
 * at a time so a string that ends just before an unmapped page still reads.
 * Bounded: ARGS_MAX arguments of ARG_LEN_MAX bytes each, ARGS_TOTAL_MAX in
 * all; a longer command line is decided on its beginning.  Every read is
 * followed by SECCOMP_IOCTL_NOTIF_ID_VALID before its bytes are used, so a pid
 * that died and was reused meanwhile is never answered on a stranger's memory.
 *
 * What cannot be read:
 *  - a bad pointer (EFAULT): the call continues and the kernel fails it with
 *    the same EFAULT;
 *  - a target we may not read (EPERM/EACCES both ways), or one outside our pid
 *    namespace: the call is refused and reported (origin "isorun: call
 *    arguments unreadable", detail the reason), because a guard that cannot
 *    see argv cannot tell `systemctl status` from `systemctl restart`.
 *
 * CONTINUE is advisory, not a boundary: the kernel reads the arguments again
 * after our answer, so another thread of the target can change them between
 * our check and the call.  This guards against accidents, not adversaries.
 *
 * ABIs: x86_64 numbers are compared directly; x32 (same audit arch, numbers
 * with __X32_SYSCALL_BIT) and i386 (AUDIT_ARCH_I386) are named through
 * libseccomp, and read with 4-byte argv pointers.  On i386, connect() also
 * arrives as socketcall(SYS_CONNECT, args), args being three 32-bit words.
 * (This VM has IA-32 emulation disabled at runtime, so the i386 path is not
 * exercised by the tests.)
 */
#include "policy/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/net.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/reach.h"
#include "policy/signal.h"

#define ARGS_MAX       256
#define ARG_LEN_MAX    4096
#define ARGS_TOTAL_MAX (64 * 1024)
#define X32_BIT	       0x40000000u

static const char unreadable_origin[] = "isorun: call arguments unreadable";

enum call {
	CALL_OTHER,
	CALL_EXECVE,
	CALL_EXECVEAT,
	CALL_CONNECT,
	CALL_SOCKETCALL,
	CALL_SIGNAL,
	CALL_REACH,
};

struct target {
	pid_t pid;
	int mem; /* /proc/PID/mem, opened on first need */
	bool use_mem;
	uint64_t addr_mask;		/* 32 bits on i386: the kernel ignores the upper half */
	enum pol_sig_kind sig_kind;	/* CALL_SIGNAL: which one */
	enum pol_reach_kind reach_kind; /* CALL_REACH: which one */
	unsigned ptr_size;		/* of argv entries */
	size_t page;
};

static void target_done(struct target *t)
{
	if (t->mem >= 0)
		close(t->mem);
	t->mem = -1;
}

static enum call signal_or_reach(const struct target *t)
{
	if (t->sig_kind != PSIG_NONE)
		return CALL_SIGNAL;
	return t->reach_kind == PREACH_NONE ? CALL_OTHER : CALL_REACH;
}

static enum call classify(const struct seccomp_notif *req, struct target *t)
{
	static const struct {
		const char *name;
		enum call call;
	} names[] = {
		{ "execve", CALL_EXECVE },
		{ "execveat", CALL_EXECVEAT },
		{ "connect", CALL_CONNECT },
		{ "socketcall", CALL_SOCKETCALL },
	};
	uint32_t arch = req->data.arch;
	_cleanup_free_ char *name = NULL;

	t->ptr_size = arch & __AUDIT_ARCH_64BIT ? 8 : 4;
	t->addr_mask = arch & __AUDIT_ARCH_64BIT ? UINT64_MAX : UINT32_MAX;
#ifdef __x86_64__
	if (arch == AUDIT_ARCH_X86_64) {
		if (!((uint32_t)req->data.nr & X32_BIT)) {
			switch (req->data.nr) {
			case SYS_execve:
				return CALL_EXECVE;
			case SYS_execveat:
				return CALL_EXECVEAT;
			case SYS_connect:
				return CALL_CONNECT;
			default:
				t->sig_kind = pol_signal_kind_nr(req->data.nr);
				t->reach_kind = pol_reach_kind_nr(req->data.nr);
				return signal_or_reach(t);
			}
		}
		arch = SCMP_ARCH_X32; /* x32 passes 64-bit registers, 4-byte argv entries */
		t->ptr_size = 4;
	}
#endif
	name = seccomp_syscall_resolve_num_arch(arch, req->data.nr);
	if (!name)
		return CALL_OTHER;
	for (size_t i = 0; i < ELEMENTSOF(names); i++)
		if (!strcmp(name, names[i].name))
			return names[i].call;
	t->sig_kind = pol_signal_kind(name);
	t->reach_kind = pol_reach_kind(name);
	return signal_or_reach(t);
}

/* One piece that does not cross a page: bytes read, or -errno. */
static ssize_t read_piece(struct target *t, uint64_t addr, void *buf, size_t len)
{
	ssize_t n;

	if (!t->use_mem) {
		struct iovec local = { buf, len };
		struct iovec remote = { (void *)(uintptr_t)addr, len };

		n = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
		if (n >= 0)
			return n;
		if (errno != EPERM && errno != ENOSYS)
			return -errno;
		t->use_mem = true;
	}
	if (t->mem < 0) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/mem", (int)t->pid);
		t->mem = open(path, O_RDONLY | O_CLOEXEC);
		if (t->mem < 0)
			return -errno;
	}
	if (addr > (uint64_t)INT64_MAX)
		return -EFAULT;
	n = pread(t->mem, buf, len, (off_t)addr);
	if (n < 0)
		return errno == EIO ? -EFAULT : -errno; /* EIO: nothing mapped there */
	return n;
}

static size_t page_left(const struct target *t, uint64_t addr)
{
	return t->page - (size_t)(addr & (t->page - 1));
}

/* Exactly len bytes, or -errno (-EFAULT when some of them are not mapped). */
static int read_bytes(struct target *t, uint64_t addr, void *buf, size_t len)
{
	unsigned char *out = buf;

	while (len > 0) {
		size_t piece = page_left(t, addr);
		ssize_t n;

		if (piece > len)
			piece = len;
		n = read_piece(t, addr, out, piece);
		if (n < 0)
			return (int)n;
		if ((size_t)n != piece)
			return -EFAULT;
		out += piece;
		addr += piece;
		len -= piece;
	}
	return 0;
}

/*
 * A NUL-terminated string of at most cap - 1 bytes into buf (always
 * terminated).  *trunc when it was longer.  Returns its length or -errno.
 */
static ssize_t read_string(struct target *t, uint64_t addr, char *buf, size_t cap, bool *trunc)
{
	size_t have = 0;

	*trunc = false;
	buf[0] = '\0';
	while (have < cap - 1) {
		size_t piece = page_left(t, addr);
		char *nul;
		ssize_t n;

		if (piece > cap - 1 - have)
			piece = cap - 1 - have;
		n = read_piece(t, addr, buf + have, piece);
		if (n <= 0) {
			buf[have] = '\0';
			return n < 0 ? n : -EFAULT;
		}
		nul = memchr(buf + have, '\0', (size_t)n);
		if (nul)
			return nul - buf;
		have += (size_t)n;
		addr += (uint64_t)n;
	}
	buf[have] = '\0';
	*trunc = true;
	return (ssize_t)have;
}

/* Up to max pointers of a NULL-terminated array; *trunc when there were more. */
static int read_pointers(struct target *t, uint64_t addr, uint64_t *out, size_t max, size_t *ret_n,
			 bool *trunc)
{
	unsigned char raw[512];
	size_t n = 0;
	int r;

	*ret_n = 0;
	*trunc = false;
	if (!addr) /* execve(path, NULL, ...): an empty argv */
		return 0;
	while (n < max) {
		size_t piece = page_left(t, addr);

		if (piece > sizeof(raw))
			piece = sizeof(raw);
		if (piece > (max - n) * t->ptr_size)
			piece = (max - n) * t->ptr_size;
		piece -= piece % t->ptr_size;
		if (piece == 0) /* a misaligned pointer across a page boundary */
			piece = t->ptr_size;
		r = read_bytes(t, addr, raw, piece);
		if (r < 0)
			return r;
		for (size_t off = 0; off < piece; off += t->ptr_size) {
			uint64_t v;

			if (t->ptr_size == 4) {
				uint32_t v32;

				memcpy(&v32, raw + off, 4);
				v = v32;
			} else {
				memcpy(&v, raw + off, 8);
			}
			if (!v) {
				*ret_n = n;
				return 0;
			}
			out[n++] = v;
		}
		addr += piece;
	}
	*ret_n = n;
	*trunc = true; /* whether a NULL follows or not: more than we read */
	return 0;
}

/* The target's view of a relative name: /proc/PID/cwd or /proc/PID/fd/DIRFD. */
static void resolve_link(pid_t pid, const char *what, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/%s", (int)pid, what);
	n = readlink(link, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
}

struct exec_call {
	char path[PATH_MAX];
	char *argv[ARGS_MAX + 1];
	size_t argc;
	bool truncated;
	char *strings; /* ARGS_TOTAL_MAX bytes */
	char *scratch; /* FAST_SCRATCH bytes: the pieces read at once, before they are cut */
};

/* Per argument at first: most are shorter, a longer one is read on from there. */
#define FAST_PIECE 256
/* the argv array is read a piece of at most this many pointers at first */
#define FAST_ARGS    64
#define FAST_SCRATCH (FAST_ARGS * FAST_PIECE)

/*
 * Argument i from its prefetched piece, read on from the target where the piece
 * held no NUL, with read_exec()'s bounds: bytes used in x->strings (0 and
 * x->truncated: no room left), or -errno.
 */
static ssize_t take_string(struct target *t, uint64_t addr, const struct iovec *piece,
			   struct exec_call *x, size_t used)
{
	size_t cap = ARGS_TOTAL_MAX - used, have = piece->iov_len;
	char *out = x->strings + used;
	const char *nul;
	bool trunc = false;
	ssize_t more;

	cap = cap < ARG_LEN_MAX ? cap : ARG_LEN_MAX;
	if (cap < 2) {
		x->truncated = true;
		return 0;
	}
	have = have < cap - 1 ? have : cap - 1;
	memcpy(out, piece->iov_base, have);
	nul = memchr(out, '\0', have);
	if (nul) {
		have = (size_t)(nul - out);
	} else if (have == cap - 1) {
		out[have] = '\0';
		trunc = true;
	} else {
		more = read_string(t, addr + have, out + have, cap - have, &trunc);
		if (more < 0)
			return more;
		have += (size_t)more;
	}
	x->argv[x->argc++] = out;
	x->truncated |= trunc;
	return (ssize_t)have + 1;
}

/*
 * The common exec in few system calls: each process_vm_readv() is a permission
 * check and, on a forked child's copy-on-write pages, an unshare; one call per
 * string cost a shell's `sh -c ...` five.  First the path and the argv array
 * together, then every argument at once, each as far as its page goes.  Returns
 * 1 when everything was whole, 0 when the careful path must read it (a string
 * or the array crossing a page, an unreadable piece, /proc/PID/mem needed).
 */
static int read_exec_fast(struct target *t, uint64_t path_addr, uint64_t argv_addr,
			  struct exec_call *x)
{
	size_t plen = page_left(t, path_addr), alen = page_left(t, argv_addr), used = 0, n = 0;
	unsigned char raw[FAST_ARGS * 8];
	struct iovec local[FAST_ARGS], remote[FAST_ARGS];
	uint64_t ptrs[FAST_ARGS];
	size_t want = 0;
	ssize_t got;

	if (t->use_mem || t->ptr_size != 8 || !argv_addr)
		return 0;
	plen = plen < sizeof(x->path) ? plen : sizeof(x->path) - 1;
	alen = alen < sizeof(raw) ? alen - alen % 8 : sizeof(raw);
	local[0] = (struct iovec){ x->path, plen };
	local[1] = (struct iovec){ raw, alen };
	remote[0] = (struct iovec){ (void *)(uintptr_t)path_addr, plen };
	remote[1] = (struct iovec){ (void *)(uintptr_t)argv_addr, alen };
	if (alen == 0 ||
	    process_vm_readv(t->pid, local, 2, remote, 2, 0) != (ssize_t)(plen + alen) ||
	    !memchr(x->path, '\0', plen))
		return 0;
	for (;; n++) {
		if (n * 8 >= alen)
			return 0; /* the array goes on past what was read */
		memcpy(&ptrs[n], raw + n * 8, 8);
		if (!ptrs[n])
			break;
	}
	for (size_t i = 0; i < n; i++) {
		size_t piece = page_left(t, ptrs[i]);

		piece = piece < FAST_PIECE ? piece : FAST_PIECE;
		local[i] = (struct iovec){ x->scratch + want, piece };
		remote[i] = (struct iovec){ (void *)(uintptr_t)ptrs[i], piece };
		want += piece;
	}
	got = n ? process_vm_readv(t->pid, local, n, remote, n, 0) : 0;
	if (got != (ssize_t)want)
		return 0;
	for (size_t i = 0; i < n; i++) {
		ssize_t len = take_string(t, ptrs[i], &local[i], x, used);

		if (len < 0)
			return 0;
		if (len == 0 && x->truncated)
			break;
		used += (size_t)len;
	}
	x->argv[x->argc] = NULL;
	return 1;
}

static int read_exec(struct target *t, const struct seccomp_notif *req, enum call c,
		     struct exec_call *x)
{
	uint64_t path_addr = c == CALL_EXECVE ? req->data.args[0] : req->data.args[1];
	uint64_t argv_addr = c == CALL_EXECVE ? req->data.args[1] : req->data.args[2];
	uint64_t ptrs[ARGS_MAX];
	size_t n, used = 0;
	bool trunc;
	ssize_t len;
	int r;

	x->argc = 0;
	x->argv[0] = NULL;
	x->truncated = false;
	if (!(c == CALL_EXECVEAT && (req->data.args[4] & AT_EMPTY_PATH)) &&
	    read_exec_fast(t, path_addr & t->addr_mask, argv_addr & t->addr_mask, x) > 0)
		return 0;
	x->argc = 0;
	x->truncated = false;
	len = read_string(t, path_addr & t->addr_mask, x->path, sizeof(x->path), &trunc);
	if (len < 0)
		return (int)len;
	if (c == CALL_EXECVEAT && len == 0 && (req->data.args[4] & AT_EMPTY_PATH)) {
		/* fexecve(): the program is the file behind the descriptor */
		char fd[32];

		snprintf(fd, sizeof(fd), "fd/%d", (int)req->data.args[0]);
		resolve_link(t->pid, fd, x->path, sizeof(x->path));
	}

	r = read_pointers(t, argv_addr & t->addr_mask, ptrs, ARGS_MAX, &n, &x->truncated);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		size_t cap = ARGS_TOTAL_MAX - used;

		if (cap > ARG_LEN_MAX)
			cap = ARG_LEN_MAX;
		if (cap < 2) {
			x->truncated = true;
			break;
		}
		len = read_string(t, ptrs[i] & t->addr_mask, x->strings + used, cap, &trunc);
		if (len < 0)
			return (int)len;
		x->argv[x->argc++] = x->strings + used;
		used += (size_t)len + 1;
		x->truncated |= trunc;
	}
	x->argv[x->argc] = NULL;
	return 0;
}

struct connect_call {
	char path[512]; /* absolute: as written, or joined to the target's cwd */
	struct stat st; /* the socket it leads to for the target ... */
	bool have_st;	/* ... when there is one */
};

/* /proc/self and /proc/thread-self are the target's, not ours: NULL or the rest. */
static const char *proc_self_rest(const char *norm)
{
	static const char *const prefixes[] = { "/proc/self", "/proc/thread-self" };

	for (size_t i = 0; i < ELEMENTSOF(prefixes); i++) {
		size_t n = strlen(prefixes[i]);

		if (!strncmp(norm, prefixes[i], n) && (norm[n] == '/' || norm[n] == '\0'))
			return norm + n;
	}
	return NULL;
}

/*
 * What the kernel will connect to, found the way it will walk the path: from the
 * target's root (/proc/PID/root, so an absolute symlink stays inside it), through
 * every "..", symlink and mount.  RESOLVE_IN_ROOT refuses magic links, so a path
 * through /proc/PID/fd/N is walked again without it; /proc/self would be us.
 */
static void resolve_socket(pid_t pid, struct connect_call *c)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	char norm[PATH_MAX], buf[PATH_MAX + 64];
	const char *rest = NULL;
	int fd = -1;

	if (pol_path_normalize(c->path, norm, sizeof(norm)) == 0)
		rest = proc_self_rest(norm);
	if (rest) {
		snprintf(buf, sizeof(buf), "/proc/%d%s", (int)pid, rest);
		fd = open(buf, O_PATH | O_CLOEXEC);
	} else {
		snprintf(buf, sizeof(buf), "/proc/%d/root", (int)pid);
		_cleanup_close_ int root = open(buf, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (root >= 0)
			fd = (int)syscall(SYS_openat2, root, c->path, &how, sizeof(how));
		if (fd < 0 && root >= 0) {
			snprintf(buf, sizeof(buf), "/proc/%d/root%s", (int)pid, c->path);
			fd = open(buf, O_PATH | O_CLOEXEC);
		}
	}
	if (fd < 0)
		return; /* nothing there for us: nothing there to connect to either */
	c->have_st = fstat(fd, &c->st) == 0 && S_ISSOCK(c->st.st_mode);
	close(fd);
}

/* A deny-socket rule naming the same socket by any other path. */
static struct pol_verdict connect_by_identity(const struct pol *p, const struct connect_call *c)
{
	struct pol_verdict v = { .refuse = false, .origin = NULL };

	for (size_t i = 0; c->have_st && i < p->n_socket; i++) {
		struct stat st;

		if (stat(p->socket[i].path, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_dev == c->st.st_dev && st.st_ino == c->st.st_ino) {
			v.refuse = true;
			v.origin = p->socket[i].origin;
			break;
		}
	}
	return v;
}

/* connect()'s AF_UNIX path and the socket behind it ("" for other families and abstract names). */
static int read_connect(struct target *t, const struct seccomp_notif *req, enum call c,
			struct connect_call *cc)
{
	struct sockaddr_un sun;
	uint64_t addr = req->data.args[1];
	uint64_t addrlen = req->data.args[2];
	size_t n, plen;
	int r;

	cc->path[0] = '\0';
	cc->have_st = false;
	if (c == CALL_SOCKETCALL) {
		uint32_t words[3];

		if (req->data.args[0] != SYS_CONNECT)
			return 0;
		r = read_bytes(t, req->data.args[1] & UINT32_MAX, words, sizeof(words));
		if (r < 0)
			return r;
		addr = words[1];
		addrlen = words[2];
	}
	addrlen &= UINT32_MAX; /* socklen_t */
	if (addrlen <= offsetof(struct sockaddr_un, sun_path))
		return 0;
	n = addrlen < sizeof(sun) ? (size_t)addrlen : sizeof(sun);
	memset(&sun, 0, sizeof(sun));
	r = read_bytes(t, addr & t->addr_mask, &sun, n);
	if (r < 0)
		return r;
	if (sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
		return 0; /* abstract names live in the network namespace */
	plen = strnlen(sun.sun_path, n - offsetof(struct sockaddr_un, sun_path));
	if (sun.sun_path[0] == '/') {
		snprintf(cc->path, sizeof(cc->path), "%.*s", (int)plen, sun.sun_path);
	} else {
		char cwd[PATH_MAX];

		resolve_link(t->pid, "cwd", cwd, sizeof(cwd));
		/* longer than any rule (struct pol_socket): cannot match */
		if (cwd[0] != '/' || snprintf(cc->path, sizeof(cc->path), "%s/%.*s", cwd, (int)plen,
					      sun.sun_path) >= (int)sizeof(cc->path))
			cc->path[0] = '\0';
	}
	if (cc->path[0])
		resolve_socket(t->pid, cc);
	return 0;
}

/* argv joined with spaces, control characters as '?', "..." when cut. */
static void format_detail(char *out, size_t len, const struct exec_call *x)
{
	const char *path_only[] = { x->path };
	const char *const *argv = x->argc ? (const char *const *)x->argv : path_only;
	size_t argc = x->argc ? x->argc : 1;
	bool cut = false;
	size_t o = 0;

	for (size_t i = 0; i < argc && !cut; i++) {
		const char *a = argv[i];

		if (i > 0 && o + 1 < len)
			out[o++] = ' ';
		for (; *a && o + 1 < len; a++)
			out[o++] = (unsigned char)*a < 0x20 || *a == 0x7f ? '?' : *a;
		if (*a || (i + 1 < argc && o + 1 >= len))
			cut = true;
	}
	cut |= x->truncated;
	out[o] = '\0';
	if (cut) {
		if (o > len - 4)
			o = len - 4;
		memcpy(out + o, "...", 4);
	}
}

static int respond(int listener, const struct seccomp_notif *req, struct seccomp_notif_resp *resp,
		   bool refuse)
{
	int r;

	resp->id = req->id;
	resp->val = 0;
	resp->error = refuse ? -EPERM : 0;
	resp->flags = refuse ? 0 : SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	r = seccomp_notify_respond(listener, resp);
	/* libseccomp says -ECANCELED for any ioctl failure: errno is the cause */
	if (r == -ECANCELED && errno)
		return -errno;
	return r < 0 ? r : 0;
}

static void resp_freep(struct seccomp_notif_resp **resp)
{
	if (*resp)
		seccomp_notify_free(NULL, *resp);
}

static void req_freep(struct seccomp_notif **req)
{
	if (*req)
		seccomp_notify_free(*req, NULL);
}

int pol_notify_handle(int listener, const struct pol *p, bool log_only, struct pol_event *ret)
{
	return pol_notify_handle_exec(listener, p, log_only, ret, NULL, NULL, NULL);
}

/*
 * Everything read from the target for one call: the reader's job, so that a
 * read the target makes wait (common/reader.h) never holds the supervisor.
 * Owned by the reader when it overran.
 */
struct read_job {
	struct target t;
	struct seccomp_notif req;
	enum call c;
	struct exec_call *x; /* an exec; else sock */
	struct connect_call sock;
	int r;
};

static void read_job_run(void *arg)
{
	struct read_job *j = arg;

	if (j->t.pid <= 0)
		j->r = -ESRCH;
	else if (j->x)
		j->r = read_exec(&j->t, &j->req, j->c, j->x);
	else
		j->r = read_connect(&j->t, &j->req, j->c, &j->sock);
	target_done(&j->t);
}

static void read_job_free(void *arg)
{
	struct read_job *j = arg;

	free(j->x);
	free(j);
}

static void read_jobp_free(struct read_job **j)
{
	if (*j)
		read_job_free(*j);
}

static struct read_job *read_job_new(const struct seccomp_notif *req, enum call c,
				     const struct target *t)
{
	struct read_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->t = *t;
	j->req = *req;
	j->c = c;
	if (c != CALL_EXECVE && c != CALL_EXECVEAT)
		return j;
	j->x = malloc(sizeof(*j->x) + ARGS_TOTAL_MAX + FAST_SCRATCH);
	if (!j->x) {
		free(j);
		return NULL;
	}
	j->x->strings = (char *)(j->x + 1);
	j->x->scratch = j->x->strings + ARGS_TOTAL_MAX;
	return j;
}

/*
 * The call's arguments, read through rd: 0 or -errno, *ret_job NULL when the
 * read overran (the job is the reader's then) or could not be made.
 */
static int read_call(struct iso_reader *rd, const struct seccomp_notif *req, enum call c,
		     const struct target *t, struct read_job **ret_job)
{
	struct read_job *job = read_job_new(req, c, t);
	int r = job ? iso_reader_run(rd, read_job_run, job, read_job_free) : -ENOMEM;

	if (r == -ETIMEDOUT)
		job = NULL;
	else if (r == 0)
		r = job->r;
	*ret_job = job;
	return r;
}

int pol_notify_handle_exec(int listener, const struct pol *p, bool log_only, struct pol_event *ret,
			   pol_exec_fn on_exec, void *arg, struct iso_reader *rd)
{
	return pol_notify_handle_run(listener, p, log_only, ret, on_exec, arg, rd, NULL);
}

/* The event of a refused (or logged) exec or connect, its detail filled in. */
static struct pol_event refusal(const struct pol_event *ev, const struct exec_call *x,
				const struct connect_call *sock, const char *origin, bool log_only)
{
	struct pol_event e = *ev;

	if (!e.detail[0]) {
		if (x)
			format_detail(e.detail, sizeof(e.detail), x);
		else if (sock)
			snprintf(e.detail, sizeof(e.detail), "%s", sock->path);
	}
	e.origin = origin;
	e.refused = !log_only;
	return e;
}

/*
 * The verdict on an exec or connect whose arguments read_call() returned (r):
 * 1 when the kernel's own answer stands (a bad pointer), else 0 with *v and,
 * for a call that could not be read, why in detail.
 */
static int judge(const struct pol *p, int r, const struct exec_call *x,
		 const struct connect_call *sock, const struct iso_reader *rd,
		 struct pol_verdict *v, char *detail, size_t len)
{
	switch (r) {
	case 0:
		*v = x ? pol_decide_exec(p, x->path, x->argv) : pol_decide_connect(p, sock->path);
		if (!x && !v->refuse)
			*v = connect_by_identity(p, sock);
		return 0;
	case -EFAULT: /* a bad pointer: the kernel fails the call the same way */
		return 1;
	case -ETIMEDOUT:
		snprintf(detail, len,
			 "(not read within %u ms: the target's memory made the read wait)",
			 rd ? rd->deadline_ms : 0);
		break;
	default:
		/* ESRCH with a valid id: invisible in our pid namespace (pid 0) */
		snprintf(detail, len, "(%s)", strerror(-r));
		break;
	}
	v->refuse = true;
	v->origin = unreadable_origin;
	return 0;
}

int pol_notify_handle_run(int listener, const struct pol *p, bool log_only, struct pol_event *ret,
			  pol_exec_fn on_exec, void *arg, struct iso_reader *rd,
			  const struct pol_run *run)
{
	_cleanup_(req_freep) struct seccomp_notif *req = NULL;
	_cleanup_(resp_freep) struct seccomp_notif_resp *resp = NULL;
	_cleanup_(read_jobp_free) struct read_job *job = NULL;
	struct target t = { .mem = -1 };
	struct exec_call *x = NULL;
	struct pol_verdict v = { false, NULL };
	struct pol_event ev;
	struct connect_call *sock;
	enum call c;
	int r;

	if (!p)
		return -EINVAL;
	r = seccomp_notify_alloc(&req, &resp);
	if (r < 0)
		return r;
	/* seccomp_notify_alloc() zeroes it: the kernel refuses a request that is not */
	r = seccomp_notify_receive(listener, req);
	if (r == -ECANCELED && errno)
		return -errno; /* ENOENT: the target went away first */
	if (r < 0)
		return r;

	memset(&ev, 0, sizeof(ev));
	ev.pid = (pid_t)req->pid;
	t.pid = (pid_t)req->pid;
	t.page = (size_t)sysconf(_SC_PAGESIZE);
	c = classify(req, &t);
	if (c == CALL_EXECVE || c == CALL_EXECVEAT) {
		if ((p->n_guard == 0 && !on_exec))
			return respond(listener, req, resp, false);
		snprintf(ev.call, sizeof(ev.call), "%s", c == CALL_EXECVE ? "execve" : "execveat");
	} else if (c == CALL_SIGNAL) {
		return pol_signal_handle(listener, req, t.sig_kind, t.ptr_size == 4, p, log_only,
					 ret, rd, run);
	} else if (c == CALL_REACH) {
		return pol_reach_handle(listener, req, t.reach_kind, t.ptr_size == 4, p, log_only,
					ret, rd, run);
	} else if (c == CALL_CONNECT || c == CALL_SOCKETCALL) {
		if (p->n_socket == 0)
			return respond(listener, req, resp, false);
		snprintf(ev.call, sizeof(ev.call), "connect");
	} else {
		return respond(listener, req, resp, false);
	}
	r = read_call(rd, req, c, &t, &job);
	x = job ? job->x : NULL;
	sock = job ? &job->sock : NULL;

	/* between reading the target's memory and using it */
	if (seccomp_notify_id_valid(listener, req->id) < 0)
		return -ENOENT;

	if (judge(p, r, x, sock, rd, &v, ev.detail, sizeof(ev.detail)))
		return respond(listener, req, resp, false);
	if (!v.refuse) {
		/*
		 * Before the answer: until then a parent that waits for its child's
		 * exec (vfork, posix_spawn, Go, Python's subprocess, libuv) is still
		 * there to be its parent; answered first, a Go test binary that
		 * returned from cmd.Start() could exit before the record was made,
		 * and its leak lost "during go test".
		 */
		if (r == 0 && x && on_exec)
			on_exec((pid_t)req->pid, x->argv, x->argc, arg);
		return respond(listener, req, resp, false);
	}

	r = respond(listener, req, resp, !log_only);
	if (r < 0)
		return r; /* ENOENT: interrupted; a restarted call is notified again */
	if (ret)
		*ret = refusal(&ev, x, sock, v.origin, log_only);
	return 1;
}
