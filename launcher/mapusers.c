// SPDX-License-Identifier: MIT
#include "launcher/mapusers.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "launcher/say.h"
#include "ns/ns.h"
#include "policy/policy.h"

/* Test hooks: other range files (newuidmap still reads the real ones). */
#define SUBUID_ENV "ISORUN_TEST_SUBUID"
#define SUBGID_ENV "ISORUN_TEST_SUBGID"

static const char *subid_file(const char *env, const char *dflt)
{
	const char *f = getenv(env);

	return f && *f ? f : dflt;
}

/*
 * The helpers and both ranges of the caller, into p->idmaps: 1 when all are
 * there, 0 with `why` naming the first missing piece, -errno on a read error.
 */
static int find_ranges(struct sup_ns_plan *p, char *why, size_t len, struct iso_err *e)
{
	const char *uidf = subid_file(SUBUID_ENV, "/etc/subuid");
	const char *gidf = subid_file(SUBGID_ENV, "/etc/subgid");
	struct passwd *pw = getpwuid(getuid());
	const char *name = pw ? pw->pw_name : NULL;
	struct ns_idmaps *m = &p->idmaps;
	struct ns_subid su, sg;
	int r;

	if (ns_find_tool("newuidmap", m->newuidmap, sizeof(m->newuidmap)) < 0 ||
	    ns_find_tool("newgidmap", m->newgidmap, sizeof(m->newgidmap)) < 0) {
		snprintf(why, len,
			 "%s not found in /usr/bin or /bin, owned by root (Debian, Ubuntu: package "
			 "uidmap)",
			 m->newuidmap[0] ? "newgidmap" : "newuidmap");
		return 0;
	}
	r = ns_subid_find(uidf, name, getuid(), &su, e);
	if (r == 0)
		snprintf(why, len, "no range for %s (uid %u) in %s", name ? name : "this user",
			 (unsigned)getuid(), uidf);
	if (r <= 0)
		return r;
	r = ns_subid_find(gidf, name, getuid(), &sg, e);
	if (r == 0)
		snprintf(why, len, "no range for %s (uid %u) in %s", name ? name : "this user",
			 (unsigned)getuid(), gidf);
	if (r <= 0)
		return r;
	/*
	 * The last piece, said only where the rest is there: inherited for
	 * good from whatever sandbox started us, it makes a setuid helper gain
	 * nothing
	 */
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1) {
		snprintf(why, len,
			 "no_new_privs is set on isorun (it runs inside a sandbox that sets it, "
			 "another isorun among them), so the setuid newuidmap cannot map a range");
		return 0;
	}
	m->n_uid = ns_idmap_lines(p->inside_uid, getuid(), &su, m->uid);
	m->n_gid = ns_idmap_lines(p->inside_gid, getgid(), &sg, m->gid);
	return 1;
}

int sup_map_users_plan(const struct sup_opts *o, struct sup_ns_plan *p,
		       struct sock_filter **ret_filter, struct iso_err *e)
{
	char why[512];
	size_t len = 0;
	int r = 0;

	*ret_filter = NULL;
	p->ranged = false;
	if (!p->userns)
		return 0; /* root: every id is there already */
	if (o->map_users != SUP_MAP_USERS_OFF) {
		r = find_ranges(p, why, sizeof(why), e);
		if (r < 0)
			return r;
		if (r == 0 && o->map_users == SUP_MAP_USERS_REQUIRE) {
			iso_err_set(e, 0, "%s: %s", sup_say(o->say, SUP_SAY_MAP_USERS_REQ), why);
			iso_err_hint(e, sup_say(o->say, SUP_SAY_MAP_USERS_FIX));
			return -EINVAL;
		}
		if (r == 0 && o->verbosity >= 0)
			fprintf(stderr, "isorun: %s: %s; mapping uid %u and gid %u alone\n",
				sup_say(o->say, SUP_SAY_MAP_USERS_AUTO), why,
				(unsigned)p->inside_uid, (unsigned)p->inside_gid);
		p->ranged = r == 1;
	}
	if (p->ranged)
		return 0;
	r = pol_idfilter_build(p->inside_uid, p->inside_gid, ret_filter, &len, e);
	if (r < 0)
		return r;
	p->spawn.id_filter = *ret_filter;
	p->spawn.id_filter_len = len;
	return 0;
}

/* The caller's ranges and helpers as a run maps them (its own ids inside). */
static int find_again(struct ns_idmaps *m, char *why, size_t len, struct iso_err *e)
{
	struct sup_ns_plan p = { .inside_uid = getuid(), .inside_gid = getgid() };
	int r;

	why[0] = '\0';
	r = find_ranges(&p, why, len, e);
	if (r == 1)
		*m = p.idmaps;
	return r;
}

int sup_map_users_again(const struct ns_idmaps *m, int (*fn)(void *arg, struct iso_err *e),
			void *arg, struct iso_err *e)
{
	struct ns_idmaps found;
	char why[512];
	int r;

	if (!m) {
		r = find_again(&found, why, sizeof(why), e);
		if (r < 0)
			return r;
		if (r == 0)
			return iso_err_set(e, 0, "the id ranges cannot be mapped again: %s", why);
		m = &found;
	}
	return ns_in_ranges(m, SUP_MAPPER_TIMEOUT_MS, fn, arg, e);
}
