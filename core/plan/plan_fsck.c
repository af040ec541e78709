/* fsck steps: a filesystem earlymount mounts read-write is checked first, as systemd's
 * initrd does for the root and for /sysroot/usr and the units fstab generates. A read-only
 * mount is never checked here: the real init checks the root before it remounts it
 * read-write. The checker and its options follow systemd-fsck(8): fsck.mode=, fsck.repair=. */
#include <stdio.h>
#include <string.h>

#include "fsck_rules.h"
#include "plan_internal.h"

static const char *const mode_names[] = {
	[FSCK_AUTO] = "auto", [FSCK_FORCE] = "force", [FSCK_SKIP] = "skip",
};

int plan_add_fsck_step(struct planner *p, const char *source, const struct part *part,
		       const char *fstype, const char *target)
{
	const struct options *opts = p->opts;
	struct plan_step *step = NULL;
	char options[16];
	/* "": an unlocked LUKS device, whose filesystem only the boot can see */
	bool probed = !fstype[0];
	int r = 0;

	if (opts->fsck_mode == FSCK_SKIP || (!probed && !fsck_checker_for(fstype)))
		goto out;
	snprintf(options, sizeof(options), "%s%s", fsck_repair_option(opts->fsck_repair),
		 opts->fsck_mode == FSCK_FORCE ? " -f" : "");
	r = plan_add_step(p, OP_FSCK, source, target, fstype, part, &step);
	if (r < 0)
		goto out;
	r = plan_copy_field(p, step->options, sizeof(step->options), options, "options");
	if (r < 0)
		goto out;
	plan_step_reason(step, "%s is mounted read-write: checked first (fsck.mode=%s)%s",
			 target[strlen(ROOT_MOUNT_POINT)] ? target + strlen(ROOT_MOUNT_POINT) : "/",
			 mode_names[opts->fsck_mode],
			 probed ? "; the filesystem in the device is probed at boot, and checked when it "
				  "is one with a checker" : "");
out:
	return r;
}
