/* Block devices at boot: listens to kernel uevents, loads modules for new devices, and
 * probes disks as they appear — event-driven, bounded, no sleeps. Effect layer. */
#pragma once

#include <stdbool.h>

#include "disk.h"
#include "modules.h"

struct devices {
	int uevent_fd;            /* NETLINK_KOBJECT_UEVENT, opened before coldplug */
	struct modules *modules;
	struct disk_set disks;    /* every whole disk seen, probed with its partitions */
};

/* Opens the uevent socket. Call before modules_coldplug() so no event is missed. */
int devices_open(struct devices *d, struct modules *m);
/* Coldplug, then loads modules for the devices that uevents announce until a pass loads
 * nothing new, then probes every block device. 0 or -errno. */
int devices_settle(struct devices *d);
/* Calls ready() now and after each new block device, until it returns true or timeout_ms
 * passes (timeout_ms < 0: forever). 0, or -ETIMEDOUT. */
int devices_wait(struct devices *d, int timeout_ms, bool (*ready)(struct devices *d, void *data),
		 void *data);
/* Logs what was seen: block devices, their partition types, modaliases with no module. */
void devices_report(const struct devices *d);
void devices_close(struct devices *d);
