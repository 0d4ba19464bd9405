// SPDX-License-Identifier: MIT
#include "launcher/capsplan.h"

#include <jansson.h>
#include <string.h>
#include <unistd.h>

#include "launcher/opts.h"
#include "launcher/say.h"
#include "ns/ns.h"

static const char why_host[] = "acts on the whole host";
static const char say_host[] = "they act on the whole host";

/* The mounts made for this run that a root command must not be able to undo. */
static void protections(struct sup_caps_plan *c, const struct sup_run_plan *p,
			const char *const *say, bool socket_masks)
{
	const struct sup_mount_plan *m = &p->mounts;
	size_t n = 0;
	const char *what[5];
	bool ro_mounts = false;

	if (m->home == NS_HOME_RO)
		what[n++] = sup_say(say, SUP_SAY_HOME_RO);
	else if (m->home == NS_HOME_HIDE)
		what[n++] = sup_say(say, SUP_SAY_HOME_HIDE);
	if (m->private_tmp)
		what[n++] = sup_say(say, SUP_SAY_PRIVATE_TMP);
	/* with the host's /proc uncovered, setns() leads back to the host's network */
	if (m->net_isolated)
		what[n++] = sup_say(say, SUP_SAY_NET_ISOLATED);
	if (socket_masks)
		what[n++] = sup_say(say, SUP_SAY_SOCKET_MASKS);
	/* a --bind is no protection: its mount gives, umount takes away */
	for (size_t i = 0; i < m->n_binds; i++)
		ro_mounts = ro_mounts || m->binds[i].kind != NS_MOUNT_BIND;
	if (ro_mounts)
		what[n++] = sup_say(say, SUP_SAY_RO_MOUNTS);
	c->protect_why[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(c->protect_why);
		snprintf(c->protect_why + len, sizeof(c->protect_why) - len, "%s%s", i ? ", " : "",
			 what[i]);
	}
	c->protect = n ? ns_caps_mount_undoers() & ~c->keep : 0;
}

void sup_caps_plan(struct sup_caps_plan *c, const struct sup_run_plan *p, const char *const *say,
		   bool pidns, bool userns, bool socket_masks)
{
	bool real_root = getuid() == 0 && geteuid() == 0;

	*c = (struct sup_caps_plan){ .keep = p->cap_keep,
				     .keep_word = sup_say(say, SUP_SAY_CAP_KEEP) };
	snprintf(c->userns_why, sizeof(c->userns_why), "root of a user namespace keeps only %s",
		 c->keep_word);
	if (pidns && userns) {
		/* as bwrap: root of the namespace gets nothing it did not ask for */
		c->mode = NS_CAPS_EMPTY;
		c->root = p->map_root;
		c->userns = ns_caps_all() & ~c->keep;
		return;
	}
	if (!real_root) {
		c->mode = NS_CAPS_UNPRIVILEGED;
		return;
	}
	/* root keeps root's powers, under --pidns too, but for what a protection needs */
	c->mode = NS_CAPS_HOST_ROOT;
	c->root = true;
	c->host = ns_caps_host_dangerous() & ~c->keep;
	if (pidns)
		protections(c, p, say, socket_masks);
	c->host &= ~c->protect;
}

uint64_t sup_caps_dropped(const struct sup_caps_plan *c)
{
	return c->host | c->protect | c->userns;
}

static void say_set(FILE *f, uint64_t set, const char *why, bool *first)
{
	char name[32];
	bool any = false;

	if (!set)
		return;
	fprintf(f, "%s", *first ? " dropped " : "; ");
	*first = false;
	for (int i = 0; i < 64; i++) {
		if (!((set >> i) & 1))
			continue;
		fprintf(f, "%s%s", any ? "," : "", ns_caps_name(i, name, sizeof(name)));
		any = true;
	}
	fprintf(f, " (%s)", why);
}

void sup_caps_say(const struct sup_caps_plan *c, FILE *f)
{
	char why[200];
	bool first = true;

	if (!c->root)
		return;
	fprintf(f, "isorun: capabilities:");
	if (c->userns) {
		fprintf(f, " dropped all but %s (%s)\n", c->keep_word, c->userns_why);
		return;
	}
	snprintf(why, sizeof(why), "they could undo %s", c->protect_why);
	say_set(f, c->protect, why, &first);
	say_set(f, c->host, say_host, &first);
	fprintf(f, "%s\n", first ? " root's, none dropped" : "; root's others kept");
}

json_t *sup_caps_json(const struct sup_caps_plan *c)
{
	json_t *o, *kept, *dropped;
	uint64_t gone = sup_caps_dropped(c), all = ns_caps_all();
	char name[32], why[200];

	if (!c->root)
		return json_null();
	o = json_object();
	kept = json_array();
	dropped = json_array();
	if (!o || !kept || !dropped) {
		json_decref(o);
		json_decref(kept);
		json_decref(dropped);
		return json_null();
	}
	snprintf(why, sizeof(why), "could undo %s", c->protect_why);
	for (int i = 0; i < 64; i++) {
		if (!((all >> i) & 1))
			continue;
		ns_caps_name(i, name, sizeof(name));
		if (!((gone >> i) & 1)) {
			json_array_append_new(kept, json_string(name));
			continue;
		}
		json_array_append_new(dropped, json_pack("{s:s, s:s}", "name", name, "why",
							 (c->protect >> i) & 1 ? why
							 : (c->host >> i) & 1  ? why_host
									       : c->userns_why));
	}
	json_object_set_new(o, "kept", kept);
	json_object_set_new(o, "dropped", dropped);
	return o;
}
