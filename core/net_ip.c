/* ip= (the kernel's Documentation/admin-guide/nfs/nfsroot.rst form, and dracut's
 * IFACE:METHOD), read into what the boot acts on: which interface, DHCP or static, and the
 * server the kernel form names. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "net.h"
#include "util.h"

#define IP_FIELDS 10 /* client:server:gw:netmask:hostname:device:autoconf:dns0:dns1:ntp0 */

static const struct {
	const char *word;
	enum net_method method;
} methods[] = {
	{ "dhcp", NET_DHCP }, { "on", NET_DHCP },  { "any", NET_DHCP },    { "both", NET_DHCP },
	{ "bootp", NET_DHCP }, { "off", NET_OFF }, { "none", NET_OFF },
};

/* dracut's and the kernel's words for what DHCPv4 and static IPv4 cannot do */
static const char *const refused_methods[] = {
	"dhcp6", "auto6", "either6", "link6", "link-local", "ibft", "rarp",
};

bool net_is_ipv4(const char *s)
{
	unsigned parts = 0, value = 0, digits = 0;

	for (;; s++) {
		if (*s >= '0' && *s <= '9' && digits < 3) {
			value = value * 10 + (unsigned)(*s - '0');
			digits++;
		} else if ((*s == '.' || *s == '\0') && digits > 0 && value <= 255) {
			parts++;
			if (*s == '\0' || parts == 4)
				break;
			value = digits = 0;
		} else {
			return false;
		}
	}
	return parts == 4 && *s == '\0';
}

static int method_of(const char *word, enum net_method *m, const char **why)
{
	for (size_t i = 0; i < ARRAY_SIZE(methods); i++)
		if (streq(word, methods[i].word)) {
			*m = methods[i].method;
			return 0;
		}
	for (size_t i = 0; i < ARRAY_SIZE(refused_methods); i++)
		if (streq(word, refused_methods[i])) {
			*why = "IPv6, RARP and iBFT configuration are not supported; use dhcp, or a "
			       "static IPv4 address";
			return -EINVAL;
		}
	*why = "unknown method; use dhcp, on, any, off, none, or the kernel's form "
	       "CLIENT:SERVER:GATEWAY:NETMASK:HOSTNAME:IFACE:off";
	return -EINVAL;
}

/* Splits value at ':' into at most IP_FIELDS fields of buf; the number of fields. */
static size_t split_fields(char *buf, char **f)
{
	size_t n = 0;

	f[n++] = buf;
	for (char *c = buf; *c && n < IP_FIELDS; c++)
		if (*c == ':') {
			*c = '\0';
			f[n++] = c + 1;
		}
	return n;
}

static int copy_field(char *out, size_t size, const char *value, bool address, const char **why)
{
	if (address && value[0] && !net_is_ipv4(value)) {
		*why = "not an IPv4 address where the kernel's form wants one (IPv6 is not supported)";
		return -EINVAL;
	}
	if (strlen(value) >= size) {
		*why = address ? "an address too long" : "a hostname or interface name too long";
		return -EINVAL;
	}
	memcpy(out, value, strlen(value) + 1);
	return 0;
}

/* DNS after autoconf: the kernel's dns0:dns1, or dracut's MTU:MAC, which are passed over. */
static int kernel_dns(struct net_ip *ip, char **f, size_t n, const char **why)
{
	int r = 0;

	if (n > 7 && net_is_ipv4(f[7]))
		r = copy_field(ip->dns0, sizeof(ip->dns0), f[7], true, why);
	if (r == 0 && n > 8 && net_is_ipv4(f[8]))
		r = copy_field(ip->dns1, sizeof(ip->dns1), f[8], true, why);
	return r;
}

static int kernel_form(struct net_ip *ip, char **f, size_t n, const char **why)
{
	int r = copy_field(ip->client, sizeof(ip->client), f[0], true, why);

	if (r == 0 && n > 1)
		r = copy_field(ip->server, sizeof(ip->server), f[1], true, why);
	if (r == 0 && n > 2)
		r = copy_field(ip->gateway, sizeof(ip->gateway), f[2], true, why);
	if (r == 0 && n > 3)
		r = copy_field(ip->netmask, sizeof(ip->netmask), f[3], true, why);
	if (r == 0 && n > 4)
		r = copy_field(ip->hostname, sizeof(ip->hostname), f[4], false, why);
	if (r == 0 && n > 5)
		r = copy_field(ip->iface, sizeof(ip->iface), f[5], false, why);
	ip->method = NET_DHCP; /* the kernel's default autoconf: any */
	if (r == 0 && n > 6 && f[6][0]) {
		if (streq(f[6], "static"))
			ip->method = NET_STATIC;
		else
			r = method_of(f[6], &ip->method, why);
		if (r == 0 && ip->method == NET_OFF)
			ip->method = NET_STATIC;
	}
	if (r == 0 && ip->method == NET_STATIC && !ip->client[0]) {
		*why = "a static configuration without the client's address (the first field)";
		r = -EINVAL;
	}
	if (r == 0)
		r = kernel_dns(ip, f, n, why);
	return r;
}

/* dracut's IFACE:METHOD[:MTU[:MAC]]; the MTU and MAC are left to the real system. */
static int dracut_form(struct net_ip *ip, const char *iface, const char *method, const char **why)
{
	int r = copy_field(ip->iface, sizeof(ip->iface), iface, false, why);

	if (r == 0 && !method[0]) {
		*why = "no method after the interface; use IFACE:dhcp";
		r = -EINVAL;
	}
	if (r == 0)
		r = method_of(method, &ip->method, why);
	return r;
}

int net_ip_parse(const char *value, struct net_ip *ip, const char **why)
{
	char buf[256];
	char *f[IP_FIELDS];
	size_t n;
	int r = -EINVAL;

	memset(ip, 0, sizeof(*ip));
	if (!value || !value[0] || strlen(value) >= sizeof(buf) || strchr(value, '[')) {
		*why = !value || !value[0] ? "empty; use dhcp, off, or the kernel's form"
		       : value[0] && strchr(value, '[') ? "IPv6 addresses are not supported"
							: "too long";
		goto out;
	}
	memcpy(buf, value, strlen(value) + 1);
	n = split_fields(buf, f);
	if (n == 1)
		r = method_of(f[0], &ip->method, why);
	else if (f[0][0] && !net_is_ipv4(f[0])) /* the kernel's form begins with an address */
		r = dracut_form(ip, f[0], f[1], why);
	else
		r = kernel_form(ip, f, n, why);
out:
	return r;
}

int net_ip_kernel_form(const struct net_ip *ip, const char *iface, char *out, size_t size)
{
	int n = snprintf(out, size, "%s:%s:%s:%s:%s:%s:off%s%s%s%s", ip->client, ip->server,
			 ip->gateway, ip->netmask, ip->hostname, iface, ip->dns0[0] || ip->dns1[0] ? ":" : "",
			 ip->dns0, ip->dns1[0] ? ":" : "", ip->dns1);

	return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}
