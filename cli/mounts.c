// SPDX-License-Identifier: MIT
/*
 * --bind, --ro-bind and --tmpfs judged on the host once every option is known,
 * before anything exists, so that a mount that cannot be made, or that would
 * undo a protection, is one line and 125 rather than a half-made namespace
 * (docs/decisions/0048-mounts-the-caller-asks-for.md).
 */
#include "cli/mounts.h"

#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/keys.h"
#include "common/cleanup.h"
#include "ns/ns.h"
#include "tree/tree.h"

/* What a mount must neither cover nor reopen, canonical; NULL: not protected. */
struct places {
	char *home;  /* --protect-home: the passwd entry's home */
	char **keep; /* --writable */
	size_t n_keep;
	char *tmp[2];	   /* --private-tmp: /tmp and /var/tmp */
	char *trees;	   /* the caller's directory of trees, DIR/isorun-UID */
	char *cwd;	   /* the command's working directory (--chdir, else isorun's) */
	const char *guard; /* --protect-home=ro or =hide */
	bool hide;
};

/* One entry being judged: its option and value as given, for the message. */
struct judged {
	struct sup_opts *o;
	struct ns_mount *m;
	size_t i;
	char given[PATH_MAX * 2 + 2];
	struct iso_err *e;
};

static bool at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/');
}

/* one lies in the other: a mount on `a` covers `b`, or one on `b` covers `a` */
static bool related(const char *a, const char *b)
{
	return at_or_below(a, b) || at_or_below(b, a);
}

static const char *opt_name(enum ns_mount_kind k)
{
	return k == NS_MOUNT_BIND ? "--bind" : k == NS_MOUNT_RO_BIND ? "--ro-bind" : "--tmpfs";
}

static __attribute__((format(printf, 2, 3))) int refuse(struct judged *j, const char *fmt, ...)
{
	char why[sizeof(j->e->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return iso_err_set(j->e, 0, "%s %s: %s", opt_name(j->m->kind), j->given, why);
}

static void places_free(struct places *p)
{
	free(p->home);
	for (size_t i = 0; i < p->n_keep; i++)
		free(p->keep[i]);
	free(p->keep);
	free(p->tmp[0]);
	free(p->tmp[1]);
	free(p->trees);
	free(p->cwd);
}

static int places_get(const struct sup_opts *o, struct places *p)
{
	struct passwd *pw = getpwuid(getuid());
	_cleanup_free_ char *root = realpath(tree_root(o->root), NULL);

	*p = (struct places){ 0 };
	if (o->protect_home != NS_HOME_OFF && pw && pw->pw_dir) {
		p->home = realpath(pw->pw_dir, NULL);
		p->hide = o->protect_home == NS_HOME_HIDE;
		p->guard = p->hide ? "--protect-home=hide" : "--protect-home=ro";
		p->keep = calloc(o->writable.n + 1, sizeof(*p->keep));
		if (!p->keep)
			return -ENOMEM;
		for (size_t i = 0; i < o->writable.n; i++)
			if ((p->keep[p->n_keep] = realpath(o->writable.v[i], NULL)))
				p->n_keep++;
	}
	p->cwd = o->chdir ? realpath(o->chdir, NULL) : getcwd(NULL, 0);
	if (o->private_tmp) {
		p->tmp[0] = realpath("/tmp", NULL);
		p->tmp[1] = realpath("/var/tmp", NULL);
	}
	if (root && asprintf(&p->trees, "%s/isorun-%u", strcmp(root, "/") ? root : "",
			     (unsigned)geteuid()) < 0)
		p->trees = NULL;
	return 0;
}

/* The earlier entry whose mount `path` lies in (the last one at or above it), or -1. */
static int covering(const struct ns_mount *m, size_t n, const char *path)
{
	for (size_t j = n; j-- > 0;)
		if (at_or_below(path, m[j].dest))
			return (int)j;
	return -1;
}

/* The source: it exists on the host, and is not something an earlier entry mounted. */
static int judge_source(struct judged *j, struct stat *st)
{
	_cleanup_free_ char *src = realpath(j->m->src, NULL);
	int c;

	if (!src || stat(src, st) < 0)
		return refuse(j, "the source '%s': %s", j->m->src, strerror(errno));
	c = covering(j->o->binds, j->i, src);
	if (c >= 0)
		return refuse(j,
			      "the source '%s' lies in what the earlier %s %s mounts; a source "
			      "is read from the host's own file system",
			      src, opt_name(j->o->binds[c].kind), j->o->binds[c].dest);
	j->m->file = !S_ISDIR(st->st_mode);
	j->m->src = sup_opts_keep(j->o, src);
	src = NULL;
	return j->m->src ? 0 : -ENOMEM;
}

/*
 * The destination where the namespace will find it: on the host, in the source
 * of an earlier bind over it, or in an earlier tmpfs, where init makes it.
 */
static int judge_dest(struct judged *j, bool dir)
{
	const struct ns_mount *m = j->m;
	int c = covering(j->o->binds, j->i, m->dest);
	const struct ns_mount *up = c >= 0 ? &j->o->binds[c] : NULL;
	char host[PATH_MAX];
	_cleanup_free_ char *real = NULL;
	struct stat st;

	if (up && up->kind == NS_MOUNT_TMPFS) {
		j->m->make = strcmp(up->dest, m->dest) != 0;
		if (!j->m->make && !dir)
			return refuse(j,
				      "the destination '%s' is a directory (the earlier --tmpfs); "
				      "the source is not",
				      m->dest);
		return 0;
	}
	snprintf(host, sizeof(host), "%s%s", up ? up->src : m->dest,
		 up ? m->dest + strlen(up->dest) : "");
	real = realpath(host, NULL);
	if (!real && errno == ENOENT)
		return refuse(j,
			      "the destination '%s' does not exist; isorun makes no mount "
			      "point on the host (create it, or mount a --tmpfs on a parent first)",
			      m->dest);
	if (!real || stat(real, &st) < 0)
		return refuse(j, "the destination '%s': %s", m->dest, strerror(errno));
	if (strcmp(real, host) != 0)
		return refuse(j, "the destination '%s' is not canonical: it resolves to '%s'",
			      m->dest, real);
	if (dir != !!S_ISDIR(st.st_mode))
		return refuse(j, "the destination '%s' is %s and the %s is %s", m->dest,
			      S_ISDIR(st.st_mode) ? "a directory" : "not a directory",
			      m->kind == NS_MOUNT_TMPFS ? "tmpfs" : "source",
			      dir ? "a directory" : "not");
	return 0;
}

/* A destination must cover nothing isorun set up for the run. */
static int judge_cover(struct judged *j, const struct places *p)
{
	const char *d = j->m->dest;

	/* the run's processes as the command sees them; init reads its own (ns_proc_private()) */
	if (at_or_below(d, "/proc"))
		return refuse(j,
			      "the destination %s /proc, the run's own procfs, which isorun mounts",
			      strcmp(d, "/proc") ? "lies in" : "is");
	if (p->home && related(d, p->home))
		return refuse(j, "the destination %s the home that %s protects (%s)",
			      at_or_below(d, p->home) ? "lies in" : "covers", p->guard, p->home);
	for (size_t k = 0; k < 2; k++)
		if (p->tmp[k] && related(d, p->tmp[k]))
			return refuse(j, "the destination %s %s, the run's own under --private-tmp",
				      at_or_below(d, p->tmp[k]) ? "lies in" : "covers", p->tmp[k]);
	/* init enters it by name after the mounts: an empty tmpfs has no such directory */
	if (j->m->kind == NS_MOUNT_TMPFS && p->cwd && at_or_below(p->cwd, d))
		return refuse(j,
			      "the command's working directory %s would lie in the empty tmpfs; "
			      "give --chdir DIR outside it",
			      p->cwd);
	if (p->trees && related(d, p->trees))
		return refuse(j, "the destination %s isorun's trees (%s)%s",
			      at_or_below(d, p->trees) ? "lies in" : "covers", p->trees,
			      at_or_below("/tmp", d)
				      ? "; for a /tmp of the run's own: --private-tmp"
				      : "; choose another place, or --root DIR");
	return 0;
}

/* A source must not reopen what --protect-home or --private-tmp covers. */
static int judge_reopen(struct judged *j, const struct places *p)
{
	const char *s = j->m->src;
	bool rw = j->m->kind == NS_MOUNT_BIND;
	bool kept = false;

	for (size_t k = 0; k < p->n_keep; k++)
		kept = kept || at_or_below(s, p->keep[k]);
	if (p->home && !strcmp(s, p->home) && (rw || p->hide))
		return refuse(j, "the source is the home that %s %s", p->guard,
			      rw ? "makes read-only; --ro-bind shows it read-only, or "
				   "--protect-home=off"
				 : "hides; to show it read-only: --protect-home=ro");
	if (p->home && at_or_below(s, p->home) && !kept && (rw || p->hide))
		return refuse(
			j, "the source lies in the home that %s %s%s", p->guard,
			rw ? "makes read-only; to keep a directory of it writable: --writable "
			   : "hides; to show it read-only: --protect-home=ro",
			rw ? s : "");
	if (p->home && rw && at_or_below(p->home, s))
		return refuse(j,
			      "the source contains the home that %s protects (%s); it would be "
			      "writable at the destination (--ro-bind would not be)",
			      p->guard, p->home);
	for (size_t k = 0; k < 2; k++) {
		if (p->tmp[k] && at_or_below(s, p->tmp[k]))
			return refuse(j,
				      "the source lies in %s, which --private-tmp replaces with "
				      "the run's own",
				      p->tmp[k]);
		if (p->tmp[k] && rw && at_or_below(p->tmp[k], s))
			return refuse(j,
				      "the source contains %s, which --private-tmp replaces; the "
				      "host's would be writable at the destination (--ro-bind "
				      "would not be)",
				      p->tmp[k]);
	}
	return 0;
}

static int judge(struct judged *j, const struct places *p)
{
	struct ns_mount *m = j->m;
	struct stat st;
	bool tmpfs = m->kind == NS_MOUNT_TMPFS;
	int r;

	if (tmpfs)
		snprintf(j->given, sizeof(j->given), "%s", m->dest);
	else
		snprintf(j->given, sizeof(j->given), "%s%s%s", m->src, m->dest == m->src ? "" : ":",
			 m->dest == m->src ? "" : m->dest);
	r = tmpfs ? 0 : judge_source(j, &st);
	if (r == 0)
		r = judge_dest(j, tmpfs || !m->file);
	if (r == 0)
		r = judge_cover(j, p);
	if (r == 0 && !tmpfs)
		r = judge_reopen(j, p);
	return r;
}

int cli_mounts_check(struct sup_opts *o, struct iso_err *e)
{
	struct places p;
	int r;

	if (!o->n_binds)
		return 0;
	r = places_get(o, &p);
	for (size_t i = 0; r == 0 && i < o->n_binds; i++) {
		struct judged j = { .o = o, .m = &o->binds[i], .i = i, .e = e };

		r = judge(&j, &p);
	}
	if (r == -ENOMEM)
		iso_err_set(e, ENOMEM, "%s: out of memory", opt_name(o->binds[0].kind));
	places_free(&p);
	return r;
}
