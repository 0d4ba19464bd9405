// SPDX-License-Identifier: MIT
/*
 * Unit tests: the policy parser, its canonical form, its errors, and the exec
 * and connect decisions.  Golden files live in tests/policy/ and are read from
 * the source tree: run from the repository's top directory (as `make check`
 * does).
 */
#include <dirent.h>
#include <linux/kd.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/cleanup.h"
#include "policy/policy.h"
#include "tests/unit/policy_text.h"

#define GOLDEN "tests/policy"

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, len = 0, k;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			char *nbuf = realloc(buf, cap = len + 4096 + 1);

			assert_non_null(nbuf);
			buf = nbuf;
		}
		k = fread(buf + len, 1, cap - len - 1, f);
		len += k;
	} while (k > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void load_ok(const char *name, struct pol *p)
{
	struct pol_error e;
	char buf[1024];
	int r = pol_load(name, p, &e);

	if (r < 0)
		fail_msg("pol_load(%s): %d: %s", name, r, pol_error_format(&e, buf, sizeof(buf)));
}

static void parse_ok(const char *text, struct pol *p)
{
	struct pol_error e;
	char buf[1024];
	int r = pol_parse(text, strlen(text), "t.policy", p, &e);

	if (r < 0)
		fail_msg("pol_parse: %d: %s", r, pol_error_format(&e, buf, sizeof(buf)));
}

/* The whole of pol_error_format for text that must not parse as t.policy. */
static void expect_error_len(const char *text, size_t len, const char *want)
{
	struct pol p = { .name = "untouched" };
	struct pol_error e;
	char buf[1024];

	assert_int_equal(pol_parse(text, len, "t.policy", &p, &e), -EINVAL);
	/* untouched on failure: no kind's rules, the name as it was */
	assert_string_equal(p.name, "untouched");
	for (size_t i = 0; i < ELEMENTSOF(p.kind_rules); i++)
		assert_null(p.kind_rules[i]);
	assert_string_equal(pol_error_format(&e, buf, sizeof(buf)), want);
}

static void expect_error(const char *text, const char *want)
{
	expect_error_len(text, strlen(text), want);
}

static void expect_diff(const char *what, const char *want, const char *got)
{
	if (strcmp(want, got) != 0)
		fail_msg("%s differs\n--- expected\n%s--- got\n%s---", what, want, got);
}

/* Everything but origins. */
static void assert_same_rules(const struct pol *a, const struct pol *b, bool origins)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(pol_denies(a)->n, pol_denies(b)->n);
	assert_int_equal(pol_guards(a)->n, pol_guards(b)->n);
	assert_int_equal(pol_sockets(a)->n, pol_sockets(b)->n);
	for (size_t i = 0; i < pol_denies(a)->n; i++) {
		assert_string_equal(pol_denies(a)->v[i].syscall, pol_denies(b)->v[i].syscall);
		assert_int_equal(pol_denies(a)->v[i].errnum, pol_denies(b)->v[i].errnum);
		assert_int_equal(pol_denies(a)->v[i].has_ioctl_req,
				 pol_denies(b)->v[i].has_ioctl_req);
		assert_int_equal(pol_denies(a)->v[i].ioctl_req, pol_denies(b)->v[i].ioctl_req);
		if (origins)
			assert_string_equal(pol_denies(a)->v[i].origin, pol_denies(b)->v[i].origin);
	}
	for (size_t i = 0; i < pol_guards(a)->n; i++) {
		const struct pol_guard *x = &pol_guards(a)->v[i], *y = &pol_guards(b)->v[i];
		size_t k;

		assert_string_equal(x->program, y->program);
		assert_int_equal(x->verb_index, y->verb_index);
		assert_int_equal(x->verb_raw, y->verb_raw);
		assert_int_equal(x->allow_list, y->allow_list);
		assert_int_equal(x->empty_allowed, y->empty_allowed);
		for (k = 0; x->patterns[k] && y->patterns[k]; k++)
			assert_string_equal(x->patterns[k], y->patterns[k]);
		assert_null(x->patterns[k]);
		assert_null(y->patterns[k]);
		if (origins)
			assert_string_equal(x->origin, y->origin);
	}
	for (size_t i = 0; i < pol_sockets(a)->n; i++) {
		assert_memory_equal(pol_sockets(a)->v[i].path, pol_sockets(b)->v[i].path,
				    sizeof(pol_sockets(a)->v[i].path));
		if (origins)
			assert_string_equal(pol_sockets(a)->v[i].origin,
					    pol_sockets(b)->v[i].origin);
	}
}

/* --- the shipped policies ---------------------------------------------------- */

/* The compiled-in copies say exactly what policy/default.policy and strict.policy say. */
static void test_shipped_match_files(void **state)
{
	static const char *pairs[][2] = { { "default", "policy/default.policy" },
					  { "strict", "policy/strict.policy" } };

	for (size_t i = 0; i < 2; i++) {
		struct pol a, b;

		load_ok(pairs[i][0], &a);
		load_ok(pairs[i][1], &b);
		assert_same_rules(&a, &b, true);
		pol_free(&a);
		pol_free(&b);
	}
}

/* Byte for byte, comments included: the compiled-in text is the file. */
static void test_embedded_text(void **state)
{
	assert_true(pol_n_shipped_text >= 2);
	for (size_t i = 0; i < pol_n_shipped_text; i++) {
		const struct pol_text *t = &pol_shipped_text[i];
		char path[64];

		snprintf(path, sizeof(path), "policy/%s", t->file);
		_cleanup_free_ char *file = read_text(path);
		assert_non_null(file);
		assert_int_equal(strlen(t->text), t->len);
		expect_diff(path, file, t->text);
		assert_string_equal(pol_shipped_name(i), t->name);
	}
}

static void test_default_contents(void **state)
{
	static const char *denied[] = { "reboot",	 "kexec_load",	  "kexec_file_load",
					"init_module",	 "finit_module",  "delete_module",
					"swapon",	 "swapoff",	  "settimeofday",
					"clock_settime", "clock_adjtime", "adjtimex",
					"acct",		 "quotactl",	  "ioperm",
					"iopl" };
	static const unsigned long requests[] = { TIOCSTI, TIOCLINUX, KDSKBENT, KDSKBSENT,
						  KDSETKEYCODE };
	struct pol p;
	size_t i;

	load_ok("default", &p);
	assert_string_equal(p.name, "default");
	assert_int_equal(pol_denies(&p)->n, ELEMENTSOF(denied) + ELEMENTSOF(requests));
	for (i = 0; i < ELEMENTSOF(denied); i++) {
		assert_string_equal(pol_denies(&p)->v[i].syscall, denied[i]);
		assert_int_equal(pol_denies(&p)->v[i].errnum, EPERM);
		assert_false(pol_denies(&p)->v[i].has_ioctl_req);
	}
	/* TIOCSTI, then TIOCLINUX and the console keymap's writers (policy/default.policy) */
	for (size_t j = 0; j < ELEMENTSOF(requests); j++, i++) {
		assert_string_equal(pol_denies(&p)->v[i].syscall, "ioctl");
		assert_true(pol_denies(&p)->v[i].has_ioctl_req);
		assert_int_equal(pol_denies(&p)->v[i].ioctl_req, requests[j]);
		assert_int_equal(pol_denies(&p)->v[i].errnum, EPERM);
	}
	assert_string_equal(pol_denies(&p)->v[0].origin, "default.policy:8");
	assert_int_equal(pol_sockets(&p)->n, 0);
	pol_free(&p);
}

/* format -> parse -> format: the canonical form means what the policy means. */
static void test_round_trip(void **state)
{
	static const char *names[] = { "default", "strict", GOLDEN "/basic.policy",
				       GOLDEN "/include-relative.policy" };

	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		struct pol a, b;
		char *t1, *t2;

		load_ok(names[i], &a);
		t1 = pol_format(&a);
		assert_non_null(t1);
		parse_ok(t1, &b);
		assert_same_rules(&a, &b, false);
		t2 = pol_format(&b);
		assert_non_null(t2);
		/* only the "# from" lines of a multi-file policy may go */
		strip_from_lines(t1);
		expect_diff(names[i], t1, t2);
		free(t1);
		free(t2);
		pol_free(&a);
		pol_free(&b);
	}
}

/* --- golden files -------------------------------------------------------------- */

static int is_policy(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 7 && strcmp(d->d_name + n - 7, ".policy") == 0;
}

static void golden_show(const char *input, const char *show_path)
{
	_cleanup_free_ char *want = read_text(show_path);
	struct pol p;
	char *got;

	if (!want)
		fail_msg("missing %s", show_path);
	load_ok(input, &p);
	got = pol_format(&p);
	assert_non_null(got);
	expect_diff(show_path, want, got);
	free(got);
	pol_free(&p);
}

static void test_golden_show(void **state)
{
	struct dirent **ents;
	int n = scandir(GOLDEN, &ents, is_policy, alphasort);

	assert_true(n >= 5);
	golden_show("default", GOLDEN "/default.show");
	golden_show("strict", GOLDEN "/strict.show");
	for (int i = 0; i < n; i++) {
		char in[512], show[512];

		snprintf(in, sizeof(in), GOLDEN "/%s", ents[i]->d_name);
		snprintf(show, sizeof(show), GOLDEN "/%.*s.show", (int)strlen(ents[i]->d_name) - 7,
			 ents[i]->d_name);
		golden_show(in, show);
		free(ents[i]);
	}
	free(ents);
}

static void test_golden_errors(void **state)
{
	struct dirent **ents;
	int n = scandir(GOLDEN "/bad", &ents, is_policy, alphasort);

	assert_true(n >= 20);
	for (int i = 0; i < n; i++) {
		char in[512], errp[512], buf[2048];
		_cleanup_free_ char *want = NULL;
		struct pol_error e;
		struct pol p;
		int r;

		snprintf(in, sizeof(in), GOLDEN "/bad/%s", ents[i]->d_name);
		snprintf(errp, sizeof(errp), GOLDEN "/bad/%.*s.err",
			 (int)strlen(ents[i]->d_name) - 7, ents[i]->d_name);
		want = read_text(errp);
		if (!want)
			fail_msg("missing %s", errp);
		r = pol_load(in, &p, &e);
		if (r == 0)
			fail_msg("%s parsed", in);
		assert_int_equal(r, -EINVAL);
		pol_error_format(&e, buf, sizeof(buf));
		strcat(buf, "\n");
		expect_diff(errp, want, buf);
		free(ents[i]);
	}
	free(ents);
}

/* --- errors, exactly ------------------------------------------------------------ */

static void test_errors(void **state)
{
	expect_error("policy t\n\ndeny rebot\n", "t.policy:3:6: unknown syscall 'rebot'\n"
						 "  deny rebot\n"
						 "       ^");
	expect_error("deny reboot errno=EPREM", "t.policy:1:19: unknown errno 'EPREM'\n"
						"  deny reboot errno=EPREM\n"
						"                    ^");
	expect_error("deny reboot errno=13",
		     "t.policy:1:19: errno=: expected a name such as EPERM\n"
		     "  deny reboot errno=13\n"
		     "                    ^");
	expect_error("# x\nrestart nginx\n",
		     "t.policy:2:1: unknown statement 'restart' (policy, include, deny, guard, "
		     "deny-socket, contain-signals)\n"
		     "  restart nginx\n"
		     "  ^");
	expect_error("deny", "t.policy:1:5: deny: expected a syscall name\n"
			     "  deny\n"
			     "      ^");
	expect_error("guard systemctl allow",
		     "t.policy:1:22: guard: expected a pattern after 'allow'\n"
		     "  guard systemctl allow\n"
		     "                       ^");
	expect_error("guard systemctl verb=two allow status",
		     "t.policy:1:22: bad verb= 'two' (N or argN, N from 1 to 99)\n"
		     "  guard systemctl verb=two allow status\n"
		     "                       ^");
	expect_error("guard systemctl sometimes allow status",
		     "t.policy:1:17: guard: expected allow or deny, got 'sometimes'\n"
		     "  guard systemctl sometimes allow status\n"
		     "                  ^");
	expect_error("deny swapon wat=1", "t.policy:1:13: unknown option 'wat=1' for deny\n"
					  "  deny swapon wat=1\n"
					  "              ^");
	expect_error("deny ioctl request=TIOCSTX",
		     "t.policy:1:20: bad ioctl request 'TIOCSTX' (a number, TIOCSTI, TIOCLINUX, "
		     "KDSKBENT, KDSKBSENT or KDSETKEYCODE)\n"
		     "  deny ioctl request=TIOCSTX\n"
		     "                     ^");
	/* numbers as the one parser reads them: no sign, no blank, no octal guess, no wrap */
	static const char *const bad_req[] = { "-1",	      "+21522",
					       "010",	      "0x",
					       "0x1g",	      "4294967296",
					       "0x100000000", "18446744073709551637" };
	for (size_t i = 0; i < sizeof(bad_req) / sizeof(bad_req[0]); i++) {
		char text[64], want[256];
		snprintf(text, sizeof(text), "deny ioctl request=%s", bad_req[i]);
		snprintf(want, sizeof(want),
			 "t.policy:1:20: bad ioctl request '%s' (a number, TIOCSTI, TIOCLINUX, "
			 "KDSKBENT, KDSKBSENT or KDSETKEYCODE)\n"
			 "  %s\n"
			 "                     ^",
			 bad_req[i], text);
		expect_error(text, want);
	}
	expect_error("deny reboot\npolicy x\n",
		     "t.policy:2:1: 'policy' must be the first statement\n"
		     "  policy x\n"
		     "  ^");
	expect_error("deny-socket relative/path",
		     "t.policy:1:13: deny-socket: 'relative/path' is not an absolute path\n"
		     "  deny-socket relative/path\n"
		     "              ^");
	expect_error("include /nonexistent/x.policy",
		     "t.policy:1:9: include: cannot read '/nonexistent/x.policy': No such file or "
		     "directory\n"
		     "  include /nonexistent/x.policy\n"
		     "          ^");
	/* tabs stay tabs under the caret; a NUL byte is shown as '?' */
	expect_error("\tdeny\tfoo", "t.policy:1:7: unknown syscall 'foo'\n"
				    "  \tdeny\tfoo\n"
				    "  \t    \t^");
	expect_error_len("deny reboot\ndeny x\0y\n", 21,
			 "t.policy:2:7: invalid byte 0x00\n"
			 "  deny x?y\n"
			 "        ^");
}

static void test_error_without_line(void **state)
{
	struct pol_error e;
	struct pol p;
	char buf[512];

	assert_int_equal(pol_load("/nonexistent/ci.policy", &p, &e), -ENOENT);
	assert_string_equal(pol_error_format(&e, buf, sizeof(buf)),
			    "/nonexistent/ci.policy: cannot read: No such file or directory");
	assert_int_equal(pol_load("", &p, &e), -EINVAL);
	/* a short buffer is truncated, never overrun */
	memset(buf, 'x', sizeof(buf));
	assert_int_equal(pol_parse("deny x", 6, "t.policy", &p, &e), -EINVAL);
	pol_error_format(&e, buf, 10);
	assert_int_equal(strlen(buf), 9);
	assert_int_equal(buf[11], 'x');
	/* every size, including the one the line fills exactly: the caret never overruns */
	assert_int_equal(pol_parse("deny reboot\ndeny x\xad\n", 19, "t.policy", &p, &e), -EINVAL);
	for (size_t len = 1; len < 128; len++) {
		memset(buf, 'x', sizeof(buf));
		pol_error_format(&e, buf, len);
		assert_true(strlen(buf) < len);
		assert_int_equal(buf[len], 'x');
	}
}

/* --- includes ------------------------------------------------------------------- */

static void test_includes(void **state)
{
	struct pol p;

	/* shipped names come from the binary, whatever the including file's directory */
	parse_ok("policy mine\ninclude strict\ndeny sethostname\n", &p);
	assert_string_equal(p.name, "mine");
	assert_int_equal(pol_denies(&p)->n, 22);
	assert_string_equal(pol_denies(&p)->v[0].origin, "default.policy:8");
	assert_string_equal(pol_denies(&p)->v[21].origin, "t.policy:3");
	assert_int_equal(pol_sockets(&p)->n, 4);
	assert_string_equal(pol_sockets(&p)->v[0].origin, "strict.policy:7");
	pol_free(&p);

	/* a shipped policy twice: its rules once */
	parse_ok("include default\ninclude strict\ninclude default\n", &p);
	assert_string_equal(p.name, "t");
	assert_int_equal(pol_denies(&p)->n, 21);
	assert_int_equal(pol_guards(&p)->n, 18);
	pol_free(&p);

	/* relative to the including file */
	load_ok(GOLDEN "/include-relative.policy", &p);
	assert_string_equal(p.name, "mixed");
	assert_int_equal(pol_denies(&p)->n, 2);
	assert_string_equal(pol_denies(&p)->v[1].syscall, "setdomainname");
	assert_string_equal(pol_denies(&p)->v[1].origin, "leaf.policy:2");
	assert_string_equal(pol_guards(&p)->v[0].origin, "extra.policy:2");
	pol_free(&p);

	/* cycles, through files and through the file itself */
	expect_error("include " GOLDEN "/bad/self-include.policy\n",
		     GOLDEN "/bad/self-include.policy:2:9: include cycle: self-include.policy -> "
			    "self-include.policy\n"
			    "  include self-include.policy\n"
			    "          ^");
	expect_error("include " GOLDEN "/bad/cycle-a.policy\n",
		     GOLDEN "/bad/cycle-b.policy:2:9: include cycle: cycle-a.policy -> "
			    "cycle-b.policy -> cycle-a.policy\n"
			    "  include cycle-a.policy\n"
			    "          ^");
}

/* --- decisions ------------------------------------------------------------------ */

struct exec_case {
	const char *path;
	char *argv[8];
	bool refuse;
};

static void check_execs(const struct pol *p, const struct exec_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct pol_verdict v = pol_decide_exec(p, c[i].path, c[i].argv);
		char cmd[256] = "";

		for (int k = 0; c[i].argv[k]; k++) {
			strcat(cmd, " ");
			strcat(cmd, c[i].argv[k]);
		}
		if (v.refuse != c[i].refuse)
			fail_msg("exec %s [%s ]: %s, expected %s", c[i].path ? c[i].path : "(null)",
				 cmd, v.refuse ? "refused" : "allowed",
				 c[i].refuse ? "refused" : "allowed");
		if (v.refuse)
			assert_non_null(v.origin);
		else
			assert_null(v.origin);
	}
}

#define R true
#define A false

/* Every case the issue names, against the shipped default. */
static void test_default_guards(void **state)
{
	static const struct exec_case cases[] = {
		{ "/usr/bin/systemctl", { "systemctl", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "--user", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "stop", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "enable", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "--", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "is-active", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "--user", "is-active", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "status" }, A },
		{ "/usr/bin/systemctl", { "systemctl" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "--version" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "list-units", "--all" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "show", "-p", "Id", "x" }, A },
		/* an option's own argument is not the verb (issue 11, item 19) */
		{ "/usr/bin/systemctl", { "systemctl", "-p", "status", "restart", "nginx" }, R },
		{ "/usr/bin/systemctl",
		  { "systemctl", "--property", "status", "stop", "nginx" },
		  R },
		{ "/usr/bin/systemctl", { "systemctl", "--prop", "status", "stop", "nginx" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-P", "status", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-pstatus", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-qp", "status", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-H", "host", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-Hhost", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-M", "status", "kill", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "--type", "status", "stop", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "--property=status", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-p", "--", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-p", "Id", "--", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "--signal", "status", "kill", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-pId", "status", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "-p", "Id", "show", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "--property=Id", "show", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "-p", "Id", "--", "show", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "--no-pager", "status", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "--user", "-q", "is-active", "x" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "-aq", "list-units" }, A },
		{ "/usr/bin/systemctl", { "systemctl", "status", "-p", "restart", "x" }, A },
		/* an option not in the table: either reading may be the verb, fail closed */
		{ "/usr/bin/systemctl", { "systemctl", "--no-such", "restart", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "--no-such", "status", "x" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-Z", "status", "restart" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "-qZ", "status", "restart" }, R },
		{ "/usr/bin/systemctl", { "systemctl", "--no-such", "status" }, A },
		{ "/usr/bin/loginctl", { "loginctl", "-M", ".host", "terminate-user", "root" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "--machine", ".host", "kill-user", "x" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "-Hhost", "terminate-session", "3" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "--no-such", "terminate-user", "x" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "-p", "Name", "show-session", "1" }, A },
		{ "/usr/bin/loginctl", { "loginctl", "--no-pager", "list-sessions" }, A },
		{ "/usr/bin/loginctl", { "loginctl", "--no-such", "list-sessions" }, A },
		{ "/bin/systemctl", { "systemctl", "restart", "x" }, R },
		{ "systemctl", { "systemctl", "restart", "x" }, R },
		{ NULL, { "/usr/bin/systemctl", "restart", "x" }, R },
		{ NULL, { "systemctl", "status" }, A },
		/* env is not special: its own exec passes, the systemctl it runs is checked */
		{ "/usr/bin/env", { "env", "systemctl", "restart", "x" }, A },
		{ "/usr/bin/sh", { "sh", "-c", "systemctl stop x" }, A },
		/* multi-call: systemctl run as reboot */
		{ "/usr/bin/systemctl", { "reboot" }, R },
		{ "/usr/sbin/reboot", { "reboot" }, R },
		{ "/usr/sbin/shutdown", { "shutdown", "-h", "now" }, R },
		{ "/usr/bin/crontab", { "crontab", "-r" }, R },
		{ "/usr/bin/crontab", { "crontab", "-l" }, A },
		{ "/usr/bin/crontab", { "crontab", "file" }, R },
		{ "/usr/bin/crontab", { "crontab" }, R },
		{ "/usr/bin/crontab", { "crontab", "-e" }, R },
		{ "/usr/sbin/service", { "service", "nginx", "restart" }, R },
		{ "/usr/sbin/service", { "service", "nginx", "status" }, A },
		{ "/usr/sbin/service", { "service", "nginx", "--full-restart" }, R },
		{ "/usr/sbin/service", { "service", "--status-all" }, A },
		{ "/usr/bin/at", { "at", "now" }, R },
		{ "/usr/bin/at", { "at" }, R },
		{ "/usr/bin/at", { "at", "-l" }, R },
		{ "/usr/bin/batch", { "batch" }, R },
		{ "/usr/bin/systemd-run", { "systemd-run", "--user", "true" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "enable-linger", "me" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "terminate-session", "3" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "kill-user", "me" }, R },
		{ "/usr/bin/loginctl", { "loginctl", "list-sessions" }, A },
		{ "/usr/bin/loginctl", { "loginctl" }, A },
		{ "/usr/sbin/update-rc.d", { "update-rc.d", "nginx", "defaults" }, R },
		{ "/usr/sbin/invoke-rc.d", { "invoke-rc.d", "nginx", "start" }, R },
		{ "/sbin/rc-service", { "rc-service", "nginx", "status" }, R },
		{ "/sbin/rc-update", { "rc-update" }, R },
		{ "/sbin/initctl", { "initctl", "list" }, R },
		{ "/bin/launchctl", { "launchctl", "list" }, A },
		{ "/bin/launchctl", { "launchctl", "print", "system" }, A },
		{ "/bin/launchctl", { "launchctl", "load", "x.plist" }, R },
		{ "/usr/bin/true", { "true" }, A },
		{ "/usr/bin/git", { "git", "restart" }, A },
		{ "/usr/bin/systemctl-wrapper", { "systemctl-wrapper", "restart" }, A },
		{ "/usr/bin/systemctl", { NULL }, A },
		{ "", { NULL }, A },
	};
	struct pol p;

	load_ok("default", &p);
	check_execs(&p, cases, ELEMENTSOF(cases));
	assert_false(pol_decide_exec(&p, NULL, NULL).refuse);
	pol_free(&p);
}

/* The origin is the guard's line in the shipped file. */
static void test_origin(void **state)
{
	_cleanup_free_ char *text = read_text("policy/default.policy");
	char *const argv[] = { "systemctl", "restart", "nginx", NULL };
	struct pol_verdict v;
	char want[64];
	int line = 1;
	struct pol p;

	assert_non_null(text);
	for (const char *s = text; strncmp(s, "guard systemctl ", 16) != 0;
	     s = strchr(s, '\n') + 1) {
		assert_non_null(strchr(s, '\n'));
		line++;
	}
	snprintf(want, sizeof(want), "default.policy:%d", line);
	load_ok("default", &p);
	v = pol_decide_exec(&p, "/usr/bin/systemctl", argv);
	assert_true(v.refuse);
	assert_string_equal(v.origin, want);
	pol_free(&p);
}

static void test_verb_modes(void **state)
{
	static const struct exec_case cases[] = {
		/* verb=2, non-options: the second word that is not an option */
		{ "/x/tool", { "tool", "a", "-v", "go" }, R },
		{ "/x/tool", { "tool", "a", "stay" }, A },
		{ "/x/tool", { "tool", "-", "go" }, R }, /* "-" is a word */
		{ "/x/tool", { "tool", "a", "--", "-go" }, A },
		{ "/x/tool", { "tool", "--", "a", "go" }, R },
		{ "/x/tool", { "tool", "a" }, A }, /* deny-list: a missing verb passes */
		/* a program without a table: an option may take the next word */
		{ "/x/tool", { "tool", "-o", "x", "a", "go" }, R },
		{ "/x/tool", { "tool", "--opt", "a", "go" }, R },
		{ "/x/tool", { "tool", "--opt=a", "b", "stay" }, A },
		{ "/x/dash", { "dash", "-" }, R },
		{ "/x/dash", { "dash", "-v", "x" }, A },
		/* verb=arg1: argv[1] as written */
		{ "/x/raw", { "raw", "-x" }, A },
		{ "/x/raw", { "raw", "-y" }, R },
		{ "/x/raw", { "raw", "" }, R },
		{ "/x/raw", { "raw" }, R }, /* allow-list: a missing verb is refused */
		/* deny * refuses a missing verb too */
		{ "/x/never", { "never" }, R },
		{ "/x/never", { "never", "-q" }, R },
		/* an explicit empty= wins */
		{ "/x/bare", { "bare" }, A },
		{ "/x/bare", { "bare", "go" }, R },
		/* two guards for one program: both must pass */
		{ "/x/two", { "two", "ab" }, A },
		{ "/x/two", { "two", "ax" }, R },
		{ "/x/two", { "two", "bb" }, R },
		/* globs */
		{ "/x/glob", { "glob", "list-units" }, A },
		{ "/x/glob", { "glob", "[x]" }, R },
		{ "/x/glob", { "glob", "x" }, A },
	};
	struct pol p;

	parse_ok("guard tool verb=2 deny go\n"
		 "guard raw verb=arg1 allow -x\n"
		 "guard never deny *\n"
		 "guard bare empty=allow allow status\n"
		 "guard two allow a*\n"
		 "guard two deny *x\n"
		 "guard glob allow list-* [x]\n"
		 "guard dash deny -\n",
		 &p);
	assert_true(pol_guards(&p)->v[0].verb_index == 2 && !pol_guards(&p)->v[0].verb_raw);
	assert_true(pol_guards(&p)->v[0].empty_allowed);
	assert_true(pol_guards(&p)->v[1].verb_index == 1 && pol_guards(&p)->v[1].verb_raw);
	assert_false(pol_guards(&p)->v[1].empty_allowed);
	assert_false(pol_guards(&p)->v[2].empty_allowed);
	check_execs(&p, cases, ELEMENTSOF(cases));
	assert_string_equal(
		pol_decide_exec(&p, "/x/two", (char *const[]){ "two", "bx", NULL }).origin,
		"t.policy:5");
	pol_free(&p);
}

static void test_connect(void **state)
{
	char *saved = getenv("XDG_RUNTIME_DIR") ? strdup(getenv("XDG_RUNTIME_DIR")) : NULL;
	char want[64], *text;
	struct pol_verdict v;
	struct pol p;

	assert_int_equal(setenv("XDG_RUNTIME_DIR", "/run/user/4242//", 1), 0);
	load_ok("strict", &p);
	assert_string_equal(pol_sockets(&p)->v[3].path, "/run/user/4242/bus");
	v = pol_decide_connect(&p, "/run/user/4242/bus");
	assert_true(v.refuse);
	assert_string_equal(v.origin, "strict.policy:10");
	assert_true(pol_decide_connect(&p, "/run/user/4242/systemd/private").refuse);
	assert_true(pol_decide_connect(&p, "/run/systemd/private").refuse);
	assert_true(pol_decide_connect(&p, "/run/dbus/system_bus_socket").refuse);
	assert_false(pol_decide_connect(&p, "/run/user/4242/bus2").refuse);
	/* any spelling of the same name (issue 11, item 20); a trailing '/' fails ENOTDIR anyway */
	assert_true(pol_decide_connect(&p, "/run/systemd/private/").refuse);
	assert_true(pol_decide_connect(&p, "/run//dbus/system_bus_socket").refuse);
	assert_true(pol_decide_connect(&p, "/run/./dbus/./system_bus_socket").refuse);
	assert_true(pol_decide_connect(&p, "/tmp/../run/dbus/system_bus_socket").refuse);
	assert_true(pol_decide_connect(&p, "/../../run/dbus/system_bus_socket").refuse);
	assert_true(pol_decide_connect(&p, "//run/user/4242/bus").refuse);
	assert_false(pol_decide_connect(&p, "/run/dbus/system_bus_socket/..").refuse);
	assert_false(pol_decide_connect(&p, "/run/dbus/../system_bus_socket").refuse);
	assert_false(pol_decide_connect(&p, "").refuse);
	assert_false(pol_decide_connect(&p, NULL).refuse);
	/* shown as written, whatever the environment */
	text = pol_format(&p);
	assert_non_null(strstr(text, "\ndeny-socket $XDG_RUNTIME_DIR/bus\n"));
	assert_null(strstr(text, "4242"));
	free(text);
	pol_free(&p);

	/* unset: the runtime directory systemd would give this user */
	assert_int_equal(unsetenv("XDG_RUNTIME_DIR"), 0);
	load_ok("strict", &p);
	snprintf(want, sizeof(want), "/run/user/%u/bus", (unsigned)geteuid());
	assert_true(pol_decide_connect(&p, want).refuse);
	pol_free(&p);

	/* the default policy refuses no connect */
	load_ok("default", &p);
	assert_false(pol_decide_connect(&p, "/run/systemd/private").refuse);
	pol_free(&p);

	if (saved)
		setenv("XDG_RUNTIME_DIR", saved, 1);
	free(saved);
}

static void test_path_normalize(void **state)
{
	static const char *const cases[][2] = {
		{ "/", "/" },
		{ "//", "/" },
		{ "/..", "/" },
		{ "/a/./b", "/a/b" },
		{ "/a//b/", "/a/b" },
		{ "/a/b/../c", "/a/c" },
		{ "/a/..", "/" },
		{ "/../a/../../b", "/b" },
		{ "/a/.b/..c", "/a/.b/..c" },
	};
	char out[64];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		assert_int_equal(pol_path_normalize(cases[i][0], out, sizeof(out)), 0);
		assert_string_equal(out, cases[i][1]);
	}
	assert_int_equal(pol_path_normalize("a/b", out, sizeof(out)), -EINVAL);
	assert_int_equal(pol_path_normalize("/aaaa/bbbb", out, 8), -ENAMETOOLONG);
}

static void test_free_and_empty(void **state)
{
	struct pol p = { 0 };
	char *text;

	pol_free(&p);
	pol_free(NULL);
	parse_ok("", &p);
	assert_string_equal(p.name, "t");
	assert_int_equal(pol_denies(&p)->n + pol_guards(&p)->n + pol_sockets(&p)->n, 0);
	text = pol_format(&p);
	assert_string_equal(text, "policy t\n");
	free(text);
	assert_false(pol_decide_exec(&p, "/usr/bin/systemctl",
				     (char *const[]){ "systemctl", "reboot", NULL })
			     .refuse);
	pol_free(&p);
	/* a name that needs cleaning still formats into something that parses */
	assert_int_equal(pol_parse("", 0, "/tmp/my ci!.policy", &p, NULL), 0);
	assert_string_equal(p.name, "my_ci_");
	pol_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_match_files),
		cmocka_unit_test(test_embedded_text),
		cmocka_unit_test(test_default_contents),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_golden_show),
		cmocka_unit_test(test_golden_errors),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_error_without_line),
		cmocka_unit_test(test_includes),
		cmocka_unit_test(test_default_guards),
		cmocka_unit_test(test_origin),
		cmocka_unit_test(test_verb_modes),
		cmocka_unit_test(test_connect),
		cmocka_unit_test(test_path_normalize),
		cmocka_unit_test(test_free_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
