/* Fills the disk model from a disk image file or a block device with libblkid: the partition
 * table, every partition, and the filesystem inside each. Reads only; never writes. */
#pragma once

#include "disk.h"

/* Probes path (a regular file or a whole-disk block device) into disk, which must be empty
 * (from disk_set_add). For a block device /dev/NAME, each partition's devpath follows the
 * kernel's naming (/dev/vda2, /dev/nvme0n1p2). removable is left to the caller (sysfs).
 * A disk without a partition table is not an error: pttype "" and no partitions.
 * 0, or -errno when the file cannot be opened or read. */
int probe_disk(const char *path, struct disk *disk);
