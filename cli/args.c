// SPDX-License-Identifier: MIT
#include "cli/args.h"
#include "cli/advice.h"
#include "cli/keys.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/exit.h"
#include "common/num.h"
#include "cli/suggest.h"
#include "common/text.h"
#include "launcher/cache.h"
#include "launcher/ceiling.h"
#include "tree/tree.h"
#include "ns/ns.h"
#include "policy/policy.h"

/* getopt's value for a key; the options that are not settings follow */
#define OPT_KEY(k) (256 + (k))
enum {
	OPT_CONFIG = OPT_KEY(SUP_N_KEYS),
	OPT_NO_CONFIG,
	OPT_VERSION,
	OPT_TREE,
	OPT_LIKE,
};
/* the settings, config, no-config, help, version, tree, like and the terminator */
#define ISO_N_LONG_OPTS (SUP_N_KEYS + 7)

/* The options that are not settings; the settings' options come from cli_keys[]. */
static const struct option other_opts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "no-config", no_argument, NULL, OPT_NO_CONFIG },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "tree", required_argument, NULL, OPT_TREE }, /* isorun shell only */
	{ "like", required_argument, NULL, OPT_LIKE }, /* isorun shell only */
};

/*
 * getopt's table, generated from the one key table.  Flags take an optional
 * =true/=false, so that the command line can turn off what isorun.conf turned
 * on; a bare --keep is --keep=true.
 */
static void fill_long_opts(struct option out[static ISO_N_LONG_OPTS])
{
	size_t n = 0;

	for (int k = 0; k < SUP_N_KEYS; k++) {
		bool optional = cli_keys[k].kind == CLI_KIND_FLAG || cli_keys[k].bare;

		out[n++] = (struct option){ cli_keys[k].name,
					    optional ? optional_argument : required_argument, NULL,
					    OPT_KEY(k) };
	}
	for (size_t i = 0; i < ELEMENTSOF(other_opts); i++)
		out[n++] = other_opts[i];
	out[n] = (struct option){ 0 };
}

/* The long option `word` names (--NAME or --NAME=VALUE), or NULL. */
static const char *long_option_named(const struct option *opts, const char *word)
{
	size_t n;

	if (strncmp(word, "--", 2) != 0 || !word[2])
		return NULL;
	n = strcspn(word + 2, "=");
	for (; opts->name; opts++)
		if (strlen(opts->name) == n && strncmp(opts->name, word + 2, n) == 0)
			return opts->name;
	return NULL;
}

bool cli_misplaced_options(const struct sup_opts *o, char *buf, size_t len)
{
	struct option long_opts[ISO_N_LONG_OPTS];
	_cleanup_free_ char *cmd = NULL;
	size_t used = 0, found = 0;

	fill_long_opts(long_opts);
	buf[0] = '\0';
	/* a nested isorun: the options after its name are its own */
	if (o->argc > 0) {
		const char *slash = strrchr(o->argv[0], '/');

		if (!strcmp(slash ? slash + 1 : o->argv[0], "isorun"))
			return false;
	}
	for (size_t i = 1; i < o->argc && strcmp(o->argv[i], "--") != 0; i++) {
		const char *name = long_option_named(long_opts, o->argv[i]);
		_cleanup_free_ char *w = NULL;

		if (!name || !strcmp(name, "help") || !strcmp(name, "version"))
			continue;
		w = iso_escape(o->argv[i]);
		if (used < len)
			used += (size_t)snprintf(buf + used, len - used, "%s`%s`",
						 found ? ", " : "", w ? w : "?");
		found++;
	}
	if (!found || used >= len)
		return found;
	cmd = iso_escape(o->argv[0]);
	snprintf(buf + used, len - used,
		 " after the command went to %s; put isorun's options before it", cmd ? cmd : "?");
	return true;
}

/* The column --help's words start at, and the width of its lines. */
#define HELP_COLUMN 25
#define HELP_WIDTH  80

/*
 * One option's lines of --help: "  HEAD", its words from HELP_COLUMN, each '\n'
 * continuing them below and "%s" replaced by `say`.  A head too long for the
 * column keeps its words on its line after two spaces while that line fits,
 * else they start on the line below.
 */
static void usage_lines(FILE *f, const char *head, const char *help, const char *say)
{
	size_t first = strcspn(help, "\n");
	int n = fprintf(f, "  %s", head);

	if (n < 0)
		return;
	if (n > HELP_COLUMN - 2 && (size_t)n + 2 + first <= HELP_WIDTH)
		fputs("  ", f);
	else if (n > HELP_COLUMN - 2)
		fprintf(f, "\n%*s", HELP_COLUMN, "");
	else
		fprintf(f, "%*s", HELP_COLUMN - n, "");
	for (const char *p = help; *p; p++) {
		if (p[0] == '%' && p[1] == 's' && say) {
			fputs(say, f);
			p++;
		} else if (*p == '\n') {
			fprintf(f, "\n%*s", HELP_COLUMN, "");
		} else {
			fputc(*p, f);
		}
	}
	fputc('\n', f);
}

/* append a and b to head[len] at *at, cut at its end */
static void head_add(char *head, size_t len, size_t *at, const char *a, const char *b)
{
	int n = *at < len ? snprintf(head + *at, len - *at, "%s%s", a, b) : 0;

	*at += n > 0 ? (size_t)n : 0;
}

/* A key's lines, from its row: "-q, --quiet", "--root DIR", "--net=host|isolated". */
static void key_usage(const struct cli_key_info *k, FILE *f)
{
	char head[128], letter[2] = { k->letter, '\0' };
	size_t at = 0;

	head[0] = '\0';
	if (k->letter)
		head_add(head, sizeof(head), &at, "-", letter);
	head_add(head, sizeof(head), &at, k->letter ? ", --" : "--", k->name);
	if (k->metavar)
		head_add(head, sizeof(head), &at, "", k->metavar);
	for (const struct cli_word *w = k->words; !k->metavar && w && w->word; w++)
		head_add(head, sizeof(head), &at, w == k->words ? "=" : "|", w->word);
	usage_lines(f, head, k->help ? k->help : "", NULL);
}

/* A ceiling's lines, from its row (launcher/ceiling_kinds.c). */
static void ceiling_usage(const struct sup_ceiling_desc *d, FILE *f)
{
	char head[128];

	snprintf(head, sizeof(head), "--%s %s", d->name, d->metavar);
	usage_lines(f, head, d->help, cli_says[d->help_say]);
}

/* --help: the synopsis, then every key of the table in its order, then the rest. */
void cli_usage(FILE *f)
{
	fputs("Usage: isorun [OPTION]... [--] COMMAND [ARG]...\n"
	      "       isorun shell [OPTION]... [-- COMMAND [ARG]...]\n"
	      "       isorun shell --like REPORT [OPTION]... [-- COMMAND [ARG]...]\n"
	      "       isorun rerun REPORT [OPTION]... [-- COMMAND [ARG]...]\n"
	      "       isorun config [--json] [OPTION]... [-- COMMAND [ARG]...]\n"
	      "       isorun selftest [--json] [OPTION]...\n"
	      "       isorun ls [--json] [--root DIR]\n"
	      "       isorun gc [--dry-run] [--kept] [-v] [--root DIR]\n"
	      "       isorun report [--junit FILE] FILE|DIR...\n"
	      "       isorun policy show [NAME|FILE] | isorun policy check FILE\n"
	      "Run COMMAND with a private HOME/TMPDIR tree; fail if anything it started\n"
	      "outlives it; remove the tree only when nothing can still use it.\n"
	      "Options also come from the nearest isorun.conf (this directory or an\n"
	      "ancestor); the command line wins.  `isorun config` shows the result.\n"
	      "\n",
	      f);
	for (int k = 0; k < SUP_N_KEYS; k++) {
		if (k < SUP_K_CEILING || k >= SUP_K_CEILING + SUP_N_CEILINGS)
			key_usage(&cli_keys[k], f);
		else
			ceiling_usage(&sup_ceiling_descs[k - SUP_K_CEILING], f);
		if (k == SUP_K_CEILING + SUP_N_CEILINGS - 1)
			usage_lines(f, "", "try:VALUE: a ceiling enforces what it can and goes on",
				    NULL);
	}
	fputs("  --config FILE          read the options from FILE, not the nearest isorun.conf\n"
	      "  --no-config            read no isorun.conf\n"
	      "  --FLAG=false           turn off a flag (--keep, --private-tmp, ...) that\n"
	      "                         isorun.conf turned on\n"
	      "  --help, --version\n"
	      "\n"
	      "Exit: the command's own code; 122 findings; 124 timeout; 125 isorun failed;\n"
	      "126/127 cannot execute / not found; 128+N killed by signal N.\n",
	      f);
}

void cli_shell_usage(FILE *f)
{
	fputs("Usage: isorun shell [--tree PATH|ID|--like REPORT] [OPTION]... [-- COMMAND "
	      "[ARG]...]\n"
	      "       isorun rerun REPORT [OPTION]... [-- COMMAND [ARG]...]\n"
	      "Start an interactive $SHELL (or COMMAND) in a fresh isorun tree, with the\n"
	      "options and guards of a run (isorun --help lists them) and isorun.conf.\n"
	      "The tree is kept when the shell exits: isorun prints its path and the\n"
	      "command that removes it.  Leave with exit or Ctrl-D.\n"
	      "  --tree PATH|ID  re-enter a kept tree (a path, or the name isorun ls shows)\n"
	      "                  with the settings of the run that made it; the command\n"
	      "                  line's options win, and the tree's never widen them.\n"
	      "                  Its processes are gone: only its files come back.\n"
	      "  --like REPORT   a new tree with the settings a --report recorded, in the\n"
	      "                  run's working directory; isorun rerun REPORT runs the\n"
	      "                  report's command again so.  A COMMAND after -- replaces\n"
	      "                  the report's (then it gives the settings alone, here).\n",
	      f);
}

void cli_config_usage(FILE *f)
{
	fputs("Usage: isorun config [--json] [OPTION]... [-- COMMAND [ARG]...]\n"
	      "Print every setting that `isorun OPTION... -- COMMAND` would run with, one\n"
	      "per line as `name = value    (source)`: default, FILE:LINE of isorun.conf,\n"
	      "or command line.  The options are a run's (isorun --help lists them).\n"
	      "  --json   one JSON object: config, settings (name: {value, source}, a list\n"
	      "           for the repeatable ones), command\n",
	      f);
}

/*
 * Each --watch-ignore glob's source as the report names it: the option, or the
 * file and line it came from (a project file's ignores are taken, and said).
 */
static void watch_ignore_sources(struct sup_opts *o)
{
	size_t g = 0;

	o->watch_ignore_by.n = 0;
	for (size_t i = 0; i < o->n_settings && g < o->watch_ignore.n; i++) {
		const struct sup_setting *st = &o->settings[i];
		char *label = NULL, **v;

		if (st->key != SUP_K_WATCH_IGNORE)
			continue;
		if (st->line == SUP_FROM_CLI ? asprintf(&label, "--watch-ignore %s", st->val) < 0
					     : asprintf(&label, "%s:%u: watch-ignore = %s",
							o->config_path ? o->config_path : "?",
							st->line, st->val) < 0)
			label = NULL;
		v = realloc(o->watch_ignore_by.v, (g + 2) * sizeof(*v));
		if (!v) {
			free(label);
			return;
		}
		o->watch_ignore_by.v = v;
		if (!label || !sup_opts_keep(o, label))
			return;
		v[g++] = label;
		v[g] = NULL;
		o->watch_ignore_by.n = g;
	}
}

/*
 * The one place that decides what the options imply: which namespaces, which gate,
 * what init mounts, how the run is stopped, which sinks keep what.
 */
void cli_plan_compile(struct sup_opts *o)
{
	struct sup_run_plan *p = &o->plan;

	/* a mount asked for (--bind, --ro-bind, --tmpfs) needs the namespace, as a protection */
	p->protections =
		o->net_isolated || o->private_tmp || o->protect_home != NS_HOME_OFF || o->n_binds;
	p->namespaces = p->protections || o->pidns != SUP_PIDNS_OFF;
	p->init_gate = p->namespaces;
	p->init_fallback = o->pidns == SUP_PIDNS_TRY && !p->protections;
	p->hides = o->private_tmp || o->protect_home == NS_HOME_HIDE;
	p->keep_output = false;
#define SINK_TAIL(ID, name, help, rkey, fd_path, tail, ...)                                        \
	p->keep_output |= (tail) && o->outputs[SUP_SINK_##ID];
	SUP_SINK_ROWS(SINK_TAIL)
#undef SINK_TAIL
	p->policy = strcmp(o->policy, "off") != 0;
	p->mounts = (struct sup_mount_plan){
		.net_isolated = o->net_isolated,
		.private_tmp = o->private_tmp,
		.home = o->protect_home,
		.binds = o->binds,
		.n_binds = o->n_binds,
	};
	p->leaks = o->leaks;
	p->residue = o->residue;
	p->watches = o->watch.n > 0;
	p->cap_keep = o->cap_keep;
	p->map_root = o->map_root;
	p->caches = 0;
	for (size_t i = 0; i < o->caches.n; i++)
		p->caches |= 1u << sup_cache_lookup(o->caches.v[i]);
	p->stop = (struct sup_stop_plan){
		.signal = o->stop_signal,
		.grace_ms = o->grace_ms,
		.settle_ms = o->settle_ms,
		.timeout_ms = o->timeout_ms,
	};
	p->cgroup = o->cgroup == SUP_CGROUP_AUTO;
	for (int c = 0; c < SUP_N_CEILINGS; c++) {
		p->ceilings[c] = o->ceilings[c];
		snprintf(p->ceiling_opt[c], sizeof(p->ceiling_opt[c]), "--%s",
			 cli_keys[SUP_K_CEILING + c].name);
	}
	watch_ignore_sources(o);
}

/*
 * A setting that does nothing without another is a mistake the user cannot see:
 * one line each on stderr, naming the one it needs; -q silences them.
 */
void cli_warn_inert(const struct sup_opts *o)
{
	static const char *const fmt = "isorun: warning: %s has no effect without %s\n";

	if (o->verbosity < 0)
		return;
	if (o->map_root && o->pidns == SUP_PIDNS_OFF)
		fprintf(stderr, fmt, "--map-root", "--pidns");
	if (o->map_users != SUP_MAP_USERS_OFF && !o->plan.namespaces)
		fprintf(stderr, fmt, "--map-users", "--pidns");
	if (o->residue == SUP_FAIL && !o->watch.n)
		fprintf(stderr, fmt, "--residue=fail", "--watch");
	if (o->watch_ignore.n && !o->watch.n)
		fprintf(stderr, fmt, "--watch-ignore", "--watch");
	if (o->writable.n && o->protect_home == NS_HOME_OFF)
		fprintf(stderr, fmt, "--writable", "--protect-home=ro|hide");
	if (o->keep_env.n && !o->clearenv)
		fprintf(stderr, fmt, "--keep-env", "--clearenv");
	if (o->policy_log && !o->plan.policy)
		fputs("isorun: warning: --policy-mode=log has no effect with --policy=off\n",
		      stderr);
}

int cli_args_refuse(struct sup_opts *o, const struct iso_err *e)
{
	fprintf(stderr, "isorun: %s\n", e->msg);
	fprintf(stderr, "isorun: FAILED (exit %d): bad command line (see isorun --help)\n",
		ISO_EXIT_SETUP);
	sup_opts_free(o);
	return ISO_EXIT_SETUP;
}

/* A word after a bare --pidns or --color that was meant as its value */
static bool looks_like_bare_value(enum sup_key key, const char *w)
{
	if (cli_keys[key].words)
		return cli_word_value(&cli_keys[key], w) >= 0;
	return strcmp(w, "try") == 0 || cli_parse_bool(w) >= 0;
}

static int record(struct sup_opts *o, enum sup_key key, char *val, unsigned line)
{
	struct sup_setting *n = realloc(o->settings, (o->n_settings + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	n[o->n_settings++] = (struct sup_setting){ .key = key, .line = line, .val = val };
	o->settings = n;
	return 0;
}

int cli_opt_set(struct sup_opts *o, enum sup_key key, char *val, unsigned line, struct iso_err *e)
{
	const struct cli_key_info *k;
	char opt[64];
	int r;

	if ((unsigned)key >= SUP_N_KEYS)
		return iso_err_set(e, 0, "setting %d: out of range", (int)key);
	k = &cli_keys[key];
	snprintf(opt, sizeof(opt), "%s%s", line == SUP_FROM_CLI ? "--" : "", k->name);
	e->msg[0] = '\0';
	if (!val && !k->bare && k->kind != CLI_KIND_FLAG)
		r = iso_err_set(e, 0, "%s: missing argument", opt);
	else
		r = k->parse(o, k, opt, val, line == SUP_FROM_CLI, e);
	if (r >= 0)
		r = record(o, key, val, line);
	if (r < 0 && !e->msg[0])
		iso_err_set(e, -r, "%s", opt);
	return r < 0 ? r : 0;
}

/* "--tmieout: unknown option; did you mean --timeout?", or the candidates of "--p" */
static int unknown_long(const struct option *long_opts, const char *word, struct iso_err *e)
{
	const char *names[ISO_N_LONG_OPTS];
	size_t n = 0;

	for (; long_opts[n].name; n++)
		names[n] = long_opts[n].name;
	cli_unknown_option(word, names, n, e->msg, sizeof(e->msg));
	e->errnum = 0;
	e->hint[0] = '\0';
	return -EINVAL;
}

int cli_parse_args(int argc, char **argv, struct sup_opts *o, struct iso_err *e)
{
	return cli_parse_args_flags(argc, argv, 0, o, e);
}

static int bare_value_error(enum sup_key key, const char *word, struct iso_err *e)
{
	const char *name = cli_keys[key].name;

	return iso_err_set(e, 0,
			   "--%s %s: the value of --%s goes after '=': did you mean "
			   "--%s=%s? (a command named %s: --%s -- %s)",
			   name, word, name, name, word, word, name, word);
}

/* The subcommands main() dispatches, and `isorun shell`: words a run's command may not be. */
static const char *const subcommands[] = { "shell", "config", "selftest", "ls",
					   "gc",    "policy", "report",	  "rerun" };

/* "isorun SUB OPTION... REST...": the command line with SUB moved first, each word quoted */
static void reordered(char *buf, size_t len, const char *sub, int argc, char **argv, int cmd)
{
	size_t used = (size_t)snprintf(buf, len, "isorun %s", sub);

	for (int i = 1; i < argc && used < len; i++) {
		_cleanup_free_ char *q = i == cmd ? NULL : iso_shell_quote(argv[i]);

		if (i != cmd)
			used += (size_t)snprintf(buf + used, len - used, " %s", q ? q : "?");
	}
}

/*
 * A subcommand where the command goes: `isorun --keep shell` (options first), or
 * `isorun shel` (a subcommand within two edits, and no program of that name on
 * PATH).  After "--" the word is always the command.
 */
static int misplaced_subcommand(int argc, char **argv, int cmd, struct iso_err *e)
{
	const char *w = argv[cmd], *near = NULL;
	char line[300];

	if (strcmp(argv[cmd - 1], "--") == 0)
		return 0;
	for (size_t i = 0; i < ELEMENTSOF(subcommands) && !near; i++)
		if (strcmp(w, subcommands[i]) == 0)
			near = subcommands[i];
	if (near) {
		reordered(line, sizeof(line), near, argc, argv, cmd);
		return iso_err_set(e, 0, "'%s' is a subcommand: %s (a command named %s: -- %s)", w,
				   line, w, w);
	}
	near = cli_suggest(w, subcommands, ELEMENTSOF(subcommands));
	if (!near || cli_edit_distance(w, near) > 2 || strchr(w, '/') || cli_on_path(w))
		return 0;
	reordered(line, sizeof(line), near, argc, argv, cmd);
	return iso_err_set(
		e, 0, "%s: no such command on PATH; did you mean %s? (to run it anyway: -- %s)", w,
		line, w);
}

/* $SHELL, else the passwd entry's shell (as login(1) sets it), else /bin/sh. */
static const char *login_shell(void)
{
	const char *sh = getenv("SHELL");
	struct passwd *pw;

	if (sh && *sh)
		return sh;
	pw = getpwuid(getuid());
	return pw && pw->pw_shell && pw->pw_shell[0] ? pw->pw_shell : "/bin/sh";
}

/* What follows the options: the command, or the shell's own for `isorun shell`. */
static int take_command(int argc, char **argv, unsigned flags, struct sup_opts *o,
			struct iso_err *e)
{
	if (o->shell)
		o->keep = SUP_KEEP_ALWAYS; /* the shell's tree outlives it, whatever --keep said */
	if (optind >= argc && o->shell) {
		o->shell_argv[0] = sup_opts_keep(o, strdup(login_shell()));
		o->shell_argv[1] = sup_opts_keep(o, strdup("-i"));
		if (!o->shell_argv[0] || !o->shell_argv[1])
			return iso_err_set(e, ENOMEM, "isorun shell");
		o->argv = o->shell_argv;
		o->argc = 2;
		o->shell_own = true;
		return CLI_RUN;
	}
	/* `isorun rerun REPORT`: the report's command, unless one follows */
	if (optind >= argc && ((flags & CLI_ARGS_COMMAND_OPTIONAL) || o->rerun))
		return CLI_RUN;
	if (optind >= argc)
		return iso_err_set(e, 0, "no command given (usage: isorun [OPTION]... -- COMMAND)");
	if (!o->shell && !o->rerun && !(flags & CLI_ARGS_COMMAND_OPTIONAL) &&
	    misplaced_subcommand(argc, argv, optind, e) < 0)
		return -EINVAL;
	o->argv = argv + optind;
	o->argc = (size_t)(argc - optind);
	return CLI_RUN;
}

/* `-v--pidns`: getopt read the "-" inside a word of short options as an option */
static int joined_options(const char *word, struct iso_err *e)
{
	int cut = 1 + (int)strcspn(word + 1, "-");

	return iso_err_set(e, 0, "%s: two options in one word; write them apart: %.*s %s", word,
			   cut, word, word + cut);
}

/*
 * `--root -- true`, `--chdir --keep`: getopt took the next word as the value, and
 * that word is "--", a long option or one of -q, -v, -h.  Such a value is taken
 * only with '=' (`--root=--odd`), where it cannot be a forgotten value.
 */
static int value_is_option(char **argv, int at, struct iso_err *e)
{
	const char *name = argv[at], *val = argv[at + 1];
	bool short_opt = val[0] == '-' && val[1] && !val[2] && strchr("qvh", val[1]);

	if (strncmp(val, "--", 2) != 0 && !short_opt)
		return 0;
	return iso_err_set(
		e, 0, "%s needs a value, got %s%s%s (a value that begins with '-': %s=%s)", name,
		strcmp(val, "--") == 0 ? "'" : "the option '", val, "'", name, val);
}

/* --tree PATH|ID: isorun shell's alone (cli/reenter.c judges the tree) */
static int set_tree(struct sup_opts *o, char *val, struct iso_err *e)
{
	if (!o->shell)
		return iso_err_set(
			e, 0, "--tree: only isorun shell re-enters a tree: isorun shell --tree %s",
			val);
	if (!*val)
		return iso_err_set(e, 0, "--tree: empty path");
	o->tree_arg = val;
	return 0;
}

/* --like REPORT: isorun shell's; a run again is isorun rerun REPORT (cli/like.c reads it) */
static int set_like(struct sup_opts *o, char *val, struct iso_err *e)
{
	if (!o->shell)
		return iso_err_set(
			e, 0,
			"--like: only isorun shell takes it: isorun shell --like %s (the "
			"report's command again: isorun rerun %s)",
			val, val);
	if (!*val)
		return iso_err_set(e, 0, "--like: empty path");
	o->like_arg = val;
	return 0;
}

/* `isorun rerun REPORT [OPTION]...`: the report comes first, then a run's options */
static int take_rerun(int *argc, char ***argv, struct sup_opts *o, struct iso_err *e)
{
	const char *r = *argc > 2 ? (*argv)[2] : NULL;

	if (r && (strcmp(r, "--help") == 0 || strcmp(r, "-h") == 0))
		return CLI_SHOW_HELP;
	if (!r || !*r || r[0] == '-')
		return iso_err_set(e, 0,
				   "rerun: missing REPORT (usage: isorun rerun REPORT [OPTION]... "
				   "[-- COMMAND [ARG]...])");
	o->rerun = true;
	o->like_arg = r;
	/* getopt skips argv[0]: the report's word stands there */
	*argc -= 2;
	*argv += 2;
	return 0;
}

/* `isorun shell [OPTION]... [-- COMMAND]`, `isorun rerun REPORT ...`: the same options as a run */
static int take_subcommand(int *argc, char ***argv, struct sup_opts *o, struct iso_err *e)
{
	if (*argc > 1 && strcmp((*argv)[1], "rerun") == 0)
		return take_rerun(argc, argv, o, e);
	if (*argc > 1 && strcmp((*argv)[1], "shell") == 0) {
		o->shell = true;
		o->keep = SUP_KEEP_ALWAYS;
		(*argc)--;
		(*argv)++;
	}
	return 0;
}

int cli_parse_args_flags(int argc, char **argv, unsigned flags, struct sup_opts *o,
			 struct iso_err *e)
{
	struct option long_opts[ISO_N_LONG_OPTS];
	int c, idx = 0, r, bare_end = -1, at;
	enum sup_key bare_key = SUP_K_PIDNS;

	fill_long_opts(long_opts);
	r = take_subcommand(&argc, &argv, o, e);
	if (r != 0)
		return r;
	optind = 1;
	opterr = 0;
	/* "+": stop at the first non-option, so the command's own options stay its own */
	/* at: the word getopt is in, for a message ("-la" stays one word until its end) */
	while ((at = optind, c = getopt_long(argc, argv, "+:qvh", long_opts, &idx)) != -1) {
		char *val = optarg;

		/* the value was the next word (`--root DIR`), not after '=' */
		if (val && optind == at + 2 && val == argv[at + 1] &&
		    value_is_option(argv, at, e) < 0)
			return -EINVAL;

		switch (c) {
		case OPT_CONFIG:
			if (!*optarg)
				return iso_err_set(e, 0, "--config: empty path");
			/* only one file is read: the last --config or --no-config wins */
			o->config_arg = optarg;
			o->no_config = false;
			continue;
		case OPT_NO_CONFIG:
			o->config_arg = NULL;
			o->no_config = true;
			continue;
		case OPT_TREE:
			if (set_tree(o, optarg, e) < 0)
				return -EINVAL;
			continue;
		case OPT_LIKE:
			if (set_like(o, optarg, e) < 0)
				return -EINVAL;
			continue;
		case 'q':
		case 'v':
			/* getopt leaves optarg as it was for a short option */
			c = OPT_KEY(c == 'q' ? SUP_K_QUIET : SUP_K_VERBOSE);
			val = NULL;
			break;
		case 'h':
			return CLI_SHOW_HELP;
		case OPT_VERSION:
			return CLI_SHOW_VERSION;
		case ':':
			return iso_err_set(e, 0, "%s: missing argument", argv[optind - 1]);
		case '?':
			if (optopt == '-')
				return joined_options(argv[at], e);
			if (strncmp(argv[at], "--", 2) != 0)
				return iso_err_set(e, 0, "-%c: unknown option", optopt);
			return unknown_long(long_opts, argv[at], e);
		default:
			break;
		}
		if (c < OPT_KEY(0) || c >= OPT_KEY(SUP_N_KEYS))
			return iso_err_set(e, 0, "%s: unknown option", argv[optind - 1]);
		r = cli_opt_set(o, (enum sup_key)(c - OPT_KEY(0)), val, SUP_FROM_CLI, e);
		if (r < 0)
			return r;
		bare_key = (enum sup_key)(c - OPT_KEY(0));
		bare_end = cli_keys[bare_key].bare && !val ? optind : -1;
	}
	/* `--pidns try -- make`: getopt reads "try" as the command; no "--" came between */
	if (bare_end == optind && optind < argc && looks_like_bare_value(bare_key, argv[optind]))
		return bare_value_error(bare_key, argv[optind], e);
	return take_command(argc, argv, flags, o, e);
}
