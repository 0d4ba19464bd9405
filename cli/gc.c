// SPDX-License-Identifier: MIT
/*
 * isorun ls, isorun gc: the trees under the caller's root, and the removal of
 * those proven orphaned (tree/evidence.h has the rules).
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "common/cleanup.h"
#include "cli/commands.h"
#include "cli/orphan_cg.h"
#include "common/exit.h"
#include "common/reader.h"
#include "cli/suggest.h"
#include "common/text.h"
#include "launcher/mapusers.h"
#include "tree/mntns.h"
#include "tree/orphans.h"
#include "tree/tree.h"
#include "tree/trees.h"
#include "tree/release.h"
#include "tree/gate.h"
#include "tree/shield.h"

struct cmd {
	const char *name; /* "ls" or "gc" */
	const char *root;
	bool dry_run;
	bool kept;    /* gc --kept: also the trees kept on purpose */
	bool verbose; /* gc -v: what the holder scan could not read */
	bool json;    /* ls --json */
	int user_fd;
	char user_path[PATH_MAX];
	struct tree_host host;
	char **names;
	size_t n;
	/* the processes' environments, cmdlines and mount paths are read through it, bounded */
	struct iso_reader reader;
};

static void usage(FILE *f, const char *name)
{
	if (!strcmp(name, "ls"))
		fputs("usage: isorun ls [--json] [--root DIR]\n"
		      "  list the trees under DIR/isorun-UID: path, age, size, owner pid, state,\n"
		      "  command, the directory isorun was started in, reason (states: running,\n"
		      "  kept, retained, orphaned, unknown, unreadable)\n"
		      "  --json     one JSON array of objects instead of the table\n",
		      f);
	else
		fputs("usage: isorun gc [--dry-run] [--kept] [-v] [--root DIR]\n"
		      "  remove the trees under DIR/isorun-UID whose owner is proven gone, whose\n"
		      "  lock is free and in which no process has a file, cwd or root; a tree\n"
		      "  kept on purpose (--keep, isorun shell) only with --kept\n"
		      "  --dry-run      only say what would be removed or kept, and why\n"
		      "  --kept, --all  also remove the trees kept on purpose\n"
		      "  -v, --verbose  also say how many processes' fds could not be read, and\n"
		      "                 how each tree's holders were judged (the kernel, or a "
		      "scan)\n",
		      f);
}

/* An option ls or gc does not take: a long one as given, a short one by its letter. */
static int refuse_option(int argc, char **argv, const char *word, const struct option *opts)
{
	const char *longs[8] = { 0 };
	char buf[300], shortw[3] = { '-', (char)optopt, 0 };
	size_t n = 0;

	for (; n < ELEMENTSOF(longs) && opts[n].name; n++)
		longs[n] = opts[n].name;
	if (strncmp(word, "--", 2) != 0)
		word = shortw;
	cli_unknown_option(word, longs, n, buf, sizeof(buf));
	/* near, ambiguous or given a value: ours, mistyped, not another program's option */
	if (!strstr(buf, ": unknown option") || strstr(buf, "did you mean")) {
		fprintf(stderr, "isorun: %s: %s\n", argv[1], buf);
		return ISO_EXIT_SETUP;
	}
	snprintf(buf, sizeof(buf), "unknown option '%s'", word);
	return cli_subcommand_refuse(argc, argv, buf);
}

/* 0 to go on, 1 when done (help), or ISO_EXIT_SETUP after one line on stderr. */
static int parse(struct cmd *c, int argc, char **argv)
{
	static const struct option ls_opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option gc_opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "kept", no_argument, NULL, 'k' },
		{ "all", no_argument, NULL, 'k' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool gc = !strcmp(c->name, "gc");
	/* argv[0] is "isorun", argv[1] the subcommand: getopt starts after it */
	char **av = argv + 1;
	int ac = argc - 1, opt, at;

	optind = 1;
	opterr = 0;
	/* at: the word getopt is in ("-la" stays one word until its last letter) */
	while ((at = optind,
		opt = getopt_long(ac, av, gc ? ":hv" : ":h", gc ? gc_opts : ls_opts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (!*optarg) {
				fprintf(stderr, "isorun: %s: --root: empty path\n", c->name);
				return ISO_EXIT_SETUP;
			}
			c->root = optarg;
			break;
		case 'n':
			c->dry_run = true;
			break;
		case 'k':
			c->kept = true;
			break;
		case 'v':
			c->verbose = true;
			break;
		case 'j':
			c->json = true;
			break;
		case 'h':
			usage(stdout, c->name);
			return 1;
		case ':':
			fprintf(stderr, "isorun: %s: %s needs an argument\n", c->name,
				av[optind - 1]);
			return ISO_EXIT_SETUP;
		default:
			return refuse_option(argc, argv, av[at], gc ? gc_opts : ls_opts);
		}
	}
	if (optind < ac) {
		char why[PATH_MAX + 64];

		snprintf(why, sizeof(why), "unexpected argument '%s'", av[optind]);
		return cli_subcommand_refuse(argc, argv, why);
	}
	return 0;
}

/* 0 with c->names listed, 1 when there is no directory (nothing to do), or an exit code. */
static void close_trees(struct cmd *c);

static int open_trees(struct cmd *c)
{
	struct iso_err e = { 0 };
	char buf[512];
	int r;

	c->user_fd = tree_open_user_dir(tree_root(c->root), false, c->user_path,
					sizeof(c->user_path), &e);
	if (c->user_fd == -ENOENT) {
		struct stat st;
		const char *root = tree_root(c->root);
		/* a mistyped --root is not "no trees": say so, but nothing failed */
		if (stat(root, &st) < 0 && errno == ENOENT)
			fprintf(stderr, "isorun: %s: root '%s' does not exist: no trees there\n",
				c->name, root);
		return 1;
	}
	if (c->user_fd < 0) {
		if (e.cause == TREE_CAUSE_ROOT)
			iso_err_prefix(&e, "--root", " ");
		fprintf(stderr, "isorun: %s: %s\n", c->name, iso_err_format(&e, buf, sizeof(buf)));
		return ISO_EXIT_SETUP;
	}
	r = tree_names(c->user_fd, &c->names);
	if (r < 0) {
		fprintf(stderr, "isorun: %s: read '%s': %s\n", c->name, c->user_path, strerror(-r));
		return ISO_EXIT_SETUP;
	}
	c->n = (size_t)r;
	tree_host_current(&c->host);
	/* a 32 or 33 sent to gc while its reader starts: never its end */
	(void)iso_reader_keep_reserved();
	if (iso_reader_start(&c->reader, ISO_READER_DEADLINE_MS, &e) < 0) {
		fprintf(stderr, "isorun: %s: %s\n", c->name, iso_err_format(&e, buf, sizeof(buf)));
		close_trees(c);
		return ISO_EXIT_SETUP;
	}
	iso_reader_set_proc(&c->reader);
	return 0;
}

static void close_trees(struct cmd *c)
{
	iso_reader_set_proc(NULL);
	iso_reader_stop(&c->reader);
	tree_names_free(c->names, c->n);
	c->names = NULL;
	c->n = 0;
	if (c->user_fd >= 0)
		close(c->user_fd);
	c->user_fd = -1;
}

static const char *format_age(time_t created, char *buf, size_t len)
{
	time_t now = time(NULL);
	long long d = created && now >= created ? (long long)(now - created) : 0;

	if (!created)
		snprintf(buf, len, "-");
	else if (d < 60)
		snprintf(buf, len, "%llds", d);
	else if (d < 3600)
		snprintf(buf, len, "%lldm", d / 60);
	else if (d < 86400)
		snprintf(buf, len, "%lldh", d / 3600);
	else
		snprintf(buf, len, "%lldd", d / 86400);
	return buf;
}

static const char *format_size(uint64_t bytes, bool partial, char *buf, size_t len)
{
	static const char units[] = "BKMGTPE";
	double v = (double)bytes;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) - 1) {
		v /= 1024;
		u++;
	}
	/* ">": the walk stopped at its bound, so this is a lower bound */
	if (u == 0)
		snprintf(buf, len, "%s%lluB", partial ? ">" : "", (unsigned long long)bytes);
	else if (v < 10)
		snprintf(buf, len, "%s%.1f%c", partial ? ">" : "", v, units[u]);
	else
		snprintf(buf, len, "%s%.0f%c", partial ? ">" : "", v, units[u]);
	return buf;
}

struct row {
	char *path; /* shell-quoted */
	char age[24], size[24], pid[16];
	const char *state;
	char reason[1200];
	char *cmd;   /* the owner record's argv, joined; NULL in an older record */
	char *cwd;   /* where isorun was started, shell-quoted; NULL in an older record */
	json_t *obj; /* ls --json */
	struct tree_orphan_scan orphans; /* an orphaned tree's live processes, by environment */
	struct cli_cg_orphan cg;	 /* an orphaned run's cgroup and its live processes */
};

/* Said wherever processes were found by their environment (tree/orphans.h). */
#define ENV_EVIDENCE                                                                               \
	"found by " TREE_NAMESPACE_VAR " in their environment: weaker evidence than --pidns or a " \
	"cgroup, a process that cleared its environment is not found"

static struct tree_orphan_query orphan_query(const struct cmd *c, const struct tree_view *v)
{
	return (struct tree_orphan_query){
		.proc = "/proc", .tree = v->path, .uid = c->host.uid, .exclude = getpid()
	};
}

/*
 * "; N processes of this user ..." when unreadable environments could hide
 * some of the run's: not dumpable, or outside isorun's user namespace (then
 * unreadable whatever their dumpability, and readable from outside it).
 */
static void note_unreadable(const struct tree_orphan_scan *s, char *buf, size_t len)
{
	buf[0] = '\0';
	if (s->unreadable)
		snprintf(buf, len,
			 "; %zu process%s of this user could not be examined (environment "
			 "unreadable, e.g. not dumpable): some may be the run's",
			 s->unreadable, s->unreadable == 1 ? "" : "es");
	if (s->outside) {
		size_t at = strlen(buf);

		snprintf(
			buf + at, len - at,
			"; %zu process%s of this user outside isorun's user namespace could not be "
			"examined (unreadable from inside it): some may be the run's (isorun gc "
			"outside that namespace examines them)",
			s->outside, s->outside == 1 ? "" : "es");
	}
	if (s->stalled) {
		size_t at = strlen(buf);

		snprintf(buf + at, len - at,
			 "; %zu process%s of this user could not be examined (environment not "
			 "read within %d ms: its memory made the read wait): some may be the run's",
			 s->stalled, s->stalled == 1 ? "" : "es", ISO_READER_DEADLINE_MS);
	}
}

/* Said where a tree's cgroup record was not believed (cli/orphan_cg.h). */
#define CG_REFUSED                                                                                 \
	"; its cgroup record is refused (%s): not measurable through a cgroup, its processes are " \
	"looked for by their environment only"

/* The processes the environment scan found that the cgroup already named: listed once. */
static void drop_in_cgroup(struct tree_orphan_scan *s, const struct cli_cg_orphan *cg)
{
	size_t w = 0;

	for (size_t i = 0; i < s->n; i++) {
		bool dup = false;

		for (size_t j = 0; j < cg->n && !dup; j++)
			dup = cg->pids[j] == s->v[i].pid;
		if (dup)
			free(s->v[i].cmd);
		else
			s->v[w++] = s->v[i];
	}
	s->n = w;
}

/*
 * ls: an orphaned tree's processes, found by their environment (always: one
 * that left the run's cgroup is found only so), into the row and its reason.
 */
static void row_orphans(const struct cmd *c, const struct tree_view *v, struct row *r)
{
	struct tree_orphan_query q = orphan_query(c, v);
	size_t at = strlen(r->reason);
	char unread[400];
	int n = tree_orphans_find(&q, &r->orphans);

	if (n >= 0) {
		drop_in_cgroup(&r->orphans, &r->cg);
		n = (int)r->orphans.n;
	}
	if (n < 0) {
		snprintf(r->reason + at, sizeof(r->reason) - at,
			 "; its processes could not be looked for: %s", strerror(-n));
		return;
	}
	note_unreadable(&r->orphans, unread, sizeof(unread));
	if (n > 0)
		snprintf(r->reason + at, sizeof(r->reason) - at,
			 "; %d of its processes still run (%s; isorun gc kills them)%s", n,
			 ENV_EVIDENCE, unread);
	else
		snprintf(r->reason + at, sizeof(r->reason) - at, "%s", unread);
}

static json_t *orphans_json(const struct tree_orphan_scan *s)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < s->n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "pid", json_integer(s->v[i].pid));
		json_object_set_new(o, "cmd", json_string(s->v[i].cmd ? s->v[i].cmd : "?"));
		json_object_set_new(o, "found_by", json_string("environment"));
		json_array_append_new(a, o);
	}
	return a;
}

/*
 * gc: stop an orphaned tree's processes found by their environment (or with
 * --dry-run say which it would stop), naming each.  True to go on and judge
 * the tree, `note` then saying what was done; false when they could not all
 * be stopped (`note` says why).
 */
static bool stop_orphans(const struct cmd *c, const struct tree_view *v,
			 const struct cli_cg_orphan *cg, const char *shown, char *note, size_t len)
{
	struct tree_orphan_query q = orphan_query(c, v);
	struct tree_orphan_scan s = { 0 };
	struct iso_err e = { 0 };
	char why[600] = "", unread[400];
	int r = c->dry_run ? tree_orphans_find(&q, &s) : tree_orphans_stop(&q, &s, 10000, &e);
	size_t killed = 0;

	if (r < 0 && c->dry_run)
		snprintf(why, sizeof(why), "list /proc: %s", strerror(-r));
	else
		iso_err_format(&e, why, sizeof(why));
	/* a dry run left the cgroup's processes alive and named them already */
	if (c->dry_run)
		drop_in_cgroup(&s, cg);
	for (size_t i = 0; i < s.n; i++) {
		if (!c->dry_run && !s.v[i].gone)
			continue; /* not proven stopped: named in `why` */
		killed++;
		printf("%s pid %d `%s`: its environment names %s\n",
		       c->dry_run ? "would kill" : "killed", (int)s.v[i].pid,
		       s.v[i].cmd ? s.v[i].cmd : "?", shown);
	}
	note_unreadable(&s, unread, sizeof(unread));
	if (r < 0)
		snprintf(note, len, "could not stop the run's processes (%s)%s", why, unread);
	else if (killed)
		snprintf(note, len, "; %s %zu of its processes (%s)%s",
			 c->dry_run ? "would kill" : "killed", killed, ENV_EVIDENCE, unread);
	else
		snprintf(note, len, "%s", unread);
	tree_orphans_free(&s);
	return r >= 0;
}

/*
 * An orphaned run's processes, through its cgroup: frozen, named, killed; then
 * the cgroup.  A refused record goes into `refused` (else "").
 */
static int gc_cgroup(const struct tree_view *v, bool dry_run, struct cli_cg_orphan *o,
		     char *refused, size_t len)
{
	int r = cli_cg_orphan_find(v, o);

	refused[0] = '\0';
	if (r < 0)
		snprintf(refused, len, CG_REFUSED, o->refused);
	if (!o->path[0])
		return 0;
	fflush(stdout);
	return cli_cg_orphan_stop(o, dry_run, stdout);
}

/*
 * gc's step for an orphaned tree whose lock it holds: 0 to go on and judge it,
 * 1 to keep it (note says why), -1 when its processes could not be stopped.
 */
static int gc_orphans(const struct cmd *c, const struct tree_view *v, const char *shown, char *note,
		      size_t len)
{
	const char *self = getenv(TREE_NAMESPACE_VAR);
	struct cli_cg_orphan cg;
	char refused[600];
	size_t at;
	int r;

	if (v->seen != TREE_SEEN_ORPHANED || v->lock != TREE_LOCK_TAKEN)
		return 0;
	/* a shell left over from the run, say: stopping the run would stop our caller */
	if (self && strcmp(self, v->path) == 0) {
		snprintf(note, len,
			 "this isorun gc runs inside that run (its own %s names the tree): run "
			 "gc from outside it",
			 TREE_NAMESPACE_VAR);
		return 1;
	}
	/*
	 * The run's cgroup first: it holds what cleared its environment.  The
	 * environment scan always after: it finds what left the cgroup.
	 */
	r = gc_cgroup(v, c->dry_run, &cg, refused, sizeof(refused));
	if (r < 0) {
		snprintf(note, len, "the processes in its cgroup could not be stopped (%s)",
			 strerror(-r));
		cli_cg_orphan_free(&cg);
		return -1;
	}
	r = stop_orphans(c, v, &cg, shown, note, len) ? 0 : -1;
	cli_cg_orphan_free(&cg);
	at = strlen(note);
	snprintf(note + at, len - at, "%s", refused);
	return r;
}

/*
 * The owner record as JSON, for what ls shows besides the evidence (argv, cwd).
 * Read as trees.c reads every record: bounded, no symlink, no FIFO.
 */
static json_t *owner_json(int tree_fd)
{
	_cleanup_free_ char *text = NULL;
	struct iso_err e;
	json_t *o;

	if (tree_fd < 0 || tree_read_record(tree_fd, TREE_OWNER, &text, &e) < 0)
		return NULL;
	o = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* COMMAND and CWD from the owner record; absent fields stay NULL ("-"). */
static void row_owner(struct row *r, json_t *owner)
{
	json_t *av = json_object_get(owner, "argv");
	const char *cwd = json_string_value(json_object_get(owner, "cwd"));
	size_t n = json_array_size(av);
	const char **words;

	if (cwd)
		r->cwd = iso_shell_quote(cwd);
	if (!n)
		return;
	words = calloc(n, sizeof(*words));
	if (!words)
		return;
	for (size_t i = 0; i < n; i++) {
		words[i] = json_string_value(json_array_get(av, i));
		if (!words[i])
			words[i] = "?";
	}
	r->cmd = iso_join_cmdline(words, n, 4096);
	free(words);
}

static json_t *row_json(const struct tree_view *v, const struct row *r, uint64_t bytes, bool sized,
			bool partial, json_t *owner)
{
	json_t *o = json_object();
	json_t *av = json_object_get(owner, "argv");
	json_t *cwd = json_object_get(owner, "cwd");

	if (!o)
		return NULL;
	json_object_set_new(o, "path", json_string(v->path));
	json_object_set_new(o, "state", json_string(r->state));
	json_object_set_new(o, "reason", json_string(r->reason));
	json_object_set_new(o, "created", v->created ? json_integer(v->created) : json_null());
	json_object_set_new(o, "size_bytes", sized ? json_integer((json_int_t)bytes) : json_null());
	json_object_set_new(o, "size_partial", json_boolean(partial));
	json_object_set_new(o, "pid", v->owner_ok ? json_integer(v->owner.pid) : json_null());
	json_object_set_new(o, "argv", json_is_array(av) ? json_incref(av) : json_null());
	json_object_set_new(o, "cwd", json_is_string(cwd) ? json_incref(cwd) : json_null());
	return o;
}

/*
 * A shield left mounted by a run that was killed before its teardown: ls says
 * so, and how it comes off (gc takes it off with the tree it removes).
 */
#define SHIELD_STAYS                                                                               \
	"its shield (an overlay) is still mounted on it: isorun gc takes it off when it "          \
	"removes the tree, umount -l on its path takes it off alone"
/* A run inside another root run's: its tree is a tmpfs of its own, its files there only. */
#define NESTED_STAYS                                                                               \
	"a tmpfs of its own (a run inside another's), which holds its files: isorun gc ends "      \
	"it when it removes the tree"

static void row_fill(struct cmd *c, size_t i, struct row *r)
{
	struct tree_view v;
	bool partial = false, sized = false;
	uint64_t bytes = 0;
	json_t *owner;

	tree_view(c->user_fd, c->user_path, c->names[i], &c->host, false, &v);
	owner = owner_json(v.fd);
	r->path = iso_shell_quote(v.path);
	format_age(v.created, r->age, sizeof(r->age));
	/*
	 * A tree is opened and walked only once its lock was found free: a running
	 * tree, or one still being created (no owner record, so no lock probe), is
	 * the command's, and a live run's holder scan must not find ls in it.
	 */
	if (v.fd >= 0 && v.lock_probed && v.lock != TREE_LOCK_HELD) {
		bytes = tree_size(v.fd, &partial);
		sized = true;
		format_size(bytes, partial, r->size, sizeof(r->size));
	} else {
		snprintf(r->size, sizeof(r->size), "-");
	}
	if (v.owner_ok)
		snprintf(r->pid, sizeof(r->pid), "%d", (int)v.owner.pid);
	else
		snprintf(r->pid, sizeof(r->pid), "-");
	r->state = tree_seen_name(v.seen);
	snprintf(r->reason, sizeof(r->reason), "%s", v.reason);
	/* the run's cgroup names what cleared its environment; the environment what left it */
	if (cli_cg_orphan_find(&v, &r->cg) < 0) {
		size_t at = strlen(r->reason);
		snprintf(r->reason + at, sizeof(r->reason) - at, CG_REFUSED, r->cg.refused);
	}
	if (v.seen == TREE_SEEN_ORPHANED)
		row_orphans(c, &v, r);
	if (v.lock != TREE_LOCK_HELD && tree_shield_present(c->user_fd, c->names[i])) {
		size_t at = strlen(r->reason);
		snprintf(r->reason + at, sizeof(r->reason) - at, "%s%s", at ? "; " : "",
			 tree_shield_nested(c->user_fd, c->names[i]) ? NESTED_STAYS : SHIELD_STAYS);
	}
	row_owner(r, owner);
	if (c->json) {
		r->obj = row_json(&v, r, bytes, sized, partial, owner);
		if (r->obj) {
			json_object_set_new(r->obj, "processes", orphans_json(&r->orphans));
			cli_cg_orphan_json(&r->cg, r->obj);
		}
	}
	json_decref(owner);
	tree_view_close(&v);
}

/* the table's widths: the longest value, a command cut at CMD_MAX */
#define CMD_MAX 40

static void print_table(const struct row *rows, size_t n)
{
	int wpath = 4, wcmd = 7, wcwd = 3;

	for (size_t i = 0; i < n; i++) {
		if (rows[i].path && (int)strlen(rows[i].path) > wpath)
			wpath = (int)strlen(rows[i].path);
		if (rows[i].cmd && (int)strlen(rows[i].cmd) > wcmd)
			wcmd = (int)strlen(rows[i].cmd) > CMD_MAX ? CMD_MAX
								  : (int)strlen(rows[i].cmd);
		if (rows[i].cwd && (int)strlen(rows[i].cwd) > wcwd)
			wcwd = (int)strlen(rows[i].cwd);
	}
	/* STATE and REASON stay last, next to each other: REASON is free text */
	if (n)
		printf("%-*s  %5s  %6s  %-*s  %-*s  %7s  %-10s  %s\n", wpath, "PATH", "AGE", "SIZE",
		       wcwd, "CWD", wcmd, "COMMAND", "PID", "STATE", "REASON");
	for (size_t i = 0; i < n; i++) {
		const char *cmd = rows[i].cmd ? rows[i].cmd : "-";
		bool cut = strlen(cmd) > CMD_MAX;
		/* the outcome record is a file in the tree: its reason is text, not lines */
		_cleanup_free_ char *reason = iso_escape(rows[i].reason);

		/* a cut command ends in "..." within the column */
		printf("%-*s  %5s  %6s  %-*s  %-*.*s%s  %7s  %-10s  %s\n", wpath,
		       rows[i].path ? rows[i].path : "?", rows[i].age, rows[i].size, wcwd,
		       rows[i].cwd ? rows[i].cwd : "-", cut ? wcmd - 3 : wcmd,
		       cut ? CMD_MAX - 3 : CMD_MAX, cmd, cut ? "..." : "", rows[i].pid,
		       rows[i].state, reason ? reason : "?");
		/* an orphaned run's live processes, one indented line each */
		for (size_t j = 0; j < rows[i].orphans.n; j++)
			printf("    pid %d `%s`\n", (int)rows[i].orphans.v[j].pid,
			       rows[i].orphans.v[j].cmd ? rows[i].orphans.v[j].cmd : "?");
		cli_cg_orphan_print(&rows[i].cg, stdout);
	}
}

static int print_json(struct row *rows, size_t n)
{
	json_t *arr = json_array();
	char *text;
	int r = 0;

	for (size_t i = 0; arr && i < n; i++) {
		if (!rows[i].obj || json_array_append(arr, rows[i].obj) < 0) {
			json_decref(arr);
			arr = NULL;
		}
	}
	text = arr ? json_dumps(arr, JSON_INDENT(2)) : NULL;
	if (!text)
		r = -ENOMEM;
	else
		printf("%s\n", text);
	free(text);
	json_decref(arr);
	return r;
}

int cli_ls_main(int argc, char **argv)
{
	struct cmd c = { .name = "ls", .user_fd = -1 };
	struct row *rows;
	int r = parse(&c, argc, argv);

	if (r)
		return r == 1 ? 0 : r;
	r = open_trees(&c);
	if (r == 1 && c.json)
		printf("[]\n");
	if (r)
		return r == 1 ? 0 : r;
	rows = calloc(c.n ? c.n : 1, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "isorun: ls: out of memory\n");
		close_trees(&c);
		return ISO_EXIT_SETUP;
	}
	for (size_t i = 0; i < c.n; i++)
		row_fill(&c, i, &rows[i]);
	if (!c.json)
		print_table(rows, c.n);
	else if (print_json(rows, c.n) < 0)
		fprintf(stderr, "isorun: ls: out of memory\n");
	for (size_t i = 0; i < c.n; i++) {
		free(rows[i].path);
		free(rows[i].cmd);
		free(rows[i].cwd);
		json_decref(rows[i].obj);
		tree_orphans_free(&rows[i].orphans);
		cli_cg_orphan_free(&rows[i].cg);
	}
	free(rows);
	close_trees(&c);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "isorun: ls: write the listing: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* The shields' work directories whose tree is gone; a failure is said, not fatal. */
static void sweep_work(struct cmd *c)
{
	struct iso_err e = { 0 };
	char buf[400];

	if (tree_shield_sweep(c->user_fd, c->user_path, &e) < 0)
		fprintf(stderr, "isorun: gc: %s\n", iso_err_format(&e, buf, sizeof(buf)));
}

/*
 * A tree still wearing its shield (its run was killed before its teardown, or
 * it was retained with a holder named through the shield) is judged through
 * it, holders on disk matched by the disk's device; only a removable one has
 * it taken off, and is then looked at again on disk.  Returns the device to
 * match, or 0.
 */
static dev_t shielded(const struct cmd *c, size_t i)
{
	struct stat disk;

	if (!tree_shield_present(c->user_fd, c->names[i]) || fstat(c->user_fd, &disk) < 0)
		return 0;
	return disk.st_dev;
}

static int unshield(struct cmd *c, size_t i, struct tree_view *v)
{
	struct iso_err e = { 0 };
	char buf[400];
	dev_t dev;

	if (tree_shield_take_off(c->user_fd, c->user_path, c->names[i], v->path, &dev, &e) < 0) {
		fprintf(stderr, "isorun: gc: %s\n", iso_err_format(&e, buf, sizeof(buf)));
		return -EIO;
	}
	tree_view_close(v);
	tree_view(c->user_fd, c->user_path, c->names[i], &c->host, true, v);
	return v->lock == TREE_LOCK_TAKEN ? 0 : -EAGAIN;
}

/*
 * A tree a killed run left below its gate (tree/gate.h) goes back to its path,
 * its lock held throughout (the owner record keeps its inode), and is looked
 * at again there: judged and removed as any other.
 */
static int ungate(struct cmd *c, size_t i, struct tree_view *v)
{
	struct iso_err e = { 0 };
	char buf[400];

	if (tree_gate_undo(c->user_fd, c->names[i], c->user_path, &e) < 0) {
		fprintf(stderr, "isorun: gc: %s\n", iso_err_format(&e, buf, sizeof(buf)));
		return -EIO;
	}
	tree_view_close(v);
	tree_view(c->user_fd, c->user_path, c->names[i], &c->host, true, v);
	return 0;
}

struct gc_removal {
	int user_fd;
	const struct tree_view *v;
};

static int remove_in_ranges(void *arg, struct iso_err *e)
{
	const struct gc_removal *g = arg;

	return tree_remove(g->user_fd, g->v, e);
}

/*
 * The tree removed.  What a --map-users run gave to a subordinate id (a
 * directory that denies its owner, at any depth; a run killed before its init
 * gave it back) the caller may neither chmod nor enter: then again as the
 * root of the caller's id ranges, mapped as the run mapped them.
 */
static int remove_tree(const struct cmd *c, const struct tree_view *v, struct iso_err *e)
{
	struct gc_removal g = { c->user_fd, v };
	struct iso_err again = { 0 };
	char first[400], second[400];
	int r = tree_remove(c->user_fd, v, e);

	/* root has every id already */
	if ((r != -EPERM && r != -EACCES) || geteuid() == 0)
		return r;
	if (sup_map_users_again(NULL, remove_in_ranges, &g, &again) == 0)
		return 0;
	iso_err_format(e, first, sizeof(first));
	iso_err_format(&again, second, sizeof(second));
	iso_err_set(e, 0, "%s; as the root of its id ranges: %s", first, second);
	return r;
}

/*
 * Remove the tree, then the kernel says whether anything still held it
 * (tree/release.h): `held` says by what, or is "".
 */
static int remove_proven(const struct cmd *c, struct tree_view *v, char *held, size_t len,
			 struct iso_err *e)
{
	struct stat st;
	dev_t disk = fstat(v->fd, &st) == 0 ? st.st_dev : 0;
	struct tree_release rel;
	int w = tree_release_watch(&rel, -1, v->fd, e);
	int r = remove_tree(c, v, e);
	struct iso_err h = { 0 };

	held[0] = '\0';
	if (r < 0 || w < 0) {
		tree_release_close(&rel);
		return r;
	}
	/* gc's own last references to it: the owner record's lock, the tree's descriptor */
	tree_view_close(v);
	if (tree_release_prove(&rel, v->path, disk, getpid(), &h) == 0)
		iso_err_format(&h, held, len);
	tree_release_close(&rel);
	return 0;
}

/* Remove a tree gc judged removable and say so; -1 when it failed or was still held. */
static int gc_remove(const struct cmd *c, struct tree_view *v, const char *shown,
		     const char *why_shown, dev_t alias)
{
	struct iso_err e = { 0 };
	char buf[400], held[600];
	_cleanup_free_ char *held_shown = NULL;

	if (remove_proven(c, v, held, sizeof(held), &e) < 0) {
		fflush(stdout);
		fprintf(stderr, "isorun: gc: cannot remove %s: %s\n", shown,
			iso_err_format(&e, buf, sizeof(buf)));
		return -1;
	}
	held_shown = iso_escape(held);
	printf("removed %s: %s%s%s%s\n", shown, why_shown ? why_shown : "?",
	       alias ? "; its shield taken off first" : "", held[0] ? "; yet " : "",
	       held[0] && held_shown ? held_shown : "");
	return held[0] ? -1 : 0;
}

/* What gc learned from the kernel about a tree that wore a killed run's shield. */
struct gc_kernel {
	bool asked;
	enum tree_shield_proof proof;
	bool foreign; /* what is at the tree's path is not its shield: not ours to act on */
	bool nested;  /* the shield was a nested tree's tmpfs: the tree ended with it */
	dev_t dev;    /* the shield's device: a holder through it shows it */
	struct tree_mntns_seen seen;
	char why[512]; /* what the proof found, or why it proved nothing */
};

/*
 * Whether the kernel may be asked for the tree: it wears its shield, gc could
 * remove it (owner gone, lock ours, not kept on purpose) and may take the
 * shield off (no dry run).  A tree below its gate (an ordinary user's killed
 * --pidns run) has nothing left to ask: the overlay lived in the run's
 * namespace, and ended, or not, with it, unwatched
 * (docs/decisions/0036-the-gate-an-ordinary-user-s-tree-proven-by-its.md).
 */
static bool may_ask(const struct cmd *c, const struct tree_view *v, dev_t alias)
{
	return alias && !c->dry_run && !v->gated && v->owner_ok && v->fate == TREE_FATE_GONE &&
	       v->lock == TREE_LOCK_TAKEN && (v->seen != TREE_SEEN_KEPT || c->kept);
}

/*
 * The kernel asked as the killed run would have asked at its teardown
 * (tree/shield.h), before any process is read.  gc's own references through
 * the shield go first (they would refuse the unmount); the tree is looked at
 * again afterwards, on disk once the shield came off.  What the dead command
 * mounted inside the shield refuses the unmount without holding the tree:
 * detached, and the kernel asked once more.
 */
#define GC_ASKS	  4
#define GC_ASK_MS 50

static void ask_kernel(struct cmd *c, size_t i, struct tree_view *v, struct gc_kernel *k)
{
	struct iso_err e = { 0 };
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", v->path);
	tree_view_close(v);
	k->nested = tree_shield_nested(c->user_fd, c->names[i]);
	for (int ask = 0; ask < GC_ASKS; ask++) {
		k->proof = tree_shield_prove_left(
			&(struct tree_shield_at){ c->user_fd, c->user_path, c->names[i] }, &k->dev,
			&k->foreign, &k->seen, &e);
		if (k->proof != TREE_SHIELD_HELD)
			break;
		/*
		 * What the dead command mounted inside refuses the unmount: detached.
		 * Else a reference on its way out (a process in its exit, a mount
		 * namespace being copied) may be what refused it: asked again, a
		 * little later, GC_ASKS times in all.
		 */
		if (tree_shield_drop_children(path, k->dev) <= 0 && ask + 1 < GC_ASKS)
			(void)poll(NULL, 0, GC_ASK_MS);
	}
	k->asked = true;
	iso_err_format(&e, k->why, sizeof(k->why));
	/* the superblock ended: its layers are nobody's */
	if (k->proof == TREE_SHIELD_UNUSED &&
	    tree_shield_remove_work(c->user_fd, c->names[i], c->user_path, &e) < 0) {
		char buf[400];
		fprintf(stderr, "isorun: gc: %s\n", iso_err_format(&e, buf, sizeof(buf)));
	}
	tree_view(c->user_fd, c->user_path, c->names[i], &c->host, true, v);
}

/* What the judgement of the tree's holders starts from, after the kernel's word. */
static void judging_from(const struct gc_kernel *k, struct tree_judging *how)
{
	how->proven = k->asked && k->proof == TREE_SHIELD_UNUSED;
	how->held = k->asked && k->proof == TREE_SHIELD_HELD
			    ? "the kernel says the tree is held (its shield's unmount was refused, "
			      "asked again)"
			    : NULL;
	/* a mount over the shield, or in its place: what it hides is not gc's to judge */
	how->refuse = k->asked && k->foreign
			      ? "something other than its shield is mounted at its path (over it, "
				"or in its place): proves nothing, and is not gc's to take off "
				"(umount -l on its path takes it off)"
			      : NULL;
	/* the shield's end proved every namespace but those that show the tree bare */
	if (k->asked && k->proof == TREE_SHIELD_EXPOSED && !k->seen.all) {
		how->only_mntns = k->seen.ns;
		how->n_only_mntns = k->seen.n;
	}
}

/* Why the kernel's word was not enough: what the scan that followed it is for. */
static const char *proof_failed(const struct gc_kernel *k, bool gated, dev_t alias)
{
	if (gated)
		return "the overlay over its gate lived in the killed run's namespace: nothing "
		       "is left to ask the kernel";
	if (!k->asked)
		return alias ? "a dry run asks the kernel nothing (its proof takes the shield off)"
			     : NULL;
	switch (k->proof) {
	case TREE_SHIELD_HELD:
		return "its shield is held through its mount";
	case TREE_SHIELD_ELSEWHERE:
		return "its shield lives on after its unmount (another mount of it, or a copy in "
		       "a mount namespace)";
	default:
		return k->why;
	}
}

/* gc -v: how the tree's holders were judged, on stderr. */
static void say_holders(const char *shown, const struct tree_judging *how,
			const struct gc_kernel *k, bool gated, dev_t alias)
{
	const char *why = proof_failed(k, gated, alias);
	_cleanup_free_ char *why_shown = why ? iso_escape(why) : NULL;

	fflush(stdout);
	if (how->proven)
		fprintf(stderr,
			"isorun: gc: holders of %s: proven by the kernel, no process read: its "
			"shield ended with its unmount\n",
			shown);
	else if (how->refuse)
		fprintf(stderr, "isorun: gc: holders of %s: not judged, no process read: %s\n",
			shown, why_shown ? why_shown : "?");
	else if (how->scanned)
		fprintf(stderr, "isorun: gc: holders of %s: %s%zu process%s read%s%s\n", shown,
			how->only_mntns ? "the mount namespaces' that show it bare: " : "",
			how->n_read, how->n_read == 1 ? "" : "es", why ? ": " : "",
			why ? (why_shown ? why_shown : "?") : "");
}

/* The tree's verdict, then what was done to its processes (`note`). */
static bool judge(const struct cmd *c, const struct tree_view *v, struct tree_judging *how,
		  const char *note, char *why, size_t len)
{
	struct iso_err e;
	bool removable;

	how->verbose = c->verbose;
	removable = tree_judge(v, how, &e);
	iso_err_format(&e, why, len);
	strncat(why, note, len - strlen(why) - 1);
	return removable;
}

/* What gc says and does about a tree it judged; 1 when something failed. */
static int gc_act(struct cmd *c, size_t i, struct tree_view *v, bool removable, const char *why,
		  dev_t alias, dev_t took_off)
{
	const char *shown = NULL, *stays = "";
	_cleanup_free_ char *quoted = iso_shell_quote(v->path), *why_shown = iso_escape(why),
			    *kept_why = iso_escape(v->reason);

	shown = quoted ? quoted : v->path;
	if (alias && v->lock != TREE_LOCK_HELD)
		stays = tree_shield_nested(c->user_fd, c->names[i]) ? "; " NESTED_STAYS
								    : "; " SHIELD_STAYS;
	/* kept on purpose: removable, but not the user's garbage unless asked */
	if (removable && v->seen == TREE_SEEN_KEPT && !c->kept) {
		printf("%s %s: kept on purpose (%s); isorun gc --kept removes it\n",
		       c->dry_run ? "keep" : "kept", shown, kept_why ? kept_why : "?");
	} else if (!removable) {
		printf("%s %s: %s%s\n", c->dry_run ? "keep" : "kept", shown,
		       why_shown ? why_shown : "?", stays);
	} else if (c->dry_run) {
		printf("would remove %s: %s\n", shown, why_shown ? why_shown : "?");
	} else if (alias && unshield(c, i, v) < 0) {
		printf("kept %s: its shield could not be taken off\n", shown);
		return 1;
	} else if (gc_remove(c, v, shown, why_shown, took_off) < 0) {
		return 1;
	}
	return 0;
}

/*
 * A nested tree's tmpfs ended with the proof's unmount, and its files with it:
 * what is left is the directory it was mounted on, empty unless something
 * wrote below it through the outer run's path (then kept, and said).
 */
static int gc_nested_gone(struct cmd *c, size_t i, const char *shown, const char *why)
{
	_cleanup_free_ char *why_shown = iso_escape(why);

	if (unlinkat(c->user_fd, c->names[i], AT_REMOVEDIR) < 0) {
		printf("kept %s: its tmpfs ended with its files, but the directory below it "
		       "stays: %s\n",
		       shown, strerror(errno));
		return 1;
	}
	printf("removed %s: %s; its tmpfs (a run inside another's) ended with its unmount, and "
	       "its files with it\n",
	       shown, why_shown ? why_shown : "?");
	return 0;
}

/* One tree: its run's processes stopped, the kernel asked, its holders judged, acted on. */
static int gc_one(struct cmd *c, size_t i)
{
	struct tree_view v;
	struct tree_judging how = { 0 };
	struct gc_kernel k = { 0 };
	char why[1200], note[900] = "";
	_cleanup_free_ char *shown = NULL;
	dev_t alias = shielded(c, i), took_off = alias;
	bool gated, removable = false, nested;
	int r;

	/* the lock, once taken, is held through the removal: no owner can start */
	tree_view(c->user_fd, c->user_path, c->names[i], &c->host, true, &v);
	gated = v.gated;
	if (v.gated && v.lock == TREE_LOCK_TAKEN && !c->dry_run && ungate(c, i, &v) < 0) {
		tree_view_close(&v);
		return 1;
	}
	if (alias)
		v.alias_dev = alias;
	shown = iso_shell_quote(v.path);
	/* owner gone, lock ours: what the run left running goes first */
	r = gc_orphans(c, &v, shown ? shown : v.path, note, sizeof(note));
	if (r != 0) {
		_cleanup_free_ char *note_shown = iso_escape(note);

		printf("kept %s: %s\n", shown ? shown : v.path, note_shown ? note_shown : "?");
		tree_view_close(&v);
		return r < 0;
	}
	/*
	 * A nested tree's tmpfs ends with the proof, and its records with it: it
	 * is judged first, as proven, and asked only when that would remove it.
	 */
	nested = tree_shield_nested(c->user_fd, c->names[i]);
	if (nested && may_ask(c, &v, alias)) {
		struct tree_judging pre = { .proven = true };

		removable = judge(c, &v, &pre, note, why, sizeof(why));
	}
	if (may_ask(c, &v, alias) && (!nested || removable)) {
		ask_kernel(c, i, &v, &k);
		if (k.nested && k.proof == TREE_SHIELD_UNUSED) {
			tree_view_close(&v);
			return gc_nested_gone(c, i, shown ? shown : c->names[i], why);
		}
		/* off: what holds it through the shield shows the shield's device */
		alias = shielded(c, i);
		v.alias_dev = alias ? alias : k.dev ? k.dev : v.alias_dev;
		judging_from(&k, &how);
		if (k.foreign)
			alias = 0;
	}
	removable = judge(c, &v, &how, note, why, sizeof(why));
	if (c->verbose)
		say_holders(shown ? shown : v.path, &how, &k, gated, alias);
	r = gc_act(c, i, &v, removable, why, alias, took_off);
	tree_view_close(&v);
	return r;
}

int cli_gc_main(int argc, char **argv)
{
	struct cmd c = { .name = "gc", .user_fd = -1 };
	int code = 0;
	int r = parse(&c, argc, argv);

	if (r)
		return r == 1 ? 0 : r;
	r = open_trees(&c);
	if (r)
		return r == 1 ? 0 : r;
	for (size_t i = 0; i < c.n; i++)
		if (gc_one(&c, i))
			code = 1;
	if (!c.dry_run)
		sweep_work(&c);
	close_trees(&c);
	/* the bind a run on a removable root could not take off (another used it) */
	if (!c.dry_run && c.user_path[0])
		(void)tree_mntns_unshare(c.user_path);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "isorun: gc: write the report: %s\n", strerror(errno));
		return 1;
	}
	return code;
}
