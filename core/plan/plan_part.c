/* What the spec and the kernel allow of one partition, whatever role it is wanted for: its
 * type and GPT flags, damage in the table, the filesystem on it; and which partition a device
 * spec of the command line names. Both the root and /usr choice (plan_pick.c) and the other
 * roles (plan_roles.c) ask here, so that they refuse alike and in the same words. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

/* Kept in step with dps_fstype_allowed(), for messages. */
#define ALLOWED_FSTYPES "btrfs, erofs, ext4, f2fs, squashfs, vfat, xfs"

/* The kernel makes devices for partitions 1 to DISK_MAX_PARTS - 1 only (the entry loops of
 * block/partitions/efi.c and msdos.c stop there): one numbered higher cannot be mounted. */
#define KERNEL_MAX_PART_NUMBER 255

/* Journalled filesystems that take "norecovery" to skip replaying their log. */
static const char *const journal_fstypes[] = { "ext4", "xfs", "btrfs" };

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (streq(s, list[i]))
			return true;
	return false;
}

enum dps_role plan_part_role(const struct part *part)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return type ? type->role : DPS_UNKNOWN;
}

bool plan_part_is(const struct part *part, enum dps_role role, enum arch arch)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return type && type->role == role && (arch == ARCH_INVALID || type->arch == arch);
}

bool plan_disk_is_gpt(const struct disk *disk)
{
	return streq(disk->pttype, "gpt");
}

/* Bit 60 means something only for the roles the spec gives it to, and only in a GPT. */
bool plan_part_read_only(const struct part *part, const struct disk *disk)
{
	enum dps_role role = plan_part_role(part);

	return plan_disk_is_gpt(disk) && role != DPS_UNKNOWN && (part->flags & GPT_FLAG_READ_ONLY) &&
	       dps_role_honours_read_only(role);
}

/* Why the spec says not to pick part by itself, or NULL when it may be picked. */
const char *plan_auto_skip_reason(const struct part *part, enum dps_role role)
{
	if ((part->flags & GPT_FLAG_NO_AUTO) && dps_role_honours_no_auto(role))
		return "bit 63 (no-auto) set";
	if ((role == DPS_ROOT || role == DPS_USR) && streq(part->label, "_empty"))
		return "label '_empty' marks it unused";
	if (role == DPS_ESP && (part->flags & GPT_FLAG_NO_BLOCK_IO))
		return "bit 1 (NoBlockIO) set: the firmware must not read it";
	if (!part->partuuid[0])
		return "it has no PARTUUID";
	return NULL;
}

void plan_note_passed_over(struct planner *p, const struct part *part, enum dps_role role,
			   const char *why)
{
	char label[LABEL_SHOWN];

	if (part->label[0])
		plan_note(p, "partition %u (%s, label '%s') passed over: %s", part->number,
			  dps_role_name(role), plan_label_shown(part->label, label), why);
	else
		plan_note(p, "partition %u (%s) passed over: %s", part->number, dps_role_name(role), why);
}

bool plan_fstype_journalled(const char *fstype)
{
	return in_list(fstype, journal_fstypes, ARRAY_SIZE(journal_fstypes));
}

/* What to name instead of a device of kind, with the key that names it ("root="), into t. */
static void add_instead(struct text *t, const struct not_mountable *kind, const char *key)
{
	/* a key of the command line prefixes the device; the fstab's names it alone */
	const char *k = key && key[0] && key[strlen(key) - 1] == '=' ? key : "";

	if (kind->instead == INSTEAD_UNLOCKED)
		plan_text_add(t, ": name its unlocked device instead (%s/dev/mapper/NAME, with "
			      "rd.luks.name=UUID=NAME)", k);
	else if (kind->instead == INSTEAD_LV)
		plan_text_add(t, ": name the logical volume on it instead (%s/dev/mapper/VG-LV or "
			      "%s/dev/VG/LV)", k, k);
	else if (kind->instead == INSTEAD_ARRAY)
		plan_text_add(t, ": name the array instead (%s/dev/md/NAME)", k);
}

/* Refuses part, which holds no filesystem to mount: says what it is and what to name. */
static int refuse_not_mountable(struct planner *p, const char *name, const struct part *part,
				const struct not_mountable *kind, const struct fstype_check *c)
{
	struct text t;

	plan_text_init(&t, p->plan->error, sizeof(p->plan->error));
	plan_text_add(&t, "%s: %s is %s (%s), %s", c->what, name, kind->what, part->fstype, kind->why);
	add_instead(&t, kind, c->key);
	plan_text_mark_cut(&t);
	return -EPERM;
}

/* The filesystem to mount part (of disk) with: forced (rootfstype=) wins; else what was
 * probed, if the spec (discovered) or the kernel (explicit) can mount it. */
int plan_check_fstype(struct planner *p, const struct disk *disk, const struct part *part,
		      const struct fstype_check *c, const char **fstype)
{
	const struct not_mountable *kind = NULL;
	char name[PLAN_PATH];
	int r = 0;

	if (c->forced && c->forced[0]) {
		*fstype = c->forced;
		goto out;
	}
	*fstype = part->fstype;
	if (part->predicted)
		goto out; /* probed at boot, once made */
	plan_part_name(disk, part, name, sizeof(name));
	if (part->fs_ambiguous)
		r = plan_fail(p, -EPERM, "%s: %s carries several filesystem signatures, so none is "
			      "trusted: it holds data, so do not format it; wipe the stale ones (wipefs "
			      "lists them), or give %s", c->what, name, c->forced_key);
	else if (!part->fstype[0])
		r = plan_fail(p, -EPERM, "%s: no filesystem recognised on %s; format it, or give %s if "
			      "the probe missed it", c->what, name, c->forced_key);
	else if ((kind = plan_not_mountable(part->fstype)))
		r = refuse_not_mountable(p, name, part, kind, c);
	else if (c->discovered && !dps_fstype_allowed(part->fstype))
		r = plan_fail(p, -EPERM, "%s: %s holds %s; earlymount mounts " ALLOWED_FSTYPES " (%s "
			      "forces a type)", c->what, name, part->fstype, c->forced_key);
out:
	return r;
}

bool plan_role_fstype_ok(struct planner *p, const struct part *part, enum dps_role role)
{
	bool ok;

	if (role == DPS_SWAP)
		ok = streq(part->fstype, "swap");
	else
		ok = part->fstype[0] && dps_fstype_allowed(part->fstype);
	if (role == DPS_SWAP && streq(part->fstype, "swsuspend"))
		plan_note(p, "partition %u (swap) not enabled as swap: it holds a hibernation image, "
			  "which swapping would overwrite", part->number);
	else if (!ok && part->fstype[0])
		plan_note(p, "partition %u (%s) not used: it holds %s; expected %s", part->number,
			  dps_role_name(role), part->fstype,
			  role == DPS_SWAP ? "a swap signature" : ALLOWED_FSTYPES);
	else if (!ok && part->fs_ambiguous)
		plan_note(p, "partition %u (%s) not used: it carries several filesystem signatures, so "
			  "none is trusted (wipefs lists them)", part->number, dps_role_name(role));
	else if (!ok)
		plan_note(p, "partition %u (%s) not used: no %s recognised on it", part->number,
			  dps_role_name(role), role == DPS_SWAP ? "swap signature" : "filesystem");
	return ok;
}

/* Why part cannot be mounted whatever the rules say, as a sentence that names it and says what
 * to do; false when it can. A hostile table may claim anything, so every range is checked
 * without overflow. Overlaps count on GPT disks only: there the spec forbids them, while an
 * MBR's extended partition holds its logical ones, and libblkid lists BSD or Solaris labels
 * nested inside a partition beside it. */
bool plan_part_damage(const struct disk *disk, const struct part *part, char why[PLAN_TEXT])
{
	const struct part *other = NULL;
	char name[PLAN_PATH];
	struct text t;

	disk_part_name(disk, part, name, sizeof(name));
	plan_text_init(&t, why, PLAN_TEXT);
	if (part->predicted)
		; /* not made yet: nothing to judge */
	else if (part->size == 0)
		plan_text_add(&t, "%s is empty (0 bytes): there is nothing to mount; repair the "
			      "partition table", name);
	else if (part->size > UINT64_MAX - part->start)
		plan_text_add(&t, "%s claims %" PRIu64 " bytes from byte %" PRIu64 ", past the end of "
			      "any disk; repair the partition table", name, part->size, part->start);
	else if ((part->number == 0 && !part_is_whole_device(disk, part)) ||
		 part->number > KERNEL_MAX_PART_NUMBER)
		plan_text_add(&t, "%s is numbered outside 1-%d, so the kernel makes no device for it; "
			      "move it to a lower entry of the table", name, KERNEL_MAX_PART_NUMBER);
	else if (part->read_error[0])
		plan_text_add(&t, "%s cannot be read: a read error at %s (the disk may be failing: copy "
			      "what it holds while it can be read, and check it with smartctl or "
			      "badblocks)", name, part->read_error);
	else if (plan_disk_is_gpt(disk) && (other = disk_find_overlap(disk, part)))
		plan_text_add(&t, "partitions %u and %u of %s overlap (bytes %" PRIu64 "-%" PRIu64 " and %"
			      PRIu64 "-%" PRIu64 "); refusing to mount either; repair the partition table",
			      part->number, other->number, disk->path, part->start, part_end(part) - 1,
			      other->start, part_end(other) - 1);
	plan_text_mark_cut(&t);
	return t.len > 0;
}

/* A damaged partition is never mounted, and no other is picked in its place: the plan fails
 * for root, /usr and the required mounts (optional ones are left out, see
 * plan_add_discovered_stage()). */
int plan_refuse_damaged(struct planner *p, const struct disk *disk, const struct part *part,
			const char *what)
{
	char why[PLAN_TEXT];

	return plan_part_damage(disk, part, why) ? plan_fail(p, -EPERM, "%s: %s", what, why) : 0;
}

/* The kernel mounts a btrfs over several devices once it was shown each of them (the boot
 * scans every member it probes); till then the plan waits, as for a partition still to come. */
int plan_check_members(struct planner *p, const struct part *part, const char *what,
		       const char *flags, const char *flags_key)
{
	char present[PLAN_PATH];
	unsigned n;
	int r = 0;

	if (!part->fs_incomplete || plan_flags_have(flags, "degraded"))
		goto out;
	n = plan_list_fs_members(p, part, present);
	r = plan_fail(p, -ENOENT, "%s: the %s filesystem UUID=%s spans several devices, and only %s "
		      "of them %s there (%sdegraded mounts it without the others)", what, part->fstype,
		      part->fsuuid, present, n > 1 ? "are" : "is", flags_key);
out:
	return r;
}

/* The partition a device spec of the command line names, key= in messages. */
int plan_resolve_spec(struct planner *p, const char *key, const char *spec,
		      const struct part **part, const struct disk **disk)
{
	int r = disk_set_find(p->disks, spec, part, disk);
	char matches[PLAN_ERROR];

	if (r == -ENOTUNIQ)
		r = plan_fail(p, -ENOTUNIQ, "%s%s matches several partitions (%s): refusing to pick one; "
			      "name it by PARTUUID=", key, spec,
			      plan_name_matches(p, spec, matches, sizeof(matches)));
	else if (r < 0)
		r = plan_fail_found(p, -ENOENT, "%s%s matches no partition (at boot the device may not "
				    "have appeared yet%s)", key, spec,
				    plan_stack_hint(p, spec));
	return r;
}
