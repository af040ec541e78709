/* One whole block device probed with its partitions, from sysfs and /dev. Effect layer. */
#pragma once

#include <stdbool.h>

#include "disk.h"
#include "probe.h"

/* Probes the whole block device whose sysfs name is name (/dev/name) into disk: the
 * partitions the kernel made (libblkid may read a table the kernel did not), whether it is
 * removable, a device-mapper device's name and uuid, an md array's /dev/md/ name. 1 probed;
 * 0 when there is nothing to probe (no medium, an unused loop, ram or zram device); -errno. */
int block_probe(const char *name, const struct probe_filter *filter, struct disk *disk);

/* Whether the entry name of /sys/class/block is a whole device, not a partition. */
bool block_is_whole(const char *name);
/* Every whole block device in sysfs into set, in path order: a running host's disks, for
 * `earlymount check`. One that cannot be read is left out, with a warning. 0 or -errno. */
int block_probe_all(struct disk_set *set);
