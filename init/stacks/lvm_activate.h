/* LVM2 at boot: a volume group is activated as its physical volumes appear, by lvm2's own
 * tool, the way its event autoactivation does it (one `pvscan --cache --activate ay` a
 * physical volume; lvm2 activates the VG once every PV of it was seen). */
#pragma once

#include <stdbool.h>

#include "cmdline.h"
#include "disk.h"
#include "modules.h"
#include "stack_gate.h"

struct lvm_boot {
	const struct options *opts;
	struct modules *modules;
	bool prepared;      /* dm_mod loaded, the --config text made */
	char config[1024];  /* lvm's --config for the initramfs */
	/* the physical volumes handed to lvm: a device probed again (a change event, a rescan)
	 * is not scanned twice */
	struct stack_gate gate;
};

/* A probe recognised part: when it is an LVM physical volume, lvm scans it and activates
 * what became complete. Failures are warnings: the wait for the root then says what is
 * missing. For devices_on_probed(). */
void lvm_probed(const struct part *part, void *data);
