/* Online growth of a mounted filesystem to its device's size, through the kernel's resize
 * ioctls (what resize2fs and btrfs filesystem resize call). Effect layer. */
#pragma once

#include <stddef.h>

/* Grows the fstype (ext4, btrfs) mounted read-write on target to the size of device. 0, with
 * the old and new sizes logged (or that it fills its device already); -errno with why. */
int growfs_mounted(const char *target, const char *device, const char *fstype, char *why,
		   size_t why_size);
