/* The partitions after root and /usr (/var, /var/tmp, /home, /srv, the boot partitions,
 * swap): which one of each, and how it is mounted. A disk need not hold any of them, so each
 * one passed over gets a note, not an error. /var is the odd one: it belongs to one
 * installation, so the spec ties its PARTUUID to the machine ID, which at boot may have to be
 * read from the root first. */
#include <stdio.h>

#include "plan_internal.h"
#include "util.h"

/* The partitions mounted after root and /usr, in the order they are mounted. */
struct role_mount {
	enum dps_role role;
	const char *target;     /* under SYSROOT; NULL for swap; the ESP's depends on XBOOTLDR */
	bool rw;
	bool nosuid;
	bool noexec;
	bool umask_if_vfat;     /* boot partitions hold secrets (random seed, credentials) */
	/* Writable only when the command line says rw: a FAT mounted read-write is marked dirty
	 * on the disk, and a read-only boot must leave every disk as it found it. */
	bool rw_needs_rw;
	/* The system runs without it (a read-only root may even lack the mount point). */
	bool optional;
	/* The spec allows LUKS: the boot partitions are read by the firmware and loader. */
	bool may_be_encrypted;
};

static const struct role_mount role_mounts[] = {
	{ DPS_VAR, "/var", true, false, false, false, false, false, true },
	{ DPS_TMP, "/var/tmp", true, true, false, false, false, false, true },
	{ DPS_HOME, "/home", true, false, false, false, false, false, true },
	{ DPS_SRV, "/srv", true, false, false, false, false, false, true },
	{ DPS_XBOOTLDR, "/boot", true, true, true, true, true, true, false },
	{ DPS_ESP, NULL, true, true, true, true, true, true, false },
	{ DPS_SWAP, NULL, false, false, false, false, false, true, true },
};

static bool part_is_explicit(const struct planner *p, const struct part *part)
{
	return (p->root_explicit && part == p->root) || (p->usr_explicit && part == p->usr);
}

/* The var PARTUUID this machine's ID asks for, as text; false without a machine ID. */
static bool expected_var_partuuid(const struct planner *p, char uuid[UUID_STR_LEN],
				  char id_text[33])
{
	const uint8_t *id = NULL;
	uint8_t bytes[16];

	if (p->opts->has_machine_id)
		id = p->opts->machine_id;
	else if (p->machine->has_machine_id && p->opts->root_kind != ROOT_TMPFS)
		id = p->machine->machine_id;
	if (!id)
		return false;
	dps_var_partuuid(id, bytes);
	uuid_format(bytes, uuid);
	for (size_t i = 0; i < 16; i++)
		snprintf(id_text + 2 * i, 3, "%02x", id[i]);
	return true;
}

/* Why the volatile mode or root=tmpfs leaves role out, or NULL. */
static const char *volatile_skip_reason(const struct planner *p, enum dps_role role)
{
	bool state_role = role == DPS_VAR || role == DPS_TMP;

	if (!state_role || p->opts->root_kind == ROOT_TMPFS)
		return NULL;
	if (p->opts->volatile_mode == VOLATILE_YES)
		return "systemd.volatile=yes throws state away";
	if (p->opts->volatile_mode == VOLATILE_STATE)
		return "systemd.volatile=state puts a tmpfs on /var";
	return NULL;
}

/* What the /var rule compares against: the PARTUUID this machine's ID asks for. */
struct var_rule {
	bool have_id;
	char expected[UUID_STR_LEN];
	char id_text[33];
};

static bool var_part_usable(struct planner *p, const struct part *part, const struct var_rule *var,
			    bool noting)
{
	bool usable = false;

	if (!var->have_id && p->opts->root_kind == ROOT_TMPFS) {
		if (noting)
			plan_note(p, "partition %u (var) not mounted: root=tmpfs has no machine ID; give "
				  "systemd.machine_id= to use it", part->number);
	} else if (!var->have_id) {
		/* Planned again at boot, once the root's machine ID has been read. */
		p->plan->wants_machine_id = true;
		if (noting)
			plan_note(p, "/var partition %u: the machine ID is read from %s at boot (pass "
				  "--machine-id to plan it here)", part->number, p->plan->machine_id_path);
	} else if (!uuid_str_equal(part->partuuid, var->expected)) {
		if (noting)
			plan_note(p, "partition %u (var) not mounted: its PARTUUID %s is not this machine's "
				  "(expected %s from machine ID %s)", part->number, part->partuuid,
				  var->expected, var->id_text);
	} else {
		usable = true;
	}
	return usable;
}

/* Whether part may be mounted in role; with noting, a note says why not. */
static bool role_part_usable(struct planner *p, const struct part *part, enum dps_role role,
			     const struct var_rule *var, bool noting)
{
	const char *skip = volatile_skip_reason(p, role);
	bool usable = false;

	if (!skip)
		skip = plan_auto_skip_reason(part, role);
	if (!skip)
		skip = plan_policy_skip_reason(p, part, role);
	if (skip) {
		if (noting)
			plan_note_passed_over(p, part, role, skip);
	} else if (part_is_explicit(p, part)) {
		if (noting)
			plan_note(p, "partition %u (%s) not mounted again: it is named by %s", part->number,
				  dps_role_name(role), part == p->root ? "root=" : "mount.usr=");
	} else if (role == DPS_VAR) {
		usable = var_part_usable(p, part, var, noting);
	} else {
		usable = true;
	}
	return usable;
}

/* The partition of role to mount, or NULL; notes every one passed over. /var takes the one
 * whose PARTUUID matches the machine ID; the others take the first of their type. */
static const struct part *pick_role_part(struct planner *p, enum dps_role role)
{
	const struct part *chosen = NULL;
	struct var_rule var = { 0 };
	char why[PLAN_TEXT];

	if (role == DPS_VAR)
		var.have_id = expected_var_partuuid(p, var.expected, var.id_text);
	for (size_t i = 0; i < p->disk->n_parts; i++) {
		const struct part *part = &p->disk->parts[i];

		if (plan_part_is(part, role, ARCH_INVALID) && role_part_usable(p, part, role, &var, true) &&
		    (!chosen || part->number < chosen->number))
			chosen = part;
	}
	for (size_t i = 0; chosen && i < p->disk->n_parts; i++) {
		const struct part *part = &p->disk->parts[i];

		if (part == chosen || !plan_part_is(part, role, ARCH_INVALID) ||
		    !role_part_usable(p, part, role, &var, false))
			continue;
		snprintf(why, sizeof(why), "partition %u is the first %s partition", chosen->number,
			 dps_role_name(role));
		plan_note_passed_over(p, part, role, why);
	}
	return chosen;
}

static int add_role_mount(struct planner *p, const struct role_mount *rm, const struct part *part)
{
	struct mount_flags flags = { 0 };
	char target[PLAN_PATH];
	char source[PLAN_PATH];
	struct plan_step *step = NULL;
	bool read_only = plan_part_read_only(part, p->disk);
	const char *mount_point = rm->target;
	const char *fstype = rm->role == DPS_SWAP ? "swap" : part->fstype;
	const char *through = "";
	bool optional = rm->optional;
	struct luks_mount luks = { 0 };
	int r;

	if (rm->role == DPS_ESP)
		mount_point = p->xbootldr_mounted ? "/efi" : "/boot";
	r = plan_luks_role_source(p, part, rm->role, read_only, &optional, &luks);
	if (r < 0 || (plan_part_is_luks(part) && !luks.unlocked))
		goto out;
	if (luks.unlocked) {
		r = plan_copy_field(p, source, sizeof(source), luks.mapper, "device");
		fstype = "";
		through = "the unlocked LUKS device over ";
	} else {
		r = plan_discovered_source(p, part, source, sizeof(source));
	}
	if (r < 0)
		goto out;
	if (rm->role == DPS_SWAP) {
		r = plan_add_step(p, OP_SWAPON, source, "", fstype, luks.unlocked ? NULL : part, &step);
		if (r == 0)
			step->optional = true;
		if (r == 0)
			plan_step_reason(step, "swap: %sdiscovered partition %u of %s", through, part->number,
					 p->disk->path);
		if (r == 0)
			p->discovered[rm->role] = part;
		goto out;
	}
	snprintf(target, sizeof(target), ROOT_MOUNT_POINT "%s", mount_point);
	flags.rw = rm->rw && !read_only && (!rm->rw_needs_rw || p->opts->rw == 1);
	if (rm->rw && !read_only && !flags.rw)
		plan_note(p, "%s partition %u mounted read-only, as the boot is (ro is the default): boot "
			  "with rw to write to it", dps_role_name(rm->role), part->number);
	flags.nodev = true;
	flags.nosuid = rm->nosuid;
	flags.noexec = rm->noexec;
	flags.umask = rm->umask_if_vfat && streq(part->fstype, "vfat");
	flags.norecovery = read_only && plan_fstype_journalled(fstype);
	if (flags.rw)
		r = plan_add_fsck_step(p, source, luks.unlocked ? NULL : part, fstype, target);
	if (r == 0)
		r = plan_add_step(p, OP_MOUNT, source, target, fstype, luks.unlocked ? NULL : part, &step);
	if (r < 0)
		goto out;
	step->optional = optional;
	step->norecovery_if_journalled = luks.unlocked && read_only;
	r = plan_format_options(p, step->options, sizeof(step->options), &flags, target);
	if (r < 0)
		goto out;
	plan_step_reason(step, "%s: %sdiscovered partition %u of %s", dps_role_name(rm->role), through,
			 part->number, p->disk->path);
	if (!luks.unlocked && plan_part_grows(p->disk, part)) {
		char asked[64];

		snprintf(asked, sizeof(asked), "GPT bit 59 (grow-fs) of the %s partition",
			 dps_role_name(rm->role));
		r = plan_add_growfs(p, step, asked);
	}
	p->xbootldr_mounted = p->xbootldr_mounted || rm->role == DPS_XBOOTLDR;
	p->discovered[rm->role] = part;
out:
	return r;
}

int plan_add_discovered_stage(struct planner *p)
{
	char why[PLAN_TEXT];
	int r = 0;

	if (!p->disk)
		goto out;
	for (size_t i = 0; i < ARRAY_SIZE(role_mounts); i++) {
		const struct role_mount *rm = &role_mounts[i];
		const struct part *part = pick_role_part(p, rm->role);

		if (!part)
			continue;
		/* An optional mount's failure would be a warning: so is its damage. */
		if (rm->optional && plan_part_damage(p->disk, part, why)) {
			plan_note(p, "%s partition %u not mounted: %s", dps_role_name(rm->role), part->number,
				  why);
			continue;
		}
		r = plan_refuse_damaged(p, p->disk, part, dps_role_name(rm->role));
		if (r < 0)
			goto out;
		if (!(rm->may_be_encrypted && plan_part_is_luks(part)) &&
		    !plan_role_fstype_ok(p, part, rm->role))
			continue;
		r = add_role_mount(p, rm, part);
		if (r < 0)
			goto out;
	}
out:
	return r;
}
