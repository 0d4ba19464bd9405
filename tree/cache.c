// SPDX-License-Identifier: MIT
#include "tree/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cleanup.h"

int tree_cache_base(char *buf, size_t len, struct iso_err *e)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	struct passwd *pw;

	/* the spec: a relative value is invalid and ignored */
	if (x && x[0] == '/') {
		snprintf(buf, len, "%s", x);
		return 0;
	}
	if (!home || home[0] != '/') {
		errno = 0;
		pw = getpwuid(geteuid());
		home = pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
		if (!home)
			return iso_err_set(e, errno ? errno : ENOENT,
					   "find the cache directory: XDG_CACHE_HOME and HOME are "
					   "unset and uid %u has no home in the passwd database",
					   (unsigned)geteuid());
	}
	if (snprintf(buf, len, "%s%s.cache", home, home[strlen(home) - 1] == '/' ? "" : "/") >=
	    (int)len)
		return iso_err_set(e, ENAMETOOLONG, "cache directory '%s/.cache'", home);
	return 0;
}

/* mkdir -p of an absolute path, missing components 0700 (the spec's mode) */
static int make_parents(const char *path, struct iso_err *e)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return iso_err_set(e, ENOMEM, "cache directory '%s'", path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s)
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return iso_err_set(e, errno, "create '%s'", p);
		*s = c;
		if (!c)
			return 0;
	}
}

/*
 * dirfd/name, made 0700 when missing, opened without following a symlink and
 * checked on what was opened: ours, a directory, private.  Returns the fd.
 */
static int open_private(int dirfd, const char *name, const char *shown, struct iso_err *e)
{
	_cleanup_close_ int fd = -1;
	bool made = mkdirat(dirfd, name, 0700) == 0;
	struct stat st;

	if (!made && errno != EEXIST)
		return iso_err_set(e, errno, "create '%s'", shown);
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
		return iso_err_set(e, 0, "refusing '%s': not a real directory (a symlink?)", shown);
	if (fd < 0)
		return iso_err_set(e, errno, "open '%s'", shown);
	if (fstat(fd, &st) < 0)
		return iso_err_set(e, errno, "stat '%s'", shown);
	if (st.st_uid != geteuid())
		return iso_err_set(e, 0, "refusing '%s': owned by uid %u, not by uid %u", shown,
				   (unsigned)st.st_uid, (unsigned)geteuid());
	/* the caller's umask must not decide it */
	if (made && fchmod(fd, 0700) < 0)
		return iso_err_set(e, errno, "chmod 0700 '%s'", shown);
	if (!made && (st.st_mode & 077)) {
		iso_err_set(e, 0, "refusing '%s': mode %04o lets others in", shown,
			    (unsigned)(st.st_mode & 07777));
		iso_err_hint(e, "a cache is read by every later run: chmod 0700 it, or remove it");
		return -EPERM;
	}
	return TAKE_FD(fd);
}

int tree_cache_open(const char *base, const char *name, const char *const *subs, char *path,
		    size_t len, struct iso_err *e)
{
	_cleanup_free_ char *real = NULL;
	_cleanup_close_ int top = -1, fd = -1;
	char shown[PATH_MAX + 64];

	if (make_parents(base, e) < 0)
		return -EIO;
	real = realpath(base, NULL);
	if (!real)
		return iso_err_set(e, errno, "resolve cache directory '%s'", base);
	if (snprintf(path, len, "%s/%s/%s", strcmp(real, "/") ? real : "", TREE_CACHE_SUBDIR,
		     name) >= (int)len)
		return iso_err_set(e, ENAMETOOLONG, "cache directory '%s'", real);
	snprintf(shown, sizeof(shown), "%s/%s", strcmp(real, "/") ? real : "", TREE_CACHE_SUBDIR);
	{
		_cleanup_close_ int basefd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (basefd < 0)
			return iso_err_set(e, errno, "open '%s'", real);
		top = open_private(basefd, TREE_CACHE_SUBDIR, shown, e);
	}
	if (top < 0)
		return top;
	fd = open_private(top, name, path, e);
	if (fd < 0)
		return fd;
	for (size_t i = 0; subs && subs[i]; i++) {
		_cleanup_close_ int sub = -1;

		snprintf(shown, sizeof(shown), "%s/%s", path, subs[i]);
		sub = open_private(fd, subs[i], shown, e);
		if (sub < 0)
			return sub;
	}
	return 0;
}
