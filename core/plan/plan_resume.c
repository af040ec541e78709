/* Resume from hibernation: the first step of a plan, before any mount, so that no filesystem
 * the image still holds open is written or has its journal replayed. resume= names the device
 * (the kernel's key, which systemd's initrd reads too); without it, the lowest-numbered swap
 * partition of the boot disk whose header says it holds an image (libblkid's "swsuspend"):
 * any of them, as the real init may have swapped on another than discovery's first. A swap with an
 * image is never enabled (plan_part.c refuses it), with noresume too: the image stays. A
 * resume= that names a volume the image's crypttab or rd.luks.name= opens is unlocked first. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "plan_internal.h"
#include "util.h"

#define HIBERNATION_IMAGE "swsuspend"

static bool holds_image(const struct part *part)
{
	return streq(part->fstype, HIBERNATION_IMAGE);
}

/* The first swap partition of the boot disk that holds an image, not marked no-auto nor
 * damaged, or NULL. */
static const struct part *discovered_image(const struct planner *p)
{
	const struct part *found = NULL;
	char why[PLAN_TEXT];

	for (size_t i = 0; p->disk && i < p->disk->n_parts; i++) {
		const struct part *part = &p->disk->parts[i];

		if (!plan_part_is(part, DPS_SWAP, ARCH_INVALID) || !holds_image(part) ||
		    plan_auto_skip_reason(part, DPS_SWAP) || plan_part_damage(p->disk, part, why))
			continue;
		if (!found || part->number < found->number)
			found = part;
	}
	return found;
}

/* The kernel reads the image through the device itself: a LUKS header in the way would need
 * the volume unlocked first, with the key of the hibernated system. A device-mapper device
 * that is not there is taken for a volume no one unlocks; one that is there is encrypted
 * when dm-crypt made it (a logical volume is not, even inside LUKS: the volumes the command
 * line lists are unlocked as they appear, LVM on LUKS). */
static bool encrypted(const char *spec, const struct part *part)
{
	if (!part)
		return startswith(spec, DM_MAPPER_DIR "/") || startswith(spec, "/dev/dm-");
	return plan_part_is_luks(part) || startswith(part->dm_uuid, "CRYPT-");
}

static int add_resume_step(struct planner *p, const char *source, const struct part *part,
			   struct plan_step **out)
{
	char offset[sizeof("resume_offset=") + 20] = "";
	int r;

	if (p->opts->has_resume_offset)
		snprintf(offset, sizeof(offset), "resume_offset=%" PRIu64, p->opts->resume_offset);
	r = plan_add_step(p, OP_RESUME, source, "", "", part, out);
	if (r == 0)
		r = plan_copy_field(p, (*out)->options, sizeof((*out)->options), offset, "options");
	/* No image, or one the kernel cannot load, is a fresh boot, never a stop. */
	if (r == 0)
		(*out)->optional = true;
	return r;
}

/* resume=/dev/mapper/NAME of a volume the image's crypttab (or rd.luks.name=) names: the
 * volume is unlocked first, its image read through the unlocked device, as systemd's initrd
 * does (systemd-cryptsetup, then systemd-hibernate-resume). Before any mount, as any resume. */
static int resume_unlocked(struct planner *p, const char *spec, const char *luks_spec)
{
	const char *name = spec + strlen(DM_MAPPER_DIR "/");
	const struct part *part = NULL;
	const struct disk *disk = NULL;
	struct luks_mount unlocked;
	struct plan_step *step;
	int r = plan_resolve_spec(p, "resume=", luks_spec, &part, &disk);

	if (r == 0)
		r = plan_luks_mount_source(p, part, disk, luks_spec, name, name, false, &unlocked);
	if (r < 0)
		goto out;
	if (!unlocked.unlocked) {
		plan_note(p, "resume=%s not attempted: %s holds no LUKS volume", spec, luks_spec);
		goto out;
	}
	r = add_resume_step(p, unlocked.mapper, NULL, &step);
	if (r == 0)
		plan_step_reason(step, "resume: named by resume=, in the encrypted volume unlocked "
				 "first");
out:
	return r;
}

/* resume=: a MAJ:MIN goes to the kernel as it is; a spec must name a partition, and the boot
 * waits for it as for the root (-ENOENT), as mounting anything before would risk the image. */
static int resume_named(struct planner *p, const char *spec)
{
	const struct part *part = NULL;
	const struct disk *disk = NULL;
	struct plan_step *step;
	char luks_spec[PLAN_PATH];
	int r = 0;

	if (!is_devno(spec) && plan_luks_names_device(p, spec, luks_spec, sizeof(luks_spec))) {
		r = resume_unlocked(p, spec, luks_spec);
		goto out;
	}
	if (!is_devno(spec))
		r = disk_set_find(p->disks, spec, &part, &disk);
	if (r == -ENOENT && encrypted(spec, NULL))
		r = 0;
	else if (r < 0)
		r = plan_resolve_spec(p, "resume=", spec, &part, &disk);
	if (r < 0)
		goto out;
	if (encrypted(spec, part)) {
		plan_note(p, "resume=%s not attempted: earlymount does not resume from an encrypted swap "
			  "(an image there stays: a swap that holds one is not enabled)", spec);
		goto out;
	}
	r = plan_add_stack_step(p, part, disk, "resume", NULL);
	if (r == 0)
		r = add_resume_step(p, spec, part, &step);
	if (r == 0)
		plan_step_reason(step, "resume: named by resume=");
out:
	return r;
}

static int resume_discovered(struct planner *p, const struct part *part)
{
	char source[PLAN_PATH];
	struct plan_step *step;
	int r = plan_discovered_source(p, part, source, sizeof(source));

	if (r == 0)
		r = add_resume_step(p, source, part, &step);
	if (r == 0)
		plan_step_reason(step, "resume: a hibernation image on discovered swap partition %u of %s",
				 part->number, p->disk->path);
	return r;
}

int plan_add_resume_stage(struct planner *p)
{
	const struct part *image = discovered_image(p);
	int r = 0;

	if (p->opts->noresume) {
		if (p->opts->resume)
			plan_note(p, "resume=%s ignored: noresume", p->opts->resume);
		if (image)
			plan_note(p, "noresume: the hibernation image on swap partition %u is left as it "
				  "is, and the partition is not enabled as swap (boot without noresume to "
				  "resume it, or run mkswap on it to throw it away)", image->number);
	} else if (p->opts->resume) {
		r = resume_named(p, p->opts->resume);
	} else if (image) {
		r = resume_discovered(p, image);
	}
	return r;
}
