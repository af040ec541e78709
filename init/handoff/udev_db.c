/* The real system's udev, at its coldplug, sees an "add" event for every device-mapper device
 * that exists. lvm2's 10-dm.rules take such an event for a device still being made, and turn
 * it off for systemd (SYSTEMD_READY=0), unless udev's database says the device went through
 * the rules in the initramfs: DM_UDEV_PRIMARY_SOURCE_FLAG=1, which an initramfs running udev
 * leaves in /run/udev/data. earlymount runs no udev, so without these entries a logical volume
 * the real fstab names other than the root (a swap LV, a separate /home) never becomes a
 * device unit, and systemd waits for it until it times out. What is written is what the rules
 * would have recorded for a device made with udev synchronisation: the flag, the rules'
 * version, the name and the UUID. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "log.h"
#include "sysfs.h"
#include "udev_db.h"
#include "util.h"

#define UDEV_DATA "/run/udev/data"

/* /sys/block/DM/ATTR's line into buf: whether there was one. */
static bool attr(const char *dm, const char *name, char *buf, size_t size)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/block/%s/%s", dm, name);
	return sysfs_read_line_at(AT_FDCWD, path, buf, size);
}

static int record(const char *dm)
{
	char devno[32], name[128], uuid[160], path[96], text[512];
	int fd, n, r = 0;

	if (!attr(dm, "dev", devno, sizeof(devno)) || !attr(dm, "dm/name", name, sizeof(name)))
		return -ENOENT;
	if (!attr(dm, "dm/uuid", uuid, sizeof(uuid)))
		uuid[0] = '\0';
	snprintf(path, sizeof(path), UDEV_DATA "/b%s", devno);
	n = snprintf(text, sizeof(text), "E:DM_UDEV_PRIMARY_SOURCE_FLAG=1\nE:DM_UDEV_RULES_VSN=2\n"
					 "E:DM_NAME=%s\n%s%s%s", name, uuid[0] ? "E:DM_UUID=" : "",
		     uuid, uuid[0] ? "\n" : "");
	/* an entry that is there is udev's own: left as it is */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		r = errno == EEXIST ? 0 : -errno;
	else if (n < 0 || (size_t)n >= sizeof(text))
		r = -ENAMETOOLONG;
	else
		r = write_all(fd, text, (size_t)n);
	if (fd >= 0)
		close(fd);
	return r;
}

void udev_db_record_dm(void)
{
	DIR *d = opendir("/sys/block");
	struct dirent *e;
	unsigned n = 0;
	int r = 0;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!startswith(e->d_name, "dm-"))
			continue;
		if (n == 0 && (r = make_directories(UDEV_DATA, 0755)) < 0)
			break;
		r = record(e->d_name);
		if (r < 0)
			log_warn("unable to record %s in %s for udev: %s", e->d_name, UDEV_DATA,
				 strerror(-r));
		n++;
	}
	closedir(d);
	if (r < 0 && n == 0)
		log_warn("unable to make %s for udev: %s", UDEV_DATA, strerror(-r));
}
