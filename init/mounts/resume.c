/* Resume from hibernation. The kernel does the work: told the device (and the offset of a swap
 * file) in /sys/power, it reads the image and, when it is valid, jumps into the hibernated
 * system and never comes back. Whether it came back with or without an image shows only in
 * its log, so the header is read before: it says what to tell the user. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "cmdline.h"
#include "log.h"
#include "parse.h"
#include "probe.h"
#include "resume.h"
#include "sysfs.h"
#include "util.h"

/* "MAJ:MIN" of a device node. 0 or -errno (-ENOTBLK for anything but a block device). */
static int device_number(const char *device, char *out, size_t size)
{
	struct stat st;

	if (is_devno(device))
		return copy_str(out, size, device);
	if (stat(device, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	snprintf(out, size, "%u:%u", major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

int resume_attempt(const char *device, const char *offset, char *why, size_t size)
{
	const char *file = SYS_POWER_RESUME_OFFSET;
	const char *value = offset;
	char devno[32];
	char held[32] = "";
	int r = device_number(device, devno, sizeof(devno));

	if (r < 0) {
		snprintf(why, size, "unable to resume from %s: %s", device, strerror(-r));
		goto out;
	}
	/* For the message only: a swap file's image is inside a filesystem, out of libblkid's
	 * sight. */
	if (!is_devno(device) && probe_device_fstype(device, held, sizeof(held)) < 0)
		held[0] = '\0';
	if (offset)
		r = sysfs_write(file, offset);
	if (r == 0) {
		log_info("resume: asking the kernel to resume from %s (%s)%s%s", device, devno,
			 offset ? " at page " : "", offset ? offset : "");
		file = SYS_POWER_RESUME;
		value = devno;
		r = sysfs_write(file, devno);
	}
	if (r == -ENOENT) {
		snprintf(why, size, "unable to resume from %s: the kernel was built without "
			 "hibernation (no %s)", device, file);
	} else if (r < 0) {
		snprintf(why, size, "unable to resume from %s: writing %s to %s: %s", device, value,
			 file, strerror(-r));
	} else if (streq(held, "swsuspend")) {
		log_warn("resume: the kernel did not resume from the hibernation image on %s: it could "
			 "not load it (written by another kernel, or damaged; its 'PM:' messages say "
			 "which); the image is dropped and the boot goes on fresh", device);
	} else if (offset) {
		log_info("resume: the kernel found no image it could load on %s at page %s; booting "
			 "fresh", device, offset);
	} else {
		log_info("resume: no hibernation image on %s (it holds %s); booting fresh", device,
			 held[0] ? held : "nothing libblkid recognises");
	}
out:
	return r;
}
