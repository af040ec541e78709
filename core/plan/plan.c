/* The planner: which disk, which partitions, in which order and with which options.
 * Pure: it reads the option, disk and machine data it is given and writes the plan;
 * it never logs and never calls the system. Here is only the order of the decisions, each
 * needing the ones before it (the disk from what the command line names, the root from the
 * disk, /usr from the root's architecture); each decision has a file of its own, plan_*.c,
 * and plan_internal.h is what they share. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "plan_internal.h"
#include "uuid.h"

const char *const plan_default_inits[] = {
	"/sbin/init", "/etc/init", "/bin/init", "/bin/sh", NULL,
};

static int add_steps(struct planner *p)
{
	const struct options *opts = p->opts;
	int r;

	if (opts->root_kind == ROOT_TMPFS && opts->volatile_mode != VOLATILE_NO)
		plan_note(p, "systemd.volatile= ignored: root=tmpfs is volatile already");
	r = plan_add_resume_stage(p);
	if (r == 0)
		r = plan_add_root_stage(p);
	if (r < 0)
		goto out;
	if (!(opts->root_kind != ROOT_TMPFS && opts->volatile_mode == VOLATILE_YES && !p->usr &&
	      !plan_usr_is_share(p)))
		r = plan_add_usr_stage(p);
	if (r < 0)
		goto out;
	if (opts->root_kind != ROOT_TMPFS && opts->volatile_mode == VOLATILE_STATE)
		r = plan_add_volatile_tmpfs(p, ROOT_MOUNT_POINT "/var",
					    "systemd.volatile=state: /var is a tmpfs");
	if (r < 0)
		goto out;
	r = plan_add_discovered_stage(p);
	if (r == 0)
		r = plan_add_fstab_stage(p);
	if (r == 0)
		r = plan_add_listed_volumes(p);
	if (r == 0)
		r = plan_add_skeleton_stage(p);
out:
	return r;
}

static int check_input(const struct plan_input *in, struct planner *p)
{
	int r = 0;

	if (!in || !in->opts || !in->disks || !in->machine) {
		r = plan_fail(p, -EINVAL, "plan input incomplete: options, disks and machine are all "
			      "needed");
		goto out;
	}
	if (in->machine->arch <= ARCH_INVALID || in->machine->arch >= ARCH_MAX) {
		r = plan_fail(p, -EINVAL, "machine architecture unknown: cannot tell which root partition "
			      "type to look for");
		goto out;
	}
	if (in->n_failed && !in->failed) {
		r = plan_fail(p, -EINVAL, "plan input incomplete: failures counted but not given");
		goto out;
	}
	p->opts = in->opts;
	p->disks = in->disks;
	p->machine = in->machine;
	p->failed = in->failed;
	p->n_failed = in->n_failed;
out:
	return r;
}

/* An empty plan, and the planner's input checked. */
static int start(const struct plan_input *in, struct plan *plan, struct planner *p)
{
	memset(plan, 0, sizeof(*plan));
	p->plan = plan;
	return check_input(in, p);
}

int plan_build_listed_unlocks(const struct plan_input *in, struct plan *plan)
{
	struct planner p = { 0 };
	int r;

	if (!plan)
		return -EINVAL;
	r = start(in, plan, &p);
	if (r == 0)
		r = plan_luks_volumes(&p);
	if (r == 0)
		r = plan_add_listed_volumes(&p);
	plan_notes_finish(&p);
	return r;
}

int plan_listed_volume(const struct plan_input *in, const char *uuid, struct plan *plan,
		       char *name, size_t name_size, char *origin, size_t origin_size)
{
	struct planner p = { 0 };
	char spec[sizeof("UUID=") + UUID_STR_LEN];
	const struct plan_volume *v = NULL;
	const struct part *part;
	int r;

	if (!plan || !uuid)
		return -EINVAL;
	r = start(in, plan, &p);
	if (r == 0)
		r = plan_luks_volumes(&p);
	if (r < 0)
		goto out;
	snprintf(spec, sizeof(spec), "UUID=%s", uuid);
	if (disk_set_find(p.disks, spec, &part, NULL) == 0)
		v = plan_volume_of(&p, part);
	for (size_t i = 0; !v && i < p.n_volumes; i++)
		if (p.volumes[i].uuid[0] && uuid_str_equal(p.volumes[i].uuid, uuid))
			v = &p.volumes[i];
	r = v && v->listed ? 0 : -ENOENT;
	if (r == 0) {
		plan_volume_name(v, name, name_size);
		plan_volume_origin(v, origin, origin_size);
	}
out:
	plan_notes_finish(&p);
	return r;
}

/* The plan, with opts in place of the input's when not NULL: those that take /usr from the
 * root's fstab entry usr. */
static int build(const struct plan_input *in, struct plan *plan, const struct options *opts,
		 const struct fstab_entry *usr, bool fstab_mounts)
{
	struct planner p = { .usr_key = "mount.usr=", .fstab_mounts = fstab_mounts };
	int r;

	r = start(in, plan, &p);
	if (r < 0)
		goto out;
	if (opts)
		p.opts = opts;
	if (usr) {
		p.usr_key = "the root's fstab: /usr on ";
		p.usr_no_fsck = usr->passno == 0;
	}
	if (usr && usr->network) {
		r = plan_fail(&p, -EOPNOTSUPP, "the root's fstab mounts /usr from %s, a network "
			      "filesystem, which earlymount does not mount", usr->what);
		goto out;
	}
	r = plan_copy_field(&p, plan->init, sizeof(plan->init), p.opts->init, "init=");
	if (r == 0)
		r = plan_policy_check_given(&p);
	if (r == 0)
		r = plan_check_share_options(&p);
	if (r == 0)
		r = plan_verity_resolve_options(&p);
	if (r == 0)
		r = plan_luks_volumes(&p);
	if (r == 0)
		r = plan_resolve_explicit(&p);
	if (r == 0)
		r = plan_choose_disk(&p);
	if (r == 0)
		r = plan_policy_check_disk(&p);
	if (r == 0)
		r = plan_choose_root(&p);
	if (r == 0)
		r = plan_choose_usr(&p);
	if (r < 0)
		goto out;
	plan_note_verity(&p);
	r = add_steps(&p);
	if (r == 0)
		r = plan_policy_check_used(&p);
	if (r < 0)
		goto out;
	plan->disk = p.disk;
	plan->root = p.root;
	plan->usr = p.usr;
	plan->root_discovered = p.root && !p.root_explicit && !p.root_verity.spec;
	plan->usr_discovered = p.usr && !p.usr_explicit && !p.usr_verity.spec;
out:
	plan_notes_finish(&p);
	return r;
}

int plan_build(const struct plan_input *in, struct plan *plan)
{
	struct options with_usr;
	char usr_flags[FSTAB_FIELD + 4];
	const struct fstab_entry *usr = NULL;
	bool fstab_usr;
	int r;

	if (!plan)
		return -EINVAL;
	fstab_usr = in && in->machine && in->opts && in->machine->has_fstab &&
		    fstab_find(&in->machine->fstab, "/usr") && !in->opts->usr;
	/* a /usr of the fstab only where nothing else gives one: a first plan without the fstab's
	 * mounts says whether something does, then the plan is made with them */
	r = build(in, plan, NULL, NULL, !fstab_usr);
	if (r == 0 && fstab_usr) {
		if (plan_fstab_usr_options(in, plan, &with_usr, usr_flags, sizeof(usr_flags), &usr))
			r = build(in, plan, &with_usr, usr, true);
		else
			r = build(in, plan, NULL, NULL, true);
	}
	return r;
}
