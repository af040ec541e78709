/* udev's database entries for the device-mapper devices made in the initramfs, which has no
 * udev (init/handoff/udev_db.c). */
#pragma once

/* For each device-mapper device (/sys/block/dm-N) without an entry in /run/udev/data, writes
 * the one udev would have: the real system's udev then takes the devices on its coldplug
 * "add" event as set up, not as devices half made. Failures are warned about, never fatal. */
void udev_db_record_dm(void);
