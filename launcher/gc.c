// SPDX-License-Identifier: MIT
/*
 * isorun ls, isorun gc: the trees under the caller's root, and the removal of
 * those proven orphaned (launcher/evidence.h has the rules).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "launcher/cleanup.h"
#include "launcher/commands.h"
#include "launcher/exit.h"
#include "launcher/suggest.h"
#include "launcher/text.h"
#include "launcher/tree.h"
#include "launcher/trees.h"

struct cmd {
	const char *name; /* "ls" or "gc" */
	const char *root;
	bool dry_run;
	int user_fd;
	char user_path[PATH_MAX];
	struct iso_host host;
	char **names;
	size_t n;
};

static void usage(FILE *f, const char *name)
{
	if (!strcmp(name, "ls"))
		fputs("usage: isorun ls [--root DIR]\n"
		      "  list the trees under DIR/isorun-UID: path, age, size, owner pid, state,\n"
		      "  reason (states: running, kept, retained, orphaned, unknown, unreadable)\n",
		      f);
	else
		fputs("usage: isorun gc [--dry-run] [--root DIR]\n"
		      "  remove the trees under DIR/isorun-UID whose owner is proven gone, whose\n"
		      "  lock is free and in which no process has a file, cwd or root\n"
		      "  --dry-run  only say what would be removed or kept, and why\n",
		      f);
}

/*
 * An option ls or gc does not take.  getopt leaves optind on a short option that
 * is not the last of its group ("-la"), so the word is rebuilt from optopt.
 */
static int refuse_option(int argc, char **argv, const char *word, const struct option *opts)
{
	const char *longs[8] = { 0 };
	char buf[300], shortw[3] = { '-', (char)optopt, 0 };
	size_t n = 0;

	for (; opts[n].name && n < ELEMENTSOF(longs); n++)
		longs[n] = opts[n].name;
	if (optopt)
		word = shortw;
	iso_unknown_option(word, longs, n, buf, sizeof(buf));
	/* a near or ambiguous option is a typo of ours, not another program's option */
	if (strstr(buf, "did you mean") || strstr(buf, "ambiguous")) {
		fprintf(stderr, "isorun: %s: %s\n", argv[1], buf);
		return ISO_EXIT_SETUP;
	}
	snprintf(buf, sizeof(buf), "unknown option '%s'", word);
	return iso_subcommand_refuse(argc, argv, buf);
}

/* 0 to go on, 1 when done (help), or ISO_EXIT_SETUP after one line on stderr. */
static int parse(struct cmd *c, int argc, char **argv)
{
	static const struct option ls_opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option gc_opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool gc = !strcmp(c->name, "gc");
	/* argv[0] is "isorun", argv[1] the subcommand: getopt starts after it */
	char **av = argv + 1;
	int ac = argc - 1, opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(ac, av, ":h", gc ? gc_opts : ls_opts, NULL)) != -1) {
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
		case 'h':
			usage(stdout, c->name);
			return 1;
		case ':':
			fprintf(stderr, "isorun: %s: %s needs an argument\n", c->name,
				av[optind - 1]);
			return ISO_EXIT_SETUP;
		default:
			return refuse_option(argc, argv, av[optind - 1], gc ? gc_opts : ls_opts);
		}
	}
	if (optind < ac) {
		char why[PATH_MAX + 64];

		snprintf(why, sizeof(why), "unexpected argument '%s'", av[optind]);
		return iso_subcommand_refuse(argc, argv, why);
	}
	return 0;
}

/* 0 with c->names listed, 1 when there is no directory (nothing to do), or an exit code. */
static int open_trees(struct cmd *c)
{
	struct iso_err e = { 0 };
	char buf[512];
	int r;

	c->user_fd = iso_tree_open_user_dir(iso_tree_root(c->root), false, c->user_path,
					    sizeof(c->user_path), &e);
	if (c->user_fd == -ENOENT) {
		struct stat st;
		const char *root = iso_tree_root(c->root);
		/* a mistyped --root is not "no trees": say so, but nothing failed */
		if (stat(root, &st) < 0 && errno == ENOENT)
			fprintf(stderr, "isorun: %s: root '%s' does not exist: no trees there\n",
				c->name, root);
		return 1;
	}
	if (c->user_fd < 0) {
		fprintf(stderr, "isorun: %s: %s\n", c->name, iso_err_format(&e, buf, sizeof(buf)));
		return ISO_EXIT_SETUP;
	}
	r = iso_tree_names(c->user_fd, &c->names);
	if (r < 0) {
		fprintf(stderr, "isorun: %s: read '%s': %s\n", c->name, c->user_path, strerror(-r));
		return ISO_EXIT_SETUP;
	}
	c->n = (size_t)r;
	iso_host_current(&c->host);
	return 0;
}

static void close_trees(struct cmd *c)
{
	iso_tree_names_free(c->names, c->n);
	if (c->user_fd >= 0)
		close(c->user_fd);
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
	char *path;
	char age[24], size[24], pid[16];
	const char *state;
	char reason[600];
};

int iso_ls_main(int argc, char **argv)
{
	struct cmd c = { .name = "ls", .user_fd = -1 };
	struct row *rows;
	size_t width = 4;
	int r = parse(&c, argc, argv);

	if (r)
		return r == 1 ? 0 : r;
	r = open_trees(&c);
	if (r)
		return r == 1 ? 0 : r;
	rows = calloc(c.n ? c.n : 1, sizeof(*rows));
	if (!rows) {
		fprintf(stderr, "isorun: ls: out of memory\n");
		close_trees(&c);
		return ISO_EXIT_SETUP;
	}
	for (size_t i = 0; i < c.n; i++) {
		struct iso_tree_view v;
		bool partial = false;
		uint64_t bytes;

		iso_tree_view(c.user_fd, c.user_path, c.names[i], &c.host, false, &v);
		rows[i].path = iso_shell_quote(v.path);
		format_age(v.created, rows[i].age, sizeof(rows[i].age));
		if (v.fd >= 0) {
			bytes = iso_tree_size(v.fd, &partial);
			format_size(bytes, partial, rows[i].size, sizeof(rows[i].size));
		} else {
			snprintf(rows[i].size, sizeof(rows[i].size), "-");
		}
		if (v.owner_ok)
			snprintf(rows[i].pid, sizeof(rows[i].pid), "%d", (int)v.owner.pid);
		else
			snprintf(rows[i].pid, sizeof(rows[i].pid), "-");
		rows[i].state = iso_tree_seen_name(v.seen);
		snprintf(rows[i].reason, sizeof(rows[i].reason), "%s", v.reason);
		if (rows[i].path && strlen(rows[i].path) > width)
			width = strlen(rows[i].path);
		iso_tree_view_close(&v);
	}
	if (c.n)
		printf("%-*s  %5s  %6s  %7s  %-10s  %s\n", (int)width, "PATH", "AGE", "SIZE", "PID",
		       "STATE", "REASON");
	for (size_t i = 0; i < c.n; i++) {
		printf("%-*s  %5s  %6s  %7s  %-10s  %s\n", (int)width,
		       rows[i].path ? rows[i].path : "?", rows[i].age, rows[i].size, rows[i].pid,
		       rows[i].state, rows[i].reason);
		free(rows[i].path);
	}
	free(rows);
	close_trees(&c);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "isorun: ls: write the listing: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

int iso_gc_main(int argc, char **argv)
{
	struct cmd c = { .name = "gc", .user_fd = -1 };
	int code = 0;
	int r = parse(&c, argc, argv);

	if (r)
		return r == 1 ? 0 : r;
	r = open_trees(&c);
	if (r)
		return r == 1 ? 0 : r;
	for (size_t i = 0; i < c.n; i++) {
		struct iso_tree_view v;
		char why[1200];
		_cleanup_free_ char *shown = NULL;
		bool removable;

		/* the lock, once taken, is held through the removal: no owner can start */
		iso_tree_view(c.user_fd, c.user_path, c.names[i], &c.host, true, &v);
		removable = iso_tree_judge(&v, why, sizeof(why));
		shown = iso_shell_quote(v.path);
		if (!removable) {
			printf("%s %s: %s\n", c.dry_run ? "keep" : "kept", shown ? shown : v.path,
			       why);
		} else if (c.dry_run) {
			printf("would remove %s: %s\n", shown ? shown : v.path, why);
		} else {
			struct iso_err e = { 0 };
			char buf[400];

			if (iso_tree_remove(c.user_fd, &v, &e) < 0) {
				fflush(stdout);
				fprintf(stderr, "isorun: gc: cannot remove %s: %s\n",
					shown ? shown : v.path,
					iso_err_format(&e, buf, sizeof(buf)));
				code = 1;
			} else {
				printf("removed %s: %s\n", shown ? shown : v.path, why);
			}
		}
		iso_tree_view_close(&v);
	}
	close_trees(&c);
	if (fflush(stdout) == EOF) {
		fprintf(stderr, "isorun: gc: write the report: %s\n", strerror(errno));
		return 1;
	}
	return code;
}
