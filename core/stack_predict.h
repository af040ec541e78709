/* `earlymount plan` on disk images, the storage stacks seen from the host: a logical volume or
 * an md array that the command line names does not exist until the boot activates it (lvm2)
 * or assembles it (mdadm) from the members on the disks, and the host cannot look inside the
 * members (no metadata parser of earlymount's own). Pure: the device the command line names is
 * added to the set as predicted (part.predicted), when the disks hold members it could be made
 * of; the planner then plans its mount, behind the step that makes it, as the boot will once the
 * device appeared. Never at boot, where the devices themselves appear. */
#pragma once

#include "cmdline.h"
#include "disk.h"
#include "fstab.h"

/* What kind of stacked device a spec names by its path alone. */
enum stack_kind {
	STACK_NONE,
	STACK_LVM, /* /dev/mapper/VG-LV, /dev/VG/LV */
	STACK_MD,  /* /dev/mdN, /dev/md/NAME */
};

/* The kind of device spec names; for STACK_LVM, dm_name gets its device-mapper name
 * ("vg0-root", each '-' of VG and LV doubled). */
enum stack_kind stack_kind_of(const char *spec, char *dm_name, size_t size);

/* Whether a part of fstype is in set; with md, only members of arrays md lets the boot
 * assemble (rd.md.uuid=). */
bool stack_members_on(const struct disk_set *set, const char *fstype, const struct md_cmdline *md);

/* Adds to set the devices that root=, mount.usr=, resume= and the entries of the root's fstab
 * (NULL: none given) name, that are not on it and that the boot would make from members on it: LVM physical volumes (or LUKS volumes, whose insides may be
 * ones) for a logical volume, md members the command line lets the boot assemble for an array.
 * The number added, or -ENOMEM. */
int stack_predict(const struct options *opts, const struct fstab *fstab, struct disk_set *set);
