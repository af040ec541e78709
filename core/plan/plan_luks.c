/* LUKS: a partition the plan mounts (root, /usr, /var, …, swap) whose content is crypto_LUKS
 * is unlocked first, as /dev/mapper/NAME, and its mount takes that device instead. The names
 * are systemd's: the role's ("root", "usr", "var", "home", "srv", "tmp", "swap"), or
 * rd.luks.name='s for the header's UUID. The key comes from rd.luks.key= (in the initramfs, or
 * on a device) or from a passphrase asked for at boot; the plan only says which, and what
 * the prompt will name. A volume listed by rd.luks.uuid= or rd.luks.name= is unlocked even
 * when nothing of the plan mounts it, as systemd's generator does. */
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

/* The command line's entry for part's LUKS header, or NULL. */
static const struct luks_volume *volume_of(const struct planner *p, const struct part *part)
{
	const struct luks_cmdline *l = &p->opts->luks;

	for (size_t i = 0; part && part->fsuuid[0] && i < l->n_volumes; i++)
		if (uuid_str_equal(l->volumes[i].uuid, part->fsuuid))
			return &l->volumes[i];
	return NULL;
}

static void volume_name(const struct luks_volume *v, char *out, size_t size)
{
	if (v->name)
		snprintf(out, size, "%s", v->name);
	else
		snprintf(out, size, "luks-%s", v->uuid);
}

/* Every option string of the command line, checked once, so that a malformed value stops
 * the plan before anything is asked for. */
int plan_luks_check_options(struct planner *p)
{
	const struct luks_cmdline *l = &p->opts->luks;
	struct luks_options o;
	char why[PLAN_TEXT];
	int r = 0;

	for (size_t i = 0; i <= l->n_volumes && r == 0; i++) {
		const char *text = i < l->n_volumes ? l->volumes[i].options : l->options;

		if (!text)
			continue;
		r = luks_options_parse(text, &o, why, sizeof(why));
		if (r < 0)
			r = plan_fail(p, -EINVAL, "rd.luks.options=%s: %s", text, why);
		else if (o.unknown[0])
			plan_note(p, "rd.luks.options=: left out what earlymount does not know: %s", o.unknown);
	}
	return r;
}

/* The name root= or mount.usr= gives as /dev/mapper/NAME when it is a listed volume's: the
 * volume's header UUID as a device spec in uuid_spec. */
bool plan_luks_names_device(const struct planner *p, const char *device, char *uuid_spec,
			    size_t size)
{
	const struct luks_cmdline *l = &p->opts->luks;
	const char *name = device ? startswith(device, DM_MAPPER_DIR "/") : NULL;
	char wanted[DM_NAME_LEN];

	for (size_t i = 0; name && l->enabled && i < l->n_volumes; i++) {
		volume_name(&l->volumes[i], wanted, sizeof(wanted));
		if (streq(name, wanted)) {
			snprintf(uuid_spec, size, "UUID=%s", l->volumes[i].uuid);
			return true;
		}
	}
	return false;
}

/* The options of part's volume with bit 60's readonly added, in canonical words. */
static int effective_options(struct planner *p, const struct luks_volume *v, bool read_only,
			     struct luks_options *o, char *out, size_t size)
{
	const char *text = v && v->options ? v->options : p->opts->luks.options;
	char why[PLAN_TEXT];
	int r = luks_options_parse(text, o, why, sizeof(why));

	if (r < 0) {
		r = plan_fail(p, -EINVAL, "rd.luks.options=%s: %s", text, why);
		goto out;
	}
	o->readonly = o->readonly || read_only;
	luks_options_format(o, out, size);
out:
	return r;
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

static int set_key(struct planner *p, struct plan_step *step, const struct luks_volume *v)
{
	const char *spec = v && v->key ? v->key : p->opts->luks.key;
	int r = 0;

	if (spec && luks_key_parse(spec, step->key_file, sizeof(step->key_file), step->key_device,
				   sizeof(step->key_device)) < 0)
		r = plan_fail(p, -EINVAL, "rd.luks.key=%s: not a key file path (PATH[:DEVICE]) that fits "
			      "the plan", spec);
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

/* Unlocks part as /dev/mapper/NAME (rd.luks.name='s, else default_name) into mapper. */
static int add_unlock(struct planner *p, const struct part *part, const struct disk *disk,
		      const char *spec, const char *role, const char *default_name, bool read_only,
		      char *mapper, size_t mapper_size, bool *optional)
{
	const struct luks_volume *v = volume_of(p, part);
	struct luks_options o;
	char source[PLAN_PATH];
	char name[DM_NAME_LEN], where[PATH_MAX];
	struct plan_step *step = NULL;
	const struct part *there;
	int r = 0;

	if (v && v->name)
		volume_name(v, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", default_name);
	snprintf(mapper, mapper_size, DM_MAPPER_DIR "/%s", name);
	if (part->luks_error[0]) {
		r = plan_fail(p, -EINVAL, "%s: %s is LUKS, but its header cannot be opened with a "
			      "passphrase or key file: %s", role,
			      plan_part_name(disk, part, where, sizeof(where)), part->luks_error);
		goto out;
	}
	if (part->luks_tokens[0])
		plan_note(p, "%s: the LUKS header of %s has tokens earlymount does not use (%s): "
			  "a passphrase, key file or TPM2 token opens it", role,
			  plan_part_name(disk, part, where, sizeof(where)), part->luks_tokens);
	if (part->luks_tpm2_error[0])
		plan_note(p, "%s: a TPM2 token of %s cannot be used: %s", role,
			  plan_part_name(disk, part, where, sizeof(where)), part->luks_tpm2_error);
	if (spec)
		r = plan_copy_field(p, source, sizeof(source), spec, "device");
	else
		r = plan_discovered_source(p, part, source, sizeof(source));
	/* this volume open under this name already: the plan made again at boot once the root's
	 * files were read, whose first steps ran (the device appeared meanwhile) */
	there = disk_set_find_unlocked(p->disks, part->fsuuid);
	if (r == 0 && !(there && streq(there->dm_name, name)))
		r = plan_check_mapper_free(p, mapper);
	if (r == 0)
		r = plan_add_step(p, OP_UNLOCK, source, mapper, "", part, &step);
	if (r == 0)
		r = effective_options(p, v, read_only, &o, step->options, sizeof(step->options));
	if (r == 0)
		r = set_key(p, step, v);
	if (r < 0)
		goto out;
	describe_volume(step, role, part, disk);
	note_key_order(p, step, &o, part, role);
	step->discovered = !spec;
	step->identity = !spec && (streq(role, dps_role_name(DPS_ROOT)) ||
				   streq(role, dps_role_name(DPS_VAR)));
	step->optional = *optional || o.nofail;
	*optional = step->optional;
	if (spec)
		plan_step_reason(step, "%s: %s is encrypted (LUKS %s)", role, spec, part->fsuuid);
	else
		plan_step_reason(step, "%s: discovered partition %u of %s is encrypted (LUKS %s)", role,
				 part->number, disk->path, part->fsuuid);
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
	if (!plan_part_is_luks(part))
		goto out;
	if (!p->opts->luks.enabled) {
		r = refuse_locked(p, part, disk, role);
		goto out;
	}
	r = add_unlock(p, part, disk, spec, role, name, read_only, out->mapper,
		       sizeof(out->mapper), &optional);
	out->unlocked = r == 0;
out:
	return r;
}

int plan_luks_role_source(struct planner *p, const struct part *part, enum dps_role role,
			  bool read_only, bool *optional, struct luks_mount *out)
{
	int r = 0;

	out->unlocked = false;
	if (!plan_part_is_luks(part))
		goto out;
	if (!p->opts->luks.enabled) {
		plan_note(p, "partition %u (%s) not used: it is encrypted (LUKS) and rd.luks=no leaves it "
			  "locked", part->number, dps_role_name(role));
		goto out;
	}
	/* systemd's gpt-auto names are the roles' */
	r = add_unlock(p, part, p->disk, NULL, dps_role_name(role), dps_role_name(role),
		       read_only, out->mapper, sizeof(out->mapper), optional);
	out->unlocked = r == 0;
out:
	return r;
}

static bool already_unlocked(const struct planner *p, const struct part *part)
{
	const struct plan *plan = p->plan;

	for (size_t i = 0; i < plan->n_steps; i++)
		if (plan->steps[i].op == OP_UNLOCK && plan->steps[i].part == part)
			return true;
	return false;
}

/* rd.luks.uuid= and rd.luks.name= volumes that no mount of the plan unlocked. */
int plan_add_listed_volumes(struct planner *p)
{
	const struct luks_cmdline *l = &p->opts->luks;
	char spec[sizeof("UUID=") + UUID_STR_LEN];
	char name[DM_NAME_LEN];
	char mapper[PLAN_PATH], where[PLAN_PATH], matches[PLAN_ERROR];
	int r = 0;

	for (size_t i = 0; l->enabled && i < l->n_volumes && r == 0; i++) {
		const struct luks_volume *v = &l->volumes[i];
		const struct part *part = NULL, *open;
		const struct disk *disk = NULL;
		bool optional = false;

		if (!v->listed)
			continue;
		snprintf(spec, sizeof(spec), "UUID=%s", v->uuid);
		r = disk_set_find(p->disks, spec, &part, &disk);
		if (r == 0 && !plan_part_is_luks(part)) {
			plan_note(p, "rd.luks.uuid=%s: %s has this UUID but holds %s, not LUKS: not "
				  "unlocked", v->uuid, plan_part_name(disk, part, where, sizeof(where)),
				  part->fstype[0] ? part->fstype : "nothing recognised");
			continue;
		}
		if (r == -ENOTUNIQ) {
			r = plan_fail(p, -ENOTUNIQ, "rd.luks.uuid=%s: several partitions carry this LUKS "
				      "UUID (%s; a cloned disk?): refusing to pick one", v->uuid,
				      plan_name_matches(p, spec, matches, sizeof(matches)));
			continue;
		}
		if (r < 0) {
			plan_note(p, "rd.luks.uuid=%s: no such LUKS device: not unlocked", v->uuid);
			r = 0;
			continue;
		}
		if (already_unlocked(p, part))
			continue;
		/* at boot, a listed volume is unlocked as soon as it appears (LVM on LUKS: the
		 * root inside it cannot be found before) */
		open = disk_set_find_unlocked(p->disks, v->uuid);
		if (open) {
			plan_note(p, "rd.luks.uuid=%s: unlocked already, as %s/%s", v->uuid, DM_MAPPER_DIR,
				  open->dm_name);
			continue;
		}
		volume_name(v, name, sizeof(name));
		r = add_unlock(p, part, disk, spec, name, name, false, mapper, sizeof(mapper),
			       &optional);
	}
	return r;
}
