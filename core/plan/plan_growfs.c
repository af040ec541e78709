/* First-boot growth: a filesystem made smaller than its partition (an image written to a
 * larger disk) grown to fill it once mounted read-write, as systemd-growfs does. Asked for by
 * GPT bit 59 (grow-fs) of a discovered partition whose role honours it, or x-systemd.growfs
 * of an fstab entry. Growing needs the filesystem mounted read-write, and its driver's online
 * resize: ext4's and btrfs's are used (xfs has one too, not used yet). */
#include <string.h>

#include "plan_internal.h"
#include "util.h"

static const char *const growable[] = { "ext4", "btrfs" };

bool plan_part_grows(const struct disk *disk, const struct part *part)
{
	const struct dps_type *type = part ? dps_type_from_uuid(part->type) : NULL;

	return type && disk && streq(disk->pttype, "gpt") && (part->flags & GPT_FLAG_GROWFS) &&
	       dps_role_honours_grow_fs(type->role);
}

static bool is_growable(const char *fstype)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(growable) && !found; i++)
		found = streq(fstype, growable[i]);
	return found;
}

int plan_add_growfs(struct planner *p, const struct plan_step *mount, const char *asked_by)
{
	struct plan_step *step;
	int r = 0;

	if (!plan_flags_want_rw(mount->options)) {
		plan_note(p, "%s not grown (%s): it is mounted read-only", mount->target, asked_by);
	} else if (!is_growable(mount->fstype)) {
		plan_note(p, "%s not grown (%s): %s has no online resize earlymount uses (ext4, "
			  "btrfs)", mount->target, asked_by, mount->fstype[0] ? mount->fstype : "its type");
	} else {
		r = plan_add_step(p, OP_GROWFS, mount->source, mount->target, mount->fstype,
				  mount->part, &step);
		if (r == 0) {
			step->optional = true;
			plan_step_reason(step, "%s asks it to fill its device", asked_by);
		}
	}
	return r;
}
