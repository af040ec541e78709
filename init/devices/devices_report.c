/* What the devices stage found, said when no root came: each disk with its partitions, and
 * the devices no module in the image matched. */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "devices.h"
#include "dps.h"
#include "format_size.h"
#include "log.h"
#include "modalias.h"
#include "sysfs.h"
#include "util.h"

static uint64_t disk_size(const struct disk *disk)
{
	const char *name = startswith(disk->path, "/dev/");
	char path[PATH_MAX], value[32];

	snprintf(path, sizeof(path), "/sys/class/block/%s/size", name ? name : "");
	/* sysfs counts 512-byte sectors whatever the logical block size */
	return name && sysfs_read_line_at(AT_FDCWD, path, value, sizeof(value)) ? strtoull(value, NULL, 10) * 512 : 0;
}

static void report_disk(const struct disk *disk, const struct probe_filter *filter)
{
	char size[32];

	format_size(disk_size(disk), size, sizeof(size));
	log_notice("disk %s: %s, %s%s, %zu partition%s", disk->path, size,
		   disk->pttype[0] ? disk->pttype : "no partition table",
		   disk->removable ? ", removable" : "", disk->n_parts, disk->n_parts == 1 ? "" : "s");
	for (size_t i = 0; i < disk->n_parts; i++) {
		const struct part *p = &disk->parts[i];
		const struct dps_type *type = dps_type_from_uuid(p->type);
		const char *arch = type && type->arch != ARCH_INVALID ? arch_name(type->arch) : NULL;
		char psize[32], name[32];

		format_size(p->size, psize, sizeof(psize));
		if (part_is_whole_device(disk, p))
			snprintf(name, sizeof(name), "the whole device");
		else
			snprintf(name, sizeof(name), "partition %u", p->number);
		log_notice("  %s: %s, type %s%s%s%s%s%s, %s, PARTUUID %s%s%s%s", name, psize, p->type,
			   type ? " (" : "", type ? dps_role_name(type->role) : "",
			   arch ? " " : "", arch ? arch : "", type ? ")" : "",
			   p->fstype[0] ? p->fstype : p->fs_ambiguous ? "several filesystem signatures"
				: !filter || filter->want_filesystem(p, filter->data)
				? "no filesystem recognised" : "filesystem not probed",
			   p->partuuid[0] ? p->partuuid : "none", p->label[0] ? ", label \"" : "",
			   p->label, p->label[0] ? "\"" : "");
	}
}

static size_t count_unmatched(const struct modules *m, bool storage)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_unmatched; i++)
		n += modalias_may_be_storage(m->unmatched[i]) == storage;
	return n;
}

static void report_unmatched(const struct modules *m, bool storage, int level, const char *what)
{
	char list[1536];
	size_t used = 0;

	list[0] = '\0';
	for (size_t i = 0; i < m->n_unmatched && used < sizeof(list); i++)
		if (modalias_may_be_storage(m->unmatched[i]) == storage)
			used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
						 m->unmatched[i]);
	if (used > 0)
		log_msg(level, "%s: %s", what, list);
}

void devices_report(const struct devices *d)
{
	const struct modules *m = d->modules;
	size_t others;

	if (d->disks.n == 0)
		log_err("no block device appeared: the disk's driver may be missing from the initramfs");
	else
		log_notice("block devices seen: %zu", d->disks.n);
	for (size_t i = 0; i < d->disks.n; i++)
		report_disk(&d->disks.disks[i], d->filter);
	if (!m || m->n_unmatched == 0)
		return;
	report_unmatched(m, true, LOG_ERR,
			 "modaliases with no module in the initramfs (add the driver with earlymount initramfs --module NAME)");
	/* Input devices, ACPI buttons, the DMI table: rarely what a boot waits for, and a long
	 * line that would hide the one above. */
	others = count_unmatched(m, false);
	if (others > 0)
		log_notice("%zu other devices have no module in the initramfs (rarely needed to boot; "
			   "rd.debug lists them)", others);
	report_unmatched(m, false, LOG_DEBUG, "other devices without a module in the initramfs");
	if (m->n_unmatched == MODULES_MAX_UNMATCHED)
		log_notice("(only the first %d modaliases without a module are kept)", MODULES_MAX_UNMATCHED);
}
