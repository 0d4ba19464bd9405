/* SPDX-License-Identifier: MIT */
/*
 * The supervisor's half of the service guard: receive one notification and
 * offer it to each rule kind's handler in the order of policy/kinds.c, as crun
 * offers it to its seccomp-notify plugins; the first that takes it answers it,
 * and a call no kind takes continues.  What every handler shares is here: the
 * answer, the refusal and its event, the lookup of a call by ABI, and reading
 * a call's arguments from the target on the reader (exec's argv here, for the
 * guard kind and the exec log; connect's address in policy/kind_socket.c).
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
 * libseccomp, and read with 4-byte argv pointers.  (This VM has IA-32
 * emulation disabled at runtime, so the i386 path is not exercised by the
 * tests.)
 */
#include "policy/kind.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common/cleanup.h"

#define ARGS_MAX       POL_ARGS_MAX
#define ARG_LEN_MAX    4096
#define ARGS_TOTAL_MAX POL_ARGS_TOTAL_MAX
#define X32_BIT	       0x40000000u

const char pol_unreadable_origin[] = "isorun: call arguments unreadable";

struct pol_target {
	pid_t pid;
	int mem; /* /proc/PID/mem, opened on first need */
	bool use_mem;
	uint64_t addr_mask; /* 32 bits on i386: the kernel ignores the upper half */
	unsigned ptr_size;  /* of argv entries */
	size_t page;
};

static void target_done(struct pol_target *t)
{
	if (t->mem >= 0)
		close(t->mem);
	t->mem = -1;
}

/* The call's ABI: x86_64's own numbers, or its name through libseccomp (malloc'ed). */
static char *abi(const struct seccomp_notif *req, struct pol_target *t, bool *native)
{
	uint32_t arch = req->data.arch;

	t->ptr_size = arch & __AUDIT_ARCH_64BIT ? 8 : 4;
	t->addr_mask = arch & __AUDIT_ARCH_64BIT ? UINT64_MAX : UINT32_MAX;
	*native = false;
#ifdef __x86_64__
	if (arch == AUDIT_ARCH_X86_64) {
		if (!((uint32_t)req->data.nr & X32_BIT)) {
			*native = true;
			return NULL;
		}
		arch = SCMP_ARCH_X32; /* x32 passes 64-bit registers, 4-byte argv entries */
		t->ptr_size = 4;
	}
#endif
	return seccomp_syscall_resolve_num_arch(arch, req->data.nr);
}

/* One piece that does not cross a page: bytes read, or -errno. */
static ssize_t read_piece(struct pol_target *t, uint64_t addr, void *buf, size_t len)
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

static size_t page_left(const struct pol_target *t, uint64_t addr)
{
	return t->page - (size_t)(addr & (t->page - 1));
}

/* Exactly len bytes, or -errno (-EFAULT when some of them are not mapped). */
static int read_bytes(struct pol_target *t, uint64_t addr, void *buf, size_t len)
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
static ssize_t read_string(struct pol_target *t, uint64_t addr, char *buf, size_t cap, bool *trunc)
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
static int read_pointers(struct pol_target *t, uint64_t addr, uint64_t *out, size_t max,
			 size_t *ret_n, bool *trunc)
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

void pol_target_link(pid_t pid, const char *what, char *out, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/%d/%s", (int)pid, what);
	n = readlink(link, out, len - 1);
	out[n > 0 ? n : 0] = '\0';
}

int pol_target_read(struct pol_target *t, uint64_t addr, void *buf, size_t len)
{
	return read_bytes(t, addr & t->addr_mask, buf, len);
}

pid_t pol_target_pid(const struct pol_target *t)
{
	return t->pid;
}

/* Per argument at first: most are shorter, a longer one is read on from there. */
#define FAST_PIECE 256
/* the argv array is read a piece of at most this many pointers at first */
#define FAST_ARGS    64
#define FAST_SCRATCH (FAST_ARGS * FAST_PIECE)
_Static_assert(FAST_SCRATCH == POL_ARGS_SCRATCH, "kind.h sizes the exec's buffers");

/*
 * Argument i from its prefetched piece, read on from the target where the piece
 * held no NUL, with read_exec()'s bounds: bytes used in x->strings (0 and
 * x->truncated: no room left), or -errno.
 */
static ssize_t take_string(struct pol_target *t, uint64_t addr, const struct iovec *piece,
			   struct pol_exec_args *x, size_t used)
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
static int read_exec_fast(struct pol_target *t, uint64_t path_addr, uint64_t argv_addr,
			  struct pol_exec_args *x)
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

static int read_exec(struct pol_target *t, const struct seccomp_notif *req, bool at,
		     struct pol_exec_args *x)
{
	uint64_t path_addr = !at ? req->data.args[0] : req->data.args[1];
	uint64_t argv_addr = !at ? req->data.args[1] : req->data.args[2];
	uint64_t ptrs[ARGS_MAX];
	size_t n, used = 0;
	bool trunc;
	ssize_t len;
	int r;

	x->argc = 0;
	x->argv[0] = NULL;
	x->truncated = false;
	if (!(at && (req->data.args[4] & AT_EMPTY_PATH)) &&
	    read_exec_fast(t, path_addr & t->addr_mask, argv_addr & t->addr_mask, x) > 0)
		return 0;
	x->argc = 0;
	x->truncated = false;
	len = read_string(t, path_addr & t->addr_mask, x->path, sizeof(x->path), &trunc);
	if (len < 0)
		return (int)len;
	if (at && len == 0 && (req->data.args[4] & AT_EMPTY_PATH)) {
		/* fexecve(): the program is the file behind the descriptor */
		char fd[32];

		snprintf(fd, sizeof(fd), "fd/%d", (int)req->data.args[0]);
		pol_target_link(t->pid, fd, x->path, sizeof(x->path));
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

/* argv joined with spaces, control characters as '?', "..." when cut. */
void pol_exec_detail(const void *args, char *out, size_t len)
{
	const struct pol_exec_args *x = args;
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

/* x's buffers follow it in one allocation of POL_EXEC_ARGS_SIZE. */
static void exec_args_init(struct pol_exec_args *x)
{
	x->strings = (char *)(x + 1);
	x->scratch = x->strings + ARGS_TOTAL_MAX;
}

int pol_exec_read(struct pol_target *t, const struct seccomp_notif *req, void *args)
{
	exec_args_init(args);
	return read_exec(t, req, false, args);
}

int pol_execat_read(struct pol_target *t, const struct seccomp_notif *req, void *args)
{
	exec_args_init(args);
	return read_exec(t, req, true, args);
}

/* --- answers: shared by every kind's handler ------------------------------------- */

bool pol_notif_is(const struct pol_notif *n, long nr, const char *name)
{
	if (n->native)
		return nr >= 0 && n->req->data.nr == nr;
	return n->name && !strcmp(n->name, name);
}

int pol_call_kind(const struct pol_notif *n, const struct pol_call_name *calls, size_t ncalls)
{
	for (size_t i = 0; i < ncalls; i++)
		if (pol_notif_is(n, calls[i].nr, calls[i].name))
			return calls[i].kind;
	return 0;
}

const char *pol_call_kind_name(const struct pol_call_name *calls, size_t ncalls, int kind)
{
	for (size_t i = 0; i < ncalls; i++)
		if (calls[i].kind == kind)
			return calls[i].name;
	return "?";
}

int pol_notif_answer(const struct pol_notif *n, int error, bool cont)
{
	struct seccomp_notif_resp resp = {
		.id = n->req->id,
		.error = error,
		.flags = cont ? SECCOMP_USER_NOTIF_FLAG_CONTINUE : 0,
	};

	if (ioctl(n->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
		return -errno;
	return 0;
}

int pol_notif_id_valid(const struct pol_notif *n)
{
	return ioctl(n->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->req->id) < 0 ? -errno : 0;
}

int pol_notif_refuse(const struct pol_notif *n, const char *call, const char *origin,
		     const char *detail)
{
	int r = pol_notif_answer(n, n->log_only ? 0 : -EPERM, n->log_only);

	if (r < 0)
		return r; /* ENOENT: interrupted; a restarted call is notified again */
	if (n->ret) {
		memset(n->ret, 0, sizeof(*n->ret));
		n->ret->pid = (pid_t)n->req->pid;
		snprintf(n->ret->call, sizeof(n->ret->call), "%s", call);
		snprintf(n->ret->detail, sizeof(n->ret->detail), "%s", detail);
		n->ret->origin = origin;
		n->ret->refused = !n->log_only;
	}
	return 1;
}

int pol_notif_overran(const struct pol_notif *n, const char *call, const char *what)
{
	char why[160];

	snprintf(why, sizeof(why), "(not read within %u ms: %s made the read wait)",
		 n->rd ? n->rd->deadline_ms : 0, what);
	return pol_notif_refuse(n, call, pol_unreadable_origin, why);
}

/* --- a call's arguments, read on the reader -------------------------------------- */

/*
 * Everything read from the target for one call: the reader's job, so that a
 * read the target makes wait (common/reader.h) never holds the supervisor.
 * Owned by the reader when it overran.
 */
struct read_job {
	struct pol_target t;
	struct seccomp_notif req;
	int (*read)(struct pol_target *t, const struct seccomp_notif *req, void *args);
	void *args;
	int r;
};

static void read_job_run(void *arg)
{
	struct read_job *j = arg;

	j->r = j->t.pid <= 0 ? -ESRCH : j->read(&j->t, &j->req, j->args);
	target_done(&j->t);
}

static void read_job_free(void *arg)
{
	struct read_job *j = arg;

	free(j->args);
	free(j);
}

static void read_jobp_free(struct read_job **j)
{
	if (*j)
		read_job_free(*j);
}

static struct read_job *read_job_new(const struct pol_notif *n, const struct pol_target *t,
				     const struct pol_args_ops *ops)
{
	struct read_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->t = *t;
	j->req = *n->req;
	j->read = ops->read;
	/* not zeroed: the exec's 80 KiB are written as they are read */
	j->args = malloc(ops->size);
	if (!j->args) {
		free(j);
		return NULL;
	}
	return j;
}

/*
 * The call's arguments, read through rd: 0 or -errno, *ret_job NULL when the
 * read overran (the job is the reader's then) or could not be made.
 */
static int read_call(const struct pol_notif *n, const struct pol_target *t,
		     const struct pol_args_ops *ops, struct read_job **ret_job)
{
	struct read_job *job = read_job_new(n, t, ops);
	int r = job ? iso_reader_run(n->rd, read_job_run, job, read_job_free) : -ENOMEM;

	if (r == -ETIMEDOUT)
		job = NULL;
	else if (r == 0)
		r = job->r;
	*ret_job = job;
	return r;
}

/*
 * The verdict on a call whose arguments read_call() returned (r): 1 when the
 * kernel's own answer stands (a bad pointer), else 0 with *v and, for a call
 * that could not be read, why in detail.
 */
static int judge(const struct pol_notif *n, const struct pol_args_ops *ops, int r, const void *args,
		 struct pol_verdict *v, char *detail, size_t len)
{
	switch (r) {
	case 0:
		*v = ops->decide(n->p, args);
		return 0;
	case -EFAULT: /* a bad pointer: the kernel fails the call the same way */
		return 1;
	case -ETIMEDOUT:
		snprintf(detail, len,
			 "(not read within %u ms: the target's memory made the read wait)",
			 n->rd ? n->rd->deadline_ms : 0);
		break;
	default:
		/* ESRCH with a valid id: invisible in our pid namespace (pid 0) */
		snprintf(detail, len, "(%s)", strerror(-r));
		break;
	}
	v->refuse = true;
	v->origin = pol_unreadable_origin;
	return 0;
}

int pol_notif_args(const struct pol_notif *n, const struct pol_args_ops *ops)
{
	_cleanup_(read_jobp_free) struct read_job *job = NULL;
	struct pol_target t = { .mem = -1, .pid = (pid_t)n->req->pid };
	struct pol_verdict v = { false, NULL };
	char detail[sizeof(n->ret->detail)] = "";
	void *args;
	int r;

	t.page = (size_t)sysconf(_SC_PAGESIZE);
	t.ptr_size = n->compat ? 4 : 8; /* x32: 4-byte pointers in 64-bit registers */
	t.addr_mask = n->req->data.arch & __AUDIT_ARCH_64BIT ? UINT64_MAX : UINT32_MAX;
	r = read_call(n, &t, ops, &job);
	args = job ? job->args : NULL;
	/* between reading the target's memory and using it */
	if (pol_notif_id_valid(n) < 0)
		return -ENOENT;
	if (judge(n, ops, r, args, &v, detail, sizeof(detail)))
		return pol_notif_answer(n, 0, true);
	if (!v.refuse) {
		/*
		 * Before the answer: until then a parent that waits for its child's
		 * exec (vfork, posix_spawn, Go, Python's subprocess, libuv) is still
		 * there to be its parent; answered first, a Go test binary that
		 * returned from cmd.Start() could exit before the record was made,
		 * and its leak lost "during go test".
		 */
		if (r == 0 && ops->passed)
			ops->passed(n, args);
		return pol_notif_answer(n, 0, true);
	}
	if (!detail[0])
		ops->detail(args, detail, sizeof(detail));
	return pol_notif_refuse(n, ops->call, v.origin, detail);
}

/* --- one notification, asked of each kind in turn -------------------------------- */

static void req_freep(struct seccomp_notif **req)
{
	if (*req)
		seccomp_notify_free(*req, NULL);
}

int pol_notify_handle(int listener, const struct pol *p, bool log_only, struct pol_event *ret)
{
	return pol_notify_handle_with(listener,
				      &(struct pol_handler){ .p = p, .log_only = log_only }, ret);
}

int pol_notify_handle_with(int listener, const struct pol_handler *h, struct pol_event *ret)
{
	const struct pol *p = h->p;
	_cleanup_(req_freep) struct seccomp_notif *req = NULL;
	_cleanup_free_ char *name = NULL;
	struct pol_target t = { .mem = -1 };
	struct pol_notif n;
	int r;

	if (!p)
		return -EINVAL;
	r = seccomp_notify_alloc(&req, NULL);
	if (r < 0)
		return r;
	/* seccomp_notify_alloc() zeroes it: the kernel refuses a request that is not */
	r = seccomp_notify_receive(listener, req);
	if (r == -ECANCELED && errno)
		return -errno; /* ENOENT: the target went away first */
	if (r < 0)
		return r;
	n = (struct pol_notif){ .listener = listener,
				.req = req,
				.p = p,
				.log_only = h->log_only,
				.ret = ret,
				.on_exec = h->on_exec,
				.arg = h->arg,
				.rd = h->rd,
				.run = h->run };
	name = abi(req, &t, &n.native);
	n.name = name;
	n.compat = t.ptr_size == 4;
	for (size_t k = 0; k < pol_n_kinds; k++) {
		if (!pol_kinds[k]->handle)
			continue;
		r = pol_kinds[k]->handle(&n);
		if (r != POL_NOTIF_NOT_MINE)
			return r;
	}
	return pol_notif_answer(&n, 0, true);
}
