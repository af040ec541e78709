/* LUKS: a partition the plan mounts (root, /usr, /var, …, swap) whose content is crypto_LUKS
 * is unlocked first, as /dev/mapper/NAME, and its mount takes that device instead. The names
 * are systemd's: the role's ("root", "usr", "var", "home", "srv", "tmp", "swap"), or the
 * volume's own (plan_volumes.c: rd.luks.name=, the image's crypttab). The key comes from the
 * volume (rd.luks.key=, crypttab's key field: in the initramfs, or on a device) or from a
 * passphrase asked for at boot; the plan only says which, and what the prompt will name. A
 * listed volume (rd.luks.uuid=, rd.luks.name=, an entry of crypttab) is unlocked even when
 * nothing of the plan mounts it, as systemd's generator does. */
#include <errno.h>
#include <linux/dm-ioctl.h>
#include <stdio.h>
#include <string.h>

#include "luks.h"
#include "plan_internal.h"
#include "util.h"

bool plan_part_is_luks(const struct part *part)
{
	return part && streq(part->fstype, "crypto_LUKS");
}

/* Whether part is opened before it is used: a LUKS header, or a volume whose options say
 * plain dm-crypt or a detached header (its device shows no header of its own). */
static bool encrypted(const struct planner *p, const struct part *part)
{
	const struct plan_volume *v = part && !plan_part_is_luks(part) ? plan_volume_of(p, part) : NULL;

	return plan_part_is_luks(part) || (v && v->raw);
}

/* The device part is open as already, under name (the plan made again at boot once the root's
 * files were read, whose first steps ran), or NULL. A plain one has no UUID to find it by. */
static const struct part *opened_already(const struct planner *p, const struct part *part,
					 const char *mapper)
{
	const struct part *there = NULL;

	if (part->fsuuid[0])
		return disk_set_find_unlocked(p->disks, part->fsuuid);
	if (disk_set_find(p->disks, mapper, &there, NULL) == 0 && startswith(there->dm_uuid, "CRYPT-"))
		return there;
	return NULL;
}

/* The options of part's volume (v's, else the command line's for every volume) with bit 60's
 * readonly added, in canonical words. plan_luks_volumes() checked them. */
static void effective_options(struct planner *p, const struct plan_volume *v, bool read_only,
			      struct luks_options *o, char *out, size_t size)
{
	const char *text = v ? v->options : p->opts->luks.options;
	char why[PLAN_TEXT];

	luks_options_parse(text, o, why, sizeof(why));
	o->readonly = o->readonly || read_only;
	luks_options_format(o, out, size);
}

static void describe_volume(struct plan_step *step, const char *role, const struct part *part,
			    const struct disk *disk)
{
	char label[LABEL_SHOWN];
	struct text t;

	plan_text_init(&t, step->prompt, sizeof(step->prompt));
	if (part_is_whole_device(disk, part))
		plan_text_add(&t, "%s (the whole of %s)", role, disk->path);
	else if (part->label[0])
		plan_text_add(&t, "%s (partition %u '%s' of %s)", role, part->number,
			      plan_label_shown(part->label, label), disk->path);
	else
		plan_text_add(&t, "%s (partition %u of %s)", role, part->number, disk->path);
	plan_text_mark_cut(&t);
}

static int set_key(struct planner *p, struct plan_step *step, const struct plan_volume *v)
{
	const char *spec = v ? v->key : p->opts->luks.key;
	char origin[PLAN_TEXT];
	int r = 0;

	if (!spec || luks_key_parse(spec, step->key_file, sizeof(step->key_file), step->key_device,
				    sizeof(step->key_device)) == 0)
		goto out;
	if (v && v->entry)
		r = plan_fail(p, -EINVAL, "%s: the key %s is not a key file path (PATH[:DEVICE]) that "
			      "fits the plan", plan_volume_origin(v, origin, sizeof(origin)), spec);
	else
		r = plan_fail(p, -EINVAL, "rd.luks.key=%s: not a key file path (PATH[:DEVICE]) that fits "
			      "the plan", spec);
out:
	return r;
}

/* Which keys the unlock tries, in its order (init/unlock/luks_open.c), when a TPM2 token is one. */
static void note_key_order(struct planner *p, const struct plan_step *step,
			   const struct luks_options *o, const struct part *part, const char *role)
{
	char keys[PATH_MAX + 160];
	struct text t;

	if (!part->luks_tpm2)
		return;
	plan_text_init(&t, keys, sizeof(keys));
	if (step->key_file[0])
		plan_text_add(&t, "the key file %s, then ", step->key_file);
	plan_text_add(&t, "the TPM2 token%s%s", part->luks_tpm2 > 1 ? "s" : "",
		      part->luks_tpm2_pin ? " (asking for its PIN)" : "");
	if (!o->headless)
		plan_text_add(&t, ", then a passphrase");
	plan_note(p, "%s: %s: keys tried in order: %s", role, step->prompt, keys);
}

/* What an unlock is for. */
struct unlock_want {
	const struct part *part;
	const struct disk *disk;
	const char *spec;               /* the device as the command line or fstab names it; NULL
					 * when discovery found it */
	const char *role;               /* what messages and the prompt call it: "root", a name */
	const char *name;               /* the /dev/mapper name unless a volume names it */
	bool read_only;
	const struct plan_volume *listed; /* the listed volume opened for itself, or NULL */
};

static void unlock_reason(struct plan_step *step, const struct unlock_want *w,
			  const struct plan_volume *v)
{
	char origin[PLAN_TEXT];

	char kind[PLAN_TEXT];
	struct luks_options o;

	if (v && v->raw && luks_options_parse(step->options, &o, kind, sizeof(kind)) == 0)
		snprintf(kind, sizeof(kind), o.plain ? "plain dm-crypt" : "LUKS, its header in %.128s%s%.128s",
			 o.header, o.header_device[0] ? " on " : "", o.header_device);
	else
		snprintf(kind, sizeof(kind), "LUKS %s", w->part->fsuuid);
	if (v && v->entry && !w->listed)
		plan_step_reason(step, "%s: %s is encrypted (%s), named by %s", w->role,
				 w->spec ? w->spec : "the discovered partition", kind,
				 plan_volume_origin(v, origin, sizeof(origin)));
	else if (w->listed)
		plan_step_reason(step, "%s lists it (%s)",
				 plan_volume_origin(w->listed, origin, sizeof(origin)), kind);
	else if (w->spec)
		plan_step_reason(step, "%s: %s is encrypted (LUKS %s)", w->role, w->spec,
				 w->part->fsuuid);
	else
		plan_step_reason(step, "%s: discovered partition %u of %s is encrypted (LUKS %s)",
				 w->role, w->part->number, w->disk->path, w->part->fsuuid);
}

static struct plan_step *unlocked_by_step(struct planner *p, const struct part *part)
{
	for (size_t i = 0; i < p->plan->n_steps; i++)
		if (p->plan->steps[i].op == OP_UNLOCK && p->plan->steps[i].part == part)
			return &p->plan->steps[i];
	return NULL;
}

/* Notes what part's header holds that the unlock does not use. */
static void note_header(struct planner *p, const struct unlock_want *w)
{
	char where[PATH_MAX];

	if (w->part->luks_tokens[0])
		plan_note(p, "%s: the LUKS header of %s has tokens earlymount does not use (%s): "
			  "a passphrase, key file or TPM2 token opens it", w->role,
			  plan_part_name(w->disk, w->part, where, sizeof(where)), w->part->luks_tokens);
	if (w->part->luks_tpm2_error[0])
		plan_note(p, "%s: a TPM2 token of %s cannot be used: %s", w->role,
			  plan_part_name(w->disk, w->part, where, sizeof(where)), w->part->luks_tpm2_error);
}

/* Unlocks w->part as /dev/mapper/NAME (its volume's name, else w->name) into mapper. */
static int add_unlock(struct planner *p, const struct unlock_want *w, char *mapper,
		      size_t mapper_size, bool *optional)
{
	const struct part *part = w->part;
	const struct plan_volume *v = w->listed ? w->listed : plan_volume_of(p, part);
	struct luks_options o;
	char source[PLAN_PATH];
	char name[DM_NAME_LEN], where[PATH_MAX];
	struct plan_step *step = NULL;
	const struct part *there;
	int r = 0;

	if (v && (v->name || w->listed))
		plan_volume_name(v, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", w->name);
	snprintf(mapper, mapper_size, DM_MAPPER_DIR "/%s", name);
	/* unlocked by an earlier step already (a swap resumed from, then enabled): that device */
	step = unlocked_by_step(p, part);
	if (step) {
		snprintf(mapper, mapper_size, "%s", step->target);
		*optional = *optional || step->optional;
		goto out;
	}
	if (part->luks_error[0]) {
		r = plan_fail(p, -EINVAL, "%s: %s is LUKS, but its header cannot be opened with a "
			      "passphrase or key file: %s", w->role,
			      plan_part_name(w->disk, part, where, sizeof(where)), part->luks_error);
		goto out;
	}
	note_header(p, w);
	if (w->spec)
		r = plan_copy_field(p, source, sizeof(source), w->spec, "device");
	else
		r = plan_discovered_source(p, part, source, sizeof(source));
	/* this volume open under this name already: the plan made again at boot once the root's
	 * files were read, whose first steps ran (the device appeared meanwhile) */
	there = opened_already(p, part, mapper);
	if (r == 0 && !(there && streq(there->dm_name, name)))
		r = plan_check_mapper_free(p, mapper);
	if (r == 0)
		r = plan_add_step(p, OP_UNLOCK, source, mapper, "", part, &step);
	if (r == 0)
		r = set_key(p, step, v);
	if (r < 0)
		goto out;
	effective_options(p, v, w->read_only, &o, step->options, sizeof(step->options));
	/* the prompt names a crypttab entry as the file does */
	describe_volume(step, v && v->entry ? name : w->role, part, w->disk);
	note_key_order(p, step, &o, part, w->role);
	step->discovered = !w->spec;
	step->identity = !w->spec && (streq(w->role, dps_role_name(DPS_ROOT)) ||
				      streq(w->role, dps_role_name(DPS_VAR)));
	step->optional = *optional || o.nofail;
	*optional = step->optional;
	unlock_reason(step, w, v);
out:
	return r;
}

static int refuse_locked(struct planner *p, const struct part *part, const struct disk *disk,
			 const char *role)
{
	char where[PLAN_PATH];

	return plan_fail(p, -EPERM, "%s: %s is encrypted (LUKS) and rd.luks=no leaves it locked: "
			 "boot without rd.luks=no", role, plan_part_name(disk, part, where, sizeof(where)));
}

int plan_luks_mount_source(struct planner *p, const struct part *part, const struct disk *disk,
			   const char *spec, const char *role, const char *name, bool read_only,
			   struct luks_mount *out)
{
	bool optional = false;
	int r = 0;

	out->unlocked = false;
	if (!encrypted(p, part))
		goto out;
	if (!p->opts->luks.enabled) {
		r = refuse_locked(p, part, disk, role);
		goto out;
	}
	r = add_unlock(p, &(struct unlock_want){ part, disk, spec, role, name, read_only, NULL },
		       out->mapper, sizeof(out->mapper), &optional);
	out->unlocked = r == 0;
out:
	return r;
}

int plan_luks_role_source(struct planner *p, const struct part *part, enum dps_role role,
			  bool read_only, bool *optional, struct luks_mount *out)
{
	int r = 0;

	out->unlocked = false;
	if (!encrypted(p, part))
		goto out;
	if (!p->opts->luks.enabled) {
		plan_note(p, "partition %u (%s) not used: it is encrypted (LUKS) and rd.luks=no leaves it "
			  "locked", part->number, dps_role_name(role));
		goto out;
	}
	/* systemd's gpt-auto names are the roles' */
	r = add_unlock(p, &(struct unlock_want){ part, p->disk, NULL, dps_role_name(role),
						 dps_role_name(role), read_only, NULL },
		       out->mapper, sizeof(out->mapper), optional);
	out->unlocked = r == 0;
out:
	return r;
}

/* The volume listed by v, unless a mount of the plan unlocked it or it is open already. */
static int add_listed(struct planner *p, const struct plan_volume *v)
{
	char name[DM_NAME_LEN], origin[PLAN_TEXT];
	char mapper[PLAN_PATH], where[PLAN_PATH], matches[PLAN_ERROR];
	const struct part *part = NULL, *open;
	const struct disk *disk = NULL;
	bool optional = false;
	int r = disk_set_find(p->disks, v->device, &part, &disk);

	plan_volume_origin(v, origin, sizeof(origin));
	if (r == -ENOTUNIQ) {
		r = plan_fail(p, -ENOTUNIQ, "%s: several partitions match %s (%s; a cloned disk?): "
			      "refusing to pick one", origin, v->device,
			      plan_name_matches(p, v->device, matches, sizeof(matches)));
		goto out;
	}
	if (r < 0) {
		plan_note(p, "%s: no such LUKS device: not unlocked", origin);
		r = 0;
		goto out;
	}
	if (!plan_part_is_luks(part) && !v->raw) {
		plan_note(p, "%s: %s (%s) holds %s, not LUKS: not unlocked", origin,
			  plan_part_name(disk, part, where, sizeof(where)), v->device,
			  part->fstype[0] ? part->fstype : "nothing recognised");
		goto out;
	}
	if (unlocked_by_step(p, part))
		goto out;
	/* at boot, a listed volume is unlocked as soon as it appears (LVM on LUKS: the root
	 * inside it cannot be found before) */
	plan_volume_name(v, name, sizeof(name));
	snprintf(mapper, sizeof(mapper), DM_MAPPER_DIR "/%s", name);
	open = opened_already(p, part, mapper);
	if (open) {
		plan_note(p, "%s: unlocked already, as %s/%s", origin, DM_MAPPER_DIR, open->dm_name);
		goto out;
	}
	r = add_unlock(p, &(struct unlock_want){ part, disk, v->device, name, name, false, v },
		       mapper, sizeof(mapper), &optional);
out:
	return r;
}

/* The listed volumes (rd.luks.uuid=, rd.luks.name=, the image's crypttab) that no mount of
 * the plan unlocked. */
int plan_add_listed_volumes(struct planner *p)
{
	int r = 0;

	for (size_t i = 0; i < p->n_volumes && r == 0; i++)
		if (p->volumes[i].listed)
			r = add_listed(p, &p->volumes[i]);
	return r;
}
