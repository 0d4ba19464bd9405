// SPDX-License-Identifier: MIT
/*
 * The setters of the key table (keys.c): each validates one option's value,
 * for the command line and isorun.conf alike, and sets its field.  A message
 * names the option as `opt` spells it and the value; the caller adds where.
 */
#include "cli/keys.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/cleanup.h"
#include "common/num.h"
#include "common/text.h"
#include "cli/suggest.h"
#include "launcher/cache.h"
#include "launcher/ceiling.h"
#include "ns/ns.h"
#include "policy/policy.h"
#include "tree/tree.h"

static int strv_push(struct sup_strv *v, char *s)
{
	char **n = realloc(v->v, (v->n + 2) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	n[v->n++] = s;
	n[v->n] = NULL;
	v->v = n;
	return 0;
}

static bool valid_env_name(const char *s, size_t len)
{
	if (!len || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

/* A SUB of --env-dir: relative, no "..", no empty component. */
static bool valid_subdir(const char *s)
{
	const char *p = s;

	if (!*s || *s == '/')
		return false;
	while (*p) {
		size_t l = strcspn(p, "/");
		if (l == 0 || (l == 1 && p[0] == '.') || (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += l;
		if (*p == '/')
			p++;
	}
	return p[-1] != '/';
}

/*
 * A number refused: one line naming the option, what it takes and the value.
 * Out of range (an overflow too) says so, so that a huge value is not read as a typo.
 */
static int bad_number(struct iso_err *e, int r, const char *opt, const char *want, const char *val)
{
	if (r == -ERANGE)
		return iso_err_set(e, 0, "%s: '%s' is out of range (expected %s)", opt, val, want);
	return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt, want, val);
}

/* "--stop-signal: unknown signal 'TREM'; did you mean TERM?" */
static int unknown_signal(const char *opt, const char *val, struct iso_err *e)
{
	const char *names[NSIG] = { 0 }, *near;
	bool sig = strncasecmp(val, "SIG", 3) == 0;

	for (int i = 1; i < NSIG; i++)
		names[i] = sigabbrev_np(i);
	near = cli_suggest(sig ? val + 3 : val, names, NSIG);
	if (near)
		return iso_err_set(e, 0, "%s: unknown signal '%s'; did you mean %s%s?", opt, val,
				   sig ? "SIG" : "", near);
	return iso_err_set(e, 0, "%s: unknown signal '%s' (examples: TERM, SIGINT, 9)", opt, val);
}

static int parse_dur(const char *opt, const char *val, uint64_t *ret, struct iso_err *e)
{
	int r = iso_parse_duration(val, ret);

	if (r == -ERANGE)
		return iso_err_set(e, 0, "%s: '%s' is out of range (a duration below 31000 years)",
				   opt, val);
	if (r < 0)
		return iso_err_set(e, 0, "%s: invalid duration '%s' (examples: 90s, 5m, 1h30m)",
				   opt, val);
	return 0;
}

/* true/false, yes/no, on/off, 1/0; -1 for anything else */
int cli_parse_bool(const char *val)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(val, yes[i]) == 0)
			return 1;
		if (strcasecmp(val, no[i]) == 0)
			return 0;
	}
	return -1;
}

bool cli_policy_unknown(const char *val, const char *fix, char *buf, size_t len)
{
	const char *names[9] = { "off" }, *near;
	struct stat st;
	size_t n = 1, off;

	if (strpbrk(val, "/.") || stat(val, &st) == 0 || errno != ENOENT)
		return false;
	for (; n < ELEMENTSOF(names) && pol_shipped_name(n - 1); n++)
		names[n] = pol_shipped_name(n - 1);
	for (size_t i = 0; i < n; i++)
		if (strcmp(val, names[i]) == 0)
			return false;
	near = cli_suggest(val, names, n);
	if (near) {
		snprintf(buf, len, "'%s' is no shipped policy and no file; did you mean %s%s?", val,
			 fix, near);
		return true;
	}
	off = (size_t)snprintf(buf, len, "'%s' is no shipped policy and no file (shipped:", val);
	for (size_t i = 1; i <= n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " %s%s", names[i % n],
					i < n ? "," : ")");
	return true;
}

/*
 * A byte count: digits, then B, K, M, G or T (powers of 1024, "KiB" and "KB"
 * alike).  "B" says bytes on purpose, which a small bare number cannot.
 */
#define SIZE_UNIT(u, shift)                                                                        \
	{ u, 1ULL << (shift) }, { u "B", 1ULL << (shift) },                                        \
	{                                                                                          \
		u "iB", 1ULL << (shift)                                                            \
	}
static const struct iso_num_unit size_units[] = {
	{ "B", 1 },	    SIZE_UNIT("K", 10), SIZE_UNIT("M", 20),
	SIZE_UNIT("G", 30), SIZE_UNIT("T", 40), { 0 },
};

/*
 * Below this, a size with no unit is refused: `--memory-max 512` meant 512M
 * (512 bytes kills any command), `--rlimit-fsize 512` read as ulimit's
 * kilobytes.  0 is 0 in every unit and stays.
 */
#define SIZE_BARE_MIN (1ULL << 20)

/* A size asked for: the option, its whole value as given ("try:" included), the number in it. */
struct size_ask {
	const char *opt, *val, *v;
	uint64_t min, max;
	const char *want; /* what a bad one is told to be */
};

/*
 * A size of a ceiling or an rlimit, in the one line a bad one gets: a bare
 * number too small to be meant says so and names the units.
 */
static int parse_size(const struct size_ask *a, uint64_t *ret, struct iso_err *e)
{
	const char *opt = a->opt, *val = a->val, *v = a->v;
	size_t n = strlen(v);
	uint64_t x;
	int r = iso_parse_u64(v, size_units, a->min, a->max, &x);

	if (r == 0 && x && x < SIZE_BARE_MIN && n && v[n - 1] >= '0' && v[n - 1] <= '9')
		return iso_err_set(e, 0,
				   "%s: '%s' has no unit, so it is %s bytes; did you mean %sM? "
				   "(units: B, K, M, G, T; a bare number is at least 1M)",
				   opt, val, v, val);
	if (r < 0)
		return bad_number(e, r, opt, a->want, val);
	*ret = x;
	return 0;
}

/* Flags take nothing, =true or =false on the command line; true or false in the file. */
static int flag_value(const char *opt, const char *val, bool cli, struct iso_err *e)
{
	static const char *const bools[] = { "true", "false" };
	int b = val ? cli_parse_bool(val) : 1;
	const char *near;

	if (b >= 0)
		return b;
	near = cli_suggest(val, bools, ELEMENTSOF(bools));
	if (near)
		return iso_err_set(e, 0, "%s: expected %s, got '%s'; did you mean %s%s%s?", opt,
				   cli ? "nothing, =true or =false" : "true or false", val,
				   cli ? opt : "", cli ? "=" : "", near);
	return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt,
			   cli ? "nothing, =true or =false" : "true or false", val);
}

int cli_set_flag(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		 bool cli, struct iso_err *e)
{
	int b = flag_value(opt, val, cli, e);

	if (b < 0)
		return b;
	*CLI_FIELD(o, k, bool) = b;
	return 0;
}

/* one verbosity: "quiet = false" undoes a quiet, not a verbose */
int cli_set_verbosity(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		      bool cli, struct iso_err *e)
{
	int b = flag_value(opt, val, cli, e);

	if (b < 0)
		return b;
	if (b)
		o->verbosity = k->arg;
	else if (o->verbosity * k->arg > 0)
		o->verbosity = 0;
	return 0;
}

int cli_word_value(const struct cli_key_info *k, const char *w)
{
	for (const struct cli_word *x = k->words; x && x->word; x++)
		if (strcmp(w, x->word) == 0 || (x->alias && strcmp(w, x->alias) == 0))
			return x->value;
	return -1;
}

/* The word meant by `val`: another tool's, one the value begins with ("warning"), or a typo */
static const char *near_word(const struct cli_word *words, const char *val)
{
	const char *cands[16];
	size_t n = 0;

	for (const struct cli_word *w = words; w->word; w++)
		if (w->like && strcasecmp(val, w->like) == 0)
			return w->word;
	for (const struct cli_word *w = words; w->word; w++)
		if (strlen(w->word) >= 3 && strncasecmp(val, w->word, strlen(w->word)) == 0)
			return w->word;
	for (const struct cli_word *w = words; w->word && n + 2 <= ELEMENTSOF(cands); w++) {
		cands[n++] = w->word;
		cands[n++] = w->alias;
	}
	return cli_suggest(val, cands, n);
}

/* "expected off, ro (read-only) or hide, got 'x'", and the word that was meant */
static int bad_word(const struct cli_key_info *k, const char *opt, const char *val, bool cli,
		    struct iso_err *e)
{
	const char *near = near_word(k->words, val);
	char want[160] = "";
	size_t n = 0, len = 0;

	while (k->words[n].word)
		n++;
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(
			want + len, len < sizeof(want) ? sizeof(want) - len : 0, "%s%s%s%s%s",
			i == 0	    ? ""
			: i + 1 < n ? ", "
				    : " or ",
			k->words[i].word, k->words[i].alias ? " (" : "",
			k->words[i].alias ? k->words[i].alias : "", k->words[i].alias ? ")" : "");
	if (near)
		return iso_err_set(e, 0, "%s: expected %s, got '%s'; did you mean %s%s%s?", opt,
				   want, val, cli ? opt : "", cli ? "=" : "", near);
	return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt, want, val);
}

static int set_choice(struct sup_opts *o, const struct cli_key_info *k, const char *opt,
		      const char *val, bool cli, struct iso_err *e)
{
	int v = cli_word_value(k, val);

	if (v < 0)
		return bad_word(k, opt, val, cli, e);
	if (k->size == sizeof(bool))
		*CLI_FIELD(o, k, bool) = v;
	else
		*CLI_FIELD(o, k, int) = v;
	return 0;
}

int cli_set_choice(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		   bool cli, struct iso_err *e)
{
	return set_choice(o, k, opt, val, cli, e);
}

/* a bare --color is always, as ls(1) and grep(1) read it */
int cli_set_color(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		  bool cli, struct iso_err *e)
{
	return set_choice(o, k, opt, val ? val : "always", cli, e);
}

/* a bare --keep is always; yes/no, on/off, 1/0 as for every flag that it was */
int cli_set_keep(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		 bool cli, struct iso_err *e)
{
	int b = val ? cli_parse_bool(val) : 1;

	if (b < 0)
		return set_choice(o, k, opt, val, cli, e);
	o->keep = b ? SUP_KEEP_ALWAYS : SUP_KEEP_NEVER;
	return 0;
}

int cli_set_pidns(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		  bool cli, struct iso_err *e)
{
	static const char *const words[] = { "try", "true", "false" };
	int b = !val ? 1 : strcmp(val, "try") == 0 ? 2 : cli_parse_bool(val);
	const char *near;

	if (b < 0) {
		near = cli_suggest(val, words, cli ? 1 : ELEMENTSOF(words));
		if (near)
			return iso_err_set(e, 0, "%s: expected %s, got '%s'; did you mean %s%s%s?",
					   opt, cli ? "nothing or =try" : "true, false or try", val,
					   cli ? opt : "", cli ? "=" : "", near);
		return iso_err_set(e, 0, "%s: expected %s, got '%s'", opt,
				   cli ? "nothing or =try" : "true, false or try", val);
	}
	o->pidns = b == 2 ? SUP_PIDNS_TRY : b ? SUP_PIDNS_ON : SUP_PIDNS_OFF;
	return 0;
}

int cli_set_path(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		 bool cli, struct iso_err *e)
{
	if (!*val)
		return iso_err_set(e, 0, "%s: empty path", opt);
	*CLI_FIELD(o, k, const char *) = val;
	return 0;
}

int cli_set_path_list(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		      bool cli, struct iso_err *e)
{
	if (!*val)
		return iso_err_set(e, 0, "%s: empty path", opt);
	return strv_push(CLI_FIELD(o, k, struct sup_strv), val);
}

/*
 * --watch-ignore GLOB: matched as a .gitignore line (launcher/residue.h), but
 * without its negation, which would need the order of every source's lines.
 */
int cli_set_watch_ignore(struct sup_opts *o, const struct cli_key_info *k, const char *opt,
			 char *val, bool cli, struct iso_err *e)
{
	if (!*val || !strcmp(val, "/"))
		return iso_err_set(e, 0, "%s: empty glob (give a name, e.g. build/ or *.o)", opt);
	if (val[0] == '!')
		return iso_err_set(e, 0,
				   "%s '%s': a negation is not taken (it would undo an ignore "
				   "of .gitignore); give the globs to ignore",
				   opt, val);
	return strv_push(&o->watch_ignore, val);
}

/*
 * --report and --junit: FILE or fd:N (a descriptor the caller opened, as bwrap's
 * --json-status-fd).  `-` is refused: stdout carries the command's own output, which a report would
 * corrupt, and stderr carries the command's errors and isorun's lines.
 */
int cli_set_output(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		   bool cli, struct iso_err *e)
{
	uint64_t n;
	int r;

	if (!*val)
		return iso_err_set(e, 0, "%s: empty path", opt);
	if (strcmp(val, "-") == 0)
		return iso_err_set(e, 0,
				   "%s -: stdout carries the command's output; give a file, or a "
				   "descriptor as fd:N (e.g. %s fd:3 3>&1 >out.log)",
				   opt, opt);
	if (strncmp(val, "fd:", 3) == 0 && (r = iso_parse_u64(val + 3, NULL, 0, INT_MAX, &n)) < 0)
		return bad_number(e, r, opt, "fd:N with a descriptor number", val);
	*CLI_FIELD(o, k, const char *) = val;
	return 0;
}

int cli_set_policy(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		   bool cli, struct iso_err *e)
{
	char why[200], fix[64];

	if (!*val)
		return iso_err_set(e, 0, "%s: expected default, strict, off or a file", opt);
	snprintf(fix, sizeof(fix), "%s%s", cli ? opt : "", cli ? "=" : "");
	if (cli_policy_unknown(val, fix, why, sizeof(why)))
		return iso_err_set(e, 0, "%s: %s", opt, why);
	o->policy = val;
	return 0;
}

int cli_set_env_dir(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		    bool cli, struct iso_err *e)
{
	char *eq = strchr(val, '=');

	if (!eq || !valid_env_name(val, (size_t)(eq - val)) || !valid_subdir(eq + 1))
		return iso_err_set(e, 0,
				   "%s: expected VAR=SUBDIR with a relative SUBDIR "
				   "inside the tree, got '%s'",
				   opt, val);
	if (tree_reserved(eq + 1))
		return iso_err_set(e, 0,
				   "%s: '%s' would point %.*s at isorun's own '%s' in the "
				   "tree; choose another SUBDIR",
				   opt, val, (int)(eq - val), val, tree_reserved(eq + 1));
	return strv_push(&o->env_dirs, val);
}

int cli_set_setenv(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		   bool cli, struct iso_err *e)
{
	char *eq = strchr(val, '=');

	if (!eq || !valid_env_name(val, (size_t)(eq - val)))
		return iso_err_set(e, 0, "%s: expected VAR=VALUE, got '%s'", opt, val);
	return strv_push(&o->setenv, val);
}

int cli_set_env_name(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		     bool cli, struct iso_err *e)
{
	if (!valid_env_name(val, strlen(val)))
		return iso_err_set(e, 0, "%s: invalid variable name '%s'", opt, val);
	return strv_push(CLI_FIELD(o, k, struct sup_strv), val);
}

int cli_set_pass_fd(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		    bool cli, struct iso_err *e)
{
	uint64_t n;
	int *fds;

	if (iso_parse_u64(val, NULL, 3, INT_MAX, &n) < 0)
		return iso_err_set(e, 0, "%s: expected a descriptor number >= 3, got '%s'", opt,
				   val);
	/* the same descriptor twice is passed once */
	for (size_t i = 0; i < o->n_pass_fds; i++)
		if (o->pass_fds[i] == (int)n)
			return 0;
	if (o->n_pass_fds >= SUP_PASS_FD_MAX)
		return iso_err_set(e, 0, "%s: at most %d descriptors, got one more ('%s')", opt,
				   SUP_PASS_FD_MAX, val);
	fds = realloc(o->pass_fds, (o->n_pass_fds + 1) * sizeof(*fds));
	if (!fds)
		return -ENOMEM;
	fds[o->n_pass_fds++] = (int)n;
	o->pass_fds = fds;
	return 0;
}

/* --timeout 0 is no limit, as timeout(1) reads it: a later 0 undoes isorun.conf's */
int cli_set_duration(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		     bool cli, struct iso_err *e)
{
	uint64_t ms;

	if (parse_dur(opt, val, &ms, e) < 0)
		return -EINVAL;
	*CLI_FIELD(o, k, uint64_t) = ms;
	return 0;
}

int cli_set_stop_signal(struct sup_opts *o, const struct cli_key_info *k, const char *opt,
			char *val, bool cli, struct iso_err *e)
{
	int r = iso_parse_signal(val, &o->stop_signal);

	if (r == -ERANGE)
		return iso_err_set(e, 0,
				   "%s: signal '%s' out of range: 1..%d (real-time: "
				   "SIGRTMIN..SIGRTMAX, %d..%d)",
				   opt, val, NSIG - 1, SIGRTMIN, SIGRTMAX);
	if (r < 0)
		return unknown_signal(opt, val, e);
	return 0;
}

int cli_set_finding_exit(struct sup_opts *o, const struct cli_key_info *k, const char *opt,
			 char *val, bool cli, struct iso_err *e)
{
	uint64_t n;
	int r = iso_parse_u64(val, NULL, 1, 255, &n);

	if (r < 0)
		return bad_number(e, r, opt, "1..255", val);
	o->finding_exit = (int)n;
	return 0;
}

int cli_set_cap_keep(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		     bool cli, struct iso_err *e)
{
	struct iso_err ce = { 0 };
	uint64_t keep;

	/* ns_caps_parse() says which name is wrong; ours, which setting */
	if (ns_caps_parse(val, &keep, &ce) < 0) {
		iso_err_set(e, 0, "%s: %s", opt, ce.msg);
		iso_err_hint(e, ce.hint);
		return -EINVAL;
	}
	o->cap_keep = keep;
	return 0;
}

/*
 * A ceiling (its row of sup_ceiling_descs[] says the unit and the bounds): VALUE,
 * try:VALUE, or none (undoes isorun.conf's).
 */
int cli_set_ceiling(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		    bool cli, struct iso_err *e)
{
	static const struct iso_num_unit percent[] = { { "%", 1 }, { 0 } };
	const struct sup_ceiling_desc *d = &sup_ceiling_descs[k->arg];
	const struct iso_num_unit *units = d->unit == SUP_CEIL_PERCENT ? percent : NULL;
	struct sup_ceiling c = { .set = true };
	const char *v = val;
	char want[200];
	int r;

	if (strcmp(val, "none") == 0) {
		o->ceilings[k->arg] = (struct sup_ceiling){ 0 };
		return 0;
	}
	if (strncmp(v, "try:", 4) == 0) {
		c.try_ = true;
		v += 4;
	}
	snprintf(want, sizeof(want), "%s, try:VALUE or none", d->want);
	if (d->unit == SUP_CEIL_BYTES)
		r = parse_size(&(struct size_ask){ opt, val, v, d->min, d->max, want }, &c.value,
			       e);
	else if ((r = iso_parse_u64(v, units, d->min, d->max, &c.value)) < 0)
		r = bad_number(e, r, opt, want, val);
	if (r < 0)
		return r;
	o->ceilings[k->arg] = c;
	return 0;
}

/* --rlimit-nofile N; --rlimit-core, --rlimit-fsize SIZE or unlimited. */
int cli_set_rlimit(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		   bool cli, struct iso_err *e)
{
	int i = k->arg;
	uint64_t n;
	int r;

	if (i != SUP_RLIM_NOFILE &&
	    (strcmp(val, "unlimited") == 0 || strcmp(val, "infinity") == 0)) {
		n = SUP_RLIM_UNLIMITED;
	} else if (i == SUP_RLIM_NOFILE) {
		/* the kernel's own ceiling (fs.nr_open) is at most 2^30 */
		r = iso_parse_u64(val, NULL, 0, INT_MAX, &n);
		if (r < 0)
			return bad_number(e, r, opt, "a number of descriptors", val);
	} else if ((r = parse_size(&(struct size_ask){ opt, val, val, 0, INT64_MAX,
						       "a size in bytes (K, M, G, T suffixes) or "
						       "unlimited" },
				   &n, e)) < 0) {
		return r;
	}
	o->rlimits.set[i] = true;
	o->rlimits.value[i] = n;
	return 0;
}

/* "--cache: unknown cache 'gp'; did you mean go? (known: go, npm, ...)" */
static int unknown_cache(const char *opt, const char *w, struct iso_err *e)
{
	const char *names[SUP_N_CACHES + 1], *near;
	char known[96] = "";
	size_t len = 0;

	for (int i = 0; i < SUP_N_CACHES; i++) {
		names[i] = sup_caches[i].name;
		len += (size_t)snprintf(known + len, sizeof(known) - len, "%s, ", names[i]);
	}
	names[SUP_N_CACHES] = "none";
	near = cli_suggest(w, names, SUP_N_CACHES + 1);
	return iso_err_set(e, 0, "%s: unknown cache '%s'%s%s%s (known: %snone)", opt, w,
			   near ? "; did you mean " : "", near ? near : "", near ? "?" : "", known);
}

/* NAME[,NAME]... adds each name once; none drops every cache given before it */
int cli_set_cache(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		  bool cli, struct iso_err *e)
{
	const char *bad = NULL;
	size_t badlen = 0;
	unsigned bits, have = 0;
	bool none;

	if (sup_cache_parse(val, &bits, &none, &bad, &badlen) < 0) {
		_cleanup_free_ char *w = strndup(bad, badlen);

		return w ? unknown_cache(opt, w, e) : -ENOMEM;
	}
	if (none)
		o->caches.n = 0;
	for (size_t i = 0; i < o->caches.n; i++)
		have |= 1u << sup_cache_lookup(o->caches.v[i]);
	for (int i = 0; i < SUP_N_CACHES; i++) {
		char *name;

		if (!(bits & ~have & (1u << i)))
			continue;
		name = sup_opts_keep(o, strdup(sup_caches[i].name));
		if (!name || strv_push(&o->caches, name) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Why `d` cannot be a mount's destination, or NULL: absolute and canonical as spelled. */
static const char *dest_flaw(const char *d)
{
	size_t n = strlen(d);

	if (d[0] != '/')
		return "is not an absolute path";
	if (n == 1)
		return "is / itself";
	if (strstr(d, "//") || d[n - 1] == '/')
		return "is not canonical (an empty component, or a trailing '/')";
	for (const char *p = d; p; p = strchr(p + 1, '/'))
		if ((p[1] == '.' && (p[2] == '/' || !p[2])) ||
		    (p[1] == '.' && p[2] == '.' && (p[3] == '/' || !p[3])))
			return "is not canonical (a '.' or '..' component)";
	return NULL;
}

/*
 * --bind SRC[:DEST], --ro-bind SRC[:DEST], --tmpfs DEST (arg: NS_MOUNT_*).  The
 * first ':' ends SRC, as docker's -v reads it; without DEST an absolute SRC is
 * both.  Only the spelling here: cli/mounts.c judges them on the host once
 * every option is known.
 */
int cli_set_mount(struct sup_opts *o, const struct cli_key_info *k, const char *opt, char *val,
		  bool cli, struct iso_err *e)
{
	const char *colon = k->arg == NS_MOUNT_TMPFS ? NULL : strchr(val, ':');
	const char *dest = val, *flaw;
	char *src = NULL;
	struct ns_mount *n;

	if (!*val || colon == val || (colon && !colon[1]))
		return iso_err_set(e, 0, "%s '%s': empty path", opt, val);
	if (k->arg != NS_MOUNT_TMPFS) {
		src = sup_opts_keep(o, colon ? strndup(val, (size_t)(colon - val)) : strdup(val));
		if (!src)
			return -ENOMEM;
		dest = colon ? colon + 1 : src;
	}
	flaw = dest_flaw(dest);
	if (flaw)
		return iso_err_set(e, 0, "%s %s: the destination '%s' %s; give %s", opt, val, dest,
				   flaw,
				   k->arg == NS_MOUNT_TMPFS ? "an absolute, canonical path"
				   : colon ? "SRC:DEST with an absolute, canonical DEST"
					   : "SRC:DEST, or an absolute, canonical SRC alone");
	n = realloc(o->binds, (o->n_binds + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	o->binds = n;
	n[o->n_binds++] =
		(struct ns_mount){ .kind = (enum ns_mount_kind)k->arg, .src = src, .dest = dest };
	return 0;
}
