// SPDX-License-Identifier: MIT
#include "launcher/shell.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"
#include "common/text.h"
#include "launcher/say.h"
#include "ns/ns.h"

/* Append ", WHAT" (or "WHAT" first) to buf. */
static void add(char *buf, size_t len, const char *what)
{
	size_t used = strlen(buf);

	if (used < len)
		snprintf(buf + used, len - used, "%s%s", used ? ", " : "", what);
}

/* An option as isorun.conf spells it: without its dashes. */
static const char *bare(const struct sup_opts *o, enum sup_say w)
{
	const char *s = sup_say(o->say, w);

	return s + strspn(s, "-");
}

void sup_shell_banner(FILE *f, const struct sup_opts *o, const char *tree_path)
{
	_cleanup_free_ char *path = iso_shell_quote(tree_path);
	char guards[256] = "", pol[160], pidns[32];

	if (o->verbosity < 0)
		return;
	snprintf(pidns, sizeof(pidns), "%s%s", bare(o, SUP_SAY_PIDNS),
		 o->pidns == SUP_PIDNS_TRY ? "=try" : "");
	if (o->pidns != SUP_PIDNS_OFF)
		add(guards, sizeof(guards), pidns);
	if (o->net_isolated)
		add(guards, sizeof(guards), bare(o, SUP_SAY_NET_ISOLATED));
	if (o->private_tmp)
		add(guards, sizeof(guards), bare(o, SUP_SAY_PRIVATE_TMP));
	if (o->protect_home == NS_HOME_RO)
		add(guards, sizeof(guards), bare(o, SUP_SAY_HOME_RO));
	else if (o->protect_home == NS_HOME_HIDE)
		add(guards, sizeof(guards), bare(o, SUP_SAY_HOME_HIDE));
	snprintf(pol, sizeof(pol), "%s=%s%s", bare(o, SUP_SAY_POLICY), o->policy,
		 o->policy_log ? " (log)" : "");
	add(guards, sizeof(guards), pol);
	fprintf(f, "isorun: shell in %s (%s); %sthe tree is kept; $%s is set\n",
		path ? path : tree_path, guards, o->shell_own ? "leave with exit or Ctrl-D, " : "",
		SUP_SHELL_VAR);
	if (o->reenter)
		fputs("isorun: re-entered a kept tree: its files and the settings of the run that "
		      "made it are back; its processes are not (they ended with that run)\n",
		      f);
}

void sup_shell_kept(FILE *f, const struct sup_opts *o, const char *path)
{
	fprintf(f,
		"isorun: tree kept at %s; remove it with: rm -rf %s (or every kept tree: "
		"%s)\n",
		path, path, sup_say(o->say, SUP_SAY_GC_KEPT));
}

enum sup_shell_kind sup_shell_kind(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (strcmp(base, "bash") == 0)
		return SUP_SHELL_BASH;
	if (strcmp(base, "zsh") == 0)
		return SUP_SHELL_ZSH;
	return SUP_SHELL_OTHER;
}

/* The caller's own home, where its start-up files are: $HOME as it was, else passwd's. */
static const char *caller_home(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && h[0] == '/')
		return h;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

/* Write NAME below the tree's start-up directory, never through a link or into a FIFO. */
static int write_rc(int dirfd, const char *dir, const char *name, const char *text,
		    struct iso_err *e)
{
	_cleanup_close_ int fd =
		openat(dirfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	struct stat st;
	size_t len = strlen(text);

	if (fd < 0)
		return iso_err_set(e, errno, "write '%s/%s'", dir, name);
	if (fstat(fd, &st) < 0)
		return iso_err_set(e, errno, "stat '%s/%s'", dir, name);
	if (!S_ISREG(st.st_mode))
		return iso_err_set(e, 0, "write '%s/%s': not a regular file", dir, name);
	if (ftruncate(fd, 0) < 0)
		return iso_err_set(e, errno, "truncate '%s/%s'", dir, name);
	if (write(fd, text, len) != (ssize_t)len)
		return iso_err_set(e, errno ? errno : EIO, "write '%s/%s'", dir, name);
	return 0;
}

/*
 * The tree's run/isorun-shell/, made (0700) or opened as it is, each step without
 * following a link: a tree re-entered was the command's to change.
 */
static int open_rc_dir(const struct tree_tree *t, char *dir, size_t len, struct iso_err *e)
{
	_cleanup_close_ int run = -1;
	int fd;

	snprintf(dir, len, "%s/%s", t->path, SUP_SHELL_RC_DIR);
	run = openat(t->fd, SUP_SHELL_RC_PARENT, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (run < 0)
		return iso_err_set(e, errno, "open '%s/%s'", t->path, SUP_SHELL_RC_PARENT);
	if (mkdirat(run, SUP_SHELL_RC_NAME, 0700) < 0 && errno != EEXIST)
		return iso_err_set(e, errno, "create '%s'", dir);
	fd = openat(run, SUP_SHELL_RC_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return iso_err_set(e, errno, "open '%s'", dir);
	return fd;
}

/*
 * The prompt's mark, unless the prompt has one: it shows $debian_chroot
 * (Debian's does), or the caller's start-up marked it already.
 */
static const char mark[] = "case $PS1 in *debian_chroot* | *'(isorun)'*) ;;\n"
			   "*) PS1=\"(isorun) $PS1\" ;;\nesac\n";

/*
 * bash: /etc/bash.bashrc runs before --rcfile; then the caller's ~/.bashrc, its
 * history (read only: this shell's own goes to the tree's HOME), the mark.
 */
static char *bash_rc(const char *h)
{
	char *s;

	if (asprintf(&s,
		     "# written by isorun shell: the caller's start-up, then a mark on the prompt\n"
		     "__isorun_home=%s\n"
		     "if [ -r \"$__isorun_home/.bashrc\" ]; then . \"$__isorun_home/.bashrc\"; fi\n"
		     "__isorun_hist=${HISTFILE:-$HOME/.bash_history}\n"
		     "case $__isorun_hist in \"$HOME\"/*)\n"
		     "\t__isorun_hist=$__isorun_home/${__isorun_hist#\"$HOME\"/}\n"
		     "\tif [ -r \"$__isorun_hist\" ]; then history -r \"$__isorun_hist\"; fi ;;\n"
		     "esac\n"
		     "unset __isorun_home __isorun_hist\n%s",
		     h, mark) < 0)
		return NULL;
	return s;
}

/* zsh reads $ZDOTDIR/.zshenv, then $ZDOTDIR/.zshrc: each sources the caller's own. */
static char *zsh_env(const char *z, const char *d)
{
	char *s;

	if (asprintf(&s,
		     "# written by isorun shell: the caller's .zshenv, then isorun's .zshrc\n"
		     "if [[ -r %s/.zshenv ]]; then ZDOTDIR=%s; . %s/.zshenv; fi\n"
		     "ZDOTDIR=%s\n",
		     z, z, z, d) < 0)
		return NULL;
	return s;
}

/* ZDOTDIR is the caller's again (none: unset) for its .zshrc and what that starts */
static char *zsh_rc(const char *h, const char *z, bool had_zdot)
{
	char *s;

	if (asprintf(&s,
		     "# written by isorun shell: the caller's start-up, then a mark on the prompt\n"
		     "%s%s\n"
		     "if [[ -r %s/.zshrc ]]; then . %s/.zshrc; fi\n"
		     "if [[ $HISTFILE == $HOME/* && -r %s/${HISTFILE#$HOME/} ]]; then\n"
		     "\tfc -R %s/${HISTFILE#$HOME/}\n"
		     "fi\n%s",
		     had_zdot ? "export ZDOTDIR=" : "unset ZDOTDIR", had_zdot ? z : "", z, z, h, h,
		     mark) < 0)
		return NULL;
	return s;
}

static int write_startup(enum sup_shell_kind kind, int dirfd, const char *dir, const char *home,
			 struct iso_err *e)
{
	const char *zdot = getenv("ZDOTDIR");
	bool had_zdot = zdot && zdot[0] == '/';
	_cleanup_free_ char *qh = iso_shell_quote(home),
			    *qz = iso_shell_quote(had_zdot ? zdot : home),
			    *qd = iso_shell_quote(dir), *text = NULL;
	int r;

	if (!qh || !qz || !qd)
		return iso_err_set(e, ENOMEM, "write '%s'", dir);
	if (kind == SUP_SHELL_BASH) {
		text = bash_rc(qh);
		return text ? write_rc(dirfd, dir, "bashrc", text, e)
			    : iso_err_set(e, ENOMEM, "write '%s/bashrc'", dir);
	}
	text = zsh_env(qz, qd);
	r = text ? write_rc(dirfd, dir, ".zshenv", text, e)
		 : iso_err_set(e, ENOMEM, "write '%s/.zshenv'", dir);
	free(text);
	text = r < 0 ? NULL : zsh_rc(qh, qz, had_zdot);
	if (r < 0)
		return r;
	return text ? write_rc(dirfd, dir, ".zshrc", text, e)
		    : iso_err_set(e, ENOMEM, "write '%s/.zshrc'", dir);
}

int sup_shell_startup(const struct sup_opts *o, const struct tree_tree *t, char ***ret_argv,
		      struct iso_err *e)
{
	enum sup_shell_kind kind = o->shell_own ? sup_shell_kind(o->argv[0]) : SUP_SHELL_OTHER;
	const char *home = caller_home();
	char dir[PATH_MAX + 32], **argv;
	_cleanup_close_ int fd = -1;

	*ret_argv = NULL;
	if (kind == SUP_SHELL_OTHER || !home)
		return 0;
	fd = open_rc_dir(t, dir, sizeof(dir), e);
	if (fd < 0 || write_startup(kind, fd, dir, home, e) < 0)
		return -EIO;
	if (kind == SUP_SHELL_ZSH)
		return 0; /* ZDOTDIR, in its environment, names the directory */
	argv = calloc(5, sizeof(*argv));
	if (!argv || asprintf(&argv[2], "%s/bashrc", dir) < 0) {
		free(argv);
		return iso_err_set(e, ENOMEM, "start the shell");
	}
	argv[0] = o->argv[0];
	argv[1] = (char *)"--rcfile";
	argv[3] = (char *)"-i";
	*ret_argv = argv;
	return 0;
}

void sup_shell_argv_free(char **argv)
{
	if (argv)
		free(argv[2]);
	free(argv);
}
