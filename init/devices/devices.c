/* Devices at boot without udev: the kernel's uevents say which modules new devices want and
 * when block devices appear; devtmpfs has made the node by the time the event is sent
 * (device_add() creates it before kobject_uevent()). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "block_probe.h"
#include "devices.h"
#include "log.h"
#include "paths.h"
#include "probe.h"
#include "sysfs.h"
#include "timing.h"
#include "uevent.h"
#include "usb_state.h"
#include "util.h"
#include "watchdog.h"

/* The kernel caps one uevent at UEVENT_BUFFER_SIZE (2048) plus the header. */
#define UEVENT_MSG_MAX 8192
/* Generous: a burst of uevents while modules load must not overflow (ENOBUFS). The kernel
 * charges only what is queued, so a large limit costs nothing when idle. */
#define UEVENT_RCVBUF (64 * 1024 * 1024)
#define KERNEL_UEVENT_GROUP 1
#define USB_RECHECK_MS 100

static int scan_block_devices(struct devices *d, bool only_new);

int devices_open(struct devices *d, struct modules *m, const struct probe_filter *filter)
{
	struct sockaddr_nl addr = {
		.nl_family = AF_NETLINK,
		.nl_groups = KERNEL_UEVENT_GROUP,
	};
	int size = UEVENT_RCVBUF;
	int r = 0;

	memset(d, 0, sizeof(*d));
	d->modules = m;
	d->filter = filter;
	d->uevent_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			      NETLINK_KOBJECT_UEVENT);
	if (d->uevent_fd < 0) {
		r = -errno;
		goto out;
	}
	/* SO_RCVBUFFORCE passes rmem_max, which is small; it needs CAP_NET_ADMIN, which PID 1 has */
	if (setsockopt(d->uevent_fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0 &&
	    setsockopt(d->uevent_fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)) < 0)
		log_debug("unable to enlarge the uevent receive buffer: %s", strerror(errno));
	if (bind(d->uevent_fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		r = -errno;
		close(d->uevent_fd);
		d->uevent_fd = -1;
		goto out;
	}
	/* What built-in drivers made before we listened; every later disk sends an event */
	r = scan_block_devices(d, false);
	if (r < 0)
		log_warn("unable to list /sys/class/block: %s", strerror(-r));
	r = 0;
out:
	return r;
}

static void disk_release(struct disk *disk)
{
	free(disk->parts);
	memset(disk, 0, sizeof(*disk));
}

static struct disk *find_disk(struct devices *d, const char *devnode)
{
	for (size_t i = 0; i < d->disks.n; i++)
		if (streq(d->disks.disks[i].path, devnode))
			return &d->disks.disks[i];
	return NULL;
}

/* What a probe recognised, for the storage stacks to assemble from (see devices_on_probed). */
static void announce_probed(struct devices *d, const struct disk *disk)
{
	for (size_t i = 0; i < disk->n_parts && d->probed; i++)
		if (disk->parts[i].devpath[0] && disk->parts[i].fstype[0])
			d->probed(&disk->parts[i], d->probed_data);
}

/* Probes the whole disk /dev/name and stores it, replacing what was known about it. */
static int probe_whole_disk(struct devices *d, const char *name)
{
	char node[PATH_MAX];
	struct disk_set probed = { 0 };
	struct disk *disk = disk_set_add(&probed), *slot;
	double began = timing_now();
	int r = disk ? 0 : -ENOMEM;

	if (r < 0)
		goto out;
	r = block_probe(name, d->filter, disk);
	if (r == 0)
		goto out; /* no medium, or an unused loop/ram/zram device */
	if (d->probes++ == 0)
		d->first_probe_sec = began;
	d->probe_ms += (timing_now() - began) * 1e3;
	if (r < 0) {
		log_warn("unable to probe /dev/%s: %s", name, strerror(-r));
		goto out;
	}
	snprintf(node, sizeof(node), "/dev/%s", name);
	slot = find_disk(d, node);
	if (slot) {
		disk_release(slot);
	} else {
		slot = disk_set_add(&d->disks);
		if (!slot) {
			r = -ENOMEM;
			goto out;
		}
	}
	*slot = *disk;
	disk->parts = NULL;
	disk->n_parts = 0;
	/* In name order, so that messages listing disks read the same on every boot. */
	disk_set_sort(&d->disks);
	slot = find_disk(d, node);
	log_debug("probed %s: %s, %zu partitions", node, slot->pttype[0] ? slot->pttype : "no partition table",
		  slot->n_parts);
	announce_probed(d, slot);
	r = 1;
out:
	disk_set_free(&probed);
	return r;
}

/* Probes the whole disks in sysfs: all of them, or with only_new those not probed yet. */
static int scan_block_devices(struct devices *d, bool only_new)
{
	DIR *dir = opendir("/sys/class/block");
	struct dirent *de;
	char path[PATH_MAX];
	int r = 0;

	if (!dir) {
		r = -errno;
		goto out;
	}
	while ((de = readdir(dir))) {
		if (!block_is_whole(de->d_name))
			continue;
		snprintf(path, sizeof(path), "/dev/%s", de->d_name);
		if (only_new && find_disk(d, path))
			continue;
		probe_whole_disk(d, de->d_name);
	}
	closedir(dir);
out:
	return r;
}

/* The whole disk a block uevent is about: the device itself, or a partition's parent,
 * which is the directory above it in DEVPATH. */
static bool uevent_disk_name(const struct uevent *ev, char *name, size_t size)
{
	bool partition = ev->devtype && streq(ev->devtype, "partition");
	const char *end, *start;
	bool ok = false;

	if (!ev->devtype || (!partition && !streq(ev->devtype, "disk")))
		goto out;
	end = ev->devpath + strlen(ev->devpath);
	if (partition) {
		while (end > ev->devpath && end[-1] != '/')
			end--;
		if (end > ev->devpath)
			end--;
	}
	start = end;
	while (start > ev->devpath && start[-1] != '/')
		start--;
	if (start == end || (size_t)(end - start) >= size)
		goto out;
	memcpy(name, start, (size_t)(end - start));
	name[end - start] = '\0';
	ok = true;
out:
	return ok;
}

static void forget_disk(struct devices *d, const char *name)
{
	char node[PATH_MAX];
	struct disk *disk;

	snprintf(node, sizeof(node), "/dev/%s", name);
	disk = find_disk(d, node);
	if (!disk)
		return;
	disk_release(disk);
	*disk = d->disks.disks[--d->disks.n];
	disk_set_sort(&d->disks);
	/* a disk pulled out during the boot is worth a line; device-mapper devices come and go
	 * by design (libcryptsetup's temporary ones) */
	if (startswith(name, "dm-"))
		log_debug("%s went away", node);
	else
		log_info("%s went away: no longer counted", node);
}

#define BATCH_MAX_DISKS 64
/* Stacks on stacks (LVM on md on LUKS) are a few levels deep, not more. */
#define DRAIN_ROUNDS_MAX 8

struct batch {
	bool disks_changed;
	bool virtio_bound; /* a virtio driver took a device: a host share may be there now */
	bool lost;        /* the kernel dropped uevents: sysfs must be scanned again */
	/* disks to probe once the queue is drained: a disk and its partitions announce
	 * themselves one event each, and one probe reads them all */
	char pending[BATCH_MAX_DISKS][NAME_MAX + 1];
	size_t n_pending;
	bool pending_overflow;
};

static void batch_want_probe(struct batch *b, const char *name)
{
	for (size_t i = 0; i < b->n_pending; i++)
		if (streq(b->pending[i], name))
			return;
	if (b->n_pending < BATCH_MAX_DISKS)
		COPY_STR(b->pending[b->n_pending++], name);
	else
		b->pending_overflow = true;
}

/* The kernel announces a disk once it has read its partition table, then each partition:
 * an add of what a probe saw already brings nothing new. */
static bool already_probed(const struct devices *d, const struct uevent *ev)
{
	char node[PATH_MAX];
	bool found = false;

	if (!ev->devname)
		goto out;
	snprintf(node, sizeof(node), "/dev/%s", ev->devname);
	for (size_t i = 0; i < d->disks.n && !found; i++) {
		const struct disk *disk = &d->disks.disks[i];

		found = streq(disk->path, node);
		for (size_t j = 0; j < disk->n_parts && !found; j++)
			found = streq(disk->parts[j].devpath, node);
	}
out:
	return found;
}

/* Handles every queued uevent without blocking. */
static void drain_uevents_once(struct devices *d, struct batch *b)
{
	char buf[UEVENT_MSG_MAX];
	struct uevent ev;
	char name[NAME_MAX + 1];

	while (uevent_receive(d->uevent_fd, buf, sizeof(buf), &ev, &b->lost) > 0) {
		bool add = streq(ev.action, "add");

		if (add && ev.modalias)
			modules_request_alias(d->modules, ev.modalias, false);
		if (ev.subsystem && streq(ev.subsystem, "virtio") && streq(ev.action, "bind"))
			b->virtio_bound = true;
		if (!ev.subsystem || !streq(ev.subsystem, "block") ||
		    !uevent_disk_name(&ev, name, sizeof(name)))
			continue;
		if ((add && !already_probed(d, &ev)) || streq(ev.action, "change")) {
			batch_want_probe(b, name);
		} else if (streq(ev.action, "remove") && streq(ev.devtype, "disk")) {
			forget_disk(d, name);
			b->disks_changed = true;
		}
	}
	if (b->lost) {
		log_warn("uevents were lost (receive buffer full); scanning sysfs again");
		modules_coldplug(d->modules);
		b->pending_overflow = true;
	}
	if (b->pending_overflow) {
		scan_block_devices(d, false);
		b->disks_changed = true;
	}
	for (size_t i = 0; i < b->n_pending && !b->pending_overflow; i++)
		if (probe_whole_disk(d, b->pending[i]) > 0)
			b->disks_changed = true;
}

/* A stack that assembled devices from what was probed queued their events before it
 * returned: read them too, so that the wait sees the new devices at once. */
static void drain_uevents(struct devices *d, struct batch *b)
{
	struct batch more;
	unsigned rounds = 0;

	drain_uevents_once(d, b);
	while (d->probed && b->disks_changed && rounds++ < DRAIN_ROUNDS_MAX) {
		memset(&more, 0, sizeof(more));
		drain_uevents_once(d, &more);
		if (!more.disks_changed && !more.virtio_bound)
			break;
		b->virtio_bound = b->virtio_bound || more.virtio_bound;
	}
}

void devices_load_modules(struct devices *d)
{
	char buf[UEVENT_MSG_MAX];
	struct uevent ev;
	bool lost = false;

	while (uevent_receive(d->uevent_fd, buf, sizeof(buf), &ev, &lost) > 0)
		if (streq(ev.action, "add") && ev.modalias)
			modules_request_alias(d->modules, ev.modalias, false);
	if (lost) {
		log_warn("uevents were lost (receive buffer full); scanning sysfs again");
		modules_coldplug(d->modules);
	}
	modules_reap(d->modules, false);
}

int devices_coldplug(struct devices *d)
{
	int r = modules_coldplug(d->modules);

	if (r < 0)
		log_warn("unable to scan /sys/devices for modaliases: %s", strerror(-r));
	return r;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool disk_probed(const char *node, void *data)
{
	return find_disk(data, node) != NULL;
}

/* USB storage comes in steps after its drivers loaded (see usb_settle.c): settled once every
 * step is done. What it waits for is logged when it changes. */
static bool usb_settled(struct devices *d)
{
	struct usb_snapshot snap;
	char why[sizeof(d->unsettled)];
	const char *what;
	enum usb_pending p;
	int r = usb_state_read(&snap, disk_probed, d);

	if (r < 0) {
		snprintf(why, sizeof(why), "unable to read /sys/bus/usb/devices: %s", strerror(-r));
		p = USB_PENDING_OVERFLOW;
	} else {
		p = usb_settle_check(&snap, &what);
		if (p != USB_SETTLED)
			usb_settle_describe(&snap, p, what, why, sizeof(why));
	}
	if (p == USB_SETTLED)
		why[0] = '\0';
	if (!streq(why, d->unsettled) && why[0])
		log_debug("not settled: %s", why);
	COPY_STR(d->unsettled, why);
	return p == USB_SETTLED;
}

/* Settled: no module is loading, and USB storage went through its steps. Modules' devices
 * send their events before the insert returns, so a finished load has queued everything it
 * brought; the caller drains the queue before it asks. */
static bool settled(struct devices *d)
{
	return modules_loading(d->modules) == 0 && usb_settled(d);
}

int devices_wait(struct devices *d, int timeout_ms,
		 bool (*ready)(struct devices *d, bool settled, void *data), void *data)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	bool was_settled = settled(d);
	struct batch queued = { 0 };
	bool done;

	/* What came before the wait, the events of loads that ended already among it, is read
	 * before the first look. */
	drain_uevents(d, &queued);
	if (was_settled && d->settled_sec == 0)
		d->settled_sec = timing_now();
	done = ready(d, was_settled, data);
	int r = 0;

	while (!done) {
		struct pollfd pfd[1 + MODULES_MAX_LOADERS] = { { .fd = d->uevent_fd, .events = POLLIN } };
		size_t n = 1 + modules_poll_fds(d->modules, pfd + 1, MODULES_MAX_LOADERS);
		int64_t left = deadline < 0 ? -1 : deadline - now_ms();
		int wait_ms = left > INT32_MAX ? INT32_MAX : (int)left;
		struct batch b = { 0 };
		bool now_settled;

		if (deadline >= 0 && left <= 0) {
			r = -ETIMEDOUT;
			goto out;
		}
		/* USB is read from sysfs and the hubs, not from the events: a step that completes
		 * after the last event was read (a device's interfaces, sd binding a LUN) wakes
		 * nobody, so look again now and then while only USB holds the devices back. */
		if (!was_settled && modules_loading(d->modules) == 0 && (wait_ms < 0 || wait_ms > USB_RECHECK_MS))
			wait_ms = USB_RECHECK_MS;
		if (watchdog_poll(pfd, n, wait_ms) < 0 && errno != EINTR) {
			r = -errno;
			goto out;
		}
		drain_uevents(d, &b);
		modules_reap(d->modules, false);
		now_settled = settled(d);
		if (now_settled && !was_settled) {
			/* A load that ended after the drain above queued its devices' events before
			 * it did: read them before the devices count as settled (a second disk of
			 * virtio_blk was missed here once). */
			struct batch late = { 0 };

			drain_uevents(d, &late);
			b.disks_changed = b.disks_changed || late.disks_changed;
			d->settled_sec = timing_now();
		}
		if (b.disks_changed || b.virtio_bound || now_settled != was_settled)
			done = ready(d, now_settled, data);
		was_settled = now_settled;
	}
out:
	return r;
}

void devices_rescan(struct devices *d, bool all)
{
	int r = scan_block_devices(d, !all);

	if (r < 0)
		log_warn("unable to list /sys/class/block: %s", strerror(-r));
}

void devices_on_probed(struct devices *d, devices_probed_fn *fn, void *data)
{
	d->probed = fn;
	d->probed_data = data;
	/* what was probed before anyone listened: built-in drivers' disks */
	for (size_t i = 0; i < d->disks.n; i++)
		announce_probed(d, &d->disks.disks[i]);
}

void devices_close(struct devices *d)
{
	if (d->uevent_fd >= 0)
		close(d->uevent_fd);
	disk_set_free(&d->disks);
	d->uevent_fd = -1;
}
