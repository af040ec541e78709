/* The handoff: what is left of the boot is wound up, the API filesystems move into the new
 * root, and its init runs. */
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "boot_state.h"
#include "credentials_import.h"
#include "log.h"
#include "pcr_phase.h"
#include "luks_open.h"
#include "leftovers.h"
#include "switchroot.h"
#include "udev_db.h"
#include "util.h"
#include "watchdog.h"

/* How long the handoff waits for module loads still running (see finish_module_loads()). */
#define HANDOFF_MODULES_WAIT_MS 5000

/* The real system loads the drivers of its devices at its own coldplug only when it has a
 * udev; a busybox or custom init would be left without its network or input drivers. */
static bool new_root_has_udev(void)
{
	static const char *const udevd[] = {
		SYSROOT "/usr/lib/systemd/systemd-udevd", SYSROOT "/lib/systemd/systemd-udevd",
		SYSROOT "/usr/sbin/udevd", SYSROOT "/sbin/udevd",
	};
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(udevd) && !found; i++)
		found = access(udevd[i], X_OK) == 0;
	return found;
}

/* A module load still running at the switch would go on as a child of the real init, in a
 * process of the emptied initramfs: it gets a bounded while to end first. */
static void finish_module_loads(struct boot *b)
{
	double start = timing_now(), waited_ms = 0;
	size_t running = modules_loading(&b->modules);

	modules_finish(&b->modules, HANDOFF_MODULES_WAIT_MS, &waited_ms);
	if (running > 0)
		timing_add(&b->timings, "module-wait", start, waited_ms);
}

/* What still runs (the SSH server, its sessions, a hook's background job) ends here. */
static void end_leftovers(void)
{
	char names[256];
	size_t n = leftovers_end(names, sizeof(names));

	if (n)
		log_info("ended %zu process%s the initramfs left: %s", n, n == 1 ? "" : "es", names);
}

/* Checks first; from switchroot_enter() on there is no way back. */
int boot_handoff(struct boot *b)
{
	int r = boot_check_init(b);
	bool udev;

	if (r < 0)
		goto out;
	/* after the stages: timing_end() ends the entry added last */
	timing_add(&b->timings, "probes", b->devices.first_probe_sec, b->devices.probe_ms);
	/* how long the plan came after the last driver was in (none when it was pinned) */
	if (b->devices.settled_sec > 0 && b->plan_counted_sec >= b->devices.settled_sec)
		timing_add(&b->timings, "settled", b->devices.settled_sec,
			   (b->plan_counted_sec - b->devices.settled_sec) * 1e3);
	/* people's time at the prompts, and the boot's from the last answer to the handoff */
	if (luks_answered_at() > 0) {
		timing_add(&b->timings, "passphrase", luks_answered_at(), luks_prompt_seconds() * 1e3);
		timing_add(&b->timings, "after-passphrase", luks_answered_at(),
			   (timing_now() - luks_answered_at()) * 1e3);
	}
	luks_forget();
	udev = new_root_has_udev();
	/* without udev the held drivers go in now: side by side, ahci probing from a worker
	 * under a pinned plan (module_loaders.c), so the handoff waits for the inserts alone */
	if (!udev)
		modules_set_parallel(&b->modules, true);
	boot_release_held(b, udev ? HELD_FORGET : HELD_LOAD_DEVICES);
	finish_module_loads(b);
	credentials_import(&b->opts, &b->modules);
	/* the real udev takes the device-mapper devices as set up, not as half made */
	udev_db_record_dm();
	/* the last thing before the switch, as systemd's initrd-switch-root ordering has it */
	pcr_phase_measure("leave-initrd");
	devices_close(&b->devices);
	modules_close(&b->modules);
	end_leftovers();
	r = switchroot_enter(SYSROOT, b->why, sizeof(b->why));
	if (r < 0)
		goto out;
	r = timing_write(&b->timings, TIMINGS_PATH);
	if (r < 0)
		log_warn("unable to write %s: %s", TIMINGS_PATH, strerror(-r));
	/* passed on since it was read; a boot that stopped before here left it for the next */
	last_failure_forget(&last_failure_system, &b->last_failure);
	log_info("starting %s", b->init);
	watchdog_leave();
	r = systemd_handoff_exec(b->init, b->argc, b->argv, &b->started);
	boot_fail(b, r, "unable to run %s in the new root: %s", b->init, strerror(-r));
out:
	return r;
}
