/* The network interface a boot configures: found and watched through rtnetlink, brought up,
 * and its carrier waited for on the kernel's link events, never by polling sysfs. */
#pragma once

#include <stddef.h>

/* What else is served while the link is waited for: the uevents, which load the drivers of
 * controllers that appear meanwhile (virtio-net shows up once virtio_pci bound). */
struct link_side_watch {
	int fd;
	void (*ready)(void *data);
	void *data;
};

/* Waits up to timeout_ms for the interface named want ("" or NULL: the first Ethernet
 * interface, loopback aside) to appear, sets it up, and waits for its carrier. Its name goes
 * to name. 0; -ENODEV when no such interface came (found then lists those that did, "" for
 * none), -ENOLINK when it came without a carrier, or another -errno. side may be NULL. */
int link_wait_up(const char *want, int timeout_ms, const struct link_side_watch *side,
		 char *name, size_t name_size, char *found, size_t found_size);
