/* The decisions more than one stage of the boot takes. */
#include <stdarg.h>
#include <stdio.h>

#include "boot_state.h"
#include "log.h"
#include "storage_hold.h"
#include "switchroot.h"

int boot_fail(struct boot *b, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
	return r;
}

/* A root named on the command line or a disk named by the boot loader: no disk still to
 * come changes the choice (only a clone could, and the duplicate check covers the disks
 * that are there when the root appears). */
bool boot_plan_pinned(const struct boot *b)
{
	return b->opts.root_kind == ROOT_DEVICE || b->opts.root_kind == ROOT_SHARE ||
	       b->machine.loader_partuuid[0];
}

/* Ends the hold on the drivers of devices that hold no disk (modules_hold()): loaded now
 * when something could need them (no root yet, a prompt, a shell), else left to the real
 * system, which loads them at its own coldplug. true when any were held. */
bool boot_release_held(struct boot *b, enum held_release what)
{
	size_t slow = modules_held_slow(&b->modules);
	size_t n = modules_release_held(&b->modules, what) - slow;
	char slow_text[96] = "";

	if (slow > 0)
		snprintf(slow_text, sizeof(slow_text), " and %zu slow-scanning storage controller%s",
			 slow, slow == 1 ? "" : "s");
	if (n + slow > 0 && what == HELD_LOAD)
		log_info("loading the drivers of %zu device%s that hold no disk%s, held back until now", n,
			 n == 1 ? "" : "s", slow_text);
	else if (n + slow > 0 && what == HELD_LOAD_DEVICES)
		log_info("no udev in the new root: loading the drivers held back until now (%zu device%s "
			 "that hold no disk%s; CPU features' left out)", n, n == 1 ? "" : "s", slow_text);
	else if (n + slow > 0)
		log_info("leaving the drivers of %zu device%s that hold no disk (CPU features, input…)%s "
			 "to the real system's udev", n, n == 1 ? "" : "s", slow_text);
	/* released: from now on such controllers' drivers go in at once */
	modules_hold_slow(&b->modules, false);
	return n + slow > 0;
}

int boot_storage_hold_due_ms(const struct boot *b)
{
	const struct devices *d = &b->devices;
	struct storage_hold_facts f = {
		.held = modules_held_slow(&b->modules) > 0,
		.likely_requested = b->modules.likely_requested,
		.settled = modules_loading(&b->modules) == 0 && d->settled_sec > 0,
		.since_settled_ms = (timing_now() - d->settled_sec) * 1e3,
	};

	return storage_hold_due_ms(&f, STORAGE_HOLD_MS);
}

/* Milliseconds to wait for the plan; -1 is forever. */
int boot_plan_timeout_ms(const struct options *o)
{
	if (o->rootwait || o->timeout_sec == 0)
		return -1;
	return (o->timeout_sec > 0 ? o->timeout_sec : DEFAULT_TIMEOUT_SEC) * 1000;
}

/* A root without an init fails here, while an older version can still be tried; the
 * handoff checks again after the pre-switch hooks. */
int boot_check_init(struct boot *b)
{
	return switchroot_check(SYSROOT, b->plan.init, b->init, sizeof(b->init), b->why,
				sizeof(b->why));
}
