/* First-boot growth, done while the filesystem is mounted: ext4's EXT4_IOC_RESIZE_FS (the
 * new size in blocks) and btrfs's BTRFS_IOC_RESIZE ("max": its device's size). Both grow
 * online and journal what they change, so a power cut leaves the filesystem at its old size
 * or its new one. */
#include <errno.h>
#include <fcntl.h>
#include <linux/btrfs.h>
#include <linux/fs.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "growfs.h"
#include "log.h"
#include "util.h"

/* fs/ext4/ext4.h: not in the kernel's uapi headers */
#define EXT4_IOC_RESIZE_FS _IOW('f', 16, uint64_t)

static int device_bytes(const char *device, uint64_t *bytes)
{
	int fd = open(device, O_RDONLY | O_CLOEXEC);
	int r = fd < 0 || ioctl(fd, BLKGETSIZE64, bytes) < 0 ? -errno : 0;

	if (fd >= 0)
		close(fd);
	return r;
}

static int grow_ext4(int fd, uint64_t device_size, const struct statfs *st)
{
	uint64_t blocks = device_size / (uint64_t)st->f_bsize;

	return ioctl(fd, EXT4_IOC_RESIZE_FS, &blocks) < 0 ? -errno : 0;
}

static int grow_btrfs(int fd)
{
	struct btrfs_ioctl_vol_args args;

	memset(&args, 0, sizeof(args));
	snprintf(args.name, sizeof(args.name), "max");
	return ioctl(fd, BTRFS_IOC_RESIZE, &args) < 0 ? -errno : 0;
}

static uint64_t mib(const struct statfs *st)
{
	return (uint64_t)st->f_blocks * (uint64_t)st->f_bsize / (1024 * 1024);
}

int growfs_mounted(const char *target, const char *device, const char *fstype, char *why,
		   size_t why_size)
{
	struct statfs before, after;
	uint64_t size = 0;
	int fd = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int r = fd < 0 ? -errno : device_bytes(device, &size);

	if (r == 0 && fstatfs(fd, &before) < 0)
		r = -errno;
	if (r < 0) {
		set_why(why, why_size, "unable to grow %s: %s: %s", target,
			fd < 0 ? "cannot open it" : "cannot read its size or its device's", strerror(-r));
		goto out;
	}
	r = streq(fstype, "ext4") ? grow_ext4(fd, size, &before)
	    : streq(fstype, "btrfs") ? grow_btrfs(fd)
				     : -EOPNOTSUPP;
	if (r < 0) {
		set_why(why, why_size, "unable to grow %s (%s) to the %llu MiB of %s: %s", target,
			fstype, (unsigned long long)(size / (1024 * 1024)), device, strerror(-r));
		goto out;
	}
	if (fstatfs(fd, &after) < 0)
		after = before;
	if (mib(&after) > mib(&before))
		log_info("grew %s (%s) from %llu MiB to %llu MiB, the size of %s", target, fstype,
			 (unsigned long long)mib(&before), (unsigned long long)mib(&after), device);
	else
		log_info("%s (%s) fills %s already (%llu MiB)", target, fstype, device,
			 (unsigned long long)mib(&after));
out:
	if (fd >= 0)
		close(fd);
	return r;
}
