/* SPDX-License-Identifier: MIT */
/*
 * Loopback in a fresh network namespace, through libnl-route-3.
 *
 * The rtnetlink socket binds to the network namespace that is current when it
 * is created, so it is opened here, after the caller entered the namespace: a
 * socket opened earlier would configure the host's lo.  libnl reports NLE_*
 * codes, not errno; they are mapped back so that callers see one convention,
 * and libnl's own text stays in the message when it says more than strerror.
 */
#include "ns/ns.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/if.h>

#include <netlink/errno.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/route/link.h>

/* The loopback device is registered first in every network namespace. */
#define LO_IFINDEX 1

/* The inverse of libnl's nl_syserr2nlerr(), where one exists. */
static int nle_to_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case NLE_INTR:
		return EINTR;
	case NLE_BAD_SOCK:
		return EBADF;
	case NLE_AGAIN:
		return EAGAIN;
	case NLE_NOMEM:
		return ENOMEM;
	case NLE_EXIST:
		return EEXIST;
	case NLE_INVAL:
		return EINVAL;
	case NLE_RANGE:
		return ERANGE;
	case NLE_MSGSIZE:
	case NLE_MSG_OVERFLOW:
		return EMSGSIZE;
	case NLE_OPNOTSUPP:
	case NLE_MSGTYPE_NOSUPPORT:
	case NLE_SRCRT_NOSUPPORT:
		return EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:
		return EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:
		return ENOENT;
	case NLE_NOADDR:
		return EADDRNOTAVAIL;
	case NLE_BUSY:
		return EBUSY;
	case NLE_PROTO_MISMATCH:
		return EPROTONOSUPPORT;
	case NLE_NOACCESS:
		return EACCES;
	case NLE_PERM:
		return EPERM;
	case NLE_NODEV:
		return ENODEV;
	case NLE_IMMUTABLE:
		return EROFS;
	case NLE_DUMP_INTR:
		return EINTR;
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_SEQ_MISMATCH:
	case NLE_PARSE_ERR:
	case NLE_NOATTR:
	case NLE_MISSING_ATTR:
	case NLE_ATTRSIZE:
	case NLE_AF_MISMATCH:
	case NLE_OBJ_MISMATCH:
		return EPROTO;
	default:
		return EIO;
	}
}

/*
 * "bring up 'lo'", with libnl's text when it adds to strerror(errnum), e.g.
 * "bring up 'lo' (netlink: Message sequence number mismatch): Protocol error".
 */
static int lo_fail(struct iso_err *e, const char *step, int nle, int errnum)
{
	const char *text = nl_geterror(nle), *desc = strerrordesc_np(errnum);
	int r;

	if (desc && !strcmp(text, desc))
		r = iso_err_set(e, errnum, "bring up 'lo'%s%s", *step ? ": " : "", step);
	else
		r = iso_err_set(e, errnum, "bring up 'lo'%s%s (netlink: %s)", *step ? ": " : "",
				step, text);
	switch (errnum) {
	case EPERM:
	case EACCES:
		iso_err_hint(e, "needs CAP_NET_ADMIN in the user namespace that owns this "
				"network namespace (root, or a user namespace entered first)");
		break;
	case ENODEV:
	case ENOENT:
		iso_err_hint(e, "this network namespace has no loopback device at ifindex 1");
		break;
	case EAFNOSUPPORT:
	case EPROTONOSUPPORT:
		iso_err_hint(e, "the kernel offers no rtnetlink (NETLINK_ROUTE) socket here");
		break;
	default:
		break;
	}
	return r;
}

int ns_loopback_up(struct iso_err *e)
{
	struct nl_sock *sk = NULL;
	struct rtnl_link *orig = NULL, *change = NULL;
	int err, r = 0;

	sk = nl_socket_alloc();
	orig = rtnl_link_alloc();
	change = rtnl_link_alloc();
	if (!sk || !orig || !change) {
		r = iso_err_set(e, ENOMEM, "bring up 'lo': allocate netlink objects");
		goto out;
	}

	/* Here, not earlier: the socket belongs to the namespace current now. */
	errno = 0;
	err = nl_connect(sk, NETLINK_ROUTE);
	if (err < 0) {
		/* libnl folds many errnos into NLE_FAILURE; socket()'s own is better */
		int errnum = (-err == NLE_FAILURE && errno > 0) ? errno : nle_to_errno(err);

		r = lo_fail(e, "open rtnetlink socket", err, errnum);
		goto out;
	}

	/*
	 * Identify lo by ifindex only.  No name on `change`: next to an ifindex
	 * a name means "rename".  The mask sent is the set of flags touched.
	 */
	rtnl_link_set_ifindex(orig, LO_IFINDEX);
	rtnl_link_set_flags(change, IFF_UP);
	/* RTM_NEWLINK, retried as RTM_SETLINK by libnl; waits for the kernel's ack */
	err = rtnl_link_change(sk, orig, change, 0);
	if (err < 0)
		r = lo_fail(e, "", err, nle_to_errno(err));
out:
	if (change)
		rtnl_link_put(change);
	if (orig)
		rtnl_link_put(orig);
	if (sk)
		nl_socket_free(sk); /* closes the socket too */
	return r;
}
