/* The root as root=tmpfs and systemd.volatile= make it, and the file-hierarchy skeleton a
 * fresh root needs. Together because they answer one question: what is writable before init
 * starts, and so what the planner may create there. */
#include <stdio.h>

#include "plan_internal.h"
#include "util.h"

#define VOLATILE_ROOT_DIR EARLYMOUNT_RUN "/root"
#define OVERLAY_DIR EARLYMOUNT_RUN "/overlay"
#define OVERLAY_UPPER OVERLAY_DIR "/upper"
#define OVERLAY_WORK OVERLAY_DIR "/work"
#define MACHINE_ID_FILE "/etc/machine-id"
#define FSTAB_FILE "/etc/fstab"

/* The tmpfs options follow systemd: its TMPFS_LIMITS_ROOTFS, TMPFS_LIMITS_VAR and
 * TMPFS_LIMITS_VOLATILE_STATE are all "size=25%,nr_inodes=1m". root=tmpfs takes rootflags=
 * on top, word by word (rootflags=size=1g replaces size=25%), as systemd's fstab-generator. */
#define TMPFS_LIMITS "size=25%,nr_inodes=1m"
#define TMPFS_ROOT_OPTIONS "rw,mode=0755," TMPFS_LIMITS  /* root=tmpfs */
#define TMPFS_VOLATILE_OPTIONS "mode=0755," TMPFS_LIMITS /* volatile=yes root, state /var, overlay */
#define FACTORY_DIR "/usr/share/factory"

/* Where a skeleton entry lies: a volatile=state root is read-only but its /var is a tmpfs. */
enum skel_area {
	SKEL_ROOT = 1 << 0,
	SKEL_VAR = 1 << 1,
};

/* The file-hierarchy spec's skeleton, so that any init (busybox, OpenRC, one program) starts
 * on a fresh root. In order: factory trees before the directories they would fill, /sbin to
 * usr/sbin where /usr has one, else to usr/bin (the first link made wins), /lib64 only where
 * /usr has a lib64 (the x86-64 ABI puts its loader there; arm64's is in /lib). /run is where
 * switch_root moves the initramfs's /run. */
static const struct skel_entry {
	enum plan_op op;
	const char *source;
	const char *target;
	unsigned mode;
	enum skel_area area;
} skeleton[] = {
	{ OP_POPULATE, FACTORY_DIR "/etc", "/etc", 0, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/etc", 0755, SKEL_ROOT },
	{ OP_POPULATE, FACTORY_DIR "/var", "/var", 0, SKEL_VAR },
	{ OP_SKEL_DIR, "", "/var", 0755, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/run", 0755, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/tmp", 01777, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/var/tmp", 01777, SKEL_VAR },
	{ OP_SKEL_DIR, "", "/root", 0700, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/home", 0755, SKEL_ROOT },
	{ OP_SKEL_DIR, "", "/srv", 0755, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/bin", "/bin", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/sbin", "/sbin", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/bin", "/sbin", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/lib", "/lib", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "usr/lib64", "/lib64", 0, SKEL_ROOT },
	{ OP_SKEL_LINK, "../run", "/var/run", 0, SKEL_VAR },
};

/* Where the root's files are read at boot, after the steps so far: the machine ID, and the
 * fstab whose /usr and x-initrd.mount entries are mounted (not for systemd.volatile=yes,
 * whose /usr is the disk root's own, nor for a root shared by a host). */
static void set_machine_id_path(struct planner *p, const char *root_dir)
{
	if (root_dir)
		snprintf(p->plan->machine_id_path, PLAN_PATH, "%s" MACHINE_ID_FILE, root_dir);
	else
		p->plan->machine_id_path[0] = '\0';
	/* a share's fstab is the host's, whose devices the guest has not */
	if (root_dir && streq(root_dir, ROOT_MOUNT_POINT) && !plan_root_is_share(p))
		snprintf(p->plan->fstab_path, PLAN_PATH, "%s" FSTAB_FILE, root_dir);
	else
		p->plan->fstab_path[0] = '\0';
	p->plan->wants_fstab = p->plan->fstab_path[0] && !p->machine->has_fstab;
	p->plan->root_steps = p->plan->n_steps;
}

/* A tmpfs of the volatile modes: systemd's limits, each replaced by earlymount.tmpfs= where
 * the user gave the same key. */
int plan_add_volatile_tmpfs(struct planner *p, const char *target, const char *reason)
{
	char options[PLAN_OPTIONS];
	int r = plan_merge_tmpfs_options(p, TMPFS_VOLATILE_OPTIONS, p->opts->tmpfs_flags, options,
					 sizeof(options), target);

	if (r == 0)
		r = plan_add_simple(p, OP_TMPFS, "tmpfs", target, "tmpfs", options, reason);
	return r;
}

/* systemd.volatile=yes: a tmpfs root with /usr from the disk. Without a usr partition the
 * disk root lends its /usr: a read-only bind that outlives the root's own mount. */
static int add_volatile_yes_root(struct planner *p)
{
	char root_name[PLAN_PATH], usr_name[PLAN_PATH];
	int r;

	if (plan_usr_is_share(p) || (p->usr && !p->root)) {
		plan_note(p, "systemd.volatile=yes: the root is not mounted: /usr comes from mount.usr=%s",
			  p->opts->usr);
		r = plan_add_volatile_tmpfs(p, ROOT_MOUNT_POINT,
					    "systemd.volatile=yes: the root is a tmpfs");
		set_machine_id_path(p, NULL);
		goto out;
	}
	if (p->usr) {
		plan_note(p, "systemd.volatile=yes: the root, %s, is not mounted: /usr comes from %s",
			  plan_part_name(p->root_disk, p->root, root_name, sizeof(root_name)),
			  plan_part_name(p->usr_disk, p->usr, usr_name, sizeof(usr_name)));
		r = plan_add_volatile_tmpfs(p, ROOT_MOUNT_POINT,
					    "systemd.volatile=yes: the root is a tmpfs");
		set_machine_id_path(p, NULL);
		goto out;
	}
	r = plan_add_root_mount(p, VOLATILE_ROOT_DIR, true, "systemd.volatile=yes only lends its /usr");
	if (r < 0)
		goto out;
	set_machine_id_path(p, VOLATILE_ROOT_DIR);
	r = plan_add_volatile_tmpfs(p, ROOT_MOUNT_POINT, "systemd.volatile=yes: the root is a tmpfs");
	if (r == 0)
		r = plan_add_simple(p, OP_BIND, VOLATILE_ROOT_DIR "/usr", ROOT_MOUNT_POINT "/usr", "", "ro",
				    "systemd.volatile=yes: /usr of the disk root, read-only");
	if (r == 0)
		r = plan_add_simple(p, OP_UMOUNT, "", VOLATILE_ROOT_DIR, "", "",
				    "the /usr bind keeps what is needed of the disk root");
out:
	return r;
}

static int add_overlay(struct planner *p)
{
	int r;

	r = plan_add_volatile_tmpfs(p, OVERLAY_DIR, "systemd.volatile=overlay: the writable layer");
	if (r == 0)
		r = plan_add_mkdir(p, OVERLAY_UPPER, 0755, "the overlay's upper directory");
	if (r == 0)
		r = plan_add_mkdir(p, OVERLAY_WORK, 0755, "the overlay's work directory");
	if (r == 0)
		r = plan_add_simple(p, OP_OVERLAY, "overlay", ROOT_MOUNT_POINT, "overlay",
				    "lowerdir=" ROOT_MOUNT_POINT ",upperdir=" OVERLAY_UPPER
				    ",workdir=" OVERLAY_WORK,
				    "systemd.volatile=overlay: a writable tmpfs layer over the read-only root");
	return r;
}

int plan_add_root_stage(struct planner *p)
{
	const struct options *opts = p->opts;
	int r = 0;

	if (opts->root_kind == ROOT_TMPFS) {
		char options[PLAN_OPTIONS];

		plan_note(p, "root=tmpfs: the root is an empty tmpfs, read-write");
		r = plan_merge_tmpfs_options(p, TMPFS_ROOT_OPTIONS, opts->rootflags, options,
					     sizeof(options), ROOT_MOUNT_POINT);
		if (r == 0)
			r = plan_add_simple(p, OP_TMPFS, "tmpfs", ROOT_MOUNT_POINT, "tmpfs", options,
					    opts->rootflags ? "root=tmpfs, with rootflags=" : "root=tmpfs");
		set_machine_id_path(p, NULL);
		goto out;
	}
	switch (opts->volatile_mode) {
	case VOLATILE_YES:
		r = add_volatile_yes_root(p);
		break;
	case VOLATILE_STATE:
		r = plan_add_root_mount(p, ROOT_MOUNT_POINT, true, "systemd.volatile=state keeps the root "
					"read-only");
		set_machine_id_path(p, ROOT_MOUNT_POINT);
		break;
	case VOLATILE_OVERLAY:
		r = plan_add_root_mount(p, ROOT_MOUNT_POINT, true, "systemd.volatile=overlay lays a "
					"tmpfs over it");
		set_machine_id_path(p, ROOT_MOUNT_POINT);
		if (r == 0)
			r = add_overlay(p);
		break;
	default:
		r = plan_add_root_mount(p, ROOT_MOUNT_POINT, false, NULL);
		set_machine_id_path(p, ROOT_MOUNT_POINT);
		break;
	}
out:
	return r;
}

/* Which parts of the skeleton the new root can take: all of it on a tmpfs, an overlay or a
 * read-write root (where the executor fills only what is missing), the tmpfs /var of a
 * volatile=state root, nothing on a read-only root. */
static unsigned skeleton_areas(const struct planner *p)
{
	const struct options *opts = p->opts;

	if (opts->root_kind == ROOT_TMPFS || opts->volatile_mode == VOLATILE_YES ||
	    opts->volatile_mode == VOLATILE_OVERLAY)
		return SKEL_ROOT | SKEL_VAR;
	if (opts->volatile_mode == VOLATILE_STATE)
		return SKEL_VAR;
	return p->root_rw ? SKEL_ROOT | SKEL_VAR : 0;
}

int plan_add_skeleton_stage(struct planner *p)
{
	unsigned areas = skeleton_areas(p);
	char source[PLAN_PATH];
	char target[PLAN_PATH];
	struct plan_step *step = NULL;
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(skeleton) && r == 0; i++) {
		const struct skel_entry *e = &skeleton[i];

		if (!(e->area & areas))
			continue;
		snprintf(target, sizeof(target), ROOT_MOUNT_POINT "%s", e->target);
		if (e->op == OP_POPULATE)
			snprintf(source, sizeof(source), ROOT_MOUNT_POINT "%s", e->source);
		else
			snprintf(source, sizeof(source), "%s", e->source);
		r = plan_add_step(p, e->op, source, target, "", NULL, &step);
		if (r < 0)
			break;
		step->mode = e->mode;
		if (e->op == OP_POPULATE)
			plan_step_reason(step, "the file-hierarchy skeleton: %s from the factory defaults in "
					 "/usr, when it is missing or empty", e->target);
		else if (e->op == OP_SKEL_LINK)
			plan_step_reason(step, "the file-hierarchy skeleton: compatibility link, when %s is "
					 "missing and %s exists", e->target, e->source);
		else
			plan_step_reason(step, "the file-hierarchy skeleton, when %s is missing", e->target);
	}
	return r;
}
