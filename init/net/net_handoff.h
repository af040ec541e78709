/* What the real system is told of the network the initramfs configured: initramfs-tools'
 * /run/net-IFACE.conf (ipconfig wrote it) and a systemd-networkd unit that takes the
 * interface over without dropping its address, which an NFS root lives on. */
#pragma once

#include "net.h"

/* Writes NETWORKD_DIR/10-earlymount-IFACE.network for lease's interface. 0 or -errno. */
int net_handoff_write(const struct net_lease *lease);
