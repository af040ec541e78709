/* Writing steps. The plan's fields are fixed-size, so every write is checked here, once: a new
 * kind of step (dm-verity, unlocking) goes through plan_add_step() and its helpers rather than
 * filling struct plan_step itself. Every other file of the planner writes through it, so it
 * calls none of them but plan_text.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "plan_internal.h"
#include "util.h"

static const char *const plan_op_names[OP_MAX] = {
	[OP_MOUNT] = "mount",     [OP_BIND] = "bind",       [OP_MOVE] = "move",
	[OP_TMPFS] = "tmpfs",     [OP_OVERLAY] = "overlay", [OP_MKDIR] = "mkdir",
	[OP_SYMLINK] = "symlink", [OP_SWAPON] = "swapon",   [OP_UMOUNT] = "umount",
	[OP_VERITY] = "verity",   [OP_UNLOCK] = "unlock",   [OP_FSCK] = "fsck",
	[OP_POPULATE] = "populate", [OP_SKEL_DIR] = "skel-dir", [OP_SKEL_LINK] = "skel-link",
	[OP_RESUME] = "resume",
	[OP_SHARE] = "share",
	[OP_ACTIVATE] = "activate", [OP_ASSEMBLE] = "assemble", [OP_SCAN] = "scan",
	[OP_GROWFS] = "growfs",
};

const char *plan_op_name(enum plan_op op)
{
	if ((unsigned)op >= OP_MAX)
		return "unknown";
	return plan_op_names[op];
}

int plan_copy_field(struct planner *p, char *dst, size_t size, const char *src, const char *what)
{
	int r = copy_str(dst, size, src ? src : "");

	if (r < 0)
		r = plan_fail(p, -EINVAL, "%s '%.40s...' is longer than %zu bytes", what, src, size - 1);
	return r;
}

int plan_check_mapper_free(struct planner *p, const char *mapper)
{
	const struct plan *plan = p->plan;
	const struct part *there = NULL;

	for (size_t i = 0; i < plan->n_steps; i++)
		if ((plan->steps[i].op == OP_UNLOCK || plan->steps[i].op == OP_VERITY) &&
		    streq(plan->steps[i].target, mapper))
			return plan_fail(p, -EINVAL, "two devices would be %s: give one of them another name "
					 "with rd.luks.name=", mapper);
	/* a device-mapper device there already: a logical volume, a volume unlocked earlier */
	if (disk_set_find(p->disks, mapper, &there, NULL) == 0 && there->dm_name[0])
		return plan_fail(p, -EINVAL, "%s exists already (%s, %s): give the new one another name "
				 "with rd.luks.name=", mapper, there->devpath[0] ? there->devpath : "a device",
				 there->dm_uuid[0] ? there->dm_uuid : "no dm UUID");
	return 0;
}

int plan_add_step(struct planner *p, enum plan_op op, const char *source, const char *target,
		  const char *fstype, const struct part *part, struct plan_step **out)
{
	struct plan *plan = p->plan;
	struct plan_step *step;
	int r;

	if (plan->n_steps >= PLAN_MAX_STEPS) {
		r = plan_fail(p, -E2BIG, "the plan needs more than %d steps (at %s %s)", PLAN_MAX_STEPS,
			      plan_op_name(op), target);
		goto out;
	}
	step = &plan->steps[plan->n_steps];
	memset(step, 0, sizeof(*step));
	step->op = op;
	step->part = part;
	r = plan_copy_field(p, step->source, sizeof(step->source), source, "source");
	if (r == 0)
		r = plan_copy_field(p, step->target, sizeof(step->target), target, "target");
	if (r == 0)
		r = plan_copy_field(p, step->fstype, sizeof(step->fstype), fstype, "filesystem type");
	if (r < 0)
		goto out;
	plan->n_steps++;
	*out = step;
out:
	return r;
}

void PRINTF_LIKE(2, 3) plan_step_reason(struct plan_step *step, const char *fmt, ...)
{
	struct text t;
	va_list ap;

	plan_text_init(&t, step->reason, sizeof(step->reason));
	va_start(ap, fmt);
	plan_text_vadd(&t, fmt, ap);
	va_end(ap);
	plan_text_mark_cut(&t);
}

int plan_add_simple(struct planner *p, enum plan_op op, const char *source, const char *target,
		    const char *fstype, const char *options, const char *reason)
{
	struct plan_step *step = NULL;
	int r = plan_add_step(p, op, source, target, fstype, NULL, &step);

	if (r == 0)
		r = plan_copy_field(p, step->options, sizeof(step->options), options, "options");
	if (r == 0)
		plan_step_reason(step, "%s", reason);
	return r;
}

int plan_add_mkdir(struct planner *p, const char *target, unsigned mode, const char *reason)
{
	struct plan_step *step = NULL;
	int r = plan_add_step(p, OP_MKDIR, "", target, "", NULL, &step);

	if (r == 0) {
		step->mode = mode;
		plan_step_reason(step, "%s", reason);
	}
	return r;
}

/* The partition spec a discovered partition is mounted by; a PARTUUID seen twice is
 * ambiguous at boot. */
int plan_discovered_source(struct planner *p, const struct part *part, char *out, size_t size)
{
	char matches[PLAN_ERROR];
	int r;

	snprintf(out, size, "PARTUUID=%s", part->partuuid);
	r = disk_set_find(p->disks, out, NULL, NULL);
	if (r == -ENOTUNIQ)
		r = plan_fail(p, -ENOTUNIQ, "PARTUUID %s is on several partitions (%s; a cloned disk?): "
			      "give each a new one, or name the root with root=/dev/...", part->partuuid,
			      plan_name_matches(p, out, matches, sizeof(matches)));
	else
		r = 0;
	return r;
}
