/* The disk model's containers and lookups, the byte ranges of partitions, and the text read
 * from disks. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "disk.h"
#include "lvm_names.h"
#include "util.h"

struct disk *disk_set_add(struct disk_set *set)
{
	struct disk *grown = realloc(set->disks, (set->n + 1) * sizeof(*grown));

	if (!grown)
		return NULL;
	set->disks = grown;
	memset(&grown[set->n], 0, sizeof(grown[0]));
	return &grown[set->n++];
}

/* The room for partitions doubles, from 8: growing it by one copied a table of n entries
 * (2 KiB each) n times. The room follows from n_parts alone — 8, or the power of two n_parts
 * has passed — so a disk that drops partitions or is moved keeps a consistent one. */
static bool parts_full(size_t n)
{
	return n == 0 || (n >= 8 && (n & (n - 1)) == 0);
}

struct part *disk_add_part(struct disk *disk)
{
	size_t n = disk->n_parts;
	struct part *grown = disk->parts;

	if (parts_full(n)) {
		grown = realloc(disk->parts, (n == 0 ? 8 : 2 * n) * sizeof(*grown));
		if (!grown)
			return NULL;
		disk->parts = grown;
	}
	memset(&grown[n], 0, sizeof(grown[0]));
	disk->n_parts = n + 1;
	return &grown[n];
}

static int disk_compare(const void *a, const void *b)
{
	const struct disk *da = a, *db = b;

	return strverscmp(da->path, db->path);
}

void disk_set_sort(struct disk_set *set)
{
	if (set->n > 1)
		qsort(set->disks, set->n, sizeof(*set->disks), disk_compare);
}

void disk_set_free(struct disk_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->disks[i].parts);
	free(set->disks);
	set->disks = NULL;
	set->n = 0;
}

uint64_t part_end(const struct part *part)
{
	return part->size > UINT64_MAX - part->start ? UINT64_MAX : part->start + part->size;
}

const struct part *disk_find_overlap(const struct disk *disk, const struct part *part)
{
	const struct part *found = NULL;

	for (size_t i = 0; i < disk->n_parts && !found && part->size > 0; i++) {
		const struct part *other = &disk->parts[i];

		if (other != part && other->size > 0 && other->start < part_end(part) &&
		    part->start < part_end(other))
			found = other;
	}
	return found;
}

const char *disk_part_name(const struct disk *disk, const struct part *part, char *buf,
			   size_t size)
{
	if (part_is_whole_device(disk, part))
		snprintf(buf, size, "the whole of %.200s", disk->path);
	else
		snprintf(buf, size, "partition %u of %.200s", part->number, disk->path);
	return buf;
}

bool part_is_lvm(const struct part *part)
{
	return startswith(part->dm_uuid, "LVM-") != NULL;
}

/* Whether dm_uuid is cryptsetup's for the LUKS header luks_uuid: CRYPT-LUKS1-HEX-NAME or
 * CRYPT-LUKS2-HEX-NAME, HEX the 32 hex digits of the UUID in its own case. */
static bool dm_uuid_is_luks(const char *dm_uuid, const char *luks_uuid)
{
	const char *hex = startswith(dm_uuid, "CRYPT-LUKS");
	size_t n = 0;

	if (!hex || (hex[0] != '1' && hex[0] != '2') || hex[1] != '-')
		return false;
	hex += 2;
	for (const char *u = luks_uuid; *u; u++) {
		if (*u == '-')
			continue;
		if (tolower((unsigned char)hex[n]) != tolower((unsigned char)*u))
			return false;
		n++;
	}
	return n == 32 && hex[n] == '-';
}

const struct part *disk_set_find_unlocked(const struct disk_set *set, const char *luks_uuid)
{
	for (size_t d = 0; d < set->n; d++)
		for (size_t i = 0; i < set->disks[d].n_parts; i++)
			if (dm_uuid_is_luks(set->disks[d].parts[i].dm_uuid, luks_uuid))
				return &set->disks[d].parts[i];
	return NULL;
}

/* /dev/VG/LV, the link lvm2 makes for a logical volume. */
static bool lvm_path_matches(const struct part *p, const char *spec)
{
	char vg[LVM_NAME_MAX], lv[LVM_NAME_MAX];
	const char *rest = startswith(spec, "/dev/");
	const char *slash = rest ? strchr(rest, '/') : NULL;

	return part_is_lvm(p) && slash && lvm_split_dm_name(p->dm_name, vg, sizeof(vg), lv, sizeof(lv)) &&
	       strlen(vg) == (size_t)(slash - rest) && strncmp(vg, rest, strlen(vg)) == 0 &&
	       streq(lv, slash + 1);
}

static bool part_matches(const struct part *p, const char *spec)
{
	const char *v;

	if ((v = startswith(spec, "PARTUUID=")))
		return p->partuuid[0] && strcasecmp(p->partuuid, v) == 0;
	if ((v = startswith(spec, "PARTLABEL=")))
		return p->label[0] && streq(p->label, v);
	if ((v = startswith(spec, "UUID=")))
		return p->fsuuid[0] && strcasecmp(p->fsuuid, v) == 0;
	if ((v = startswith(spec, "LABEL=")))
		return p->fslabel[0] && streq(p->fslabel, v);
	if ((v = startswith(spec, "/dev/mapper/")) && p->dm_name[0])
		return streq(p->dm_name, v);
	if ((v = startswith(spec, "/dev/md/")) && p->md_name[0])
		return streq(p->md_name, v);
	return (p->devpath[0] && streq(p->devpath, spec)) || lvm_path_matches(p, spec);
}

/* Filesystems one mount may span several devices of. */
static const char *const multi_device_fstypes[] = { "btrfs" };

bool part_same_filesystem(const struct part *a, const struct part *b)
{
	bool multi = false;

	for (size_t i = 0; i < ARRAY_SIZE(multi_device_fstypes); i++)
		multi = multi || streq(a->fstype, multi_device_fstypes[i]);
	return multi && streq(a->fstype, b->fstype) && a->fsuuid[0] &&
	       strcasecmp(a->fsuuid, b->fsuuid) == 0 && a->fsuuid_sub[0] && b->fsuuid_sub[0] &&
	       strcasecmp(a->fsuuid_sub, b->fsuuid_sub) != 0;
}

size_t disk_set_find_all(const struct disk_set *set, const char *spec, const struct part **parts,
			 const struct disk **disks, size_t max)
{
	const struct part *first = NULL;
	size_t n = 0;

	for (size_t d = 0; d < set->n; d++) {
		for (size_t i = 0; i < set->disks[d].n_parts; i++) {
			const struct part *p = &set->disks[d].parts[i];

			if (!part_matches(p, spec) || (first && part_same_filesystem(first, p)))
				continue;
			first = first ? first : p;
			if (parts && n < max)
				parts[n] = p;
			if (disks && n < max)
				disks[n] = &set->disks[d];
			n++;
		}
	}
	return n;
}

int disk_set_find(const struct disk_set *set, const char *spec, const struct part **part,
		  const struct disk **disk)
{
	const struct part *found = NULL;
	const struct disk *found_disk = NULL;
	size_t n = disk_set_find_all(set, spec, &found, &found_disk, 1);

	if (part)
		*part = n == 1 ? found : NULL;
	if (disk)
		*disk = n == 1 ? found_disk : NULL;
	return n == 0 ? -ENOENT : n > 1 ? -ENOTUNIQ : 0;
}
