/* /run/net-IFACE.conf as klibc's ipconfig writes it (KEY='value' lines): what the interface
 * got, for the NFS root and the messages. initramfs-tools' scripts read the same file. */
#include <errno.h>
#include <string.h>

#include "net.h"
#include "util.h"

#define LEASE_FIELD(name, field) { name, offsetof(struct net_lease, field), sizeof(((struct net_lease *)0)->field) }

static const struct lease_key {
	const char *name;
	size_t offset;
	size_t size;
} lease_keys[] = {
	LEASE_FIELD("DEVICE", iface),       LEASE_FIELD("PROTO", proto),
	LEASE_FIELD("IPV4ADDR", address),   LEASE_FIELD("IPV4NETMASK", netmask),
	LEASE_FIELD("IPV4GATEWAY", gateway), LEASE_FIELD("IPV4DNS0", dns0),
	LEASE_FIELD("IPV4DNS1", dns1),      LEASE_FIELD("HOSTNAME", hostname),
	LEASE_FIELD("ROOTSERVER", root_server), LEASE_FIELD("ROOTPATH", root_path),
};

/* ipconfig writes 0.0.0.0 for an address the lease did not give */
static bool unset_address(const char *value)
{
	return streq(value, "0.0.0.0");
}

static void lease_line(struct net_lease *l, const char *line, size_t len)
{
	const char *eq = memchr(line, '=', len);
	const char *value;
	size_t key_len, value_len;

	if (!eq)
		return;
	key_len = (size_t)(eq - line);
	value = eq + 1;
	value_len = len - key_len - 1;
	if (value_len >= 2 && (value[0] == '\'' || value[0] == '"') && value[value_len - 1] == value[0]) {
		value++;
		value_len -= 2;
	}
	for (size_t i = 0; i < ARRAY_SIZE(lease_keys); i++) {
		const struct lease_key *k = &lease_keys[i];
		char *out = (char *)l + k->offset;

		if (strlen(k->name) != key_len || strncmp(line, k->name, key_len) != 0 ||
		    value_len >= k->size)
			continue;
		memcpy(out, value, value_len);
		out[value_len] = '\0';
		if (unset_address(out))
			out[0] = '\0';
	}
}

int net_lease_parse(const char *text, size_t len, struct net_lease *lease)
{
	size_t start = 0;

	memset(lease, 0, sizeof(*lease));
	for (size_t i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		lease_line(lease, text + start, i - start);
		start = i + 1;
	}
	return net_is_ipv4(lease->address) ? 0 : -EINVAL;
}
