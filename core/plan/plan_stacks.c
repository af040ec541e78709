/* The storage stacks under a device a mount takes. At boot they are made as their members
 * appear, before any plan can name the device: lvm2 activates a volume group
 * (init/stacks/lvm_activate.c), mdadm assembles an array (init/stacks/md_assemble.c), the kernel is shown
 * each device of a btrfs (init/stacks/btrfs_scan.c). The plan shows them where they stand in the
 * order, and `earlymount plan` on images that are not assembled, what the boot will make (a
 * predicted device, core/stack_predict.h). */
#include <errno.h>
#include <string.h>

#include "lvm_names.h"
#include "md_rules.h"
#include "plan_internal.h"
#include "stack_predict.h"
#include "util.h"

/* How a member is named: its device node at boot, its image's partition on the host. */
static void add_member_name(struct text *t, const struct disk *disk, const struct part *m)
{
	char name[PLAN_PATH];

	plan_text_add(t, "%s%s", t->len ? ", " : "", plan_part_name(disk, m, name, sizeof(name)));
}

typedef bool member_test(const struct planner *p, const struct part *part, const struct part *m);

/* The parts of the set that test says are part's members, named in out (", "-separated);
 * how many. */
static unsigned list_members(const struct planner *p, const struct part *part, member_test *test,
			     char out[PLAN_PATH])
{
	struct text text, *t = &text;
	unsigned n = 0;

	plan_text_init(t, out, PLAN_PATH);

	for (size_t d = 0; d < p->disks->n; d++)
		for (size_t i = 0; i < p->disks->disks[d].n_parts; i++) {
			const struct part *m = &p->disks->disks[d].parts[i];

			if (test(p, part, m)) {
				add_member_name(t, &p->disks->disks[d], m);
				n++;
			}
		}
	plan_text_mark_cut(t);
	return n;
}

/* Which volume group an LVM physical volume holds is in its metadata, which only lvm reads:
 * every one is a candidate, and on the host every LUKS volume too (LVM on LUKS). */
/* A physical volume, or on the host a LUKS volume the boot opens as it appears (listed by the
 * command line or the image's crypttab), whose insides may be one. */
static bool lvm_member(const struct planner *p, const struct part *lv, const struct part *m)
{
	const struct plan_volume *v = lv->predicted && plan_part_is_luks(m) ? plan_volume_of(p, m)
									    : NULL;

	return streq(m->fstype, "LVM2_member") || (v && v->listed);
}

/* On the host, a logical volume the command line names whose volume group can only lie inside
 * LUKS volumes the boot would not open: nothing lists them. */
static int refuse_unlisted(struct planner *p, const struct part *lv, const char *what)
{
	const struct part *luks = NULL;
	const struct disk *disk = NULL;
	char where[PLAN_PATH];

	for (size_t d = 0; d < p->disks->n && !luks; d++)
		for (size_t i = 0; i < p->disks->disks[d].n_parts && !luks; i++)
			if (plan_part_is_luks(&p->disks->disks[d].parts[i])) {
				disk = &p->disks->disks[d];
				luks = &disk->parts[i];
			}
	if (!luks)
		return plan_fail(p, -ENOENT, "%s: %s/%s is no device on the disks given, and no "
				 "physical volume is there to make it", what, DM_MAPPER_DIR, lv->dm_name);
	return plan_fail(p, -EPERM, "%s: %s/%s can only lie inside the encrypted volume on %s (no "
			 "physical volume is on the disks given), which %s: the boot would never "
			 "unlock it; name it in the image's crypttab (earlymount initramfs --crypttab), "
			 "or add rd.luks.uuid=%s", what, DM_MAPPER_DIR, lv->dm_name,
			 plan_part_name(disk, luks, where, sizeof(where)),
			 p->opts->luks.enabled ? "neither the command line nor the image's crypttab lists"
					       : "rd.luks=no leaves locked", luks->fsuuid);
}

static bool md_member(const struct planner *p, const struct part *array, const struct part *m)
{
	return streq(m->fstype, "linux_raid_member") && md_array_wanted(&p->opts->md, m->fsuuid);
}

static bool btrfs_member(const struct planner *p, const struct part *fs, const struct part *m)
{
	return m == fs || part_same_filesystem(fs, m);
}

unsigned plan_list_fs_members(const struct planner *p, const struct part *fs, char out[PLAN_PATH])
{
	return list_members(p, fs, btrfs_member, out);
}

static bool part_is_md(const struct disk *disk, const struct part *part)
{
	const char *n = startswith(disk->path, "/dev/md");

	return part->md_name[0] || (part_is_whole_device(disk, part) && n && *n >= '0' && *n <= '9');
}

/* A step of kind op that makes target already in the plan (root and resume on one volume). */
static bool planned(const struct planner *p, enum plan_op op, const char *target)
{
	for (size_t i = 0; i < p->plan->n_steps; i++)
		if (p->plan->steps[i].op == op && streq(p->plan->steps[i].target, target))
			return true;
	return false;
}

static int add(struct planner *p, enum plan_op op, const char *members, const char *target,
	       const char *fstype, const struct part *part, struct plan_step **step)
{
	*step = NULL;
	if (planned(p, op, target))
		return 0;
	return plan_add_step(p, op, members, target, fstype, part, step);
}

static int add_activate(struct planner *p, const struct part *lv, const char *what)
{
	char vg[LVM_NAME_MAX], name[LVM_NAME_MAX], target[PLAN_PATH], members[PLAN_PATH];
	struct plan_step *step = NULL;
	unsigned n;
	int r = 0;

	/* lvm2's own hidden devices are named on purpose, and made with the LV: no step of theirs */
	if (!lvm_split_dm_name(lv->dm_name, vg, sizeof(vg), name, sizeof(name)))
		goto out;
	n = list_members(p, lv, lvm_member, members);
	snprintf(target, sizeof(target), DM_MAPPER_DIR "/%s", lv->dm_name);
	if (n == 0 && lv->predicted) {
		r = refuse_unlisted(p, lv, what);
		goto out;
	}
	/* on the host, LVM on LUKS: the volumes the command line lists are unlocked first */
	r = lv->predicted ? plan_add_listed_volumes(p) : 0;
	if (r == 0)
		r = add(p, OP_ACTIVATE, n ? members : "", target, "", lv, &step);
	if (r == 0 && step && lv->predicted)
		plan_step_reason(step, "%s: logical volume %s of volume group %s, which lvm activates "
				 "at boot as its physical volumes appear; which of those on the disks "
				 "hold it lvm reads then%s", what, name, vg,
				 p->opts->lvm.vgs ? " (rd.lvm.vg= lists the volume groups)" : "");
	else if (r == 0 && step)
		plan_step_reason(step, "%s: logical volume %s of volume group %s, activated by lvm as "
				 "its physical volumes appeared", what, name, vg);
out:
	return r;
}

static int add_assemble(struct planner *p, const struct disk *disk, const struct part *array,
			const char *what)
{
	char target[PLAN_PATH], members[PLAN_PATH];
	struct plan_step *step = NULL;
	unsigned n;
	int r;

	n = list_members(p, array, md_member, members);
	if (array->md_name[0])
		snprintf(target, sizeof(target), "/dev/md/%s", array->md_name);
	else
		COPY_STR(target, array->devpath[0] ? array->devpath : disk->path);
	r = add(p, OP_ASSEMBLE, n ? members : "", target, "", array, &step);
	if (r == 0 && step)
		plan_step_reason(step, "%s: an md array, %s by mdadm as its members appear%s%s", what,
				 array->predicted ? "assembled at boot" : "assembled",
				 array->predicted && !n ? "; no member of an array rd.md.uuid= lets "
							 "the boot assemble is on the disks given" : "",
				 array->predicted && n ? "; which array each member belongs to mdadm "
							"reads then" : "");
	return r;
}

/* Shown when the filesystem has several devices, or may (degraded): a count that changed
 * between the plans of one boot would move the steps the first one ran. */
static int add_scan(struct planner *p, const struct part *fs, const char *what, bool degraded)
{
	char target[PLAN_PATH], members[PLAN_PATH];
	struct plan_step *step = NULL;
	unsigned n;
	int r;

	n = list_members(p, fs, btrfs_member, members);
	if (n < 2 && !fs->fs_incomplete && !degraded)
		return 0;
	snprintf(target, sizeof(target), "UUID=%s", fs->fsuuid);
	r = add(p, OP_SCAN, members, target, fs->fstype, fs, &step);
	if (r == 0 && step)
		plan_step_reason(step, "%s: a btrfs over several devices, each shown to the kernel "
				 "before the mount%s", what,
				 fs->fs_incomplete ? " (some are missing: mounted degraded)" :
				 degraded ? " (mounted degraded if some are missing)" : "");
	return r;
}

int plan_add_stack_step(struct planner *p, const struct part *part, const struct disk *disk,
			const char *what, const char *flags)
{
	int r = 0;

	if (!part)
		goto out;
	if (part_is_lvm(part))
		r = add_activate(p, part, what);
	else if (disk && part_is_md(disk, part))
		r = add_assemble(p, disk, part, what);
	else if (streq(part->fstype, "btrfs"))
		r = add_scan(p, part, what, plan_flags_have(flags, "degraded"));
out:
	return r;
}

static bool disks_hold(const struct planner *p, const char *fstype, bool wanted)
{
	return stack_members_on(p->disks, fstype, wanted ? &p->opts->md : NULL);
}

const char *plan_stack_hint(const struct planner *p, const char *spec)
{
	char dm_name[sizeof(((struct part *)0)->dm_name)];
	enum stack_kind kind = stack_kind_of(spec, dm_name, sizeof(dm_name));
	bool by_id = !startswith(spec, "/dev/");
	const char *hint = "";

	if (kind == STACK_LVM && !p->opts->lvm.enabled)
		hint = "; rd.lvm=0: no volume group is activated";
	else if (kind == STACK_MD && !p->opts->md.enabled)
		hint = "; rd.md=0: no md array is assembled";
	else if ((kind == STACK_MD || by_id) && disks_hold(p, "linux_raid_member", false) &&
		 !disks_hold(p, "linux_raid_member", true))
		hint = "; the md members on the disks belong to no array rd.md.uuid= lists";
	else if (by_id && disks_hold(p, "linux_raid_member", true))
		hint = "; a filesystem on an md array is seen once mdadm assembled it (on images: "
		       "name the array, root=/dev/md/NAME)";
	else if (by_id && disks_hold(p, "LVM2_member", false))
		hint = "; a filesystem on a logical volume is seen once lvm activated it (on images: "
		       "name the volume, root=/dev/mapper/VG-LV)";
	return hint;
}
