/* The network keys: ip= (the kernel's form and dracut's), dracut's rd.neednet= and
 * rd.net.timeout.dhcp=, the kernel's nfsroot=, and dracut's netroot= (an NFS one is a root=;
 * the others are refused as their root= forms are). */
#include <errno.h>
#include <string.h>

#include "cmdline_keys.h"
#include "parse.h"
#include "util.h"

/* An ip= for an interface replaces an earlier one for the same interface (or for any). */
static struct net_ip *ip_slot(struct net_cmdline *n, const char *iface)
{
	for (size_t i = 0; i < n->n_ip; i++)
		if (streq(n->ip[i].iface, iface))
			return &n->ip[i];
	return n->n_ip < NET_MAX_IP ? &n->ip[n->n_ip++] : NULL;
}

int cmdline_set_ip(struct options *o, const char *value, const char **why)
{
	struct net_ip ip;
	struct net_ip *slot;
	int r = net_ip_parse(value, &ip, why);

	if (r < 0)
		goto out;
	slot = ip_slot(&o->net, ip.iface);
	if (!slot) {
		*why = "more interfaces than earlymount configures (4)";
		r = -EINVAL;
		goto out;
	}
	*slot = ip;
out:
	return r;
}

int cmdline_set_neednet(struct options *o, const char *value, const char **why)
{
	return cmdline_set_bool(value, &o->net.need, why);
}

int cmdline_set_dhcp_timeout(struct options *o, const char *value, const char **why)
{
	int sec;
	int r = parse_time_span(value, &sec);

	if (r < 0 || sec <= 0) {
		*why = "not a time span above 0; use whole seconds or a span such as 30s";
		return -EINVAL;
	}
	o->net.dhcp_timeout_sec = sec;
	return 0;
}

int cmdline_set_nfsroot(struct options *o, const char *value, const char **why)
{
	struct nfs_source s;
	int r = nfs_source_from_nfsroot(value, NULL, &s, why);

	if (r == 0)
		r = cmdline_store(o, value, &o->net.nfsroot);
	return r;
}

int cmdline_set_netroot(struct options *o, const char *value, const char **why)
{
	if (!startswith(value, "nfs:") && !startswith(value, "nfs4:")) {
		*why = "a network root other than NFS (iSCSI, NBD, NVMe over Fabrics, SMB), which "
		       "earlymount does not boot";
		return -EINVAL;
	}
	return cmdline_set_root(o, value, why);
}

bool options_need_network(const struct options *o)
{
	return o->net.need || (o->root_kind == ROOT_SHARE && share_is_nfs(o->root_share)) ||
	       (o->usr && share_is_nfs(o->usr_share));
}

bool options_want_network(const struct options *o)
{
	bool want = options_need_network(o);

	for (size_t i = 0; i < o->net.n_ip && !want; i++)
		want = o->net.ip[i].method != NET_OFF;
	return want;
}
