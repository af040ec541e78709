/* `earlymount check`: whether the boot opens the dm-crypt volumes the host's mounts lie on,
 * and under the names the running system knows them by. The host has them open already, so
 * its plan mounts their contents directly; at boot they are locked, and only what the command
 * line or the image's crypttab lists, or what a mount of the plan needs, is opened. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_volumes.h"
#include "util.h"
#include "uuid.h"

/* The name a step of plan opens the volume uuid under, or NULL. */
static const char *unlocked_by_plan(const struct plan *plan, const char *uuid)
{
	for (size_t i = 0; i < plan->n_steps; i++) {
		const struct plan_step *s = &plan->steps[i];
		const char *slash = strrchr(s->target, '/');

		if (s->op == OP_UNLOCK && s->part && uuid_str_equal(s->part->fsuuid, uuid))
			return slash ? slash + 1 : s->target;
	}
	return NULL;
}

static void check_volume(const struct plan_input *in, const struct plan *plan,
			 const struct hostonly_crypt *k, struct plan *scratch,
			 struct check_volumes_result *res)
{
	char name[128], origin[PLAN_TEXT];
	const char *by_plan = k->uuid[0] ? unlocked_by_plan(plan, k->uuid) : NULL;
	int r = -ENOENT;

	if (!k->uuid[0]) {
		printf("  cannot   %s is on plain dm-crypt (%s), which earlymount does not open\n",
		       k->where, k->name);
		res->failures++;
		return;
	}
	if (by_plan) {
		snprintf(name, sizeof(name), "%s", by_plan);
		snprintf(origin, sizeof(origin), "the plan, to mount what it holds");
		r = 0;
	} else {
		r = plan_listed_volume(in, k->uuid, scratch, name, sizeof(name), origin, sizeof(origin));
	}
	if (r < 0 && r != -ENOENT) {
		printf("  cannot   %s is on the LUKS volume %s: %s\n", k->where, k->name, scratch->error);
		res->failures++;
	} else if (r < 0) {
		printf("  cannot   %s is on the LUKS volume %s (%s), which neither the command line nor "
		       "the image's crypttab lists: the boot would not open it; build the image with "
		       "its crypttab entry (earlymount initramfs --host-only, or --crypttab FILE; the "
		       "generators' hooks take the generator's), or add rd.luks.uuid=%s to the command "
		       "line\n", k->where, k->name, k->uuid, k->uuid);
		res->failures++;
	} else if (!streq(name, k->name)) {
		printf("  warning  %s is on the LUKS volume %s, which the boot opens as %s (%s): the "
		       "real system's crypttab and units look for %s; put its crypttab entry in the "
		       "image\n", k->where, k->name, name, origin, k->name);
		res->warnings++;
	} else if (!res->quiet) {
		printf("  ok       %s on the LUKS volume %s, opened by %s\n", k->where, k->name, origin);
	}
}

void check_volumes(const struct plan_input *in, const struct plan *plan,
		   const struct hostonly_crypt *crypt, size_t n, struct check_volumes_result *res)
{
	struct plan *scratch = n ? calloc(1, sizeof(*scratch)) : NULL;

	if (n && !scratch) {
		printf("  cannot   tell whether the boot opens %s: out of memory\n", crypt[0].name);
		res->failures++;
		return;
	}
	for (size_t i = 0; i < n; i++)
		check_volume(in, plan, &crypt[i], scratch, res);
	free(scratch);
}
