/* The kernel's device-mapper through its ioctls on /dev/mapper/control: no libdevmapper and
 * no udev, so earlymount makes the /dev/mapper/NAME link itself. Effect layer. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "paths.h"

struct dm_target {
	const char *type;       /* "verity", "crypt", … */
	uint64_t sectors;       /* the device's length in 512-byte sectors */
	const char *params;     /* the target's table line */
};

/* Creates device NAME (with UUID, may be NULL) holding one target, activates it and links
 * /dev/mapper/NAME to its node. On failure nothing is left behind. 0 or -errno: -ENODEV
 * when the kernel has no device-mapper, -EEXIST when NAME exists, -EINVAL when the kernel
 * refused the table (its reason is in the kernel log). dev gets the device's number. */
int dm_create(const char *name, const char *uuid, const struct dm_target *target,
	      bool read_only, dev_t *dev);

/* Removes device NAME and its link. 0 or -errno. */
int dm_remove(const char *name);
