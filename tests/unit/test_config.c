// SPDX-License-Identifier: MIT
/* Unit tests: isorun.conf onto sup_opts, the command line over it, finding and refusing files. */
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>

#include "tests/unit/unit.h"

#include "cli/args.h"
#include "cli/conf.h"
#include "cli/expand.h"
#include "common/cleanup.h"
#include "ns/ns.h"

#define P "/proj/isorun.conf"

/* `text` as the file P, into fresh opts; the return of cli_conf_parse(). */
static int conf(struct sup_opts *o, struct iso_err *e, const char *text)
{
	sup_opts_init(o);
	memset(e, 0, sizeof(*e));
	return cli_conf_parse(o, P, text, e);
}

static void expect_conf_error(const char *text, const char *msg)
{
	struct sup_opts o;
	struct iso_err e;

	assert_true(conf(&o, &e, text) < 0);
	assert_string_equal(e.msg, msg);
	sup_opts_free(&o);
}

static void test_the_documented_example(void **state)
{
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(conf(&o, &e,
			      "# isorun.conf: the options of a run\n"
			      "[isorun]\n"
			      "pidns = try\n"
			      "private-tmp = true\n"
			      "protect-home = ro\n"
			      "settle = 5s\n"
			      "env-dir = CARGO_HOME=cargo\n"
			      "env-dir = GOPATH=go\n"
			      "watch = .\n"),
			 0);
	assert_int_equal(o.pidns, SUP_PIDNS_TRY);
	assert_true(o.private_tmp);
	assert_int_equal(o.protect_home, NS_HOME_RO);
	assert_int_equal(o.settle_ms, 5000);
	assert_int_equal(o.env_dirs.n, 2);
	assert_string_equal(o.env_dirs.v[0], "CARGO_HOME=cargo");
	assert_string_equal(o.env_dirs.v[1], "GOPATH=go");
	assert_int_equal(o.watch.n, 1);
	assert_string_equal(o.watch.v[0], "/proj");
	/* each setting knows its line */
	assert_int_equal(o.n_settings, 7);
	assert_int_equal(o.settings[0].key, SUP_K_PIDNS);
	assert_int_equal(o.settings[0].line, 3);
	assert_int_equal(o.settings[6].key, SUP_K_WATCH);
	assert_int_equal(o.settings[6].line, 9);
	sup_opts_free(&o);
}

static void test_flags(void **state)
{
	static const char *const on[] = { "true", "yes", "on", "1", "TRUE", "Yes" };
	static const char *const off[] = { "false", "no", "off", "0", "False" };
	struct sup_opts o;
	struct iso_err e;
	char text[128];

	for (size_t i = 0; i < sizeof(on) / sizeof(on[0]); i++) {
		snprintf(text, sizeof(text), "keep = %s\nclearenv = %s\nmap-root = %s\n", on[i],
			 on[i], on[i]);
		assert_int_equal(conf(&o, &e, text), 0);
		assert_true(o.keep && o.clearenv && o.map_root);
		sup_opts_free(&o);
	}
	for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
		snprintf(text, sizeof(text), "private-tmp = true\nprivate-tmp = %s\n", off[i]);
		assert_int_equal(conf(&o, &e, text), 0);
		assert_false(o.private_tmp);
		sup_opts_free(&o);
	}
	/* one verbosity: the last of quiet and verbose decides */
	assert_int_equal(conf(&o, &e, "quiet = true\n"), 0);
	assert_int_equal(o.verbosity, -1);
	sup_opts_free(&o);
	assert_int_equal(conf(&o, &e, "quiet = true\nverbose = yes\n"), 0);
	assert_int_equal(o.verbosity, 1);
	sup_opts_free(&o);
	assert_int_equal(conf(&o, &e, "verbose = on\nquiet = off\n"), 0);
	assert_int_equal(o.verbosity, 1);
	sup_opts_free(&o);
	expect_conf_error("\n\nprivate-tmp = maybe\n",
			  P ":3:15: private-tmp: expected true or false, got 'maybe'");
	expect_conf_error("\n\nkeep = maybe\n",
			  P ":3:8: keep: expected never, always or on-failure, got 'maybe'");
	expect_conf_error("quiet =\n", P ":1:8: quiet: expected true or false, got ''");
}

static void test_pidns(void **state)
{
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(conf(&o, &e, "pidns = true\n"), 0);
	assert_int_equal(o.pidns, SUP_PIDNS_ON);
	sup_opts_free(&o);
	assert_int_equal(conf(&o, &e, "pidns = try\npidns = false\n"), 0);
	assert_int_equal(o.pidns, SUP_PIDNS_OFF);
	sup_opts_free(&o);
	assert_int_equal(conf(&o, &e, "pidns = try\n"), 0);
	assert_int_equal(o.pidns, SUP_PIDNS_TRY);
	sup_opts_free(&o);
	expect_conf_error("pidns = maybe\n",
			  P ":1:9: pidns: expected true, false or try, got 'maybe'");
}

static const char *fake_var(const char *name)
{
	if (!strcmp(name, "HOME"))
		return "/home/me";
	if (!strcmp(name, "EMPTY"))
		return "";
	return NULL;
}

static void expect_expand(const char *in, const char *out)
{
	struct iso_err e = { 0 };
	char *r = cli_expand(in, fake_var, "/home/pw", &e);

	assert_non_null(r);
	assert_string_equal(r, out);
	free(r);
}

static void test_setenv_expansion(void **state)
{
	struct iso_err e = { 0 };

	expect_expand("${HOME}/.rustup", "/home/me/.rustup");
	expect_expand("$HOME/.rustup", "/home/me/.rustup");
	expect_expand("~/bin:~/x:a~b:~", "/home/pw/bin:/home/pw/x:a~b:/home/pw");
	expect_expand("~user/x", "~user/x");
	expect_expand("$$HOME costs $5 and $", "$HOME costs $5 and $");
	expect_expand("[${EMPTY}]", "[]");
	assert_null(cli_expand("${NOPE}", fake_var, "/", &e));
	assert_string_equal(e.msg,
			    "${NOPE} is not set in the caller's environment ($$ is a literal $)");
	assert_int_equal(e.errnum, 0);
	assert_null(cli_expand("${HOME", fake_var, "/", &e));
	assert_string_equal(e.msg, "unclosed or empty ${ in '${HOME' ($$ is a literal $)");
	assert_null(cli_expand("${}", fake_var, "/", &e));
}

static void test_values(void **state)
{
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(conf(&o, &e,
			      "timeout = 1h30m\ngrace = 1.5\nstop-signal = INT\nleaks = warn\n"
			      "residue = fail\nfinding-exit-code = 99\nnet = isolated\n"
			      "policy-mode = log\ncap-keep = CAP_NET_RAW\npass-fd = 5\n"
			      "pass-fd = 7\nsetenv = A=1\nunsetenv = B\nkeep-env = C\n"),
			 0);
	assert_int_equal(o.timeout_ms, 90 * 60 * 1000);
	assert_int_equal(o.grace_ms, 1500);
	assert_int_equal(o.stop_signal, SIGINT);
	assert_int_equal(o.leaks, SUP_WARN);
	assert_int_equal(o.residue, SUP_FAIL);
	assert_int_equal(o.finding_exit, 99);
	assert_true(o.net_isolated);
	assert_true(o.policy_log);
	assert_true(o.cap_keep != 0);
	assert_int_equal(o.n_pass_fds, 2);
	assert_int_equal(o.pass_fds[1], 7);
	assert_string_equal(o.setenv.v[0], "A=1");
	assert_string_equal(o.unsetenv.v[0], "B");
	assert_string_equal(o.keep_env.v[0], "C");
	sup_opts_free(&o);

	/* the command line's wording, without "--", after file:line:column (of the value) */
	expect_conf_error("# a comment\n[isorun]\nsettle = soon\n",
			  P ":3:10: settle: invalid duration 'soon' (examples: 90s, 5m, 1h30m)");
	/* 0 is no limit, as timeout(1) reads it: it undoes an earlier timeout */
	assert_int_equal(conf(&o, &e, "timeout = 5m\ntimeout = 0\n"), 0);
	assert_int_equal(o.timeout_ms, 0);
	sup_opts_free(&o);
	expect_conf_error("env-dir = A=/abs\n",
			  P ":1:11: env-dir: expected VAR=SUBDIR with a relative SUBDIR inside the "
			    "tree, got 'A=/abs'");
	expect_conf_error("leaks = maybe\n",
			  P ":1:9: leaks: expected fail, warn or ignore, got 'maybe'");
	expect_conf_error("pass-fd = 2\n",
			  P ":1:11: pass-fd: expected a descriptor number >= 3, got '2'");
	expect_conf_error("cap-keep = cap_nope\n",
			  P ":1:12: cap-keep: unknown capability 'cap_nope'");
	expect_conf_error("root =\n", P ":1:7: root: empty path");
}

static void test_keys_and_sections(void **state)
{
	struct sup_opts o;
	struct iso_err e;

	/* before any section and in [isorun] alike; blanks, ; and # comments */
	assert_int_equal(conf(&o, &e, "; top\nkeep = true\n  [ isorun ]  \n\tsettle = 1s\n# end\n"),
			 0);
	assert_true(o.keep);
	assert_int_equal(o.settle_ms, 1000);
	sup_opts_free(&o);

	expect_conf_error("keep = true\nbogus = 1\n",
			  P ":2: bogus: unknown setting (the settings are the long options of a "
			    "run, see isorun --help)");
	expect_conf_error("config = other.conf\n",
			  P ":1: config: only on the command line, not in isorun.conf");
	expect_conf_error("no-config = true\n",
			  P ":1: no-config: only on the command line, not in isorun.conf");
	expect_conf_error("[isorun]\nkeep = true\n[tool]\n",
			  P ":3: [tool]: unknown section (settings go before any section or in "
			    "[isorun])");
	expect_conf_error("keep = true\njust words\n",
			  P ":2: expected 'name = value', '[isorun]' or a # comment");
	expect_conf_error("[isorun\n", P ":1: expected 'name = value', '[isorun]' or a # comment");
	/* a UTF-8 BOM before a section */
	assert_int_equal(conf(&o, &e, "\xEF\xBB\xBF[isorun]\r\nkeep = true\r\n"), 0);
	assert_true(o.keep);
	sup_opts_free(&o);
	expect_conf_error("\xEF\xBB\xBF[other]\nkeep = true\n",
			  P ":1: [other]: unknown section (settings go before any section or in "
			    "[isorun])");
	/* an indented line is a line of its own, not more of the value above it */
	expect_conf_error("settle = 1s\n  bogus = 2\n",
			  P ":2: bogus: unknown setting (the settings are the long options of a "
			    "run, see isorun --help)");
	/* the first error wins, even when it is a syntax error before a bad value */
	expect_conf_error("words\nsettle = soon\n",
			  P ":1: expected 'name = value', '[isorun]' or a # comment");
}

/*
 * libinih cuts a value at " ;" and keeps " #": isorun.conf has no inline
 * comments, and either character after a blank (or starting a value) is an
 * error at its column, on setting and section lines alike.
 */
static void test_no_inline_comments(void **state)
{
	static const char tail[] = ": isorun.conf has no inline comments (put a comment on a line "
				   "of its own; a value with '%c' there goes on the command line)";
	static const struct {
		const char *text, *where;
		char c;
	} refused[] = {
		{ "setenv = X=a ;b\n", ":1:14: ';' after a blank", ';' },
		{ "setenv = X=a #b\n", ":1:14: '#' after a blank", '#' },
		{ "setenv = X=a\t;b\n", ":1:14: ';' after a blank", ';' },
		{ "keep = true\n\twatch = w\t#b\n", ":2:12: '#' after a blank", '#' },
		{ "setenv = ;only a comment\n", ":1:10: ';' at the start of a value", ';' },
		{ "setenv =#only\n", ":1:9: '#' at the start of a value", '#' },
		{ "timeout = 5m ; CI is slow\n", ":1:14: ';' after a blank", ';' },
		{ "timeout ;c = 5m\n", ":1:9: ';' after a blank", ';' },
		{ "watch: /a #b\n", ":1:11: '#' after a blank", '#' },
	};
	struct sup_opts o;
	struct iso_err e;
	char want[512], full[sizeof(tail) + 8];

	for (size_t i = 0; i < ELEMENTSOF(refused); i++) {
		snprintf(full, sizeof(full), tail, refused[i].c);
		snprintf(want, sizeof(want), "%s%s%s", P, refused[i].where, full);
		expect_conf_error(refused[i].text, want);
	}
	expect_conf_error("[isorun] ; c\n", P ":1:10: text after ']': isorun.conf has no inline "
					      "comments (put a comment on a line of its own)");
	expect_conf_error("[isorun]\t# c\n", P ":1:10: text after ']': isorun.conf has no inline "
					       "comments (put a comment on a line of its own)");
	/* controls: either character without a blank before it is part of the value */
	assert_int_equal(conf(&o, &e, "setenv = X=a;b\nsetenv = Y=a#b\n[isorun]  \n"), 0);
	assert_string_equal(o.setenv.v[0], "X=a;b");
	assert_string_equal(o.setenv.v[1], "Y=a#b");
	sup_opts_free(&o);
	/* and comment lines, indented or not, are comments */
	assert_int_equal(conf(&o, &e, "; a ;b\n  # c #d\n\t; e\nkeep = true\n"), 0);
	assert_true(o.keep);
	sup_opts_free(&o);
}

static void test_long_line(void **state)
{
	struct sup_opts o;
	struct iso_err e;
	char text[512];

	/* libinih splits what does not fit its buffer: a long value must not become two lines */
	snprintf(text, sizeof(text), "setenv = A=%0300d\n", 0);
	assert_true(conf(&o, &e, text) < 0);
	assert_non_null(strstr(e.msg, P ":1: line too long"));
	sup_opts_free(&o);
	/* control: a line that fits */
	snprintf(text, sizeof(text), "setenv = A=%0100d\n", 0);
	assert_int_equal(conf(&o, &e, text), 0);
	sup_opts_free(&o);
}

static void test_relative_paths(void **state)
{
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(conf(&o, &e,
			      "root = tmp/trees\nchdir = ./src\nwatch = .\nwatch = ./\n"
			      "watch = /abs\nreport = out/r.json\npolicy = ci.policy\n"
			      "env-dir = CARGO_HOME=cargo\n"),
			 0);
	assert_string_equal(o.root, "/proj/tmp/trees");
	assert_string_equal(o.chdir, "/proj/src");
	assert_string_equal(o.watch.v[0], "/proj");
	assert_string_equal(o.watch.v[1], "/proj");
	assert_string_equal(o.watch.v[2], "/abs");
	assert_string_equal(o.outputs[SUP_SINK_REPORT], "/proj/out/r.json");
	assert_string_equal(o.policy, "/proj/ci.policy");
	/* relative to the tree, not to the file */
	assert_string_equal(o.env_dirs.v[0], "CARGO_HOME=cargo");
	sup_opts_free(&o);

	/* a shipped policy's name is a name */
	assert_int_equal(conf(&o, &e, "policy = strict\n"), 0);
	assert_string_equal(o.policy, "strict");
	sup_opts_free(&o);
	assert_int_equal(conf(&o, &e, "policy = off\n"), 0);
	assert_string_equal(o.policy, "off");
	sup_opts_free(&o);

	{
		char *r = cli_conf_resolve("/", "x");
		assert_string_equal(r, "/x");
		free(r);
	}
}

/* A scratch directory with files in it; removed by cleanup(). */
struct scratch {
	char dir[256];
	char path[320];
};

static void put(struct scratch *s, const char *rel, const char *text, mode_t mode)
{
	int fd;

	snprintf(s->path, sizeof(s->path), "%s/%s", s->dir, rel);
	fd = open(s->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static void cleanup(struct scratch *s)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	assert_int_equal(system(cmd), 0);
}

/* The command line as cli_parse_args() takes it, then the file named by --config. */
static int load(struct sup_opts *o, struct iso_err *e, char **argv)
{
	int argc = 0, r;

	while (argv[argc])
		argc++;
	sup_opts_init(o);
	memset(e, 0, sizeof(*e));
	r = cli_parse_args(argc, argv, o, e);
	if (r < 0)
		return r;
	return cli_conf_load(o, e);
}

static void test_command_line_over_the_file(void **state)
{
	struct scratch s;
	struct sup_opts o;
	struct iso_err e;

	assert_int_equal(unit_mkdtemp(s.dir, sizeof(s.dir), "test_config.XXXXXX"), 0);
	put(&s, "isorun.conf",
	    "settle = 5s\nkeep = true\nenv-dir = A=a\nsetenv = X=file\nwatch = .\n"
	    "timeout = 1m\npidns = try\n",
	    0644);
	assert_int_equal(load(&o, &e,
			      (char *[]){ "isorun", "--config", s.path, "--settle", "1s",
					  "--keep=false", "--env-dir", "B=b", "--setenv", "X=cli",
					  "--pidns", "--", "true", NULL }),
			 0);
	/* scalars: the command line replaces */
	assert_int_equal(o.settle_ms, 1000);
	assert_false(o.keep);
	assert_int_equal(o.pidns, SUP_PIDNS_ON);
	/* ... and what it does not name stays the file's */
	assert_int_equal(o.timeout_ms, 60000);
	/* lists: the command line adds, after the file, so its setenv wins */
	assert_int_equal(o.env_dirs.n, 2);
	assert_string_equal(o.env_dirs.v[0], "A=a");
	assert_string_equal(o.env_dirs.v[1], "B=b");
	assert_int_equal(o.setenv.n, 2);
	assert_string_equal(o.setenv.v[1], "X=cli");
	assert_string_equal(o.watch.v[0], s.dir);
	assert_string_equal(o.config_path, s.path);
	assert_string_equal(o.argv[0], "true");
	/* the sources: the file's lines, then the command line's */
	assert_int_equal(o.settings[0].line, 1);
	assert_int_equal(o.settings[o.n_settings - 1].line, SUP_FROM_CLI);
	sup_opts_free(&o);

	/* control: --no-config reads none of it */
	assert_int_equal(
		load(&o, &e,
		     (char *[]){ "isorun", "--config", s.path, "--no-config", "--", "true", NULL }),
		0);
	assert_int_equal(o.settle_ms, 3000);
	assert_false(o.keep);
	assert_null(o.config_path);
	sup_opts_free(&o);

	/* a bad file: file:line, and the opts stay the command line's */
	put(&s, "bad.conf", "keep = true\nsettle = soon\n", 0644);
	assert_true(load(&o, &e, (char *[]){ "isorun", "--config", s.path, "true", NULL }) < 0);
	assert_non_null(strstr(e.msg, "bad.conf:2:10: settle: invalid duration 'soon'"));
	assert_false(o.keep);
	sup_opts_free(&o);

	/* a missing one is named */
	snprintf(s.path, sizeof(s.path), "%s/nope.conf", s.dir);
	assert_true(load(&o, &e, (char *[]){ "isorun", "--config", s.path, "true", NULL }) < 0);
	assert_int_equal(e.errnum, ENOENT);
	assert_non_null(strstr(e.msg, "--config: open '"));
	sup_opts_free(&o);
	cleanup(&s);
}

static void test_discovery(void **state)
{
	struct scratch s;
	char sub[300], *path;
	int fd;
	struct iso_err e = { 0 };

	assert_int_equal(unit_mkdtemp(s.dir, sizeof(s.dir), "test_config.XXXXXX"), 0);
	snprintf(sub, sizeof(sub), "%s/a", s.dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof(sub), "%s/a/b", s.dir);
	assert_int_equal(mkdir(sub, 0700), 0);

	/* control: nothing in the scratch directory (an ancestor of TMPDIR is not ours) */
	assert_int_equal(cli_conf_find(sub, &path, &fd, &e), 0);
	assert_true(!path || strncmp(path, s.dir, strlen(s.dir)) != 0);
	free(path);
	if (fd >= 0)
		close(fd);

	put(&s, "isorun.conf", "keep = true\n", 0644);
	assert_int_equal(cli_conf_find(sub, &path, &fd, &e), 0);
	assert_non_null(path);
	assert_string_equal(path, s.path);
	assert_true(fd >= 0);
	free(path);
	close(fd);

	/* the nearest wins */
	put(&s, "a/isorun.conf", "keep = false\n", 0644);
	assert_int_equal(cli_conf_find(sub, &path, &fd, &e), 0);
	assert_string_equal(path, s.path);
	free(path);
	close(fd);
	cleanup(&s);
}

/* cli_conf_read() of `path`: 0, or the error with e->msg. */
static int read_conf(const char *path, struct iso_err *e)
{
	char *text = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	memset(e, 0, sizeof(*e));
	r = cli_conf_read(fd, path, &text, e);
	close(fd);
	free(text);
	return r;
}

static void test_refused_when_others_can_write(void **state)
{
	struct scratch s;
	struct iso_err e;

	assert_int_equal(unit_mkdtemp(s.dir, sizeof(s.dir), "test_config.XXXXXX"), 0);
	put(&s, "isorun.conf", "keep = true\n", 0644);
	assert_int_equal(read_conf(s.path, &e), 0); /* control */
	assert_int_equal(chmod(s.path, 0664), 0);
	assert_int_equal(read_conf(s.path, &e), -EPERM);
	assert_non_null(strstr(e.msg, "refused: writable by its group (mode 0664)"));
	assert_non_null(strstr(e.hint, "--no-config"));
	assert_int_equal(chmod(s.path, 0646), 0);
	assert_int_equal(read_conf(s.path, &e), -EPERM);
	assert_non_null(strstr(e.msg, "refused: writable by others (mode 0646)"));
	/* not a regular file */
	assert_int_equal(read_conf(s.dir, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "not a regular file"));
	/* a NUL byte is not text */
	{
		int fd = open(s.path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "keep\0= true\n", 12), 12);
		close(fd);
		assert_int_equal(chmod(s.path, 0644), 0);
		assert_int_equal(read_conf(s.path, &e), -EINVAL);
		assert_non_null(strstr(e.msg, "NUL byte"));
	}
	cleanup(&s);
}

/*
 * An ordinary user cannot give a file away; in a user namespace where only
 * the caller is mapped, root's files show up as the overflow uid, which is
 * "another user" to the check.
 */
static int owned_by_another_child(const char *own)
{
	struct iso_err e;
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unit_enter_userns(0, 1000, uid, gid) < 0)
		return NO_NAMESPACE;
	CHILD_CHECK(read_conf(own, &e) == 0); /* control: our own */
	CHILD_CHECK(read_conf("/etc/passwd", &e) == -EPERM);
	CHILD_CHECK(strstr(e.msg, "refused: owned by uid 65534, not by you (uid 1000)"));
	return 0;
}

static void test_refused_when_another_user_owns_it(void **state)
{
	struct scratch s;
	struct iso_err e;
	pid_t pid;
	int code;

	assert_int_equal(unit_mkdtemp(s.dir, sizeof(s.dir), "test_config.XXXXXX"), 0);
	put(&s, "isorun.conf", "keep = true\n", 0644);
	if (geteuid() == 0) {
		assert_int_equal(chown(s.path, 65534, 65534), 0);
		assert_int_equal(read_conf(s.path, &e), -EPERM);
		assert_non_null(strstr(e.msg, "refused: owned by uid 65534, not by you (uid 0)"));
		assert_int_equal(chown(s.path, 0, 0), 0); /* control: root's is fine */
		assert_int_equal(read_conf(s.path, &e), 0);
		cleanup(&s);
		return;
	}
	pid = unit_fork(30);
	if (pid == 0)
		_exit(owned_by_another_child(s.path));
	code = unit_wait(pid);
	cleanup(&s);
	unit_child_ok(code, "user namespace");
}

/* "FILE:LINE: KEY = ..." of a file setting refused under the command line `argv`. */
static void expect_widening(struct scratch *s, const char *text, char **argv, const char *want)
{
	struct sup_opts o;
	struct iso_err e;
	char msg[512];

	put(s, "isorun.conf", text, 0644);
	assert_int_equal(load(&o, &e, argv), -EINVAL);
	snprintf(msg, sizeof(msg), "%s:%s", s->path, want);
	assert_string_equal(e.msg, msg);
	assert_non_null(strstr(e.hint, "on the command line"));
	sup_opts_free(&o);
}

/* The file never widens the command line (cli/conftrust.h): the command line decides. */
static void test_file_cannot_widen_the_command_line(void **state)
{
	struct passwd *pw = getpwuid(getuid());
	char *ro[] = { "isorun", "--config", NULL, "--protect-home=ro", "--", "true", NULL };
	char *plain[] = { "isorun", "--config", NULL, "--", "true", NULL };
	char text[PATH_MAX + 128], want[PATH_MAX + 256], home[PATH_MAX];
	struct scratch s;
	struct sup_opts o;
	struct iso_err e;

	assert_non_null(pw);
	assert_non_null(realpath(pw->pw_dir, home));
	assert_int_equal(unit_mkdtemp(s.dir, sizeof(s.dir), "test_config.XXXXXX"), 0);
	ro[2] = plain[2] = s.path;
	snprintf(s.path, sizeof(s.path), "%s/isorun.conf", s.dir);
	/* a path in the home that does not exist yet: its deepest ancestor decides */
	snprintf(text, sizeof(text), "settle = 1s\nreport = %s/.isorun-unit-none/r.json\n", home);
	snprintf(want, sizeof(want),
		 "2: report = %s/.isorun-unit-none/r.json: isorun would write it in the home "
		 "(--protect-home=ro on the command line; a project file cannot widen it)",
		 home);
	expect_widening(&s, text, ro, want);
	/* a dangling symlink of the checkout, which open(O_CREAT) would follow */
	snprintf(text, sizeof(text), "%s/.isorun-unit-none", home);
	snprintf(want, sizeof(want), "%s/out.json", s.dir);
	assert_int_equal(symlink(text, want), 0);
	expect_widening(&s, "junit = out.json\n", ro,
			"1: junit = out.json: isorun would write it in the home (--protect-home=ro "
			"on the command line; a project file cannot widen it)");
	expect_widening(&s, "cap-keep = sys_admin\n", ro,
			"1: cap-keep = sys_admin: keeps a capability that undoes it "
			"(--protect-home=ro on the command line; a project file cannot widen it)");
	/* controls: the same lines without --protect-home on the command line */
	put(&s, "isorun.conf", "junit = out.json\ncap-keep = sys_admin\n", 0644);
	assert_int_equal(load(&o, &e, plain), 0);
	assert_non_null(o.outputs[SUP_SINK_JUNIT]);
	sup_opts_free(&o);
	/* ... and a capability no protection needs, under it */
	put(&s, "isorun.conf", "cap-keep = net_raw\nreport = /dev/null\n", 0644);
	assert_int_equal(load(&o, &e, ro), 0);
	assert_int_not_equal(o.cap_keep, 0);
	sup_opts_free(&o);
	unlink(want);
	cleanup(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_the_documented_example),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_pidns),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_setenv_expansion),
		cmocka_unit_test(test_keys_and_sections),
		cmocka_unit_test(test_no_inline_comments),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_relative_paths),
		cmocka_unit_test(test_command_line_over_the_file),
		cmocka_unit_test(test_file_cannot_widen_the_command_line),
		cmocka_unit_test(test_discovery),
		cmocka_unit_test(test_refused_when_others_can_write),
		cmocka_unit_test(test_refused_when_another_user_owns_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
