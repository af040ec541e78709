/* Fills the disk model from a disk image file or a block device with libblkid: the partition
 * table, every partition, and the filesystem inside each. Reads only; never writes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "disk.h"

/* Which partitions get their filesystem probed: each probe costs reads, and at boot, with
 * many disks, they add up. The partition has its table fields filled when asked. */
struct probe_filter {
	bool (*want_filesystem)(const struct part *part, void *data);
	void *data;
};

/* Probes path (a regular file or a whole-disk block device) into disk, which must be empty
 * (from disk_set_add). For a block device /dev/NAME, each partition's devpath follows the
 * kernel's naming (/dev/vda2, /dev/nvme0n1p2). removable is left to the caller (sysfs).
 * A disk without a partition table is not an error: pttype "" and no partitions.
 * 0, or -errno when the file cannot be opened or read. */
int probe_disk(const char *path, struct disk *disk);
/* probe_disk(), probing filesystems only where filter says (NULL: everywhere); the others
 * keep fstype, fsuuid and fslabel empty. */
int probe_disk_filtered(const char *path, struct disk *disk, const struct probe_filter *filter);

/* The filesystem (or swap, LUKS, …) on a whole device such as /dev/mapper/root, as libblkid
 * names it, into fstype ("" when nothing or several things are recognised). 0 or -errno. */
int probe_device_fstype(const char *path, char *fstype, size_t size);
