/* Which disk partitions are discovered on. The spec discovers on one disk, and a wrong
 * guess boots another system: the user's word (earlymount.disk=, root=) or the firmware's
 * beats any guess, and the guess never takes a removable disk nor breaks a tie. When it
 * cannot choose, the error says what stands in the way. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

static bool disk_has_candidate(struct planner *p, const struct disk *disk, enum dps_role role,
			       enum arch arch)
{
	return plan_disk_is_gpt(disk) && plan_pick_versioned(p, disk, role, arch, false) != NULL;
}

/* "an x86-64", "a riscv64": names are read letter by letter where they start with a vowel sound. */
static const char *arch_article(enum arch arch)
{
	return strchr("aeiosx", arch_name(arch)[0]) ? "an" : "a";
}

/* "a dos partition table", "an atari partition table", "no partition table", into buf. */
static const char *table_phrase(const struct disk *disk, char *buf, size_t size)
{
	if (disk->pttype[0])
		snprintf(buf, size, "%s %s partition table", plan_article(disk->pttype), disk->pttype);
	else
		snprintf(buf, size, "no partition table");
	return buf;
}

/* Whether root (or, for root=tmpfs, /usr) can only come from discovery. */
static bool discovery_needed(const struct planner *p)
{
	if (p->opts->root_kind == ROOT_TMPFS)
		return !p->usr_explicit && !plan_usr_is_share(p);
	return p->opts->root_kind == ROOT_DISCOVER;
}

static enum dps_role wanted_role(const struct planner *p)
{
	return p->opts->root_kind == ROOT_TMPFS ? DPS_USR : DPS_ROOT;
}

static int choose_named_disk(struct planner *p)
{
	const char *spec = p->opts->disk;
	const struct disk *found = NULL;
	char matches[PLAN_ERROR];
	int r = 0;

	for (size_t i = 0; i < p->disks->n && !found; i++) {
		const struct disk *disk = &p->disks->disks[i];

		if (streq(disk->path, spec) || (disk->ptuuid[0] && uuid_str_equal(disk->ptuuid, spec)))
			found = disk;
	}
	if (!found) {
		r = disk_set_find(p->disks, spec, NULL, &found);
		if (r == -ENOTUNIQ) {
			r = plan_fail(p, -ENOTUNIQ, "earlymount.disk=%s matches several partitions (%s): name "
				      "the disk by its path or GPT UUID", spec,
				      plan_name_matches(p, spec, matches, sizeof(matches)));
			goto out;
		}
	}
	if (!found) {
		r = plan_fail_found(p, -ENOENT, "earlymount.disk=%s names no disk (give a disk path, its "
				    "GPT UUID, or PARTUUID=/UUID= of a partition on it)", spec);
		goto out;
	}
	r = 0;
	p->disk = found;
	plan_note(p, "disk chosen: %s, named by earlymount.disk=%s", found->path, spec);
out:
	return r;
}

/* The firmware's word on which disk it booted from beats any guess. */
static int choose_loader_disk(struct planner *p)
{
	const char *uuid = p->machine->loader_partuuid;
	int r = 0;

	for (size_t i = 0; i < p->disks->n && !p->disk; i++) {
		const struct disk *disk = &p->disks->disks[i];

		for (size_t j = 0; j < disk->n_parts && !p->disk; j++) {
			const struct part *part = &disk->parts[j];
			enum dps_role role = plan_part_role(part);

			if ((role == DPS_ESP || role == DPS_XBOOTLDR) &&
			    uuid_str_equal(part->partuuid, uuid)) {
				p->disk = disk;
				plan_note(p, "disk chosen: %s, whose %s partition %u the firmware booted from "
					  "(LoaderDevicePartUUID %s)", disk->path, dps_role_name(role),
					  part->number, uuid);
			}
		}
	}
	if (!p->disk)
		r = plan_fail_found(p, -ENOENT, "no ESP or XBOOTLDR partition has PARTUUID %s, the "
				    "LoaderDevicePartUUID the firmware booted from (at boot its disk may not "
				    "have appeared yet)", uuid);
	return r;
}

static size_t count_fixed_candidates(struct planner *p, enum dps_role role, enum arch arch,
				     const struct disk **first)
{
	size_t n = 0;

	for (size_t i = 0; i < p->disks->n; i++) {
		const struct disk *disk = &p->disks->disks[i];

		if (disk->removable || !disk_has_candidate(p, disk, role, arch))
			continue;
		if (n++ == 0)
			*first = disk;
	}
	return n;
}

static int fail_ambiguous(struct planner *p, enum dps_role role, enum arch arch, size_t n)
{
	struct text t;

	plan_text_init(&t, p->plan->error, sizeof(p->plan->error));
	plan_text_add(&t, "%zu fixed disks hold %s %s %s partition:", n, arch_article(arch),
		      arch_name(arch), dps_role_name(role));
	for (size_t i = 0; i < p->disks->n; i++) {
		const struct disk *disk = &p->disks->disks[i];

		if (!disk->removable && disk_has_candidate(p, disk, role, arch))
			plan_text_add(&t, " %s", disk->path);
	}
	plan_text_add(&t, "; earlymount does not guess: choose one with earlymount.disk=");
	plan_text_mark_cut(&t);
	return -ENOTUNIQ;
}

/* No fixed disk qualifies: say what stands in the way, most specific first. */
static int fail_no_candidate(struct planner *p, enum dps_role role, const enum arch order[3])
{
	const char *key = role == DPS_USR ? "mount.usr=" : "root=";
	char table[48];
	size_t n_gpt = 0;
	int r = -ENOENT;

	for (size_t i = 0; i < p->disks->n; i++) {
		const struct disk *disk = &p->disks->disks[i];

		n_gpt += plan_disk_is_gpt(disk);
		for (size_t a = 0; a < 3 && order[a] != ARCH_INVALID; a++) {
			if (disk->removable && disk_has_candidate(p, disk, role, order[a])) {
				r = plan_fail(p, -EPERM, "%s holds %s %s %s partition but is removable; "
					      "earlymount never picks a removable disk by itself: name it with "
					      "earlymount.disk=%s", disk->path, arch_article(order[a]),
					      arch_name(order[a]), dps_role_name(role), disk->path);
				goto out;
			}
		}
	}
	if (p->disks->n == 0)
		r = plan_fail(p, -ENOENT, "no disks found to look for %s %s %s partition on (at boot the "
			      "disk may not have appeared yet: check the storage drivers)",
			      arch_article(order[0]), arch_name(order[0]), dps_role_name(role));
	else if (n_gpt == 0 && p->disks->n == 1 && p->disks->disks[0].read_error[0])
		r = plan_fail(p, -EIO, "%s cannot be read where its partition table is: a read error at "
			      "%s (the disk may be failing: copy what it holds while it can be read, and "
			      "check it with smartctl or badblocks)", p->disks->disks[0].path,
			      p->disks->disks[0].read_error);
	else if (n_gpt == 0 && p->disks->n == 1)
		r = plan_fail(p, -EPERM, "%s has %s, not GPT: discovery needs GPT; use %sPARTUUID=... or "
			      "%s/dev/...", p->disks->disks[0].path,
			      table_phrase(&p->disks->disks[0], table, sizeof(table)), key, key);
	else if (n_gpt == 0)
		r = plan_fail_found(p, -EPERM, "no disk has a GPT partition table: discovery needs GPT; "
				    "use %sPARTUUID=... or %s/dev/...", key, key);
	else if (role == DPS_USR)
		r = plan_fail_found(p, -ENOENT, "root=tmpfs needs a /usr: give mount.usr= or add a usr "
				    "partition (type %s for %s)", dps_type_uuid(DPS_USR, order[0]),
				    arch_name(order[0]));
	else
		r = plan_fail_found(p, -ENOENT, "no root partition (type %s for %s) on any disk%s",
				    dps_type_uuid(DPS_ROOT, order[0]), arch_name(order[0]),
				    plan_policy_hint(p, DPS_ROOT));
out:
	return r;
}

/* Native arch first, then the secondary; removable disks never take part. */
static int choose_disk_from_candidates(struct planner *p)
{
	enum dps_role role = wanted_role(p);
	enum arch order[3];
	int r = 0;

	plan_arch_order(p->machine->arch, p->machine->arch, order);
	for (size_t a = 0; a < 3 && order[a] != ARCH_INVALID; a++) {
		const struct disk *first = NULL;
		size_t n = count_fixed_candidates(p, role, order[a], &first);

		if (n > 1) {
			r = fail_ambiguous(p, role, order[a], n);
			goto out;
		}
		if (n == 1) {
			p->disk = first;
			plan_note(p, "disk chosen: %s, the only fixed disk with %s %s %s partition",
				  first->path, arch_article(order[a]), arch_name(order[a]),
				  dps_role_name(role));
			goto out;
		}
	}
	r = fail_no_candidate(p, role, order);
out:
	return r;
}

/* A disk that is not GPT can still hold an explicit root; nothing is discovered on it. */
static int check_disk_is_gpt(struct planner *p, const char *why_chosen)
{
	const struct disk *disk = p->disk;
	const char *key = wanted_role(p) == DPS_USR ? "mount.usr=" : "root=";
	char table[48];
	int r = 0;

	if (!disk || plan_disk_is_gpt(disk))
		goto out;
	if (discovery_needed(p)) {
		r = plan_fail(p, -EPERM, "%s (%s) has %s, not GPT: discovery needs GPT; use "
			      "%sPARTUUID=... or %s/dev/...", disk->path, why_chosen,
			      table_phrase(disk, table, sizeof(table)), key, key);
		goto out;
	}
	if (disk->n_parts == 1 && part_is_whole_device(disk, &disk->parts[0]) &&
	    (!disk->parts[0].dm_name[0] || startswith(disk->path, DM_MAPPER_DIR "/")))
		plan_note(p, "nothing discovered: %s is a whole device (a logical volume, an array), "
			  "with no partitions beside it", disk->path);
	else if (disk->n_parts == 1 && part_is_whole_device(disk, &disk->parts[0]))
		plan_note(p, "nothing discovered: %s " DM_MAPPER_DIR "/%s is a whole device (a logical "
			  "volume, an array), with no partitions beside it", disk->path,
			  disk->parts[0].dm_name);
	else
		plan_note(p, "nothing discovered: %s has %s, not GPT", disk->path,
			  table_phrase(disk, table, sizeof(table)));
	p->disk = NULL;
out:
	return r;
}

int plan_choose_disk(struct planner *p)
{
	const struct options *opts = p->opts;
	const char *why = "";
	int r = 0;

	/* A share is no disk: partitions found beside it would belong to another system. */
	if (plan_root_is_share(p) || (opts->root_kind == ROOT_TMPFS && plan_usr_is_share(p))) {
		enum share_fs fs = plan_root_is_share(p) ? opts->root_share : opts->usr_share;

		plan_note(p, "%s on %s: no partitions discovered", plan_root_is_share(p) ? "root" : "/usr",
			  share_is_nfs(fs) ? "NFS" : "a host share");
		goto out;
	}
	if (!opts->gpt_auto) {
		if (opts->root_kind == ROOT_DISCOVER)
			r = plan_fail(p, -ENOENT, "root= not given and systemd.gpt_auto=0: give root= or drop "
				      "systemd.gpt_auto=0");
		else if (discovery_needed(p))
			r = plan_fail(p, -ENOENT, "root=tmpfs needs a /usr: give mount.usr= "
				      "(systemd.gpt_auto=0 turns discovery off)");
		else
			plan_note(p, "systemd.gpt_auto=0: no partitions discovered");
		goto out;
	}
	if (opts->disk && opts->disk[0]) {
		why = "named by earlymount.disk=";
		r = choose_named_disk(p);
	} else if (p->machine->loader_partuuid[0]) {
		why = "the disk the firmware booted from";
		r = choose_loader_disk(p);
	} else if (p->root_disk || (opts->root_kind == ROOT_TMPFS && p->usr_disk)) {
		const char *key = p->root_disk ? "root=" : "mount.usr=";

		p->disk = p->root_disk ? p->root_disk : p->usr_disk;
		why = "the disk of the partition named on the command line";
		if (plan_disk_is_gpt(p->disk))
			plan_note(p, "disk chosen: %s, which holds %s%s", p->disk->path, key,
				  p->root_disk ? opts->root : opts->usr);
	} else {
		r = choose_disk_from_candidates(p);
	}
	if (r < 0)
		goto out;
	r = check_disk_is_gpt(p, why);
out:
	return r;
}
