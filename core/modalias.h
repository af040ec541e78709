/* What a device's modalias says about whether a disk can be behind it. Pure. */
#pragma once

#include <stdbool.h>

/* The longest modalias read from sysfs: CPU modaliases list every feature flag. */
#define MODALIAS_MAX 4096

/* The device sits on a bus, or is a PCI device of a class, that boot disks or their
 * controllers use: a device there without a driver is the likely reason no root appeared. */
bool modalias_may_be_storage(const char *alias);
/* The device is of a kind that never brings a block device (CPU features, input, display,
 * sound, SMBus, entropy and balloon devices…): its driver can wait until the disks are
 * found. Conservative: what is not known to be diskless is false. */
bool modalias_holds_no_disk(const char *alias);
/* A storage controller whose probe scans slowly (SATA/AHCI, IDE, SCSI HBAs, USB host
 * controllers and USB storage, SD hosts): under a pinned plan its driver waits while the likely
 * controllers (NVMe, virtio) bring the root, and is left to the real system when they did. */
bool modalias_scans_slowly(const char *alias);
/* A storage controller or disk that is not slow (NVMe, virtio, a system-on-chip's): where a
 * pinned root is looked for first. USB devices are not: they come after a slow controller. */
bool modalias_is_likely_storage(const char *alias);
/* A CPU feature's driver (an accelerated crc32c, AES…): the kernel has generic code for
 * what it offers and asks for the algorithms it needs by name, so a system can do without. */
bool modalias_is_cpu_feature(const char *alias);
/* A network interface's controller (PCI class 02, virtio-net, a USB CDC adapter): its driver
 * is held like any diskless one, and loaded when the boot brings up the network. */
bool modalias_is_network(const char *alias);
