/* When USB storage has settled. A USB disk comes in steps that each end with no module load
 * running: the host controller's driver registers its root hubs, the hub driver finds a
 * device on a port and enumerates it, usb-storage binds its interface and only after
 * delay_use (1 s by default) scans the SCSI bus, and sd makes the block device. Each step is
 * checked here, in that order, from what sysfs and the hubs said. */
#include <stdio.h>
#include <string.h>

#include "usb_settle.h"

static enum usb_pending check_hubs(const struct usb_snapshot *s, const char **what)
{
	enum usb_pending p = USB_SETTLED;

	for (size_t i = 0; i < s->n_hubs && p == USB_SETTLED; i++) {
		const struct usb_hub *h = &s->hubs[i];

		if (!h->bound)
			p = USB_PENDING_HUB_DRIVER;
		else if (h->status_unknown)
			p = USB_PENDING_PORT_STATUS;
		else if (h->connected_unenumerated > 0)
			p = USB_PENDING_ENUMERATION;
		if (p != USB_SETTLED)
			*what = h->name;
	}
	return p;
}

static enum usb_pending check_storage(const struct usb_snapshot *s, const char **what)
{
	enum usb_pending p = USB_SETTLED;

	for (size_t i = 0; i < s->n_storage && p == USB_SETTLED; i++) {
		const struct usb_storage *u = &s->storage[i];

		if (!u->bound)
			p = USB_PENDING_STORAGE_DRIVER;
		else if (u->scsi_devices == 0)
			p = USB_PENDING_SCAN;
		else if (u->disks_unattached > 0 || u->disks_unprobed > 0)
			p = USB_PENDING_DISK;
		if (p != USB_SETTLED)
			*what = u->name;
	}
	return p;
}

enum usb_pending usb_settle_check(const struct usb_snapshot *s, const char **what)
{
	enum usb_pending p = USB_PENDING_OVERFLOW;

	*what = NULL;
	if (s->overflow)
		goto out;
	p = check_hubs(s, what);
	if (p == USB_SETTLED)
		p = check_storage(s, what);
out:
	return p;
}

void usb_settle_describe(const struct usb_snapshot *s, enum usb_pending p, const char *what,
			 char *buf, size_t size)
{
	const struct usb_hub *hub = NULL;
	const char *name = what ? what : "?";

	for (size_t i = 0; what && i < s->n_hubs && !hub; i++)
		if (strcmp(s->hubs[i].name, what) == 0)
			hub = &s->hubs[i];
	switch (p) {
	case USB_SETTLED:
		snprintf(buf, size, "USB storage settled");
		break;
	case USB_PENDING_HUB_DRIVER:
		snprintf(buf, size, "USB hub %s has no driver yet: its ports are not known", name);
		break;
	case USB_PENDING_PORT_STATUS:
		snprintf(buf, size, "the ports of USB hub %s cannot be read (%s): a disk may be there",
			 name, hub ? strerror(hub->status_errno) : "?");
		break;
	case USB_PENDING_ENUMERATION:
		snprintf(buf, size, "USB hub %s reports a device on port %u that the kernel has not "
			 "enumerated (its log may say why)", name, hub ? hub->first_port : 0);
		break;
	case USB_PENDING_STORAGE_DRIVER:
		snprintf(buf, size, "USB mass-storage interface %s has no driver (usb-storage or uas)",
			 name);
		break;
	case USB_PENDING_SCAN:
		snprintf(buf, size, "USB mass-storage interface %s has not been scanned for disks "
			 "(usb-storage waits usb-storage.delay_use= seconds first)", name);
		break;
	case USB_PENDING_DISK:
		snprintf(buf, size, "USB mass-storage interface %s has a disk that is not attached "
			 "(sd) or not probed yet", name);
		break;
	case USB_PENDING_OVERFLOW:
		snprintf(buf, size, "more than %d USB hubs or mass-storage interfaces: earlymount "
			 "cannot tell when they settled", USB_SNAPSHOT_MAX);
		break;
	}
}
