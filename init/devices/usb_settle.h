/* Whether USB storage has settled: every device a hub reports connected is enumerated, every
 * mass-storage interface is bound and scanned, and every disk it made has been probed. Pure:
 * a snapshot of USB in, a verdict out (usb_state.c reads the snapshot at boot). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define USB_SNAPSHOT_MAX 32
#define USB_NAME_MAX 48

/* A hub, as its driver left it. */
struct usb_hub {
	char name[USB_NAME_MAX]; /* "usb2", "2-1" */
	bool bound;              /* the hub driver took its interface and counted its ports */
	bool status_unknown;     /* its ports' status could not be read (usbfs: why in errno) */
	int status_errno;
	unsigned connected_unenumerated; /* ports that report a device with no USB device yet */
	unsigned first_port;     /* the first such port, for the message */
};

/* A mass-storage interface (bInterfaceClass 08) and the SCSI host its driver made. */
struct usb_storage {
	char name[USB_NAME_MAX]; /* "2-1:1.0" */
	bool bound;              /* usb-storage or uas took it */
	unsigned scsi_devices;   /* LUNs scanned so far; 0 until usb-storage's delay_use passed */
	unsigned disks_unattached; /* direct-access LUNs sd has not made a block device of yet */
	unsigned disks_unprobed; /* block devices discovery has not probed yet */
};

struct usb_snapshot {
	struct usb_hub hubs[USB_SNAPSHOT_MAX];
	size_t n_hubs;
	struct usb_storage storage[USB_SNAPSHOT_MAX];
	size_t n_storage;
	bool overflow; /* more hubs or interfaces than fit: cannot say it settled */
};

enum usb_pending {
	USB_SETTLED,
	USB_PENDING_HUB_DRIVER,   /* a hub without its driver: its ports are not looked at yet */
	USB_PENDING_PORT_STATUS,  /* a hub's ports could not be read: a device may be there */
	USB_PENDING_ENUMERATION,  /* a hub reports a device the kernel has not enumerated yet */
	USB_PENDING_STORAGE_DRIVER, /* a mass-storage interface without usb-storage or uas */
	USB_PENDING_SCAN,         /* bound, SCSI not scanned yet (usb-storage's delay_use) */
	USB_PENDING_DISK,         /* a LUN without its sd block device, or a disk not probed */
	USB_PENDING_OVERFLOW,
};

/* What still keeps USB storage from settling, the first thing found in the order a device
 * goes through; *what names the hub or interface (NULL when settled). */
enum usb_pending usb_settle_check(const struct usb_snapshot *s, const char **what);
/* One sentence for the log: what is awaited, and where, for a verdict of usb_settle_check. */
void usb_settle_describe(const struct usb_snapshot *s, enum usb_pending p, const char *what,
			 char *buf, size_t size);
