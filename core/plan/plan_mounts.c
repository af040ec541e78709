/* The mounts of root and /usr. Both are mounted by alike rules (GPT bit 60 and norecovery,
 * nodev unless named on the command line), kept beside add_part_mount(), which both go
 * through. */
#include <errno.h>

#include "plan_internal.h"
#include "util.h"

/* Root or /usr: the part, how it is named, and the flags it is mounted with. */
static int add_part_mount(struct planner *p, const struct part *part, const char *spec,
			  const char *target, const char *fstype, struct mount_flags *flags,
			  struct plan_step **out)
{
	char source[PLAN_PATH];
	struct plan_step *step = NULL;
	int r = 0;

	if (spec)
		r = plan_copy_field(p, source, sizeof(source), spec, "device");
	else
		r = plan_discovered_source(p, part, source, sizeof(source));
	if (r == 0 && flags->rw && !flags->no_fsck)
		r = plan_add_fsck_step(p, source, part, fstype, target);
	if (r < 0)
		goto out;
	r = plan_add_step(p, OP_MOUNT, source, target, fstype, part, &step);
	if (r < 0)
		goto out;
	r = plan_format_options(p, step->options, sizeof(step->options), flags, target);
	if (r == 0)
		*out = step;
out:
	return r;
}

/* Why root or /usr is mounted from where it is: named by key, or discovered (through its
 * verity or LUKS device, when through says which). */
static void mount_reason(struct plan_step *step, const char *role, const char *key,
			 const char *named, const struct part *part, const struct disk *disk,
			 const char *through)
{
	if (named && part->predicted)
		plan_step_reason(step, "%s%s (made at boot: what it holds is probed then)", key, named);
	else if (named && part_is_whole_device(disk, part))
		plan_step_reason(step, "%s%s (the whole of %s%s%s)", key, named, disk->path,
				 part->dm_name[0] ? ", /dev/mapper/" : "", part->dm_name);
	else if (named)
		plan_step_reason(step, "%s%s (partition %u of %s)", key, named, part->number, disk->path);
	else if (through)
		plan_step_reason(step, "%s: the %s device over discovered partition %u of %s", role,
				 through, part->number, disk->path);
	else
		plan_step_reason(step, "%s: discovered partition %u of %s", role, part->number, disk->path);
}

static const char *device_kind(const struct verity_pick *v, const struct luks_mount *luks)
{
	return v->root_hash ? "verity" : luks->unlocked ? "unlocked LUKS" : NULL;
}

/* Root or /usr on LUKS: unlocked first, its filesystem probed at boot unless forced. */
static int unlock_source(struct planner *p, const struct part *part, const struct disk *disk,
			 const char *spec, const char *luks_spec, const char *role,
			 const char *forced, const struct verity_pick *v, struct luks_mount *luks,
			 const char **fstype)
{
	/* root= named the device of an rd.luks.uuid= volume: it keeps that name */
	const char *name = luks_spec[0] ? startswith(spec, "/dev/mapper/") : role;
	char where[PLAN_PATH];
	int r = 0;

	if (plan_part_is_luks(part) && v->root_hash)
		r = plan_fail(p, -EINVAL, "%s: %s is encrypted (LUKS) and also to be verified by %s: "
			      "dm-verity over LUKS is not supported", role,
			      plan_part_name(disk, part, where, sizeof(where)),
			      v->sig ? "a signed hash" : v->hash_key);
	if (r == 0)
		r = plan_luks_mount_source(p, part, disk, luks_spec[0] ? luks_spec : spec, role, name,
					   plan_part_read_only(part, disk), luks);
	if (r == 0 && luks->unlocked)
		*fstype = forced ? forced : "";
	return r;
}

int plan_add_root_mount(struct planner *p, const char *target, bool force_ro, const char *why_ro)
{
	const struct options *opts = p->opts;
	struct mount_flags flags = { 0 };
	const char *fstype = NULL;
	struct plan_step *step = NULL;
	const char *spec = p->root_explicit ? opts->root : NULL;
	const struct part *part = p->root;
	struct luks_mount luks = { 0 };
	bool read_only;
	int r;

	if (plan_root_is_share(p))
		return plan_add_share_root(p, target, force_ro, why_ro);
	read_only = plan_part_read_only(p->root, p->root_disk);
	r = plan_refuse_damaged(p, p->root_disk, p->root, "root");
	if (r == 0)
		r = plan_add_stack_step(p, p->root, p->root_disk, "root", opts->rootflags);
	if (r == 0)
		r = unlock_source(p, p->root, p->root_disk, spec, p->root_luks_spec, "root",
				  opts->rootfstype, &p->root_verity, &luks, &fstype);
	if (r == 0 && !luks.unlocked)
		r = plan_check_fstype(p, p->root_disk, p->root, &(const struct fstype_check){
					      .what = "root", .key = "root=", .forced = opts->rootfstype,
					      .forced_key = "rootfstype=", .discovered = !p->root_explicit },
				      &fstype);
	if (r == 0)
		r = plan_check_members(p, p->root, "root", opts->rootflags, "rootflags=");
	if (r < 0)
		goto out;
	flags.rw = opts->rw == 1 && !force_ro && !read_only;
	if (opts->rw == 1 && force_ro)
		plan_note(p, "root mounted read-only although rw was given: %s", why_ro);
	else if (opts->rw == 1 && read_only)
		plan_note(p, "root partition %u mounted read-only although rw was given: GPT bit 60 "
			  "(read-only) set", p->root->number);
	flags.nodev = !p->root_explicit;
	/* Only bit 60 earns norecovery: a root merely mounted ro is remounted rw by the real
	 * init, and ext4/xfs refuse that remount after a mount with norecovery. */
	flags.norecovery = read_only && plan_fstype_journalled(fstype);
	flags.user = opts->rootflags;
	r = plan_verity_mount_source(p, &p->root_verity, fstype, &flags, &spec, &part);
	if (r < 0)
		goto out;
	if (luks.unlocked) {
		spec = luks.mapper;
		part = NULL;
	}
	p->root_rw = flags.rw;
	r = add_part_mount(p, part, spec, target, fstype, &flags, &step);
	if (r < 0)
		goto out;
	step->norecovery_if_journalled = luks.unlocked && read_only;
	mount_reason(step, "root", "root=", p->root_explicit ? opts->root : NULL, p->root,
		     p->root_disk, device_kind(&p->root_verity, &luks));
	if (!p->root_explicit && part == p->root && plan_part_grows(p->root_disk, p->root))
		r = plan_add_growfs(p, step, "GPT bit 59 (grow-fs) of the root partition");
out:
	return r;
}

int plan_add_usr_stage(struct planner *p)
{
	const struct options *opts = p->opts;
	/* The root's flags are a tmpfs's under root=tmpfs: nothing for a /usr filesystem. */
	const char *flags_given = opts->usrflags ? opts->usrflags
				: opts->root_kind == ROOT_TMPFS ? NULL : opts->rootflags;
	struct mount_flags flags = { 0 };
	const char *fstype = NULL;
	struct plan_step *step = NULL;
	const struct part *part;
	const char *spec;
	struct luks_mount luks = { 0 };
	bool read_only;
	int r = 0;

	if (plan_usr_is_share(p))
		return plan_add_share_usr(p);
	if (!p->usr) {
		if (opts->root_kind == ROOT_TMPFS)
			r = plan_fail_found(p, -ENOENT, "root=tmpfs needs a /usr: give mount.usr= or add a usr "
					    "partition");
		goto out;
	}
	spec = p->usr_explicit ? opts->usr : NULL;
	r = plan_refuse_damaged(p, p->usr_disk, p->usr, "usr");
	if (r == 0)
		r = plan_add_stack_step(p, p->usr, p->usr_disk, "usr", flags_given);
	if (r == 0)
		r = unlock_source(p, p->usr, p->usr_disk, spec, p->usr_luks_spec, "usr",
				  opts->usrfstype, &p->usr_verity, &luks, &fstype);
	if (r == 0 && !luks.unlocked)
		r = plan_check_fstype(p, p->usr_disk, p->usr, &(const struct fstype_check){
					      .what = "usr", .key = p->usr_key, .forced = opts->usrfstype,
					      .forced_key = "mount.usrfstype=", .discovered = !p->usr_explicit },
				      &fstype);
	if (r == 0)
		r = plan_check_members(p, p->usr, "usr", flags_given, flags_given == opts->usrflags ?
				       "mount.usrflags=" : "rootflags=");
	if (r < 0)
		goto out;
	read_only = plan_part_read_only(p->usr, p->usr_disk);
	/* Read-only /usr everywhere: only mount.usrflags=rw itself makes it writable. */
	flags.rw = plan_flags_want_rw(opts->usrflags);
	if (flags.rw && read_only) {
		plan_note(p, "usr partition %u mounted read-only although rw was given: GPT bit 60 "
			  "(read-only) set", p->usr->number);
		flags.rw = false;
	} else if (flags.rw && opts->root_kind != ROOT_TMPFS && opts->volatile_mode == VOLATILE_YES) {
		plan_note(p, "/usr mounted read-only although rw was given: systemd.volatile=yes");
		flags.rw = false;
	}
	flags.nodev = !p->usr_explicit;
	flags.norecovery = read_only && plan_fstype_journalled(fstype);
	flags.no_fsck = p->usr_no_fsck;
	flags.user = flags_given;
	part = p->usr;
	r = plan_verity_mount_source(p, &p->usr_verity, fstype, &flags, &spec, &part);
	if (r < 0)
		goto out;
	if (luks.unlocked) {
		spec = luks.mapper;
		part = NULL;
	}
	r = add_part_mount(p, part, spec, ROOT_MOUNT_POINT "/usr", fstype, &flags, &step);
	if (r < 0)
		goto out;
	step->norecovery_if_journalled = luks.unlocked && read_only;
	mount_reason(step, "usr", p->usr_key, p->usr_explicit ? opts->usr : NULL, p->usr,
		     p->usr_disk, device_kind(&p->usr_verity, &luks));
	if (!p->usr_explicit && part == p->usr && plan_part_grows(p->usr_disk, p->usr))
		r = plan_add_growfs(p, step, "GPT bit 59 (grow-fs) of the usr partition");
out:
	return r;
}
