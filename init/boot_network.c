/* The network stage: only when the command line asks for it (ip=, rd.neednet=1, a root or
 * /usr over NFS). A boot without those loads no network driver and waits for nothing. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "boot_state.h"
#include "ipconfig.h"
#include "link.h"
#include "log.h"
#include "net_handoff.h"
#include "ssh_server.h"
#include "util.h"

/* The first ip= that configures something; DHCP on the first interface with a link when
 * the network is wanted without one (an NFS root alone, as dracut does). */
static const struct net_ip *chosen_ip(const struct options *o)
{
	static const struct net_ip dhcp_any = { .method = NET_DHCP };

	for (size_t i = 0; i < o->net.n_ip; i++)
		if (o->net.ip[i].method != NET_OFF) {
			for (size_t j = i + 1; j < o->net.n_ip; j++)
				if (o->net.ip[j].method != NET_OFF)
					log_warn("ip=: only %s is configured, not %s: earlymount brings up "
						 "one interface", o->net.ip[i].iface[0] ? o->net.ip[i].iface
						 : "the first", o->net.ip[j].iface[0] ? o->net.ip[j].iface : "another");
			return &o->net.ip[i];
		}
	log_info("no ip= names how: DHCP on the first interface whose link comes up");
	return &dhcp_any;
}

/* While the link is waited for, devices still arrive: virtio-net's once virtio_pci bound. */
static void load_modules(void *data)
{
	struct boot *b = data;

	devices_load_modules(&b->devices);
}

static int link_failed(struct boot *b, int r, const struct net_ip *ip, const char *name,
		       const char *found, int sec)
{
	if (r == -ENOLINK)
		return boot_fail(b, r, "the network interface %s has no link (no carrier) after %d s: "
				 "check its cable, or the switch or virtual network it is on", name, sec);
	if (r == -ENODEV)
		return boot_fail(b, r, "no network interface%s%s appeared within %d s (%s%s): its "
				 "driver may be missing from the image (`earlymount initramfs --network` "
				 "adds the common ones, --module any other)", ip->iface[0] ? " named " : "",
				 ip->iface, sec, found[0] ? "there: " : "none at all", found);
	return boot_fail(b, r, "unable to watch the network interfaces: %s", strerror(-r));
}

static void log_lease(const struct net_lease *l)
{
	log_info("network: %s has %s/%s%s%s (%s)%s%s", l->iface, l->address, l->netmask,
		 l->gateway[0] ? " via " : "", l->gateway, streq(l->proto, "dhcp") ? "DHCP" : "static",
		 l->root_path[0] ? ", root-path " : "", l->root_path);
}

/* The image's SSH server, for a passphrase from afar: a failure to start it leaves the
 * consoles to ask, and is said. */
static void ssh_start(void)
{
	int r = ssh_server_start();

	if (r < 0 && r != -ENOENT)
		log_warn("unable to start the SSH server: %s; the passphrase is asked on the consoles alone",
			 strerror(-r));
}

int boot_stage_network(struct boot *b)
{
	const struct net_ip *ip;
	char name[NET_IFNAME_MAX] = "", found[256];
	int sec = boot_plan_timeout_ms(&b->opts) / 1000;
	int dhcp_sec = b->opts.net.dhcp_timeout_sec > 0 ? b->opts.net.dhcp_timeout_sec : sec;
	int r = 0;

	if (!options_want_network(&b->opts))
		goto out;
	ip = chosen_ip(&b->opts);
	modules_want_network(&b->modules);
	r = link_wait_up(ip->iface, sec * 1000, &(struct link_side_watch){ b->devices.uevent_fd,
		load_modules, b }, name, sizeof(name), found, sizeof(found));
	/* the block devices that came meanwhile were not probed */
	devices_rescan(&b->devices, false);
	if (r < 0) {
		r = link_failed(b, r, ip, name, found, sec);
		goto out;
	}
	r = ipconfig_run(ip, name, dhcp_sec, &b->machine.net, b->why, sizeof(b->why));
	if (r < 0)
		goto out;
	b->machine.has_net = true;
	log_lease(&b->machine.net);
	if (net_handoff_write(&b->machine.net) < 0)
		log_warn("unable to write the systemd-networkd unit of %s: the real system configures it anew",
			 name);
	ssh_start();
out:
	if (r < 0 && !options_need_network(&b->opts)) {
		log_warn("%s; the boot goes on without the network (no NFS mount or rd.neednet=1 needs it)",
			 b->why);
		b->why[0] = '\0';
		r = 0;
	}
	return r;
}
