/* Reads what USB storage looks like now, from sysfs and the hubs' port status (usbfs), into
 * the snapshot that usb_settle.c judges. Effect layer. */
#pragma once

#include <stdbool.h>

#include "usb_settle.h"

/* probed(node, data): whether discovery has probed the block device node ("/dev/sda").
 * 0, or -errno when sysfs cannot be read; no USB (usbcore not loaded) is an empty snapshot. */
int usb_state_read(struct usb_snapshot *s, bool (*probed)(const char *node, void *data), void *data);
