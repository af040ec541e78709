/* Block devices at boot: listens to kernel uevents, loads modules for new devices, and
 * probes disks as they appear — event-driven, bounded, no sleeps. Effect layer. */
#pragma once

#include <stdbool.h>

#include "disk.h"
#include "modules.h"
#include "probe.h"

/* Told of each partition (or whole device) a probe recognised something on. */
typedef void devices_probed_fn(const struct part *part, void *data);

struct devices {
	int uevent_fd;            /* NETLINK_KOBJECT_UEVENT, opened before coldplug */
	struct modules *modules;
	struct disk_set disks;    /* every whole disk seen, probed with its partitions */
	const struct probe_filter *filter; /* which partitions' filesystems to probe */
	/* what discovery cost: disks probed, the time they took, when the first began */
	unsigned probes;
	double probe_ms;
	double first_probe_sec;
	double settled_sec;       /* when the module loads last settled; 0: not yet */
	char unsettled[256];      /* what keeps the devices from settling besides module loads */
	devices_probed_fn *probed;
	void *probed_data;
};

/* Opens the uevent socket and probes the disks already there. Call before any module is
 * loaded, so no event is missed. */
int devices_open(struct devices *d, struct modules *m, const struct probe_filter *filter);
/* Requests the modules of every device in sysfs (in the background when the modules are
 * parallel). Number requested, or -errno. */
int devices_coldplug(struct devices *d);
/* Calls ready() now, after each new block device or virtio driver bound (a host share),
 * and when the last module load ends
 * (settled: every device that was there has its driver, every disk is probed), until it
 * returns true or timeout_ms passes (timeout_ms < 0: forever). Meanwhile uevents bring
 * modules, and disks are probed as they appear. 0, or -ETIMEDOUT. */
int devices_wait(struct devices *d, int timeout_ms,
		 bool (*ready)(struct devices *d, bool settled, void *data), void *data);
/* Without blocking: loads the modules of the devices whose uevents are queued, and collects
 * the background loads that ended. For the time after the plan, while a passphrase prompt
 * waits (a USB keyboard enumerated late needs usbhid): block devices are no longer probed,
 * and their events are dropped. */
void devices_load_modules(struct devices *d);
/* Logs what was seen: block devices, their partition types, modaliases with no module. */
void devices_report(const struct devices *d);
/* fn is called for what each later probe recognises: the storage stacks assemble their
 * devices from it (an LVM physical volume's volume group activated), and the uevents of what
 * they make are read before the wait asks again. */
void devices_on_probed(struct devices *d, devices_probed_fn *fn, void *data);
/* Probes the block devices in sysfs that no probe has seen yet: after a time in which their
 * events were dropped (devices_load_modules()); with all, every one again (the filter wants
 * more of them now). */
void devices_rescan(struct devices *d, bool all);
void devices_close(struct devices *d);
