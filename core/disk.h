/* The disks and partitions earlymount plans from: plain data, filled by probe.c at
 * boot and on the host, or by hand in tests. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uuid.h"
#include "verity.h"

/* A whole device holding a filesystem (or a storage stack's member) without a partition
 * table is one part numbered 0, covering all of it: a logical volume, an md array, a disk
 * formatted whole. */
#define PART_WHOLE_DEVICE 0

struct part {
	unsigned number;           /* 1-based partition number; PART_WHOLE_DEVICE */
	char type[UUID_STR_LEN];   /* GPT type UUID in lower case; MBR: "0x83" style */
	char partuuid[UUID_STR_LEN]; /* lower case; MBR: "xxxxxxxx-NN" */
	char label[256];           /* GPT partition name (UTF-8) */
	uint64_t flags;            /* GPT attribute bits */
	uint64_t start;            /* bytes from the start of the disk */
	uint64_t size;             /* bytes */
	char fstype[32];           /* "" when nothing was recognised */
	/* The probe found several filesystem signatures on it and trusted none (fstype is ""): it
	 * holds data, so it is never to be called unformatted. */
	bool fs_ambiguous;
	char fsuuid[64];
	char fslabel[256];
	/* The member's own UUID beside the filesystem's (libblkid's UUID_SUB: a btrfs device's
	 * dev_item UUID); "" when the type has none. */
	char fsuuid_sub[64];
	/* A member of a filesystem over several devices (btrfs) whose other devices the kernel
	 * has not all been shown yet: it cannot be mounted (but degraded). Set at boot only. */
	bool fs_incomplete;
	char devpath[64];          /* "/dev/vda2" at boot; "" for partitions of image files */
	/* A whole device-mapper device's name, /dev/mapper/NAME, and UUID ("" for others): who
	 * made it ("LVM-…": lvm2, and /dev/VG/LV names it too; "CRYPT-LUKS2-…": an unlocked LUKS
	 * volume). */
	char dm_name[128];
	char dm_uuid[129];
	/* A whole md array's name, /dev/md/NAME (the link mdadm makes); "" for others. */
	char md_name[64];
	/* A device the boot would make (a logical volume, an md array) that the command line
	 * names, seen from the host, where it is not made (core/stack_predict.h): what it holds
	 * is known at boot only. Never at boot. */
	bool predicted;
	/* A verity signature partition's root hash (its JSON's rootHash); "" when it is none, or
	 * when its JSON is unusable, and then verity_sig_error says why. */
	char verity_sig_hash[VERITY_HASH_HEX_MAX + 1];
	char verity_sig_error[96];
	/* a verity hash partition: why its superblock (at its start) is unusable, "" when it is
	 * usable or was not read */
	char verity_sb_error[96];
	/* a LUKS volume: why its header cannot be opened with a passphrase or key file (both
	 * copies named), "" when it can or was not read; and the tokens it holds, which the
	 * unlock does not use ("systemd-fido2 (keyslot 1)"); its systemd-tpm2 tokens, whether
	 * one wants a PIN, and why one cannot be used */
	char luks_error[320];
	/* a LUKS2 volume whose every segment has dm-integrity (its header's "integrity" of a type
	 * other than "none"), as systemd's "encryptedwithintegrity" asks; false for LUKS1 */
	bool luks_integrity;
	char luks_tokens[96];
	unsigned luks_tpm2;
	bool luks_tpm2_pin;
	char luks_tpm2_error[160];
	/* the probe met a read error: where ("sector 2050 of /dev/vda"), "" when it did not */
	char read_error[96];
};

struct disk {
	char path[PATH_MAX];       /* device node or image file */
	char pttype[16];           /* "gpt", "dos", "unixware", or "" when there is no partition table */
	char ptuuid[UUID_STR_LEN]; /* GPT disk UUID in lower case; MBR disk id */
	bool removable;
	unsigned sector_size;
	/* where the probe met a read error looking for the partition table, "" when it did not */
	char read_error[96];
	struct part *parts;
	size_t n_parts;
};

struct disk_set {
	struct disk *disks;
	size_t n;
};

/* Appends an empty disk; returns it, or NULL when out of memory. */
struct disk *disk_set_add(struct disk_set *set);
/* Appends an empty partition to disk; returns it, or NULL when out of memory. */
struct part *disk_add_part(struct disk *disk);
void disk_set_free(struct disk_set *set);
/* Sorts the disks by path, as a version sort does (sda, sdb, …, sdz, sdaa; nvme0n1p2 before
 * nvme0n1p10), so that what lists them reads the same on every boot. */
void disk_set_sort(struct disk_set *set);

/* Whether part is the whole of a device without a partition table, not an entry of one. */
static inline bool part_is_whole_device(const struct disk *disk, const struct part *part)
{
	return part->number == PART_WHOLE_DEVICE && !disk->pttype[0];
}

/* How messages name part by its table: "partition 2 of /dev/vda", and a device without a
 * partition table "the whole of lv.img", never partition 0 (the path cut at 200 bytes).
 * Returns buf. */
const char *disk_part_name(const struct disk *disk, const struct part *part, char *buf,
			   size_t size);

/* Whether part is an LVM2 logical volume (its dm UUID says lvm2 made it). */
bool part_is_lvm(const struct part *part);
/* The whole device that is the LUKS volume with header UUID luks_uuid, unlocked (its dm UUID
 * is cryptsetup's "CRYPT-LUKSn-HEX-NAME", HEX the UUID without dashes), or NULL. */
const struct part *disk_set_find_unlocked(const struct disk_set *set, const char *luks_uuid);

/* The end of part's byte range, start + size, saturated at UINT64_MAX: a hostile table may
 * claim any values, and a sum that wrapped around would make a huge range look small. */
uint64_t part_end(const struct part *part);
/* Another partition of disk whose byte range [start, end) shares a byte with part's, or
 * NULL. An empty range shares none. */
const struct part *disk_find_overlap(const struct disk *disk, const struct part *part);

/* Whether a and b are two devices of one filesystem over several devices (btrfs): the same
 * filesystem UUID and type, each with a device UUID of its own (a copied disk has the same). */
bool part_same_filesystem(const struct part *a, const struct part *b);

/* Finds the partition a device spec names — a /dev path (/dev/mapper/NAME and /dev/VG/LV for
 * a device-mapper device and a logical volume), PARTUUID=, PARTLABEL=, UUID=, LABEL= — and
 * its disk (either out pointer may be NULL). UUIDs compare case-insensitively. The devices of
 * one filesystem over several (part_same_filesystem()) are one match: the first is returned.
 * 0; -ENOENT when none matches; -ENOTUNIQ when several do (never pick one silently). */
int disk_set_find(const struct disk_set *set, const char *spec, const struct part **part,
		  const struct disk **disk);
/* The same match, all of it: the first max partitions spec names into parts and their disks
 * into disks (either may be NULL); how many it names in all. */
size_t disk_set_find_all(const struct disk_set *set, const char *spec, const struct part **parts,
			 const struct disk **disks, size_t max);
