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

/* Where the entries come from: the root's fstab, or the command line's extra mounts. */
struct entry_source {
	const char *key;    /* FSTAB_KEY, "systemd.mount-extra=" */
	const char *marked; /* why it is mounted in the initramfs, for the step's reason */
	const char *undo;   /* what keeps it from being mounted, for a refusal's advice */
};

static const struct entry_source from_fstab = { FSTAB_KEY, "x-initrd.mount",
						"drop x-initrd.mount" };
static const struct entry_source from_cmdline = { "systemd.mount-extra=",
						  "the command line mounts it",
						  "drop it from the command line" };

/* The device an entry names, refused as a root or /usr would be; with nofail one not there
 * is left out (1). */
static int entry_part(struct planner *p, const struct entry_source *src, const struct fstab_entry *e,
		      const char *what, const struct part **part, const struct disk **disk)
{
	int r;

	if (e->nofail && disk_set_find(p->disks, e->what, part, disk) == -ENOENT) {
		plan_note(p, "%s%s on %s not mounted: the device is not there (nofail)", src->key,
			  e->what, e->where);
		return 1;
	}
	r = plan_resolve_spec(p, src->key, e->what, part, disk);
	if (r == 0)
		r = plan_refuse_damaged(p, *disk, *part, what);
	return r;
}

/* A bind mount (its source a path of the new root, which systemd prefixes in the initrd too)
 * or a tmpfs: no device to wait for. 1 when e is one of those (planned), else 0, or -errno. */
static int add_pseudo(struct planner *p, const struct fstab_entry *e, const char *target,
		      const char *what)
{
	char source[PLAN_PATH];
	bool bind = plan_flags_have(e->options, "bind") || plan_flags_have(e->options, "rbind");
	int r = 0;

	if (bind) {
		if (snprintf(source, sizeof(source), ROOT_MOUNT_POINT "%s", e->what) >= (int)sizeof(source))
			r = plan_fail(p, -EINVAL, "%s: the bind mount's source is too long", what);
		else
			r = plan_add_simple(p, OP_BIND, source, target, "", e->rw == 0 ? "ro" : "", what);
	} else if (streq(e->type, "tmpfs")) {
		r = plan_add_simple(p, OP_TMPFS, "tmpfs", target, "tmpfs", e->options, what);
	}
	return r < 0 ? r : bind || streq(e->type, "tmpfs");
}

/* One entry mounted in the initramfs: checked first when mounted read-write with a pass. */
static int add_entry(struct planner *p, const struct entry_source *src, const struct fstab_entry *e)
{
	char target[PLAN_PATH], what[2 * FSTAB_FIELD + 64];
	const struct part *part = NULL;
	const struct disk *disk = NULL;
	struct mount_flags flags = { .rw = e->rw != 0, .no_fsck = e->passno == 0, .user = e->options };
	struct plan_step *step = NULL;
	const char *fstype = NULL;
	int r = 0;

	if (src == &from_fstab)
		snprintf(what, sizeof(what), FSTAB_KEY "%s (line %u)", e->where, e->line);
	else
		snprintf(what, sizeof(what), "%s%s:%s", src->key, e->what, e->where);
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
			r = plan_fail(p, -EOPNOTSUPP, "%s: %s from %s, a network filesystem, which "
				      "earlymount does not mount; %s or add nofail", what, src->marked,
				      e->what, src->undo);
		goto out;
	}
	r = add_pseudo(p, e, target, what);
	if (r != 0)
		goto out;
	r = entry_part(p, src, e, what, &part, &disk);
	if (r == 0)
		r = plan_add_stack_step(p, part, disk, what, e->options);
	if (r == 0)
		r = plan_check_fstype(p, disk, part, &(const struct fstype_check){
					      .what = what, .forced = e->type,
					      .forced_key = "a type in the fstab" }, &fstype);
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
		plan_step_reason(step, "%s: %s", what, src->marked);
	}
	if (r == 0 && e->growfs)
		r = plan_add_growfs(p, step, "x-systemd.growfs");
out:
	return r > 0 ? 0 : r;
}

/* The swapon step the plan has for part already, or NULL. */
static const struct plan_step *swapped_already(const struct planner *p, const struct part *part)
{
	const struct plan_step *found = NULL;

	for (size_t i = 0; i < p->plan->n_steps && !found; i++)
		if (p->plan->steps[i].op == OP_SWAPON && p->plan->steps[i].part == part)
			found = &p->plan->steps[i];
	return found;
}

/* systemd.swap-extra=: swap on a device there now; one that is not is left to the real
 * system (the boot does not wait for a swap). */
static int add_swap(struct planner *p, const struct fstab_entry *e)
{
	const struct part *part = NULL;
	const struct disk *disk = NULL;
	const struct plan_step *before;
	struct plan_step *step = NULL;
	int r = disk_set_find(p->disks, e->what, &part, &disk);

	if (r < 0) {
		plan_note(p, "systemd.swap-extra=%s not enabled: %s", e->what,
			  r == -ENOTUNIQ ? "it matches several partitions" : "the device is not there");
		r = 0;
	} else if ((before = swapped_already(p, part))) {
		plan_note(p, "systemd.swap-extra=%s: enabled already (%s)", e->what, before->reason);
	} else {
		r = plan_add_step(p, OP_SWAPON, e->what, "", "swap", part, &step);
		if (r == 0) {
			step->optional = true;
			plan_step_reason(step, "swap: systemd.swap-extra=%s", e->what);
		}
	}
	return r;
}

/* The command line's extra mounts and swaps, after everything else. */
static int add_extra(struct planner *p)
{
	const struct fstab *m = &p->opts->mount_extra, *s = &p->opts->swap_extra;
	int r = 0;

	for (size_t i = 0; i < m->n && r == 0; i++)
		r = add_entry(p, &from_cmdline, &m->entries[i]);
	for (size_t i = 0; i < s->n && r == 0; i++)
		r = add_swap(p, &s->entries[i]);
	return r;
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
			r = add_entry(p, &from_fstab, &f->entries[i]);
out:
	return r == 0 ? add_extra(p) : r;
}
