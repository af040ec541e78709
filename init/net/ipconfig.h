/* An interface's IPv4 configuration by klibc's ipconfig (what initramfs-tools runs): DHCP, or
 * the kernel's static ip= form. ipconfig writes /run/net-IFACE.conf, which the real system
 * gets with /run. */
#pragma once

#include <stddef.h>

#include "net.h"

/* Configures iface as ip asks, within timeout_sec, and reads what it got into lease. 0, or
 * -errno with why set: -ENOENT when the image has no ipconfig, -ETIMEDOUT when no lease came. */
int ipconfig_run(const struct net_ip *ip, const char *iface, int timeout_sec,
		 struct net_lease *lease, char *why, size_t why_size);
