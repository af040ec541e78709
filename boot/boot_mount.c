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

/* Without udev nothing runs modprobe for a filesystem: load it before mount(2) needs it. */
static int ensure_filesystem(const char *fstype, void *data)
{
	struct boot *b = data;
	char alias[64];

	if (filesystem_registered(fstype))
		return 0;
	snprintf(alias, sizeof(alias), "fs-%s", fstype);
	return modules_load_alias(&b->modules, alias);
}

static int load_module(const char *modalias, void *data)
{
	struct boot *b = data;

	return modules_load_alias(&b->modules, modalias);
}

/* While a passphrase prompt waits, devices still arrive: a USB keyboard is enumerated after
 * its controller's driver loaded, in the background, often after the disk was found. */
static void load_modules_while_asking(void *data)
{
	struct boot *b = data;

	devices_load_modules(&b->devices);
}

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

/* The /var rule needs the root's machine ID: mount the root, read it, plan the rest with it. */
static int replan_with_machine_id(struct boot *b)
{
	struct plan_input in = { &b->opts, &b->devices.disks, &b->machine, b->fallback.failed,
				 b->fallback.n };
	const char *why = NULL;
	int r = 0;

	if (read_machine_id(b->plan.machine_id_path, b->machine.machine_id, &why) < 0) {
		log_info("not looking for a /var partition: %s: %s", b->plan.machine_id_path, why);
	} else {
		b->machine.has_machine_id = true;
		r = plan_build(&in, &b->plan);
	}
	for (size_t i = 0; i < b->plan.n_notes; i++)
		log_info("%s", b->plan.notes[i]);
	if (r < 0)
		return boot_fail(b, r, "%s", b->plan.error);
	return 0;
}

/* A LUKS volume may prompt: a USB keyboard's drivers are among those held back. */
static bool plan_asks(const struct plan *plan)
{
	bool asks = false;

	for (size_t i = 0; i < plan->n_steps && !asks; i++)
		asks = plan->steps[i].op == OP_UNLOCK;
	return asks;
}

/* What the steps of plan need at boot: modules on demand, and a prompt that lets devices
 * arrive while it waits. */
static void prepare_steps(struct boot *b, const struct plan *plan, struct execute_ctx *ctx)
{
	static struct ask_watch watch;

	if (plan_asks(plan))
		boot_release_held(b, HELD_LOAD);
	watch = (struct ask_watch){ b->devices.uevent_fd, load_modules_while_asking, b };
	*ctx = (struct execute_ctx){ .disks = &b->devices.disks, .ensure_fs = ensure_filesystem,
				     .load_module = load_module, .data = b, .watch = &watch };
}

static bool tried_early(const struct boot *b, const char *luks_uuid)
{
	for (size_t i = 0; i < b->n_unlocked_early; i++)
		if (uuid_str_equal(b->unlocked_early[i], luks_uuid))
			return true;
	return false;
}

int boot_unlock_listed(struct boot *b)
{
	static struct plan early;
	static struct execute_ctx ctx;
	int r = plan_build_listed_unlocks(&(struct plan_input){ &b->opts, &b->devices.disks,
								&b->machine, NULL, 0 },
					  &early);

	if (r < 0)
		return boot_fail(b, r, "%s", early.error);
	prepare_steps(b, &early, &ctx);
	for (size_t i = 0; i < early.n_steps && r == 0; i++) {
		const struct plan_step *s = &early.steps[i];

		if (s->op != OP_UNLOCK || !s->part || tried_early(b, s->part->fsuuid) ||
		    b->n_unlocked_early == ARRAY_SIZE(b->unlocked_early))
			continue;
		COPY_STR(b->unlocked_early[b->n_unlocked_early++], s->part->fsuuid);
		log_info("unlocking %s as it appeared: rd.luks.uuid= lists it, and the root is not "
			 "found outside it", s->source);
		r = execute_step(s, &ctx);
		if (r < 0 && s->optional) {
			log_warn("%s (nofail: the boot goes on)", ctx.why);
			r = 0;
		} else if (r < 0) {
			boot_fail(b, r, "%s", ctx.why);
		}
	}
	/* block devices were not probed while the prompt waited */
	devices_rescan(&b->devices);
	return r;
}

/* Runs the plan's steps (reading the machine ID in between when the /var rule needs it).
 * On failure *failed_step is the step that failed. */
static int mount_plan(struct boot *b, struct execute_ctx *ctx, const struct plan_step **failed_step)
{
	size_t done = 0;
	int r;

	*failed_step = NULL;
	prepare_steps(b, &b->plan, ctx);
	if (b->plan.wants_machine_id) {
		done = b->plan.root_steps;
		r = execute_steps(b->plan.steps, 0, done, ctx);
		if (r < 0)
			goto failed;
		r = replan_with_machine_id(b);
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
	/* the machine ID was read from the root that failed: the next one has its own */
	machine.has_machine_id = false;
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
	for (size_t i = 0; i < b->plan.n_notes && !b->plan.wants_machine_id; i++)
		log_info("%s", b->plan.notes[i]);
	b->why[0] = '\0';
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
