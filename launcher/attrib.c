// SPDX-License-Identifier: MIT
#include "launcher/attrib.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/cleanup.h"
#include "common/proc.h"
#include "common/text.h"

/* An environment larger than this is read this far: the runners' names come early enough. */
#define ENVIRON_MAX (256 * 1024)

uint64_t sup_boottime_ms(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int64_t sup_attrib_started_ms(const struct sup_attrib_ctx *c, uint64_t start)
{
	uint64_t tick = 1000 / (uint64_t)iso_proc_ticks_per_sec(), ms = start * tick;
	int64_t d = (int64_t)ms - (int64_t)c->run_start_ms;

	/*
	 * /proc counts in clock ticks (10 ms), truncated: a process started in the
	 * run's first tick can read as up to one tick before the run began.
	 */
	return d < 0 && d >= -(int64_t)tick ? 0 : d;
}

void sup_argv_free(struct sup_argv *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	*a = (struct sup_argv){ 0 };
}

/* NUL-separated arguments into a redacted argv; `more`: append "..." for what was cut. */
static struct sup_argv argv_of(const char *buf, size_t len, bool more)
{
	struct sup_argv a = { 0 };
	size_t n = more ? 1 : 0;

	for (size_t i = 0; i < len; i += strlen(buf + i) + 1)
		n++;
	a.v = calloc(n ? n : 1, sizeof(char *));
	if (!a.v)
		return a;
	for (size_t i = 0; i < len; i += strlen(buf + i) + 1) {
		a.v[a.n] = iso_redact(buf + i);
		if (a.v[a.n])
			a.n++;
	}
	if (more && (a.v[a.n] = strdup("...")))
		a.n++;
	return a;
}

struct sup_argv sup_argv_read(pid_t pid)
{
	_cleanup_free_ char *buf = malloc(8192);
	ssize_t n = buf ? iso_proc_read(pid, "cmdline", buf, 8192) : -ENOMEM;

	if (n <= 0)
		return (struct sup_argv){ 0 };
	return argv_of(buf, (size_t)n, (size_t)n >= 8191);
}

__attribute__((format(printf, 2, 3))) static void why_add(struct sup_attrib *a, const char *fmt,
							  ...)
{
	size_t used = strlen(a->why_not);
	va_list ap;

	if (used)
		used += (size_t)snprintf(a->why_not + used, sizeof(a->why_not) - used, "; ");
	if (used >= sizeof(a->why_not))
		return;
	va_start(ap, fmt);
	vsnprintf(a->why_not + used, sizeof(a->why_not) - used, fmt, ap);
	va_end(ap);
}

/* Prepend one ancestor's argv to the chain (it grows from the inside out). */
static void chain_push(struct sup_attrib *a, struct sup_argv argv)
{
	struct sup_argv *v = realloc(a->chain, (a->n_chain + 1) * sizeof(*v));

	if (!v) {
		sup_argv_free(&argv);
		return;
	}
	memmove(v + 1, v, a->n_chain * sizeof(*v));
	v[0] = argv;
	a->chain = v;
	a->n_chain++;
}

static bool is_root(const struct sup_attrib_ctx *c, pid_t pid)
{
	return pid <= 1 || pid == c->roots[0] || pid == c->roots[1];
}

/*
 * From the process's parent at its exec outwards: the record where there is one,
 * /proc where the ancestor still lives, until isorun (or init) is reached.
 */
static void walk(struct sup_attrib *a, const struct sup_attrib_ctx *c, const struct iso_proc *self)
{
	const struct sup_exec_rec *r = sup_execlog_get(c->log, self->pid);
	bool pidfs = c->log->pidfs;
	/* with start times as ids the record is checked without a read */
	struct iso_ident me = { .id = self->start };
	bool known = !pidfs || iso_proc_ident_of(self, true, &me) == 0;
	uint64_t id = me.id;
	pid_t up;

	if (!known) {
		/* its pidfs identity is read from the live process: a record alone cannot say */
		why_add(a, "it exited before it was attributed");
		return;
	}
	if (r && r->id == id) {
		up = r->ppid;
		if (self->pid != c->cmd && is_root(c, up)) {
			/* only the command is started by isorun (or init): this one was orphaned */
			why_add(a, "its parent had exited when it exec'd (a double fork, or a "
				   "parent that did not wait for it)");
			return;
		}
	} else {
		/* no exec of its own recorded: it forked from a parent that may still live */
		if (!pidfs)
			known = iso_proc_ident_of(self, false, &me) == 0;
		if (!known || is_root(c, me.ppid)) {
			if (!c->no_record)
				why_add(a, "no exec of its own recorded and its parent is gone");
			return;
		}
		up = me.ppid;
	}
	a->chain_known = true;
	for (int depth = 0; depth < SUP_ATTRIB_DEPTH; depth++) {
		struct iso_ident p;
		if (is_root(c, up))
			return;
		r = sup_execlog_get(c->log, up);
		if (r && r->id <= id) {
			chain_push(a, argv_of(r->args, r->len, r->truncated));
			id = r->id;
			up = r->ppid;
		} else if (iso_proc_ident(up, pidfs, &p) == 0 && p.id <= id) {
			chain_push(a, sup_argv_read(up));
			id = p.id;
			up = p.ppid;
		} else {
			why_add(a, "ancestor pid %d exited before it was recorded", up);
			return;
		}
	}
}

/* a pytest node id with its phase, "FILE::TEST (call)" -> id and phase */
static void pytest_test(struct sup_attrib *a, const char *v)
{
	const char *open = strrchr(v, '(');
	size_t len = strlen(v);

	a->runner = strdup("pytest");
	if (open && open > v && open[-1] == ' ' && len && v[len - 1] == ')') {
		a->test = strndup(v, (size_t)(open - 1 - v));
		a->phase = strndup(open + 1, (size_t)(v + len - 1 - (open + 1)));
	} else {
		a->test = strdup(v);
	}
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* A Go test binary (pkg.test run with -test.* flags): the binary, and -test.run if given. */
static bool go_test(struct sup_attrib *a, const struct sup_argv *v)
{
	const char *run = NULL;
	bool flags = false;

	if (!v->n || !ends_with(v->v[0], ".test"))
		return false;
	for (size_t i = 1; i < v->n; i++) {
		flags |= !strncmp(v->v[i], "-test.", 6);
		if (!strncmp(v->v[i], "-test.run=", 10))
			run = v->v[i] + 10;
	}
	if (!flags)
		return false;
	a->runner = strdup("go test");
	if (run && asprintf(&a->test, "%s -test.run=%s", base(v->v[0]), run) < 0)
		a->test = NULL;
	if (!run)
		a->test = strdup(base(v->v[0]));
	return true;
}

/* A cargo test binary: target/<profile>/deps/<name>-<hash>. */
static bool cargo_test(struct sup_attrib *a, const struct sup_argv *v)
{
	const char *b, *dash;

	if (!v->n || !strstr(v->v[0], "/target/") || !strstr(v->v[0], "/deps/"))
		return false;
	b = base(v->v[0]);
	dash = strrchr(b, '-');
	if (!dash || strlen(dash + 1) != 16)
		return false;
	a->runner = strdup("cargo test");
	a->test = strndup(b, (size_t)(dash - b));
	return true;
}

/* node --test runs each file as `node FILE` with NODE_TEST_CONTEXT set: the file. */
static bool node_test(struct sup_attrib *a, const struct sup_argv *v)
{
	if (v->n < 2 || strcmp(base(v->v[0]), "node") || v->v[v->n - 1][0] == '-')
		return false;
	a->runner = strdup("node --test");
	a->test = strdup(v->v[v->n - 1]);
	return true;
}

/* The runners that name themselves only in argv: the process itself first, then inwards-out. */
static void test_from_argv(struct sup_attrib *a, const struct sup_argv *self, bool node)
{
	for (size_t k = 0; k <= a->n_chain && !a->runner; k++) {
		const struct sup_argv *v = k == 0 ? self : &a->chain[a->n_chain - k];
		if (node ? node_test(a, v) : go_test(a, v) || cargo_test(a, v))
			return;
	}
}

bool sup_test_of_argv(const struct sup_argv *v, char **runner, char **test)
{
	struct sup_attrib a = { 0 };

	if (!go_test(&a, v) && !cargo_test(&a, v))
		return false;
	*runner = a.runner;
	*test = a.test;
	return true;
}

static const char *env_value(const char *env, size_t len, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < len; i += strlen(env + i) + 1)
		if (!strncmp(env + i, name, n) && env[i + n] == '=')
			return env + i + n + 1;
	return NULL;
}

static void find_test(struct sup_attrib *a, pid_t pid, const struct sup_argv *self)
{
	_cleanup_free_ char *env = malloc(ENVIRON_MAX);
	ssize_t n = env ? iso_proc_read(pid, "environ", env, ENVIRON_MAX) : -ENOMEM;
	const char *v;

	if (n < 0) {
		why_add(a, "environment not readable: %s",
			n == -ETIMEDOUT ? "not read: an earlier read of the command's memory waits"
					: strerror((int)-n));
		test_from_argv(a, self, false);
		return;
	}
	if ((v = env_value(env, (size_t)n, "PYTEST_CURRENT_TEST"))) {
		pytest_test(a, v);
	} else if ((v = env_value(env, (size_t)n, "TEST_TARGET"))) {
		a->runner = strdup("bazel");
		a->test = strdup(v);
	} else {
		test_from_argv(a, self, env_value(env, (size_t)n, "NODE_TEST_CONTEXT") != NULL);
	}
}

void sup_attrib_find(struct sup_attrib *a, const struct sup_attrib_ctx *c, pid_t pid,
		     uint64_t start)
{
	struct sup_argv self = sup_argv_read(pid);

	*a = (struct sup_attrib){ 0 };
	walk(a, c, &(struct iso_proc){ .pid = pid, .start = start });
	if (c->no_record && !a->n_chain)
		why_add(a, "no exec record: %s", c->no_record);
	else if (c->log->dropped && !a->n_chain)
		why_add(a, "no exec record: the record was full");
	find_test(a, pid, &self);
	/*
	 * Nothing closer names a test (prove's script exports none; a double fork
	 * cuts the chain): the run is one test invocation, and its runner named it.
	 */
	if (!a->runner && c->run_runner && c->run_test) {
		a->runner = strdup(c->run_runner);
		a->test = strdup(c->run_test);
	}
	sup_argv_free(&self);
}

void sup_attrib_free(struct sup_attrib *a)
{
	for (size_t i = 0; i < a->n_chain; i++)
		sup_argv_free(&a->chain[i]);
	free(a->chain);
	free(a->runner);
	free(a->test);
	free(a->phase);
	*a = (struct sup_attrib){ 0 };
}

/* An argument worth showing in a short chain: a script's text or a long path is not. */
static bool shown(const char *arg)
{
	return strlen(arg) <= 32 && !strpbrk(arg, " \t\n;");
}

/* "-test.testlogfile=" of "-test.testlogfile=/tmp/x/testlog.txt": 0 when not an option */
static int option_len(const char *arg)
{
	const char *eq = strchr(arg, '='), *slash = strchr(arg, '/');

	return arg[0] == '-' && eq && eq < slash && eq - arg < 40 ? (int)(eq - arg + 1) : 0;
}

/* "python -c ...": the program's name and its first short arguments, then "..." */
static void chain_item(FILE *f, const struct sup_argv *v)
{
	fputs(v->n ? base(v->v[0]) : "?", f);
	for (size_t i = 1; i < v->n; i++) {
		bool path = strchr(v->v[i], '/') && !strpbrk(v->v[i], " \t\n;");
		if (i > 6 || (!shown(v->v[i]) && !path)) {
			fputs(" ...", f);
			return;
		}
		if (shown(v->v[i]))
			fprintf(f, " %s", v->v[i]);
		else /* a long path by its last name (the test file), an option's kept */
			fprintf(f, " %.*s.../%s", option_len(v->v[i]), v->v[i], base(v->v[i]));
	}
}

char *sup_attrib_chain_text(const struct sup_attrib *a)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (size_t i = 0; i < a->n_chain; i++) {
		/* a deep chain: its outermost command and the three nearest */
		if (a->n_chain > 5 && i == 1) {
			fputs(" → ...", f);
			i = a->n_chain - 4;
			continue;
		}
		if (i)
			fputs(" → ", f);
		chain_item(f, &a->chain[i]);
	}
	fclose(f);
	return buf;
}

json_t *sup_argv_json(const struct sup_argv *a)
{
	json_t *v = json_array();

	for (size_t i = 0; a && i < a->n; i++)
		json_array_append_new(v, json_string(a->v[i]) ?: json_string("?"));
	return v;
}

json_t *sup_attrib_json(const struct sup_attrib *a)
{
	json_t *chain = json_null(), *test = json_null();

	if (a->chain_known) {
		chain = json_array();
		for (size_t i = 0; i < a->n_chain; i++)
			json_array_append_new(chain, sup_argv_json(&a->chain[i]));
	}
	if (a->runner)
		test = json_pack("{s:s, s:s, s:s?}", "runner", a->runner, "id",
				 a->test ? a->test : "", "phase", a->phase);
	return json_pack("{s:o, s:o, s:s?}", "started_by", chain, "test", test, "why_not",
			 a->why_not[0] ? a->why_not : NULL);
}
