/* One whole block device probed with its partitions, as sysfs and devtmpfs show it: at boot
 * for each disk that appears (init/devices/devices.c), on a running host for `earlymount check`. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block_probe.h"
#include "log.h"
#include "paths.h"
#include "sysfs.h"
#include "util.h"

/* libblkid reads a GPT from its backup when the primary header is damaged; the kernel does
 * not (unless booted with "gpt"), and creates no partitions. What the kernel did not create
 * cannot be mounted: leave it out of the model, and say why once per disk. */
static void drop_partitions_without_node(struct disk *disk)
{
	char path[PATH_MAX];
	size_t kept = 0, dropped = 0;

	for (size_t i = 0; i < disk->n_parts; i++) {
		const char *name = startswith(disk->parts[i].devpath, "/dev/");

		snprintf(path, sizeof(path), "/sys/class/block/%s", name ? name : "");
		if (name && access(path, F_OK) < 0) {
			dropped++;
			continue;
		}
		if (kept != i)
			disk->parts[kept] = disk->parts[i];
		kept++;
	}
	disk->n_parts = kept;
	if (dropped > 0 && streq(disk->pttype, "gpt"))
		log_warn("%s: the kernel created no device for %zu of the partitions its gpt table "
			 "lists (a damaged primary GPT? the kernel reads the backup only with 'gpt' on "
			 "its command line): boot with gpt, or repair the table (sgdisk -e)",
			 disk->path, dropped);
	else if (dropped > 0)
		log_warn("%s: the kernel created no device for %zu of the partitions its %s table "
			 "lists: they cannot be mounted", disk->path, dropped,
			 disk->pttype[0] ? disk->pttype : "partition");
}

/* A whole device-mapper device gets its name, and who made it, from sysfs. */
static void read_dm_names(const char *name, struct disk *disk)
{
	char path[PATH_MAX];
	struct part *whole = disk->n_parts == 1 && disk->parts[0].number == PART_WHOLE_DEVICE
				     ? &disk->parts[0]
				     : NULL;

	snprintf(path, sizeof(path), "/sys/class/block/%s/dm/name", name);
	if (!whole || !sysfs_read_line_at(AT_FDCWD, path, whole->dm_name, sizeof(whole->dm_name)))
		return;
	snprintf(path, sizeof(path), "/sys/class/block/%s/dm/uuid", name);
	(void)sysfs_read_line_at(AT_FDCWD, path, whole->dm_uuid, sizeof(whole->dm_uuid));
}

/* A whole md array gets its name from the link mdadm made for it, /dev/md/NAME. */
static void read_md_name(const char *name, struct disk *disk)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct part *whole = disk->n_parts == 1 && disk->parts[0].number == PART_WHOLE_DEVICE
				     ? &disk->parts[0]
				     : NULL;
	DIR *dir;
	struct dirent *de;
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/block/%s/md", name);
	if (!whole || access(path, F_OK) < 0 || !(dir = opendir(MD_DEV_DIR)))
		return;
	while ((de = readdir(dir)) && !whole->md_name[0]) {
		snprintf(path, sizeof(path), MD_DEV_DIR "/%s", de->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (streq(strrchr(target, '/') ? strrchr(target, '/') + 1 : target, name))
			COPY_STR(whole->md_name, de->d_name);
	}
	closedir(dir);
}

int block_probe(const char *name, const struct probe_filter *filter, struct disk *disk)
{
	char path[PATH_MAX], node[PATH_MAX], value[32];
	int r = 0;

	snprintf(path, sizeof(path), "/sys/class/block/%s/size", name);
	if (!sysfs_read_line_at(AT_FDCWD, path, value, sizeof(value)) || streq(value, "0"))
		goto out; /* no medium, or an unused loop/ram/zram device */
	snprintf(node, sizeof(node), "/dev/%s", name);
	r = probe_disk_filtered(node, disk, filter);
	if (r < 0)
		goto out;
	snprintf(path, sizeof(path), "/sys/block/%s/removable", name);
	disk->removable = sysfs_read_line_at(AT_FDCWD, path, value, sizeof(value)) && streq(value, "1");
	drop_partitions_without_node(disk);
	read_dm_names(name, disk);
	read_md_name(name, disk);
	r = 1;
out:
	return r;
}

bool block_is_whole(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/class/block/%s/partition", name);
	return name[0] != '.' && access(path, F_OK) < 0;
}

int block_probe_all(struct disk_set *set)
{
	DIR *dir = opendir("/sys/class/block");
	struct dirent *de;
	struct disk *disk;
	int r = dir ? 0 : -errno;

	while (r == 0 && (de = readdir(dir))) {
		if (!block_is_whole(de->d_name))
			continue;
		disk = disk_set_add(set);
		r = disk ? block_probe(de->d_name, NULL, disk) : -ENOMEM;
		/* one unreadable device (a drive without its medium, no permission) is left out */
		if (r < 0 && r != -ENOMEM)
			log_warn("unable to probe /dev/%s: %s", de->d_name, strerror(-r));
		if (r <= 0 && disk) {
			free(disk->parts);
			set->n--; /* the slot is the next one's */
		}
		r = r == -ENOMEM ? r : 0;
	}
	if (dir)
		closedir(dir);
	if (r == 0)
		disk_set_sort(set);
	return r;
}
