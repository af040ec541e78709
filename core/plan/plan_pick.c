/* Which partitions are the root and /usr: named on the command line, or discovered by type,
 * architecture and version. The choice is made once, into struct planner (root, usr, their
 * disks, whether each was named, the root's arch), before any step is written: what builds
 * on it (mounts, later dm-verity or unlocking) reads it from there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

/* The newer label wins (strverscmp: "root-1.10" > "root-1.9"), then the lower number. */
static bool part_newer(const struct part *a, const struct part *b)
{
	int c = strverscmp(a->label, b->label);

	return c > 0 || (c == 0 && a->number < b->number);
}

/* Why part failed earlier in this boot, or NULL. */
static const char *failure_of(const struct planner *p, const struct part *part)
{
	for (size_t i = 0; i < p->n_failed; i++)
		if (uuid_str_equal(p->failed[i].partuuid, part->partuuid))
			return p->failed[i].why;
	return NULL;
}

/* A partition mount.usr= names is the /usr, never also the discovered root; one that failed
 * at this boot gives way to the next newest. */
static const char *pick_skip_reason(struct planner *p, const struct disk *disk,
				    const struct part *part, enum dps_role role)
{
	const char *why = plan_auto_skip_reason(part, role);

	if (!why)
		why = plan_policy_skip_reason(p, part, role);
	if (!why && p->usr_explicit && part == p->usr)
		why = "it is named by mount.usr=";
	if (!why && failure_of(p, part))
		why = "it failed at this boot";
	if (!why && plan_verity_unsigned_on_signed_disk(p, disk, part, role))
		why = "the disk signs its versions and this one has no signature";
	return why;
}

/* The root or usr partition of arch on disk, or NULL. With noting, every partition passed
 * over gets a note saying why. */
const struct part *plan_pick_versioned(struct planner *p, const struct disk *disk,
				       enum dps_role role, enum arch arch, bool noting)
{
	const struct part *best = NULL;
	char label[LABEL_SHOWN];

	for (size_t i = 0; i < disk->n_parts; i++) {
		const struct part *part = &disk->parts[i];
		const char *why;

		if (!plan_part_is(part, role, arch))
			continue;
		why = pick_skip_reason(p, disk, part, role);
		if (why) {
			if (noting)
				plan_note_passed_over(p, part, role, why);
			continue;
		}
		if (!best || part_newer(part, best))
			best = part;
	}
	for (size_t i = 0; best && noting && i < disk->n_parts; i++) {
		const struct part *part = &disk->parts[i];
		char why[PLAN_TEXT];

		if (part == best || !plan_part_is(part, role, arch) ||
		    pick_skip_reason(p, disk, part, role))
			continue;
		if (strverscmp(part->label, best->label) == 0)
			snprintf(why, sizeof(why), "partition %u has the same version and a lower number",
				 best->number);
		else
			snprintf(why, sizeof(why), "partition %u (label '%s') has a newer version",
				 best->number, plan_label_shown(best->label, label));
		plan_note_passed_over(p, part, role, why);
	}
	return best;
}

/* The arches to look for root (or usr) in, best first; ARCH_INVALID ends the list. */
void plan_arch_order(enum arch first, enum arch native, enum arch order[3])
{
	size_t n = 0;
	enum arch wanted[3] = { first, native, arch_secondary(native) };

	for (size_t i = 0; i < ARRAY_SIZE(wanted); i++) {
		bool seen = false;

		for (size_t j = 0; j < n; j++)
			seen = seen || order[j] == wanted[i];
		if (wanted[i] != ARCH_INVALID && !seen)
			order[n++] = wanted[i];
	}
	for (; n < 3; n++)
		order[n] = ARCH_INVALID;
}

static const struct part *pick_in_order(struct planner *p, const struct disk *disk,
					enum dps_role role, const enum arch order[3], bool noting,
					enum arch *found_arch)
{
	const struct part *part = NULL;

	for (size_t i = 0; i < 3 && !part && order[i] != ARCH_INVALID; i++) {
		part = plan_pick_versioned(p, disk, role, order[i], noting);
		if (part && found_arch)
			*found_arch = order[i];
	}
	return part;
}

int plan_resolve_explicit(struct planner *p)
{
	const struct options *opts = p->opts;
	char where[PLAN_PATH];
	int r = 0;

	if (opts->root_kind == ROOT_DEVICE && plan_verity_names_device(&p->root_verity, opts->root)) {
		r = plan_verity_choose(p, &p->root_verity, &p->root, &p->root_disk);
		if (r < 0)
			goto out;
		p->root_explicit = true;
	} else if (opts->root_kind == ROOT_DEVICE) {
		if (!opts->root || !opts->root[0]) {
			r = plan_fail(p, -EINVAL, "root= is empty: give a device, 'gpt-auto' or 'tmpfs'");
			goto out;
		}
		if (plan_luks_names_device(p, opts->root, p->root_luks_spec, sizeof(p->root_luks_spec)))
			r = plan_resolve_spec(p, "root=", p->root_luks_spec, &p->root, &p->root_disk);
		else
			r = plan_resolve_spec(p, "root=", opts->root, &p->root, &p->root_disk);
		if (r < 0)
			goto out;
		p->root_explicit = true;
	}
	/* a share's tag names no partition */
	if (plan_usr_is_share(p)) {
		r = 0;
	} else if (plan_verity_names_device(&p->usr_verity, opts->usr)) {
		r = plan_verity_choose(p, &p->usr_verity, &p->usr, &p->usr_disk);
		if (r < 0)
			goto out;
		p->usr_explicit = true;
	} else if (opts->usr && opts->usr[0]) {
		if (plan_luks_names_device(p, opts->usr, p->usr_luks_spec, sizeof(p->usr_luks_spec)))
			r = plan_resolve_spec(p, p->usr_key, p->usr_luks_spec, &p->usr, &p->usr_disk);
		else
			r = plan_resolve_spec(p, p->usr_key, opts->usr, &p->usr, &p->usr_disk);
		if (r < 0)
			goto out;
		p->usr_explicit = true;
	}
	/* two subvolumes of one btrfs are two trees: Fedora's and Ubuntu's layouts */
	if (p->root && p->root == p->usr &&
	    !(streq(p->root->fstype, "btrfs") && opts->usrflags &&
	      plan_flags_other_subvolume(opts->rootflags, opts->usrflags)))
		r = plan_fail(p, -EINVAL, "root=%s and %s%s name the same device (%s)%s",
			      opts->root, p->usr_key, opts->usr,
			      plan_part_name(p->root_disk, p->root, where, sizeof(where)),
			      streq(p->root->fstype, "btrfs")
				      ? " and the same subvolume of its btrfs: give mount.usrflags=subvol="
				      : "");
out:
	return r;
}

/* A root partition's type says which arch it is for; anything else keeps fallback. */
static enum arch root_type_arch(const struct part *root, enum arch fallback)
{
	const struct dps_type *type = dps_type_from_uuid(root->type);

	return type && type->role == DPS_ROOT && type->arch != ARCH_INVALID ? type->arch : fallback;
}

int plan_choose_root(struct planner *p)
{
	enum arch order[3];
	char label[LABEL_SHOWN];
	int r = 0;

	p->root_arch = p->machine->arch;
	if (p->opts->root_kind == ROOT_TMPFS || plan_root_is_share(p))
		goto out;
	if (p->root_verity.root_hash && !p->root_verity.named) {
		r = plan_verity_choose(p, &p->root_verity, &p->root, &p->root_disk);
		if (r == 0)
			p->root_arch = root_type_arch(p->root, p->root_arch);
		goto out;
	}
	if (p->root_explicit) {
		p->root_arch = root_type_arch(p->root, p->root_arch);
		goto out;
	}
	if (!p->disk) {
		r = plan_fail_found(p, -ENOENT, "no disk to look for a root partition on: give root=");
		goto out;
	}
	plan_arch_order(p->machine->arch, p->machine->arch, order);
	p->root = pick_in_order(p, p->disk, DPS_ROOT, order, true, &p->root_arch);
	if (!p->root) {
		struct text t;

		plan_text_init(&t, p->plan->error, sizeof(p->plan->error));
		plan_text_add(&t, "no root partition (type %s for %s) on %s; found: ",
			      dps_type_uuid(DPS_ROOT, order[0]), arch_name(order[0]), p->disk->path);
		plan_describe_disk(&t, p->disk);
		plan_text_mark_cut(&t);
		r = -ENOENT;
		goto out;
	}
	p->root_disk = p->disk;
	if (p->root_arch != p->machine->arch)
		plan_note(p, "no %s root partition on %s: using the %s one", arch_name(p->machine->arch),
			  p->disk->path, arch_name(p->root_arch));
	plan_note(p, "root: partition %u%s%s%s on %s", p->root->number,
		  p->root->label[0] ? " (label '" : "", plan_label_shown(p->root->label, label),
		  p->root->label[0] ? "')" : "", p->disk->path);
	r = plan_verity_from_signature(p, &p->root_verity, p->root);
out:
	return r;
}

int plan_choose_usr(struct planner *p)
{
	enum arch order[3];
	enum arch arch = ARCH_INVALID;
	char label[LABEL_SHOWN];

	if (plan_usr_is_share(p))
		return 0;
	if (p->usr_verity.root_hash && !p->usr_verity.named)
		return plan_verity_choose(p, &p->usr_verity, &p->usr, &p->usr_disk);
	if (p->usr_explicit || !p->disk)
		return 0;
	plan_arch_order(p->root_arch, p->machine->arch, order);
	p->usr = pick_in_order(p, p->disk, DPS_USR, order, true, &arch);
	if (p->usr && p->usr == p->root) {
		plan_note(p, "partition %u not mounted on /usr: it is the root (root=%s)", p->usr->number,
			  p->opts->root);
		p->usr = NULL;
	}
	if (!p->usr)
		return 0;
	p->usr_disk = p->disk;
	if (arch != p->root_arch)
		plan_note(p, "no %s usr partition on %s: using the %s one", arch_name(p->root_arch),
			  p->disk->path, arch_name(arch));
	plan_note(p, "usr: partition %u%s%s%s on %s", p->usr->number,
		  p->usr->label[0] ? " (label '" : "", plan_label_shown(p->usr->label, label),
		  p->usr->label[0] ? "')" : "", p->disk->path);
	return plan_verity_from_signature(p, &p->usr_verity, p->usr);
}
