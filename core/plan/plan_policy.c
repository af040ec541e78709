/* systemd.image_policy= over discovery, as systemd's dissection applies it to the boot disk: a
 * partition whose rule wants it absent refuses the disk; one whose rule leaves it unused is
 * passed over; what discovery then uses must be used as its rule allows (signed, verity,
 * encrypted, unprotected), with the GPT flags and filesystem the rule names; and a partition
 * whose rule lacks absent must be there. Partitions the command line names (root=,
 * mount.usr=, systemd.verity_root_data=) are the user's choice, not discovery's: as systemd's,
 * the policy does not apply to them; roothash= alone still has discovery find the partition.
 * systemd.image_filter= passes over, like an unused rule, a partition whose GPT label does not
 * match its designator's glob. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

static const struct image_policy *policy(const struct planner *p)
{
	return &p->opts->image_policy;
}

int plan_policy_check_given(struct planner *p)
{
	const struct image_policy *pol = policy(p);
	int r = 0;

	const struct image_filter *filter = &p->opts->image_filter;

	if (pol->malformed)
		r = plan_fail(p, -EINVAL, "systemd.image_policy=%s is malformed: %s; refusing to boot "
			      "under half a policy (correct it, or remove it to boot without one)",
			      pol->text, pol->error);
	else if (filter->malformed)
		r = plan_fail(p, -EINVAL, "systemd.image_filter=%s is malformed: %s; refusing to boot "
			      "under half a filter (correct it, or remove it)", filter->text, filter->error);
	return r;
}

const char *plan_policy_skip_reason(struct planner *p, const struct part *part, enum dps_role role)
{
	const struct image_filter *filter = &p->opts->image_filter;
	char rule[PLAN_TEXT / 2];
	const char *why = p->policy_why;

	if (!image_filter_allows(filter, role, part->label)) {
		snprintf(p->policy_why, sizeof(p->policy_why), "its label does not match "
			 "systemd.image_filter= (%s=%s)", image_policy_designator(role), filter->glob[role]);
	} else if (policy(p)->given && image_policy_use(policy(p), role) == POLICY_IGNORE_IT) {
		image_policy_rule(policy(p), role, rule, sizeof(rule));
		snprintf(p->policy_why, sizeof(p->policy_why), "systemd.image_policy= leaves it unused "
			 "(rule '%s')", rule);
	} else {
		why = NULL;
	}
	return why;
}

const char *plan_policy_hint(struct planner *p, enum dps_role role)
{
	const struct image_filter *filter = &p->opts->image_filter;
	const char *hint = p->policy_why;
	char rule[PLAN_TEXT / 2];

	if (filter->given && filter->listed[role]) {
		snprintf(p->policy_why, sizeof(p->policy_why), " that systemd.image_filter= (%s=%s) "
			 "lets through", image_policy_designator(role), filter->glob[role]);
	} else if (policy(p)->given && image_policy_use(policy(p), role) == POLICY_IGNORE_IT) {
		image_policy_rule(policy(p), role, rule, sizeof(rule));
		snprintf(p->policy_why, sizeof(p->policy_why), " that systemd.image_policy= lets "
			 "discovery use (rule '%s')", rule);
	} else {
		hint = "";
	}
	return hint;
}

/* Whether part's type is one discovery would look at on this machine: the arch-independent
 * roles, and root, /usr and their verity partitions of the plan's architectures. */
static enum dps_role considered_role(const struct planner *p, const struct part *part)
{
	const struct dps_type *type = dps_type_from_uuid(part->type);
	enum dps_role role = type ? type->role : DPS_UNKNOWN;

	if (!type || !image_policy_designator(role))
		role = DPS_UNKNOWN;
	else if (type->arch != ARCH_INVALID && type->arch != p->machine->arch &&
		 type->arch != arch_secondary(p->machine->arch))
		role = DPS_UNKNOWN;
	return role;
}

int plan_policy_check_disk(struct planner *p)
{
	char rule[PLAN_TEXT];
	int r = 0;

	for (size_t i = 0; p->disk && policy(p)->given && i < p->disk->n_parts && r == 0; i++) {
		const struct part *part = &p->disk->parts[i];
		enum dps_role role = considered_role(p, part);

		if (role == DPS_UNKNOWN || image_policy_use(policy(p), role) != POLICY_FORBIDDEN)
			continue;
		image_policy_rule(policy(p), role, rule, sizeof(rule));
		r = plan_fail(p, -EPERM, "systemd.image_policy=: partition %u of %s is %s %s partition, "
			      "and the rule '%s' wants none there: refusing the disk, as systemd does",
			      part->number, p->disk->path, plan_article(dps_role_name(role)),
			      dps_role_name(role), rule);
	}
	return r;
}

/* How the plan's steps use part: through LUKS, dm-verity (with a signature), or as it is. */
static uint32_t found_use(const struct planner *p, const struct part *part)
{
	bool verity = false, is_signed = false;

	for (size_t i = 0; i < p->plan->n_steps; i++) {
		const struct plan_step *s = &p->plan->steps[i];

		if (s->op == OP_VERITY && s->part == part) {
			verity = true;
			is_signed = is_signed || s->sig_source[0];
		}
	}
	return image_policy_found(plan_part_is_luks(part), part->luks_integrity, verity, is_signed);
}

/* A disk without partitions has no table at all (parts is NULL, and NULL + 0 is undefined). */
static bool on_disk(const struct disk *disk, const struct part *part)
{
	return disk && disk->n_parts > 0 && part >= disk->parts && part < disk->parts + disk->n_parts;
}

/* The partition discovery uses in role, or NULL. */
static const struct part *used_in(const struct planner *p, enum dps_role role)
{
	const struct part *part = NULL;

	if (role == DPS_ROOT)
		part = p->root;
	else if (role == DPS_USR)
		part = p->usr;
	else
		part = p->discovered[role];
	return on_disk(p->disk, part) ? part : NULL;
}

/* The verity and signature partitions of the steps that verify a discovered root or /usr. */
static bool verity_part_used(const struct planner *p, enum dps_role role)
{
	bool sig = role == DPS_ROOT_VERITY_SIG || role == DPS_USR_VERITY_SIG;
	enum dps_role data = role == DPS_ROOT_VERITY || role == DPS_ROOT_VERITY_SIG ? DPS_ROOT : DPS_USR;
	const struct part *data_part = used_in(p, data);
	bool used = false;

	for (size_t i = 0; data_part && i < p->plan->n_steps && !used; i++) {
		const struct plan_step *s = &p->plan->steps[i];

		used = s->op == OP_VERITY && s->part == data_part && (sig ? s->sig_part : s->hash_part);
	}
	return used;
}

/* Whether the disk holds a partition of role (for this machine's architectures). */
static bool on_disk_in_role(const struct planner *p, enum dps_role role)
{
	bool found = false;

	for (size_t i = 0; i < p->disk->n_parts && !found; i++)
		found = considered_role(p, &p->disk->parts[i]) == role;
	return found;
}

/* Whether role is one the plan speaks for: the roles of a named root or /usr are not. */
static bool role_discovered(const struct planner *p, enum dps_role role)
{
	bool root_side = role == DPS_ROOT || role == DPS_ROOT_VERITY || role == DPS_ROOT_VERITY_SIG;
	bool usr_side = role == DPS_USR || role == DPS_USR_VERITY || role == DPS_USR_VERITY_SIG;

	/* roothash= alone still has discovery find the partition (by the hash's UUIDs); a data
	 * device systemd.verity_root_data= names is the user's */
	if (root_side)
		return p->opts->root_kind == ROOT_DISCOVER && !p->root_explicit &&
		       !p->opts->verity_root.data;
	if (usr_side)
		return !p->opts->usr && !p->usr_explicit && !p->opts->verity_usr.data;
	return true;
}

static int check_role(struct planner *p, enum dps_role role)
{
	const struct part *part = role >= DPS_ROOT_VERITY && role <= DPS_USR_VERITY_SIG ? NULL
											: used_in(p, role);
	bool used = part || ((role >= DPS_ROOT_VERITY && role <= DPS_USR_VERITY_SIG) &&
			     verity_part_used(p, role));
	char rule[PLAN_TEXT], why[PLAN_TEXT];
	int r = 0;

	if (!role_discovered(p, role))
		goto out;
	image_policy_rule(policy(p), role, rule, sizeof(rule));
	/* not used: passed over (unused) when the disk has one, else absent */
	if (!used && !(image_policy_flags(policy(p), role) &
		       (on_disk_in_role(p, role) ? POLICY_UNUSED : POLICY_ABSENT)))
		r = plan_fail(p, -EPERM, "systemd.image_policy=: the rule '%s' wants %s %s partition "
			      "used%s, and discovery uses none on %s", rule,
			      plan_article(dps_role_name(role)), dps_role_name(role),
			      image_policy_flags(policy(p), role) & POLICY_USE_MASK ? "" :
			      " (and allows it no use it can have: give it a rule of its own)",
			      p->disk->path);
	else if (part && image_policy_check(policy(p), role, found_use(p, part), part->flags,
					    part->fstype, why, sizeof(why)) < 0)
		r = plan_fail(p, -EPERM, "systemd.image_policy=: %s partition %u of %s is refused by "
			      "the rule '%s': %s", dps_role_name(role), part->number, p->disk->path, rule,
			      why);
	else if (part)
		plan_note(p, "%s partition %u: allowed by systemd.image_policy= rule '%s'",
			  dps_role_name(role), part->number, rule);
out:
	return r;
}

int plan_policy_check_used(struct planner *p)
{
	int r = 0;

	if (!policy(p)->given)
		goto out;
	if (p->opts->root_kind != ROOT_DISCOVER || p->opts->usr)
		plan_note(p, "systemd.image_policy= applies to discovered partitions: not to %s, which "
			  "the command line names", p->opts->root_kind != ROOT_DISCOVER ? "the root" : "/usr");
	if (!p->disk) {
		plan_note(p, "systemd.image_policy= has no disk to apply to: nothing is discovered");
		goto out;
	}
	for (int role = 0; role < DPS_ROLE_MAX && r == 0; role++)
		if (image_policy_designator(role))
			r = check_role(p, role);
out:
	return r;
}
