/* USB storage as sysfs and the hubs show it. A hub tells which of its ports have a device
 * (GET_PORT_STATUS, what `lsusb -v` reads), before the kernel has enumerated it: sysfs alone
 * shows nothing of a device in that window. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/usb/ch9.h>
#include <linux/usbdevice_fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "sysfs.h"
#include "usb_state.h"
#include "util.h"

#define USB_DEVICES "/sys/bus/usb/devices"
#define CLASS_HUB "09"
#define CLASS_MASS_STORAGE "08"
#define PORT_STATUS_CONNECTION 0x0001
#define PORT_STATUS_TIMEOUT_MS 500

static bool read_attr(const char *dev, const char *attr, char *buf, size_t size)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), USB_DEVICES "/%s/%s", dev, attr);
	return sysfs_read_line_at(AT_FDCWD, path, buf, size);
}

static bool exists(const char *fmt, const char *a, const char *b)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), fmt, a, b);
	return access(path, F_OK) == 0;
}

/* 1 when the port reports a device, 0 when not, or -errno. */
static int port_connected(int fd, unsigned port)
{
	unsigned char status[4] = { 0 };
	struct usbdevfs_ctrltransfer ctrl = {
		.bRequestType = USB_DIR_IN | USB_TYPE_CLASS | USB_RECIP_OTHER,
		.bRequest = USB_REQ_GET_STATUS,
		.wIndex = (unsigned short)port,
		.wLength = sizeof(status),
		.timeout = PORT_STATUS_TIMEOUT_MS,
		.data = status,
	};
	int r = ioctl(fd, USBDEVFS_CONTROL, &ctrl);

	if (r < 0)
		r = -errno;
	else
		r = r >= 2 && (status[0] | status[1] << 8) & PORT_STATUS_CONNECTION;
	return r;
}

/* A port's device counts once it is configured with all its interfaces in sysfs: they are
 * added after the device's own uevent, and a mass-storage one must not be missed between. */
static bool child_enumerated(const char *child)
{
	char config[16], count[16], prefix[NAME_MAX + 48];
	unsigned long want, have = 0;
	DIR *dir;
	struct dirent *de;

	if (!exists(USB_DEVICES "/%s%s", child, "") || !read_attr(child, "bConfigurationValue", config, sizeof(config)) ||
	    !read_attr(child, "bNumInterfaces", count, sizeof(count)))
		return false;
	want = strtoul(count, NULL, 10);
	snprintf(prefix, sizeof(prefix), "%s:%s.", child, config);
	dir = opendir(USB_DEVICES);
	while (dir && (de = readdir(dir)))
		have += startswith(de->d_name, prefix) != NULL;
	if (dir)
		closedir(dir);
	return have >= want;
}

/* The device that hub NAME's port P leads to: the root hub "usb2" names its port 1's device
 * "2-1", hub "2-1" names it "2-1.1". */
static void port_child(const char *name, unsigned p, char *child, size_t size)
{
	const char *bus = startswith(name, "usb");

	if (bus)
		snprintf(child, size, "%s-%u", bus, p);
	else
		snprintf(child, size, "%s.%u", name, p);
}

/* The hub's usbfs node, /dev/bus/usb/BBB/DDD, opened; -errno when it cannot be. */
static int open_hub(const char *name)
{
	char bus[16], dev[16], node[64];
	int fd = -ENOENT;

	if (read_attr(name, "busnum", bus, sizeof(bus)) && read_attr(name, "devnum", dev, sizeof(dev))) {
		snprintf(node, sizeof(node), "/dev/bus/usb/%03lu/%03lu", strtoul(bus, NULL, 10),
			 strtoul(dev, NULL, 10));
		fd = open(node, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
	}
	return fd;
}

static void read_hub(struct usb_hub *h, const char *name)
{
	char value[16], child[NAME_MAX + 16];
	unsigned long ports = 0;
	int fd = -1;

	COPY_STR(h->name, name);
	/* the hub driver sets maxchild when it has counted the ports, before it looks at them */
	if (read_attr(name, "maxchild", value, sizeof(value)))
		ports = strtoul(value, NULL, 10);
	h->bound = ports > 0;
	if (h->bound)
		fd = open_hub(name);
	if (h->bound && fd < 0) {
		h->status_unknown = true;
		h->status_errno = -fd;
	}
	for (unsigned p = 1; fd >= 0 && p <= ports && !h->status_unknown; p++) {
		int c = port_connected(fd, p);

		if (c < 0) {
			h->status_unknown = true;
			h->status_errno = -c;
		}
		port_child(name, p, child, sizeof(child));
		if (c > 0 && !child_enumerated(child) && h->connected_unenumerated++ == 0)
			h->first_port = p;
	}
	if (fd >= 0)
		close(fd);
}

/* The entries of directory name under dirfd, or NULL; closedir() closes the descriptor too. */
static DIR *open_dir_at(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;

	if (fd >= 0 && !dir)
		close(fd);
	return dir;
}

/* A direct-access LUN: sd has attached it once it has a block device, which counts once
 * discovery probed it (or it has no medium: nothing to probe). */
static void read_lun_disk(struct usb_storage *u, int lun_fd,
			  bool (*probed)(const char *node, void *data), void *data)
{
	char value[16], node[NAME_MAX + 8], size[NAME_MAX + 8];
	DIR *bd = open_dir_at(lun_fd, "block");
	struct dirent *b;

	if (!bd) {
		u->disks_unattached++;
		return;
	}
	while ((b = readdir(bd))) {
		if (b->d_name[0] == '.')
			continue;
		snprintf(node, sizeof(node), "/dev/%s", b->d_name);
		snprintf(size, sizeof(size), "%s/size", b->d_name);
		if (!probed(node, data) && sysfs_read_line_at(dirfd(bd), size, value, sizeof(value)) &&
		    !streq(value, "0"))
			u->disks_unprobed++;
	}
	closedir(bd);
}

/* The LUNs of one SCSI host, hostN/targetN:C:T/N:C:T:L. */
static void read_luns(struct usb_storage *u, int host_fd,
		      bool (*probed)(const char *node, void *data), void *data)
{
	char value[16];
	DIR *hd = fdopendir(host_fd), *td;
	struct dirent *t, *l;

	while (hd && (t = readdir(hd))) {
		if (!startswith(t->d_name, "target") || !(td = open_dir_at(dirfd(hd), t->d_name)))
			continue;
		while ((l = readdir(td))) {
			int lun_fd;
			long type;

			if (!strchr(l->d_name, ':'))
				continue;
			u->scsi_devices++;
			lun_fd = openat(dirfd(td), l->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (lun_fd < 0)
				continue;
			type = sysfs_read_line_at(lun_fd, "type", value, sizeof(value)) ? strtol(value, NULL, 10) : -1;
			/* direct access, optical memory, reduced block commands: what sd attaches */
			if (type == 0 || type == 7 || type == 14)
				read_lun_disk(u, lun_fd, probed, data);
			close(lun_fd);
		}
		closedir(td);
	}
	if (hd)
		closedir(hd);
	else
		close(host_fd);
}

static void read_storage(struct usb_storage *u, const char *name,
			 bool (*probed)(const char *node, void *data), void *data)
{
	char dir[PATH_MAX];
	DIR *d;
	struct dirent *de;

	COPY_STR(u->name, name);
	u->bound = exists(USB_DEVICES "/%s/%s", name, "driver");
	snprintf(dir, sizeof(dir), USB_DEVICES "/%s", name);
	d = u->bound ? opendir(dir) : NULL;
	while (d && (de = readdir(d))) {
		int fd;

		if (!startswith(de->d_name, "host"))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			read_luns(u, fd, probed, data);
	}
	if (d)
		closedir(d);
}

/* Hubs first: reading a port's status waits for the hub driver's work on it (both take the
 * hub's lock), so what it enumerated meanwhile is in sysfs for the second pass, which opens
 * the directory again for it. */
static int read_pass(struct usb_snapshot *s, bool hubs, bool (*probed)(const char *node, void *data),
		     void *data)
{
	DIR *dir = opendir(USB_DEVICES);
	struct dirent *de;
	char cls[8];
	int r = 0;

	if (!dir) {
		r = errno == ENOENT ? 0 : -errno;
		goto out;
	}
	while ((de = readdir(dir))) {
		bool interface = strchr(de->d_name, ':') != NULL;

		if (de->d_name[0] == '.')
			continue;
		if (hubs && !interface && read_attr(de->d_name, "bDeviceClass", cls, sizeof(cls)) &&
		    streq(cls, CLASS_HUB)) {
			if (s->n_hubs == USB_SNAPSHOT_MAX)
				s->overflow = true;
			else
				read_hub(&s->hubs[s->n_hubs++], de->d_name);
		} else if (!hubs && interface && read_attr(de->d_name, "bInterfaceClass", cls, sizeof(cls)) &&
			   streq(cls, CLASS_MASS_STORAGE)) {
			if (s->n_storage == USB_SNAPSHOT_MAX)
				s->overflow = true;
			else
				read_storage(&s->storage[s->n_storage++], de->d_name, probed, data);
		}
	}
	closedir(dir);
out:
	return r;
}

int usb_state_read(struct usb_snapshot *s, bool (*probed)(const char *node, void *data), void *data)
{
	int r;

	memset(s, 0, sizeof(*s));
	r = read_pass(s, true, probed, data);
	if (r == 0)
		r = read_pass(s, false, probed, data);
	return r;
}
