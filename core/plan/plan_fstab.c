/* The root's /etc/fstab: its /usr and its x-initrd.mount entries are mounted before the
 * handoff, as systemd's initrd does (initramfs-tools: /usr), since the real init may need
 * them before it reads the fstab itself. An fstab's /usr is mount.usr= by another name, taken
 * when nothing else gives a /usr; it is mounted read-only or read-write as the root is, and
 * checked when read-write unless its pass is 0. The other entries are mounted as written. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

#define FSTAB_KEY "the root's fstab: "

int plan_fstab_usr_options(const struct plan_input *in, const struct plan *first,
			   struct options *out, char *flags, size_t size,
			   const struct fstab_entry **entry)
{
	const struct options *o = in->opts;
	const struct fstab_entry *e = in->machine->has_fstab ? fstab_find(&in->machine->fstab, "/usr")
							      : NULL;
	bool rw;

	*entry = NULL;
	if (!e || o->usr || o->verity_usr.hash || first->usr || o->root_kind == ROOT_TMPFS ||
	    o->volatile_mode == VOLATILE_YES)
		return 0;
	*out = *o;
	out->usr = e->what;
	out->usrfstype = e->type[0] ? e->type : NULL;
	rw = o->rw == 1 && e->rw != 0;
	snprintf(flags, size, "%s%s%s", e->options, e->options[0] ? "," : "", rw ? "rw" : "ro");
	out->usrflags = flags;
	*entry = e;
	return 1;
}

/* Whether a step of the plan so far mounts something on target. */
static bool mounted_already(const struct planner *p, const char *target)
{
	for (size_t i = 0; i < p->plan->n_steps; i++) {
		const struct plan_step *s = &p->plan->steps[i];

		if ((s->op == OP_MOUNT || s->op == OP_TMPFS || s->op == OP_BIND || s->op == OP_SHARE ||
		     s->op == OP_OVERLAY) && streq(s->target, target))
			return true;
	}
	return false;
}

/* The device an entry names, refused as a root or /usr would be; with nofail one not there
 * is left out (1). */
static int entry_part(struct planner *p, const struct fstab_entry *e, const char *what,
		      const struct part **part, const struct disk **disk)
{
	int r;

	if (e->nofail && disk_set_find(p->disks, e->what, part, disk) == -ENOENT) {
		plan_note(p, FSTAB_KEY "%s on %s not mounted: the device is not there (nofail)",
			  e->what, e->where);
		return 1;
	}
	r = plan_resolve_spec(p, FSTAB_KEY, e->what, part, disk);
	if (r == 0)
		r = plan_refuse_damaged(p, *disk, *part, what);
	return r;
}

/* One x-initrd.mount entry: checked first when mounted read-write with a pass. */
static int add_entry(struct planner *p, const struct fstab_entry *e)
{
	char target[PLAN_PATH], what[FSTAB_FIELD + 64];
	const struct part *part = NULL;
	const struct disk *disk = NULL;
	struct mount_flags flags = { .rw = e->rw != 0, .no_fsck = e->passno == 0, .user = e->options };
	struct plan_step *step = NULL;
	const char *fstype = NULL;
	int r = 0;

	snprintf(what, sizeof(what), FSTAB_KEY "%s (line %u)", e->where, e->line);
	if (snprintf(target, sizeof(target), ROOT_MOUNT_POINT "%s", e->where) >= (int)sizeof(target)) {
		r = plan_fail(p, -EINVAL, "%s: the mount point is too long", what);
		goto out;
	}
	if (mounted_already(p, target)) {
		plan_note(p, "%s not mounted from %s: something is mounted there already", what, e->what);
		goto out;
	}
	if (e->network) {
		if (e->nofail)
			plan_note(p, "%s not mounted: %s is a network filesystem, which earlymount does not "
				  "mount (nofail)", what, e->what);
		else
			r = plan_fail(p, -EOPNOTSUPP, "%s is x-initrd.mount, from %s: a network filesystem, "
				      "which earlymount does not mount; drop x-initrd.mount or add nofail",
				      what, e->what);
		goto out;
	}
	r = entry_part(p, e, what, &part, &disk);
	if (r == 0)
		r = plan_add_stack_step(p, part, disk, what, e->options);
	if (r == 0)
		r = plan_check_fstype(p, part, what, e->type, "a type in the fstab", false, &fstype);
	if (r == 0)
		r = plan_check_members(p, part, what, e->options, "the fstab's options ");
	if (r == 0 && flags.rw && !flags.no_fsck)
		r = plan_add_fsck_step(p, e->what, part, fstype, target);
	if (r == 0)
		r = plan_add_step(p, OP_MOUNT, e->what, target, fstype, part, &step);
	if (r == 0)
		r = plan_format_options(p, step->options, sizeof(step->options), &flags, target);
	if (r == 0) {
		step->optional = e->nofail;
		plan_step_reason(step, "%s: x-initrd.mount", what);
	}
out:
	return r > 0 ? 0 : r;
}

int plan_add_fstab_stage(struct planner *p)
{
	const struct fstab *f = &p->machine->fstab;
	int r = 0;

	if (!p->machine->has_fstab || !p->plan->fstab_path[0] || !p->fstab_mounts)
		goto out;
	if (f->bad_line)
		plan_note(p, FSTAB_KEY "line %u skipped: %s", f->bad_line, f->bad_why);
	if (f->dropped)
		plan_note(p, FSTAB_KEY "%u x-initrd.mount entries past the first %d left out", f->dropped,
			  FSTAB_MAX_ENTRIES);
	if (fstab_find(f, "/usr") && p->usr_key && !startswith(p->usr_key, FSTAB_KEY))
		plan_note(p, FSTAB_KEY "/usr on %s not used: %s", fstab_find(f, "/usr")->what,
			  p->opts->usr ? "mount.usr= names /usr" : "/usr is found otherwise");
	for (size_t i = 0; i < f->n && r == 0; i++)
		if (!streq(f->entries[i].where, "/usr"))
			r = add_entry(p, &f->entries[i]);
out:
	return r;
}
