/* btrfs over several devices: see btrfs_scan.h. The kernel keeps the list of each
 * filesystem's devices itself; nothing is read from the devices here. */
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "btrfs_scan.h"
#include "log.h"
#include "util.h"

#define BTRFS_CONTROL "/dev/btrfs-control"

/* btrfs loaded, its control device open; false (said once) when that cannot be. */
static bool control_open(struct btrfs_boot *b)
{
	int r = 0;

	if (b->control >= 0 || b->unusable)
		goto out;
	/* built in, or loaded already: the control device is there */
	if (access(BTRFS_CONTROL, F_OK) < 0)
		r = modules_load_alias(b->modules, "btrfs");
	b->control = open(BTRFS_CONTROL, O_RDWR | O_CLOEXEC);
	if (b->control < 0) {
		log_warn("btrfs: unable to open %s (%s%s%s): a btrfs over several devices cannot be "
			 "mounted; is btrfs in the initramfs?", BTRFS_CONTROL, strerror(errno),
			 r < 0 ? "; loading btrfs: " : "", r < 0 ? strerror(-r) : "");
		b->unusable = true;
	}
out:
	return b->control >= 0;
}

/* ioctl on the control device with a device path: its result, or -errno. */
static int control_ioctl(struct btrfs_boot *b, unsigned long request, const char *devpath)
{
	struct btrfs_ioctl_vol_args args = { .fd = 0 };
	int r;

	COPY_STR(args.name, devpath);
	r = ioctl(b->control, request, &args);
	return r < 0 ? -errno : r;
}

static void scan(struct btrfs_boot *b, const struct part *part)
{
	int r = control_ioctl(b, BTRFS_IOC_SCAN_DEV, part->devpath);

	if (r < 0)
		log_warn("btrfs: the kernel refused to scan %s (%s): a filesystem it belongs to cannot "
			 "be mounted from it", part->devpath, strerror(-r));
	else
		log_debug("btrfs: %s scanned (filesystem %s)", part->devpath, part->fsuuid);
}

static bool is_btrfs_device(const struct part *part)
{
	return streq(part->fstype, "btrfs") && part->devpath[0];
}

/* The kernel keeps the list: a device shown again is no harm, and none is remembered here.
 * Until a plan mounts a btrfs (btrfs_plan_mounts()), its devices wait, unsaid. */
static const struct stack_kind btrfs_kind = { .member = "btrfs", .every_event = true };

void btrfs_probed(const struct part *part, void *data)
{
	struct btrfs_boot *b = data;

	if (stack_gate_pass(&b->gate, &btrfs_kind, b->control >= 0, part))
		scan(b, part);
}

void btrfs_mark_incomplete(struct btrfs_boot *b, struct disk_set *disks)
{
	for (size_t d = 0; d < disks->n && b->control >= 0; d++)
		for (size_t i = 0; i < disks->disks[d].n_parts; i++) {
			struct part *part = &disks->disks[d].parts[i];

			/* 0: every device known; 1: some missing; an error leaves the mount to say */
			if (is_btrfs_device(part))
				part->fs_incomplete =
					control_ioctl(b, BTRFS_IOC_DEVICES_READY, part->devpath) == 1;
		}
}

bool btrfs_plan_mounts(struct btrfs_boot *b, const struct plan *plan, struct disk_set *disks)
{
	bool mounts = false;

	for (size_t i = 0; i < plan->n_steps && !mounts; i++)
		mounts = plan->steps[i].op == OP_MOUNT && streq(plan->steps[i].fstype, "btrfs");
	if (!mounts || b->control >= 0 || !control_open(b))
		return false;
	for (size_t d = 0; d < disks->n; d++)
		for (size_t i = 0; i < disks->disks[d].n_parts; i++)
			if (is_btrfs_device(&disks->disks[d].parts[i]))
				scan(b, &disks->disks[d].parts[i]);
	btrfs_mark_incomplete(b, disks);
	return true;
}
