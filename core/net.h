/* The network a boot brings up: ip= in the kernel's and dracut's forms, an NFS source
 * (nfsroot=, root=nfs:), and the lease an interface got, as klibc's ipconfig writes it to
 * /run/net-IFACE.conf (what initramfs-tools hands its real system). Pure. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define NET_IFNAME_MAX 16  /* IFNAMSIZ */
#define NET_ADDR_MAX 16    /* a dotted IPv4 address and its terminator */
#define NET_HOST_MAX 65
#define NET_PATH_MAX 256
#define NET_OPTIONS_MAX 256
#define NET_MAX_IP 4       /* ip= keys kept, one an interface */

enum net_method {
	NET_OFF,    /* ip=off, ip=none: no network from this key */
	NET_DHCP,   /* ip=dhcp, on, any, both, bootp; the kernel form's autoconf of these */
	NET_STATIC, /* the kernel form with autoconf off, none or static */
};

/* One ip= key. ipconfig is given the kernel's form itself; what earlymount reads of it is
 * which interface, how, and the server the kernel form names. */
struct net_ip {
	enum net_method method;
	char iface[NET_IFNAME_MAX];   /* "": the first interface whose link comes up */
	char client[NET_ADDR_MAX];    /* NET_STATIC: the address */
	char server[NET_ADDR_MAX];    /* the kernel's server-ip: the NFS server when nfsroot=
				       * names none; "" when absent */
	char gateway[NET_ADDR_MAX];
	char netmask[NET_ADDR_MAX];
	char hostname[NET_HOST_MAX];
	char dns0[NET_ADDR_MAX];
	char dns1[NET_ADDR_MAX];
};

/* Reads one ip= value: 0, or -EINVAL with *why (IPv6 and iBFT forms are refused). */
int net_ip_parse(const char *value, struct net_ip *ip, const char **why);

/* The kernel form ipconfig's -d takes for ip, with iface filled in ("CLIENT:SERVER:GW:MASK:
 * HOST:IFACE:off[:DNS0[:DNS1]]"): 0 or -ENAMETOOLONG. */
int net_ip_kernel_form(const struct net_ip *ip, const char *iface, char *out, size_t size);

/* Whether s is a dotted IPv4 address ("10.0.0.1"). */
bool net_is_ipv4(const char *s);

/* What an interface was configured with: the keys of /run/net-IFACE.conf. */
struct net_lease {
	char iface[NET_IFNAME_MAX];     /* DEVICE */
	char proto[8];                  /* PROTO: dhcp, none (static) */
	char address[NET_ADDR_MAX];     /* IPV4ADDR */
	char netmask[NET_ADDR_MAX];     /* IPV4NETMASK */
	char gateway[NET_ADDR_MAX];     /* IPV4GATEWAY */
	char dns0[NET_ADDR_MAX];        /* IPV4DNS0 */
	char dns1[NET_ADDR_MAX];        /* IPV4DNS1 */
	char hostname[NET_HOST_MAX];    /* HOSTNAME */
	char root_server[NET_ADDR_MAX]; /* ROOTSERVER: DHCP's next server (siaddr) */
	char root_path[NET_PATH_MAX];   /* ROOTPATH: DHCP's root-path option (17) */
};

/* Reads the text of /run/net-IFACE.conf (KEY='value' lines, in any order; unknown keys and
 * malformed lines are passed over). 0, or -EINVAL when it gives no IPV4ADDR. */
int net_lease_parse(const char *text, size_t len, struct net_lease *lease);

/* An NFS export and how to mount it. */
struct nfs_source {
	char server[NET_ADDR_MAX];      /* "" when the source names none */
	char path[NET_PATH_MAX];
	char options[NET_OPTIONS_MAX];  /* the source's own, "" for none */
	bool v4;                        /* nfs4: (or the fstype nfs4) */
};

/* dracut's root=nfs:[SERVER:]PATH[:OPTIONS] and nfs4: (value after the prefix), DHCP's
 * root-path ([nfs:][SERVER:]PATH[:OPTIONS]) likewise: 0, or -EINVAL with *why. */
int nfs_source_from_dracut(const char *value, struct nfs_source *s, const char **why);

/* The kernel's nfsroot=[SERVER:]PATH[,OPTIONS]; "%s" in PATH becomes client (the kernel
 * does so), when client is not NULL. 0, or -EINVAL with *why. */
int nfs_source_from_nfsroot(const char *value, const char *client, struct nfs_source *s,
			    const char **why);
