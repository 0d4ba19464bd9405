// SPDX-License-Identifier: MIT
/*
 * What the kinds' decisions share: a path spelled as the kernel would walk it.
 * Each decision is its kind's (policy/kind_guard.c, policy/kind_socket.c):
 * pure functions of the policy and the call's arguments, shared by the
 * notification handler and the unit tests.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "policy/policy.h"

int pol_path_normalize(const char *path, char *out, size_t len)
{
	size_t o = 0;

	if (!path || path[0] != '/' || len < 2)
		return -EINVAL;
	out[o++] = '/';
	for (const char *c = path; *c;) {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.')) {
			c += n;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			/* back to the last '/', never above the root */
			while (o > 1 && out[o - 1] != '/')
				o--;
			if (o > 1)
				o--;
			c += n;
			continue;
		}
		if (o > 1)
			out[o++] = '/';
		if (o + n >= len)
			return -ENAMETOOLONG;
		memcpy(out + o, c, n);
		o += n;
		c += n;
		if (o + 1 >= len)
			return -ENAMETOOLONG;
	}
	out[o] = '\0';
	return 0;
}
