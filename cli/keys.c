// SPDX-License-Identifier: MIT
/*
 * The key table: one entry per option, the one place that describes it.  The
 * command line's getopt table (args.c), isorun.conf (conf.c), isorun config
 * (config.c) and the report's settings (launcher/report.c prints what
 * cli_key_report() words) loop over it.  Adding an option is an entry here,
 * its field in struct sup_opts (launcher/opts.h), its ISO_K_ name, its line in
 * --help, and the code that uses it.  A ceiling is a row of the ceilings'
 * table (launcher/ceiling_kinds.c), whose key here is one CEILING_KEY line.
 */
#include "cli/keys.h"
#include "common/cleanup.h"

#include <stdio.h>
#include <string.h>

#include "common/text.h"
#include "launcher/ceiling.h"
#include "ns/ns.h"
#include "tree/tree.h"

/* a choice's word; its value is what the field holds */
#define WORD(w, v)                                                                                 \
	{                                                                                          \
		.word = w, .value = v                                                              \
	}
static const struct cli_word verdict_modes[] = {
	WORD("fail", SUP_FAIL), WORD("warn", SUP_WARN), WORD("ignore", SUP_IGNORE), { 0 }
};
/* --residue takes no ignore: an entry that appears is reported at least */
static const struct cli_word residue_modes[] = { WORD("fail", SUP_FAIL),
						 WORD("warn", SUP_WARN),
						 { 0 } };
static const struct cli_word map_users_words[] = { WORD("off", SUP_MAP_USERS_OFF),
						   WORD("auto", SUP_MAP_USERS_AUTO),
						   WORD("require", SUP_MAP_USERS_REQUIRE),
						   { 0 } };
/* "none": docker's and podman's --network=none */
static const struct cli_word net_words[] = { WORD("host", false),
					     { .word = "isolated", .value = true, .like = "none" },
					     { 0 } };
/* read-only: systemd's ProtectHome= spelling */
static const struct cli_word home_words[] = {
	WORD("off", NS_HOME_OFF),
	{ .word = "ro", .value = NS_HOME_RO, .alias = "read-only" },
	WORD("hide", NS_HOME_HIDE),
	{ 0 }
};
/* "audit": what seccomp and auditd call logging a call instead of refusing it */
static const struct cli_word policy_modes[] = { WORD("enforce", false),
						{ .word = "log", .value = true, .like = "audit" },
						{ 0 } };
static const struct cli_word color_words[] = { WORD("auto", SUP_COLOR_AUTO),
					       WORD("always", SUP_COLOR_ALWAYS),
					       WORD("never", SUP_COLOR_NEVER),
					       { 0 } };
/* also true and false, as every flag (cli_set_keep): not words, so `--keep true` runs true */
static const struct cli_word keep_words[] = { WORD("never", SUP_KEEP_NEVER),
					      WORD("always", SUP_KEEP_ALWAYS),
					      WORD("on-failure", SUP_KEEP_ON_FAILURE),
					      { 0 } };
static const struct cli_word cgroup_words[] = { WORD("auto", SUP_CGROUP_AUTO),
						WORD("off", SUP_CGROUP_OFF),
						{ 0 } };

int cli_choice_get(const struct sup_opts *o, const struct cli_key_info *k)
{
	return k->size == sizeof(bool) ? *CLI_CFIELD(o, k, bool) : *CLI_CFIELD(o, k, int);
}

const char *cli_word_name(const struct cli_key_info *k, int value)
{
	for (const struct cli_word *x = k->words; x && x->word; x++)
		if (x->value == value)
			return x->word;
	return "?";
}

/* ---- isorun config: a value as an option would spell it ---- */

static const char *yes(bool b)
{
	return b ? "true" : "false";
}

static const char *show_flag(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
			     size_t len)
{
	return yes(*CLI_CFIELD(o, k, bool));
}

static const char *show_verbosity(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
				  size_t len)
{
	return yes(o->verbosity * k->arg > 0);
}

static const char *show_choice(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
			       size_t len)
{
	return cli_word_name(k, cli_choice_get(o, k));
}

static const char *show_str(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
			    size_t len)
{
	const char *s = *CLI_CFIELD(o, k, const char *);

	return s ? s : "none";
}

static const char *show_root(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
			     size_t len)
{
	return o->root ? o->root : tree_root(NULL);
}

static const char *show_pidns(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
			      size_t len)
{
	return o->pidns == SUP_PIDNS_TRY ? "try" : yes(o->pidns == SUP_PIDNS_ON);
}

/* 0 is none for --timeout; a grace or settle of 0 is a duration */
static const char *show_duration(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
				 size_t len)
{
	uint64_t ms = *CLI_CFIELD(o, k, uint64_t);

	if (!ms && k->arg)
		return "none";
	return iso_format_duration(ms, buf, len);
}

static const char *show_signal(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
			       size_t len)
{
	return iso_signal_name(o->stop_signal, buf, len);
}

static const char *show_finding_exit(const struct sup_opts *o, const struct cli_key_info *k,
				     char *buf, size_t len)
{
	snprintf(buf, len, "%d", o->finding_exit);
	return buf;
}

/* as given: the names, not the bit mask */
static const char *show_cap_keep(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
				 size_t len)
{
	const struct sup_setting *s = cli_key_last(o, (enum sup_key)(k - cli_keys));

	return s && o->cap_keep ? s->val : "none";
}

/* as given: the last setting's own spelling */
static const char *show_ceiling(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
				size_t len)
{
	const struct sup_setting *s = cli_key_last(o, (enum sup_key)(k - cli_keys));

	return s && o->ceilings[k->arg].set ? s->val : "none";
}

static const char *show_rlimit(const struct sup_opts *o, const struct cli_key_info *k, char *buf,
			       size_t len)
{
	if (!o->rlimits.set[k->arg])
		return "inherited";
	if (o->rlimits.value[k->arg] == SUP_RLIM_UNLIMITED)
		return "unlimited";
	snprintf(buf, len, "%llu", (unsigned long long)o->rlimits.value[k->arg]);
	return buf;
}

/* ---- the report's settings: cli/ words them, launcher/report.c prints them ---- */

static void rep_flag(const struct sup_opts *o, const struct cli_key_info *k,
		     struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_BOOL;
	out->flag = *CLI_CFIELD(o, k, bool);
}

static void rep_choice(const struct sup_opts *o, const struct cli_key_info *k,
		       struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_STRING;
	out->str = cli_word_name(k, cli_choice_get(o, k));
}

/* the report's keep stays the boolean it always was: true is always (issue 29) */
static void rep_keep(const struct sup_opts *o, const struct cli_key_info *k,
		     struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_BOOL;
	out->flag = o->keep == SUP_KEEP_ALWAYS;
}

/* the report's own words for --pidns: on and off, where isorun config says true and false */
static void rep_pidns(const struct sup_opts *o, const struct cli_key_info *k,
		      struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_STRING;
	out->str = o->pidns == SUP_PIDNS_TRY ? "try" : o->pidns == SUP_PIDNS_ON ? "on" : "off";
}

static void rep_path(const struct sup_opts *o, const struct cli_key_info *k,
		     struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_PATH;
	out->str = *CLI_CFIELD(o, k, const char *);
}

static void rep_paths(const struct sup_opts *o, const struct cli_key_info *k,
		      struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_PATHS;
	out->paths = CLI_CFIELD(o, k, struct sup_strv);
}

static void rep_root(const struct sup_opts *o, const struct cli_key_info *k,
		     struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_PATH;
	out->str = tree_root(o->root);
}

/* a shipped policy by its name, a file by its path */
static void rep_policy(const struct sup_opts *o, const struct cli_key_info *k,
		       struct sup_report_setting *out)
{
	out->kind = strchr(o->policy, '/') ? SUP_REPORT_PATH : SUP_REPORT_STRING;
	out->str = o->policy;
}

/* an output's fd:N is a descriptor, not a path */
static void rep_output(const struct sup_opts *o, const struct cli_key_info *k,
		       struct sup_report_setting *out)
{
	const char *s = *CLI_CFIELD(o, k, const char *);

	out->kind = !s				? SUP_REPORT_NULL
		    : strncmp(s, "fd:", 3) == 0 ? SUP_REPORT_STRING
						: SUP_REPORT_PATH;
	out->str = s;
}

/* milliseconds; --timeout's 0 (none) is null */
static void rep_ms(const struct sup_opts *o, const struct cli_key_info *k,
		   struct sup_report_setting *out)
{
	uint64_t ms = *CLI_CFIELD(o, k, uint64_t);

	out->kind = !ms && k->arg ? SUP_REPORT_NULL : SUP_REPORT_INT;
	out->num = (int64_t)ms;
}

static void rep_signal(const struct sup_opts *o, const struct cli_key_info *k,
		       struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_STRING;
	out->str = iso_signal_name(o->stop_signal, out->buf, sizeof(out->buf));
}

static void rep_finding_exit(const struct sup_opts *o, const struct cli_key_info *k,
			     struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_INT;
	out->num = o->finding_exit;
}

static void rep_ceiling(const struct sup_opts *o, const struct cli_key_info *k,
			struct sup_report_setting *out)
{
	const struct sup_ceiling *c = &o->ceilings[k->arg];

	out->kind = c->set ? SUP_REPORT_CEILING : SUP_REPORT_NULL;
	out->num = (int64_t)c->value;
	out->flag = c->try_;
}

/* a number, "unlimited", or null: inherited */
static void rep_rlimit(const struct sup_opts *o, const struct cli_key_info *k,
		       struct sup_report_setting *out)
{
	uint64_t v = o->rlimits.value[k->arg];

	out->kind = !o->rlimits.set[k->arg]   ? SUP_REPORT_NULL
		    : v == SUP_RLIM_UNLIMITED ? SUP_REPORT_STRING
					      : SUP_REPORT_INT;
	out->str = "unlimited";
	out->num = (int64_t)v;
}

/* a list of words as they are: --cache's names */
static void rep_strings(const struct sup_opts *o, const struct cli_key_info *k,
			struct sup_report_setting *out)
{
	out->kind = SUP_REPORT_STRINGS;
	out->paths = CLI_CFIELD(o, k, struct sup_strv);
}

/* ---- the table ---- */

#define VALUE CLI_KIND_VALUE
#define FLAG  CLI_KIND_FLAG
#define LIST  CLI_KIND_LIST
/* a flag: a bool field, shown as true/false, in the report as a boolean */
#define FLAG_KEY(nm, member, rkey, h)                                                              \
	{                                                                                          \
		.name = nm, .kind = FLAG, CLI_FIELD_OF(member), .parse = cli_set_flag,             \
		.show = show_flag, .report = rkey, .report_value = rep_flag, .help = h             \
	}
/* a choice among words: an int or bool field */
#define CHOICE_KEY(nm, member, w, rkey, h)                                                         \
	{                                                                                          \
		.name = nm, .kind = VALUE, CLI_FIELD_OF(member), .words = w,                       \
		.parse = cli_set_choice, .show = show_choice, .report = rkey,                      \
		.report_value = rep_choice, .help = h                                              \
	}

/*
 * An output file of the sinks table (launcher/sinktab.h): FILE or fd:N, made absolute
 * in isorun.conf; in the report, fd:N as its row says (a --junit fd:N as a path: the
 * report has always said so).
 */
#define SINK_KEY(ID, nm, h, rkey, fd_path, ...)                                                    \
	[SUP_K_##ID] = { .name = nm,                                                               \
			 .metavar = " FILE|DIR/|fd:N",                                             \
			 .help = h,                                                                \
			 .kind = VALUE,                                                            \
			 .path = true,                                                             \
			 CLI_FIELD_OF(outputs[SUP_SINK_##ID]),                                     \
			 .parse = cli_set_output,                                                  \
			 .show = show_str,                                                         \
			 .report = rkey,                                                           \
			 .report_value = (rkey) ? ((fd_path) ? rep_path : rep_output) : NULL },

/*
 * A ceiling: its name and report key are its row's (launcher/ceiling_kinds.c);
 * the ceilings share a place in the report, in the table's order.
 */
#define CEILING_KEY(c)                                                                             \
	{                                                                                          \
		.name = sup_ceiling_descs[c].name, .kind = VALUE, .arg = c,                        \
		.parse = cli_set_ceiling, .show = show_ceiling,                                    \
		.report = sup_ceiling_descs[c].report, .report_value = rep_ceiling                 \
	}

const struct cli_key_info cli_keys[SUP_N_KEYS] = {
	[SUP_K_ROOT] = { .name = "root",
			 .metavar = " DIR",
			 .help = "create trees in DIR/isorun-UID (default $ISORUN_ROOT,\n"
				 "$TMPDIR, /tmp)",
			 .kind = VALUE,
			 .path = true,
			 CLI_FIELD_OF(root),
			 .parse = cli_set_path,
			 .show = show_root,
			 .report = "root",
			 .report_value = rep_root },
	/* a bare --keep is always; =on-failure keeps only a failed run's tree */
	[SUP_K_KEEP] = { .name = "keep",
			 .metavar = "[=on-failure]",
			 .help = "keep the tree and print its path (on-failure: only\n"
				 "when the run fails; =never undoes isorun.conf's)",
			 .kind = VALUE,
			 .bare = true,
			 CLI_FIELD_OF(keep),
			 .words = keep_words,
			 .parse = cli_set_keep,
			 .show = show_choice,
			 .report = "keep",
			 .report_value = rep_keep },
	[SUP_K_ENV_DIR] = { .name = "env-dir",
			    .metavar = " VAR=SUB",
			    .help = "point VAR at a fresh directory SUB in the tree",
			    .kind = LIST,
			    CLI_FIELD_OF(env_dirs),
			    .parse = cli_set_env_dir },
	[SUP_K_CLEARENV] = FLAG_KEY("clearenv", clearenv, "clearenv",
				    "start from an empty environment (see --keep-env)"),
	[SUP_K_SETENV] = { .name = "setenv",
			   .metavar = " VAR=VAL",
			   .help = "set VAR in the command's environment",
			   .kind = LIST,
			   CLI_FIELD_OF(setenv),
			   .parse = cli_set_setenv },
	[SUP_K_UNSETENV] = { .name = "unsetenv",
			     .metavar = " VAR",
			     .help = "remove VAR from the command's environment",
			     .kind = LIST,
			     CLI_FIELD_OF(unsetenv),
			     .parse = cli_set_env_name },
	[SUP_K_KEEP_ENV] = { .name = "keep-env",
			     .metavar = " VAR",
			     .help = "with --clearenv, keep VAR",
			     .kind = LIST,
			     CLI_FIELD_OF(keep_env),
			     .parse = cli_set_env_name },
	[SUP_K_CHDIR] = { .name = "chdir",
			  .metavar = " DIR",
			  .help = "working directory of the command",
			  .kind = VALUE,
			  .path = true,
			  CLI_FIELD_OF(chdir),
			  .parse = cli_set_path,
			  .show = show_str,
			  .report = "chdir",
			  .report_value = rep_path },
	[SUP_K_PASS_FD] = { .name = "pass-fd",
			    .metavar = " N",
			    .help = "let fd N reach the command",
			    .kind = LIST,
			    .parse = cli_set_pass_fd },
	[SUP_K_WATCH] = { .name = "watch",
			  .metavar = " DIR",
			  .help = "report entries that appear in DIR during the run",
			  .kind = LIST,
			  .path = true,
			  CLI_FIELD_OF(watch),
			  .parse = cli_set_path_list,
			  .report = "watch",
			  .report_value = rep_paths },
	[SUP_K_RESIDUE] = CHOICE_KEY("residue", residue, residue_modes, "residue",
				     "what such an entry does to the verdict (warn)"),
	/* not in the report's settings: each ignored entry names its rule there */
	[SUP_K_WATCH_IGNORE] = { .name = "watch-ignore",
				 .metavar = " GLOB",
				 .help = "not residue (as a .gitignore line); a git work tree's\n"
					 ".gitignore is honoured too",
				 .kind = LIST,
				 CLI_FIELD_OF(watch_ignore),
				 .parse = cli_set_watch_ignore },
	[SUP_K_WATCH_HOME] = { .name = "watch-home",
			       .help = "name on stderr the files the run wrote in its private\n"
				       "HOME outside ~/.cache (always in the report)",
			       .kind = FLAG,
			       CLI_FIELD_OF(watch_home),
			       .parse = cli_set_flag,
			       .show = show_flag },
	/* arg 1: 0 is none */
	[SUP_K_TIMEOUT] = { .name = "timeout",
			    .metavar = " DUR",
			    .help = "stop the whole tree after DUR (exit 124); 0: no limit",
			    .kind = VALUE,
			    CLI_FIELD_OF(timeout_ms),
			    .arg = 1,
			    .parse = cli_set_duration,
			    .show = show_duration,
			    .report = "timeout_ms",
			    .report_value = rep_ms },
	[SUP_K_STOP_SIGNAL] = { .name = "stop-signal",
				.metavar = " SIG",
				.help = "signal sent on timeout or cancel (SIGTERM)",
				.kind = VALUE,
				.parse = cli_set_stop_signal,
				.show = show_signal,
				.report = "stop_signal",
				.report_value = rep_signal },
	[SUP_K_GRACE] = { .name = "grace",
			  .metavar = " DUR",
			  .help = "then SIGKILL after DUR (5s)",
			  .kind = VALUE,
			  CLI_FIELD_OF(grace_ms),
			  .parse = cli_set_duration,
			  .show = show_duration,
			  .report = "grace_ms",
			  .report_value = rep_ms },
	[SUP_K_SETTLE] = { .name = "settle",
			   .metavar = " DUR",
			   .help = "time survivors get to exit on their own (3s); said\n"
				   "at once, and Ctrl-C ends the wait",
			   .kind = VALUE,
			   CLI_FIELD_OF(settle_ms),
			   .parse = cli_set_duration,
			   .show = show_duration,
			   .report = "settle_ms",
			   .report_value = rep_ms },
	[SUP_K_LEAKS] = CHOICE_KEY("leaks", leaks, verdict_modes, "leaks",
				   "what a leak does to the verdict (fail)"),
	[SUP_K_FINDING_EXIT] = { .name = "finding-exit-code",
				 .metavar = " N",
				 .help = "exit code for a finding (122)",
				 .kind = VALUE,
				 .parse = cli_set_finding_exit,
				 .show = show_finding_exit,
				 .report = "finding_exit_code",
				 .report_value = rep_finding_exit },
	[SUP_K_PIDNS] = { .name = "pidns",
			  .metavar = "[=try]",
			  .help = "new PID + mount (+ user) namespace, isorun's init as\n"
				  "PID 1; =try falls back to the subreaper gate",
			  .kind = VALUE,
			  .bare = true,
			  .parse = cli_set_pidns,
			  .show = show_pidns,
			  .report = "pidns",
			  .report_value = rep_pidns },
	[SUP_K_MAP_ROOT] =
		FLAG_KEY("map-root", map_root, "map_root", "inside the user namespace, be uid 0"),
	[SUP_K_MAP_USERS] = CHOICE_KEY("map-users", map_users, map_users_words, "map_users",
				       "also map your /etc/subuid and /etc/subgid\nranges "
				       "(newuidmap); auto: else one id, and says so"),
	[SUP_K_CAP_KEEP] = { .name = "cap-keep",
			     .metavar = " CAP,...|all",
			     .help = "capabilities the command keeps",
			     .kind = VALUE,
			     .parse = cli_set_cap_keep,
			     .show = show_cap_keep },
	[SUP_K_NET] = CHOICE_KEY("net", net_isolated, net_words, "net",
				 "isolated: own network namespace, loopback up"),
	[SUP_K_PRIVATE_TMP] = FLAG_KEY("private-tmp", private_tmp, "private_tmp",
				       "the tree's tmp over /tmp and /var/tmp"),
	[SUP_K_PROTECT_HOME] = CHOICE_KEY("protect-home", protect_home, home_words, "protect_home",
					  "the real home read-only (ro, read-only), or hidden"),
	[SUP_K_WRITABLE] = { .name = "writable",
			     .metavar = " DIR",
			     .help = "under --protect-home, DIR in the home stays as it is",
			     .kind = LIST,
			     .path = true,
			     CLI_FIELD_OF(writable),
			     .parse = cli_set_path_list,
			     .report = "writable",
			     .report_value = rep_paths },
	/* a FILE, not a shipped name: see cli_conf_resolve() */
	[SUP_K_POLICY] = { .name = "policy",
			   .metavar = "=default|strict|off|FILE",
			   .help = "seccomp policy (default)",
			   .kind = VALUE,
			   .path = true,
			   CLI_FIELD_OF(policy),
			   .parse = cli_set_policy,
			   .show = show_str,
			   .report = "policy",
			   .report_value = rep_policy },
	[SUP_K_POLICY_MODE] = CHOICE_KEY("policy-mode", policy_log, policy_modes, "policy_mode",
					 "log: let refused calls through, report them"),
	[SUP_K_QUIET] = { .name = "quiet",
			  .help = "also silence the warnings about options that do\n"
				  "nothing alone (isorun is quiet on success)",
			  .letter = 'q',
			  .kind = FLAG,
			  .arg = -1,
			  .parse = cli_set_verbosity,
			  .show = show_verbosity },
	[SUP_K_VERBOSE] = { .name = "verbose",
			    .help = "also say when the tree's removal starts and where\n"
				    "isorun's own time went",
			    .letter = 'v',
			    .kind = FLAG,
			    .arg = 1,
			    .parse = cli_set_verbosity,
			    .show = show_verbosity },
	/* a bare --color is always, as ls(1) and grep(1) read it */
	[SUP_K_COLOR] = { .name = "color",
			  .help = "colour isorun's lines (auto: stderr is a terminal,\n"
				  "not TERM=dumb, no NO_COLOR; or FORCE_COLOR=1)",
			  .kind = VALUE,
			  .bare = true,
			  CLI_FIELD_OF(color),
			  .words = color_words,
			  .parse = cli_set_color,
			  .show = show_choice },
	[SUP_K_RLIMIT_NOFILE] = { .name = "rlimit-nofile",
				  .metavar = " N",
				  .help = "the command's descriptor limit (soft and hard)",
				  .kind = VALUE,
				  .arg = SUP_RLIM_NOFILE,
				  .parse = cli_set_rlimit,
				  .show = show_rlimit,
				  .report = "rlimit_nofile",
				  .report_value = rep_rlimit },
	[SUP_K_RLIMIT_CORE] = { .name = "rlimit-core",
				.metavar = " SIZE",
				.help = "its core dump size limit (bytes, K/M/G/T suffixes,\n"
					"or unlimited)",
				.kind = VALUE,
				.arg = SUP_RLIM_CORE,
				.parse = cli_set_rlimit,
				.show = show_rlimit,
				.report = "rlimit_core",
				.report_value = rep_rlimit },
	[SUP_K_RLIMIT_FSIZE] = { .name = "rlimit-fsize",
				 .metavar = " SIZE",
				 .help = "its file size limit (as --rlimit-core)",
				 .kind = VALUE,
				 .arg = SUP_RLIM_FSIZE,
				 .parse = cli_set_rlimit,
				 .show = show_rlimit,
				 .report = "rlimit_fsize",
				 .report_value = rep_rlimit },
	[SUP_K_CEILING + SUP_CEIL_MEMORY] = CEILING_KEY(SUP_CEIL_MEMORY),
	[SUP_K_CEILING + SUP_CEIL_PIDS] = CEILING_KEY(SUP_CEIL_PIDS),
	[SUP_K_CEILING + SUP_CEIL_CPU] = CEILING_KEY(SUP_CEIL_CPU),
	[SUP_K_CGROUP] = CHOICE_KEY("cgroup", cgroup, cgroup_words, "cgroup",
				    "a cgroup of the run's own where one can be had (auto)"),
	/* the names, each once; none empties the list (the file's entries too) */
	[SUP_K_CACHE] = { .name = "cache",
			  .metavar = " NAME,...",
			  .help = "keep go, npm, pip, cargo or xdg caches between runs in\n"
				  "$XDG_CACHE_HOME/isorun/NAME; none: no cache (default)",
			  .kind = LIST,
			  CLI_FIELD_OF(caches),
			  .parse = cli_set_cache,
			  .report = "cache",
			  .report_value = rep_strings },
	/* mounts widen what the command reaches: the command line's alone (cli/mounts.c) */
	[SUP_K_BIND] = { .name = "bind",
			 .metavar = " SRC[:DEST]",
			 .help = "mount SRC at DEST (default: SRC), writable, with all\n"
				 "below it (--pidns)",
			 .kind = LIST,
			 .cli_only = true,
			 .arg = NS_MOUNT_BIND,
			 .parse = cli_set_mount },
	[SUP_K_RO_BIND] = { .name = "ro-bind",
			    .metavar = " SRC[:DEST]",
			    .help = "the same, read-only",
			    .kind = LIST,
			    .cli_only = true,
			    .arg = NS_MOUNT_RO_BIND,
			    .parse = cli_set_mount },
	[SUP_K_TMPFS] = { .name = "tmpfs",
			  .metavar = " DEST",
			  .help = "an empty, writable tmpfs at DEST (--pidns); repeatable,\n"
				  "in order, after the rest; only on the command line",
			  .kind = LIST,
			  .cli_only = true,
			  .arg = NS_MOUNT_TMPFS,
			  .parse = cli_set_mount },
	/* the output files, from the sinks table (in their place among the keys by SUP_K_ID) */
	// clang-format off
	SUP_SINK_ROWS(SINK_KEY)
};
// clang-format on

bool cli_key_output(enum sup_key key)
{
	return cli_keys[key].parse == cli_set_output;
}

int cli_key_lookup(const char *name)
{
	for (int k = 0; k < SUP_N_KEYS; k++)
		if (strcmp(cli_keys[k].name, name) == 0)
			return k;
	return -1;
}

const struct sup_setting *cli_key_last(const struct sup_opts *o, enum sup_key key)
{
	for (size_t i = o->n_settings; i-- > 0;) {
		enum sup_key k = o->settings[i].key;
		if (k == key || ((key == SUP_K_QUIET || key == SUP_K_VERBOSE) &&
				 (k == SUP_K_QUIET || k == SUP_K_VERBOSE)))
			return &o->settings[i];
	}
	return NULL;
}

const char *cli_key_show(const struct sup_opts *o, enum sup_key key, char *buf, size_t len)
{
	const struct cli_key_info *k = &cli_keys[key];

	return k->show ? k->show(o, k, buf, len) : "?";
}

/*
 * The report's settings, in the order its readers know: the file read,
 * "config", first, then these keys, each once; REPORT_CEILINGS stands for the
 * ceilings' keys, in their table's order.  test_keys.c checks that every key
 * with a report key is here.
 */
#define REPORT_CEILINGS (-1)
const int cli_key_report_order[] = {
	SUP_K_ROOT,	   SUP_K_KEEP,	       SUP_K_CHDIR,	  SUP_K_CLEARENV,
	SUP_K_WATCH,	   SUP_K_RESIDUE,      SUP_K_LEAKS,	  SUP_K_TIMEOUT,
	SUP_K_STOP_SIGNAL, SUP_K_GRACE,	       SUP_K_SETTLE,	  SUP_K_PIDNS,
	SUP_K_MAP_ROOT,	   SUP_K_NET,	       SUP_K_PRIVATE_TMP, SUP_K_PROTECT_HOME,
	SUP_K_WRITABLE,	   SUP_K_POLICY,       SUP_K_POLICY_MODE, SUP_K_REPORT,
	SUP_K_JUNIT,	   SUP_K_FINDING_EXIT, REPORT_CEILINGS,	  SUP_K_RLIMIT_NOFILE,
	SUP_K_RLIMIT_CORE, SUP_K_RLIMIT_FSIZE, SUP_K_CGROUP,	  SUP_K_MAP_USERS,
	SUP_K_CACHE,
};
const size_t cli_key_report_order_n = ELEMENTSOF(cli_key_report_order);

static void report_one(const struct sup_opts *o, int k, struct sup_report_setting *out)
{
	*out = (struct sup_report_setting){ .key = cli_keys[k].report };
	cli_keys[k].report_value(o, &cli_keys[k], out);
}

size_t cli_key_report(const struct sup_opts *o,
		      struct sup_report_setting out[SUP_REPORT_SETTINGS_MAX])
{
	size_t n = 0;

	out[n++] = (struct sup_report_setting){ .key = "config",
						.kind = SUP_REPORT_PATH,
						.str = o->config_path };
	for (size_t i = 0; i < cli_key_report_order_n; i++) {
		int k = cli_key_report_order[i];

		if (k != REPORT_CEILINGS) {
			if (n < SUP_REPORT_SETTINGS_MAX)
				report_one(o, k, &out[n++]);
			continue;
		}
		for (int c = 0; c < SUP_N_CEILINGS && n < SUP_REPORT_SETTINGS_MAX; c++)
			report_one(o, SUP_K_CEILING + c, &out[n++]);
	}
	return n;
}
