/* Which partition a failed boot blames, and the record of what was passed over. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fallback.h"
#include "util.h"

/* The partition behind a step: its own, or for a mount of a verity or LUKS device the
 * partition under it (the mount names only /dev/mapper/NAME). */
static const struct part *step_partition(const struct plan *plan, const struct plan_step *s)
{
	const struct part *part = s->part;

	for (size_t i = 0; !part && s->op == OP_MOUNT && i < plan->n_steps; i++)
		if ((plan->steps[i].op == OP_VERITY || plan->steps[i].op == OP_UNLOCK) &&
		    streq(plan->steps[i].target, s->source))
			part = plan->steps[i].part;
	return part;
}

static bool plan_mounts(const struct plan *plan, const struct part *part)
{
	for (size_t i = 0; i < plan->n_steps; i++)
		if (plan->steps[i].op == OP_MOUNT && step_partition(plan, &plan->steps[i]) == part)
			return true;
	return false;
}

const struct part *fallback_culprit(const struct plan *plan, const struct plan_step *failed_step,
				    const char **role)
{
	const struct part *part = NULL;

	/* a wrong passphrase is no fault of the version: an older one would ask again */
	if (failed_step && failed_step->op == OP_UNLOCK)
		part = NULL;
	else if (failed_step)
		part = step_partition(plan, failed_step);
	else if (plan->root && plan_mounts(plan, plan->root))
		part = plan->root;
	else
		part = plan->usr;
	if (part && part == plan->root && plan->root_discovered)
		*role = "root";
	else if (part && part == plan->usr && plan->usr_discovered)
		*role = "usr";
	else
		part = NULL;
	return part;
}

int fallback_add(struct fallback *f, const struct part *part, const char *role, const char *why)
{
	if (f->n == PLAN_MAX_FAILURES)
		return -ENOSPC;
	COPY_STR(f->failed[f->n].partuuid, part->partuuid);
	/* cut, not refused: the reason only explains */
	copy_str(f->failed[f->n].why, sizeof(f->failed[f->n].why), why);
	copy_str(f->label[f->n], sizeof(f->label[f->n]), part->label);
	f->role[f->n] = role;
	f->n++;
	return 0;
}

/* One field: tabs and line ends would split the record. */
static size_t put_field(char *out, size_t size, size_t used, const char *s, bool last)
{
	for (; s && *s && used + 1 < size; s++)
		out[used++] = *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s;
	if (used + 1 < size)
		out[used++] = last ? '\n' : '\t';
	out[used] = '\0';
	return used;
}

void fallback_format(const struct fallback *f, const struct plan *plan, char *out, size_t size)
{
	size_t used;

	if (size == 0)
		return;
	used = (size_t)snprintf(out, size, "# role\tpassed over\tlabel\tbooted instead\tlabel\twhy\n");
	for (size_t i = 0; i < f->n && used < size; i++) {
		const struct part *booted = streq(f->role[i], "root") ? plan->root : plan->usr;

		used = put_field(out, size, used, f->role[i], false);
		used = put_field(out, size, used, f->failed[i].partuuid, false);
		used = put_field(out, size, used, f->label[i], false);
		used = put_field(out, size, used, booted ? booted->partuuid : "-", false);
		used = put_field(out, size, used, booted ? booted->label : "-", false);
		used = put_field(out, size, used, f->failed[i].why, true);
	}
}

int fallback_write(const struct fallback *f, const struct plan *plan, const char *path)
{
	char text[PLAN_MAX_FAILURES * (PLAN_TEXT + 256) + 128];
	size_t len;
	int fd, r = 0;

	fallback_format(f, plan, text, sizeof(text));
	len = strlen(text);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len)
		r = -EIO;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}
