/* btrfs over several devices at boot: the kernel mounts such a filesystem once it was shown
 * every device of it. Once a plan mounts a btrfs, btrfs is loaded and each btrfs device the
 * probes found is shown to the kernel (BTRFS_IOC_SCAN_DEV on /dev/btrfs-control, what udev's
 * btrfs builtin does), then each one probed later; before each plan the kernel is asked which of
 * them still miss a device (BTRFS_IOC_DEVICES_READY): the planner waits for those. A btrfs
 * nothing mounts costs nothing: btrfs is not loaded for it. */
#pragma once

#include <stdbool.h>

#include "disk.h"
#include "modules.h"
#include "plan.h"
#include "stack_gate.h"

struct btrfs_boot {
	struct modules *modules;
	int control;     /* /dev/btrfs-control (close-on-exec) once btrfs is loaded; -1 before */
	bool unusable;   /* btrfs could not be loaded, or its control device opened: said once */
	struct stack_gate gate;
};

/* A probe recognised part: when it holds btrfs and btrfs is in use, the kernel is shown the
 * device. For devices_on_probed(). */
void btrfs_probed(const struct part *part, void *data);
/* Sets fs_incomplete on each btrfs device of disks whose filesystem still misses a device. */
void btrfs_mark_incomplete(struct btrfs_boot *b, struct disk_set *disks);
/* The first plan that mounts a btrfs: loads btrfs, shows the kernel every btrfs device of
 * disks and marks them (btrfs_mark_incomplete()); true when the plan must be made again. */
bool btrfs_plan_mounts(struct btrfs_boot *b, const struct plan *plan, struct disk_set *disks);
