/* Running plan steps at boot: what the executor is given (modules on demand, a prompt that
 * lets devices arrive), and the volumes rd.luks.uuid= or the image's crypttab lists, unlocked
 * as they appear while the plan waits. */
#include <stdio.h>
#include <string.h>

#include "ask_password.h"
#include "boot_state.h"
#include "execute.h"
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
void boot_prepare_steps(struct boot *b, const struct plan *plan, struct execute_ctx *ctx)
{
	static struct ask_watch watch;

	if (plan_asks(plan))
		boot_release_held(b, HELD_LOAD);
	watch = (struct ask_watch){ b->devices.uevent_fd, load_modules_while_asking, b };
	*ctx = (struct execute_ctx){ .disks = &b->devices.disks, .ensure_fs = ensure_filesystem,
				     .load_module = load_module, .data = b, .watch = &watch,
				     .tpm2_wait = b->opts.tpm2_wait,
				     .timeout_sec = boot_plan_timeout_ms(&b->opts) / 1000 };
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
	boot_prepare_steps(b, &early, &ctx);
	for (size_t i = 0; i < early.n_steps && r == 0; i++) {
		const struct plan_step *s = &early.steps[i];

		if (s->op != OP_UNLOCK || !s->part || tried_early(b, s->part->fsuuid) ||
		    b->n_unlocked_early == ARRAY_SIZE(b->unlocked_early))
			continue;
		COPY_STR(b->unlocked_early[b->n_unlocked_early++], s->part->fsuuid);
		log_info("unlocking %s as it appeared: %s, and the root is not found outside it",
			 s->source, s->reason);
		r = execute_step(s, &ctx);
		if (r < 0 && s->optional) {
			log_warn("%s (nofail: the boot goes on)", ctx.why);
			r = 0;
		} else if (r < 0) {
			boot_fail(b, r, "%s", ctx.why);
		}
	}
	/* block devices were not probed while the prompt waited */
	devices_rescan(&b->devices, false);
	return r;
}

