// SPDX-License-Identifier: MIT
/*
 * deny-socket PATH: connect() to this AF_UNIX path is refused (a leading
 * $XDG_RUNTIME_DIR is expanded at load).  connect is notified only when the
 * policy has such a rule; the socket is compared by path and by identity
 * (the same socket under another path), and under --pidns the launcher's init
 * mounts /dev/null over each path as well.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/net.h>
#include <linux/openat2.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "policy/kind.h"

const struct pol_socket_set *pol_sockets(const struct pol *p)
{
	static const struct pol_socket_set none;
	const struct pol_socket_set *set = pol_kind_rules_of(p, &pol_kind_socket);

	return set ? set : &none;
}

/* The decision on a connect: pure, shared by the handler and the unit tests. */
struct pol_verdict pol_decide_connect(const struct pol *p, const char *path)
{
	struct pol_verdict v = { .refuse = false, .origin = NULL };
	char norm[PATH_MAX];

	if (!p || !path || !*path)
		return v;
	/* the spelling as the kernel would walk it if no name were a symlink */
	if (pol_path_normalize(path, norm, sizeof(norm)) == 0)
		path = norm;
	for (size_t i = 0; i < pol_sockets(p)->n; i++)
		if (strcmp(pol_sockets(p)->v[i].path, path) == 0) {
			v.refuse = true;
			v.origin = pol_sockets(p)->v[i].origin;
			return v;
		}
	return v;
}

/* The policy's set of these rules, made at the first: NULL when out of memory. */
static struct pol_socket_set *set_of(struct pol *p)
{
	void **slot = pol_kind_rules(p, &pol_kind_socket);

	if (!*slot)
		*slot = calloc(1, sizeof(struct pol_socket_set));
	return *slot;
}

#define XDG_VAR "$XDG_RUNTIME_DIR"

/* $XDG_RUNTIME_DIR, or the directory systemd would give this user. */
static void runtime_dir(char *buf, size_t len)
{
	const char *e = getenv("XDG_RUNTIME_DIR");
	size_t n;

	if (!e || e[0] != '/' || strlen(e) >= len) {
		snprintf(buf, len, "/run/user/%u", (unsigned)geteuid());
		return;
	}
	n = strlen(e);
	while (n > 1 && e[n - 1] == '/')
		n--;
	memcpy(buf, e, n);
	buf[n] = '\0';
	if (n == 1) /* "/": the rest of the path supplies the slash */
		buf[0] = '\0';
}

/* No empty, "." or ".." component, no trailing slash: 0, or 1 + the offset of the fault. */
static size_t path_bad_at(const char *p)
{
	for (size_t i = 0; p[i]; i++) {
		const char *c;
		size_t n;

		if (p[i] != '/')
			continue;
		c = p + i + 1;
		n = strcspn(c, "/");
		if (n == 0 && c[0] == '\0')
			return i + 1; /* the trailing slash */
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return i + 2; /* the component */
	}
	return 0;
}

/* The path as written, checked: *ret_rest is what follows a leading $XDG_RUNTIME_DIR. */
static int socket_path(const struct pol_stmt *st, const char **ret_rest)
{
	const struct pol_tok *t = st->t;
	const char *raw = t[1].s, *dollar, *rest = NULL;
	size_t bad;

	if (strncmp(raw, XDG_VAR, strlen(XDG_VAR)) == 0 &&
	    (raw[strlen(XDG_VAR)] == '/' || raw[strlen(XDG_VAR)] == '\0')) {
		rest = raw + strlen(XDG_VAR);
		if (!rest[0] || !rest[1])
			return pol_fail(st, t[1].col + (int)strlen(XDG_VAR),
					"deny-socket: expected a path below " XDG_VAR);
	}
	dollar = strchr(rest ? rest : raw, '$');
	if (dollar)
		return pol_fail(st, t[1].col + (int)(dollar - raw),
				"only a leading " XDG_VAR " is expanded in a socket path");
	if (!rest && raw[0] != '/')
		return pol_fail(st, t[1].col, "deny-socket: '%.64s' is not an absolute path", raw);
	bad = path_bad_at(rest ? rest : raw);
	if (bad)
		return pol_fail(st, t[1].col + (int)(bad - 1 + (rest ? (size_t)(rest - raw) : 0)),
				"deny-socket: path not in normal form (no '//', '.', '..' or "
				"trailing '/')");
	*ret_rest = rest;
	return 0;
}

/*
 * The struct keeps the expanded path in `path` for everyone who matches or
 * masks it, and the path as written right after its NUL, so that the format
 * can print `$XDG_RUNTIME_DIR/bus` rather than this user's directory.
 */
static int socket_parse(const struct pol_stmt *st)
{
	struct pol_socket s = { 0 };
	const char *raw, *rest = NULL;
	struct pol *p = st->pol;
	char dir[256];
	size_t need;
	struct pol_socket_set *set;
	void *arr;
	int r;

	if (st->n < 2)
		return pol_fail(st, pol_end_col(st), "deny-socket: expected a path");
	if (st->n > 2)
		return pol_fail(st, st->t[2].col, "unexpected '%.64s' after the path", st->t[2].s);
	raw = st->t[1].s;
	r = socket_path(st, &rest);
	if (r < 0)
		return r;
	if (rest) {
		runtime_dir(dir, sizeof(dir));
		need = strlen(dir) + strlen(rest) + 1 + strlen(raw) + 1;
		if (need > sizeof(s.path))
			return pol_fail(st, st->t[1].col, "deny-socket: path too long");
		memcpy(s.path, dir, strlen(dir));
		memcpy(s.path + strlen(dir), rest, strlen(rest) + 1);
		memcpy(s.path + strlen(s.path) + 1, raw, strlen(raw) + 1);
	} else {
		if (strlen(raw) >= sizeof(s.path))
			return pol_fail(st, st->t[1].col, "deny-socket: path too long");
		snprintf(s.path, sizeof(s.path), "%s", raw);
	}
	for (size_t i = 0; i < pol_sockets(p)->n; i++)
		if (strcmp(pol_sockets(p)->v[i].path, s.path) == 0)
			return 0; /* the same rule again */
	r = pol_origin_set(st, s.origin, sizeof(s.origin));
	if (r < 0)
		return r;
	set = set_of(p);
	arr = set ? pol_grow(set->v, set->n, sizeof(s)) : NULL;
	if (!arr)
		return pol_fail_oom(st);
	set->v = arr;
	set->v[set->n++] = s;
	return 0;
}

static size_t socket_count(const struct pol *p)
{
	return pol_sockets(p)->n;
}

static const char *socket_origin(const struct pol *p, size_t i)
{
	return pol_sockets(p)->v[i].origin;
}

static void socket_format(const struct pol *p, struct pol_fmt *x)
{
	for (size_t i = 0; i < pol_sockets(p)->n; i++) {
		const struct pol_socket *s = &pol_sockets(p)->v[i];
		size_t n = strnlen(s->path, sizeof(s->path));
		const char *raw = s->path;

		/* the path as written, kept past the NUL when it was expanded */
		if (n + 1 < sizeof(s->path) && s->path[n + 1] == '$') {
			raw = s->path + n + 1;
			n = strnlen(raw, sizeof(s->path) - n - 1);
		}
		fprintf(pol_fmt_rule(x, s->origin), "deny-socket %.*s\n", (int)n, raw);
	}
}

static void socket_free(struct pol *p)
{
	struct pol_socket_set *set = *pol_kind_rules(p, &pol_kind_socket);

	if (set)
		free(set->v);
	free(set);
	*pol_kind_rules(p, &pol_kind_socket) = NULL;
}

static void socket_summary(const struct pol *p, char *buf, size_t len)
{
	snprintf(buf, len, "%zu denied sockets", pol_sockets(p)->n);
}

static const char *socket_masked_path(const struct pol *p, size_t i)
{
	return i < pol_sockets(p)->n ? pol_sockets(p)->v[i].path : NULL;
}

static int socket_filter(pol_scmp_ctx ctx, const struct pol *p, bool notify, bool log_only,
			 struct iso_err *e)
{
	/* connect on i386 also comes through socketcall(SYS_CONNECT): libseccomp adds both */
	return notify && pol_sockets(p)->n > 0 ? pol_filter_notify(ctx, p, "connect", e) : 0;
}

/* --- the notified connect -------------------------------------------------------- */

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

/* The AF_UNIX path at addr (addrlen bytes) and the socket behind it ("" for others). */
static int read_sockaddr(struct pol_target *t, uint64_t addr, uint64_t addrlen,
			 struct connect_call *cc)
{
	struct sockaddr_un sun;
	size_t n, plen;
	int r;

	addrlen &= UINT32_MAX; /* socklen_t */
	if (addrlen <= offsetof(struct sockaddr_un, sun_path))
		return 0;
	n = addrlen < sizeof(sun) ? (size_t)addrlen : sizeof(sun);
	memset(&sun, 0, sizeof(sun));
	r = pol_target_read(t, addr, &sun, n);
	if (r < 0)
		return r;
	if (sun.sun_family != AF_UNIX || sun.sun_path[0] == '\0')
		return 0; /* abstract names live in the network namespace */
	plen = strnlen(sun.sun_path, n - offsetof(struct sockaddr_un, sun_path));
	if (sun.sun_path[0] == '/') {
		snprintf(cc->path, sizeof(cc->path), "%.*s", (int)plen, sun.sun_path);
	} else {
		char cwd[PATH_MAX];

		pol_target_link(pol_target_pid(t), "cwd", cwd, sizeof(cwd));
		/* longer than any rule (struct pol_socket): cannot match */
		if (cwd[0] != '/' || snprintf(cc->path, sizeof(cc->path), "%s/%.*s", cwd, (int)plen,
					      sun.sun_path) >= (int)sizeof(cc->path))
			cc->path[0] = '\0';
	}
	if (cc->path[0])
		resolve_socket(pol_target_pid(t), cc);
	return 0;
}

/* args is not zeroed (pol_notif_args): nothing read is no path and no socket */
static struct connect_call *connect_init(void *args)
{
	struct connect_call *cc = args;

	cc->path[0] = '\0';
	cc->have_st = false;
	return cc;
}

static int read_connect(struct pol_target *t, const struct seccomp_notif *req, void *args)
{
	return read_sockaddr(t, req->data.args[1], req->data.args[2], connect_init(args));
}

/* i386's socketcall(SYS_CONNECT, args): args is three 32-bit words. */
static int read_socketcall(struct pol_target *t, const struct seccomp_notif *req, void *args)
{
	struct connect_call *cc = connect_init(args);
	uint32_t words[3];
	int r;

	if (req->data.args[0] != SYS_CONNECT)
		return 0;
	r = pol_target_read(t, req->data.args[1] & UINT32_MAX, words, sizeof(words));
	return r < 0 ? r : read_sockaddr(t, words[1], words[2], cc);
}

/* By path, then a deny-socket rule naming the same socket by any other path. */
static struct pol_verdict decide_connect(const struct pol *p, const void *args)
{
	const struct connect_call *c = args;
	struct pol_verdict v = pol_decide_connect(p, c->path);

	for (size_t i = 0; !v.refuse && c->have_st && i < pol_sockets(p)->n; i++) {
		struct stat st;

		if (stat(pol_sockets(p)->v[i].path, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_dev == c->st.st_dev && st.st_ino == c->st.st_ino) {
			v.refuse = true;
			v.origin = pol_sockets(p)->v[i].origin;
		}
	}
	return v;
}

static void connect_detail(const void *args, char *out, size_t len)
{
	snprintf(out, len, "%s", ((const struct connect_call *)args)->path);
}

static int socket_handle(const struct pol_notif *n)
{
	static const struct pol_args_ops connect_ops = {
		.call = "connect",
		.size = sizeof(struct connect_call),
		.read = read_connect,
		.decide = decide_connect,
		.detail = connect_detail,
	};
	static const struct pol_args_ops socketcall_ops = {
		.call = "connect",
		.size = sizeof(struct connect_call),
		.read = read_socketcall,
		.decide = decide_connect,
		.detail = connect_detail,
	};
	bool sc = pol_notif_is(n, -1, "socketcall");

	if (!sc && !pol_notif_is(n, SYS_connect, "connect"))
		return POL_NOTIF_NOT_MINE;
	if (pol_sockets(n->p)->n == 0)
		return pol_notif_answer(n, 0, true);
	return pol_notif_args(n, sc ? &socketcall_ops : &connect_ops);
}

const struct pol_kind pol_kind_socket = {
	.word = "deny-socket",
	.example = "deny-socket $XDG_RUNTIME_DIR/bus",
	.parse = socket_parse,
	.count = socket_count,
	.origin = socket_origin,
	.format = socket_format,
	.free = socket_free,
	.summary = socket_summary,
	.filter = socket_filter,
	.handle = socket_handle,
	.masked_path = socket_masked_path,
};
