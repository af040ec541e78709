/* The mount stage: the plan's steps, the machine ID the /var rule needs in between, and the
 * A/B fallback when a root or /usr fails. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ask_password.h"
#include "boot_state.h"
#include "emergency.h"
#include "execute.h"
#include "fileio.h"
#include "fsck.h"
#include "log.h"
#include "util.h"
#include "uuid.h"

static int read_machine_id(const char *path, uint8_t id[16], const char **why)
{
	char text[64];
	ssize_t n = read_file_at(AT_FDCWD, path, text, sizeof(text));
	int r = 0;

	if (n < 0) {
		*why = n == -ENOENT ? "the file does not exist" : strerror((int)-n);
		return (int)n;
	}
	text[strcspn(text, "\n")] = '\0';
	if (!text[0] || streq(text, "uninitialized")) {
		*why = "the machine ID is not set yet (first boot)";
		r = -ENOMEDIUM;
	} else if (id128_parse(text, id) < 0) {
		*why = "it holds no valid machine ID";
		r = -EINVAL;
	}
	return r;
}

/* The /usr and x-initrd.mount entries of the root's /etc/fstab. A root without one (or one
 * unreadable) has none: the plan goes on without. */
static void read_fstab(struct boot *b)
{
	static char text[FSTAB_TEXT_MAX + 1];
	ssize_t n = read_file_at(AT_FDCWD, b->plan.fstab_path, text, sizeof(text));

	if (n < 0 && n != -ENOENT)
		log_warn("unable to read %s: %s; no /usr or x-initrd.mount entry of it is mounted",
			 b->plan.fstab_path, strerror((int)-n));
	fstab_parse_initrd(text, n < 0 ? 0 : (size_t)n, &b->machine.fstab);
	b->machine.has_fstab = true;
	if (b->machine.fstab.n)
		log_info("%s: %zu %s for the initramfs (/usr, x-initrd.mount)", b->plan.fstab_path,
			 b->machine.fstab.n, b->machine.fstab.n == 1 ? "entry" : "entries");
	/* its entries may name a generic partition by UUID= or LABEL=, which discovery did not
	 * look into: the disks are probed again, every filesystem this time */
	if (b->machine.fstab.n && !b->probe_every_filesystem) {
		b->probe_every_filesystem = true;
		devices_rescan(&b->devices, true);
	}
}

static bool note_said(char said[][PLAN_TEXT], size_t n, const char *note)
{
	for (size_t i = 0; i < n; i++)
		if (streq(said[i], note))
			return true;
	return false;
}

/* The /var rule needs the root's machine ID, and its fstab may name a /usr: mount the root,
 * read them, plan the rest with them (waiting, as for the first plan, for a device they name). */
static int replan_with_root_files(struct boot *b)
{
	/* the first plan's notes, logged already */
	static char said[PLAN_MAX_NOTES][PLAN_TEXT];
	size_t n_said;
	const char *why = NULL;
	int r;

	if (b->plan.wants_machine_id &&
	    read_machine_id(b->plan.machine_id_path, b->machine.machine_id, &why) < 0)
		log_info("not looking for a /var partition: %s: %s", b->plan.machine_id_path, why);
	else if (b->plan.wants_machine_id)
		b->machine.has_machine_id = true;
	if (b->plan.wants_fstab)
		read_fstab(b);
	memcpy(said, b->plan.notes, sizeof(said));
	n_said = b->plan.n_notes;
	r = boot_wait_for_replan(b);
	for (size_t i = 0; i < b->plan.n_notes; i++)
		if (!note_said(said, n_said, b->plan.notes[i]))
			log_info("%s", b->plan.notes[i]);
	return r;
}

/* Runs the plan's steps (reading the machine ID in between when the /var rule needs it).
 * On failure *failed_step is the step that failed. */
static int mount_plan(struct boot *b, struct execute_ctx *ctx, const struct plan_step **failed_step)
{
	size_t done = 0;
	int r;

	*failed_step = NULL;
	boot_prepare_steps(b, &b->plan, ctx);
	if (plan_wants_root_files(&b->plan)) {
		done = b->plan.root_steps;
		r = execute_steps(b->plan.steps, 0, done, ctx);
		if (r < 0)
			goto failed;
		r = replan_with_root_files(b);
		if (r < 0)
			goto out;
	}
	r = execute_steps(b->plan.steps, done, b->plan.n_steps, ctx);
failed:
	/* fsck repaired what was mounted next and wants a clean start (as mkinitcpio does) */
	if (r == FSCK_REBOOT)
		emergency_reboot(ctx->why);
	if (r < 0) {
		*failed_step = &b->plan.steps[ctx->failed];
		COPY_STR(b->failed_device, (*failed_step)->source);
		boot_fail(b, r, "%s", ctx->why);
	}
out:
	return r;
}

/* The A/B fallback: the failed root or /usr gives way to the next newest version, if
 * discovery picked it among versions and the command line allows. 0 with a new plan, or
 * the boot's -errno unchanged. */
static int fall_back(struct boot *b, int err, struct execute_ctx *ctx,
		     const struct plan_step *failed_step, bool no_init)
{
	/* too big for the stack; the next plan, made before anything is taken back */
	static struct plan next;
	struct machine machine = b->machine;
	const char *role = NULL;
	const struct part *part = failed_step || no_init
					  ? fallback_culprit(&b->plan, failed_step, &role)
					  : NULL;
	const struct part *instead;
	int r = err;

	if (!part)
		goto out;
	if (!b->opts.fallback) {
		log_info("earlymount.fallback=no: not trying an older %s version", role);
		goto out;
	}
	if (fallback_add(&b->fallback, part, role, b->why) < 0)
		goto out;
	/* the machine ID and fstab were read from the root that failed: the next one has its own */
	machine.has_machine_id = false;
	machine.has_fstab = false;
	if (plan_build(&(struct plan_input){ &b->opts, &b->devices.disks, &machine,
					     b->fallback.failed, b->fallback.n },
		       &next) < 0) {
		log_info("no older %s version to fall back to: %s", role, next.error);
		b->fallback.n--;
		goto out;
	}
	instead = streq(role, "root") ? next.root : next.usr;
	log_warn("%s partition %u (label '%s') failed: %s; falling back to partition %u (label "
		 "'%s')", role, part->number, part->label, b->why, instead ? instead->number : 0,
		 instead ? instead->label : "");
	execute_undo(b->plan.steps, 0, failed_step ? (size_t)(failed_step - b->plan.steps)
						   : b->plan.n_steps, ctx);
	b->plan = next;
	b->machine = machine;
	for (size_t i = 0; i < b->plan.n_notes; i++)
		log_info("%s", b->plan.notes[i]);
	b->why[0] = '\0';
	b->failed_device[0] = '\0';
	r = 0;
out:
	return r;
}

int boot_stage_mount(struct boot *b)
{
	static struct execute_ctx ctx;
	const struct plan_step *failed_step;
	bool no_init;
	int r;

	do {
		r = mount_plan(b, &ctx, &failed_step);
		no_init = false;
		if (r == 0) {
			r = boot_check_init(b);
			no_init = r < 0;
		}
	} while (r < 0 && fall_back(b, r, &ctx, failed_step, no_init) == 0);
	if (r == 0 && b->fallback.n) {
		r = make_directories(EARLYMOUNT_RUN, 0755);
		if (r == 0)
			r = fallback_write(&b->fallback, &b->plan, FALLBACK_PATH);
		if (r < 0)
			log_warn("unable to write %s: %s", FALLBACK_PATH, strerror(-r));
		r = 0;
	}
	return r;
}
