/* The systemd-networkd unit for the interface the initramfs configured. It matches the
 * interface by its MAC address: the real system's udev may rename it. KeepConfiguration=
 * keeps the address and routes when networkd starts (and stops), or an NFS root would hang;
 * DHCP goes on renewing the lease, a static address stays as given. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "net_handoff.h"
#include "util.h"

#define NETWORKD_DIR "/run/systemd/network"

static int prefix_length(const char *netmask)
{
	unsigned a, b, c, d, bits = 0;
	unsigned long mask;

	if (sscanf(netmask, "%u.%u.%u.%u", &a, &b, &c, &d) != 4)
		return 24;
	mask = (unsigned long)a << 24 | b << 16 | c << 8 | d;
	while (mask & 0x80000000UL) {
		bits++;
		mask = (mask << 1) & 0xffffffffUL;
	}
	return (int)bits;
}

static void unit_text(const struct net_lease *l, const char *mac, char *out, size_t size)
{
	bool dhcp = streq(l->proto, "dhcp");
	int n = snprintf(out, size,
			 "# earlymount configured this interface in the initramfs (ip=, an NFS root)\n"
			 "[Match]\n%s%s\n\n[Network]\nKeepConfiguration=yes\n",
			 mac[0] ? "MACAddress=" : "Name=", mac[0] ? mac : l->iface);
	size_t used = n > 0 && (size_t)n < size ? (size_t)n : size - 1;

	if (dhcp)
		snprintf(out + used, size - used, "DHCP=ipv4\n");
	else
		snprintf(out + used, size - used, "Address=%s/%d\n%s%s%s%s%s%s", l->address,
			 prefix_length(l->netmask), l->gateway[0] ? "Gateway=" : "", l->gateway,
			 l->gateway[0] ? "\n" : "", l->dns0[0] ? "DNS=" : "", l->dns0, l->dns0[0] ? "\n" : "");
}

int net_handoff_write(const struct net_lease *lease)
{
	char path[128], mac[32] = "", text[1024], sysfs[96];
	int fd, r = make_directories(NETWORKD_DIR, 0755);

	snprintf(sysfs, sizeof(sysfs), "/sys/class/net/%s/address", lease->iface);
	if (read_file_at(AT_FDCWD, sysfs, mac, sizeof(mac)) > 0)
		mac[strcspn(mac, "\n")] = '\0';
	unit_text(lease, mac, text, sizeof(text));
	snprintf(path, sizeof(path), NETWORKD_DIR "/10-earlymount-%s.network", lease->iface);
	fd = r < 0 ? -1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (r == 0 && fd < 0)
		r = -errno;
	if (fd >= 0) {
		r = write_all(fd, text, strlen(text));
		close(fd);
	}
	return r;
}
