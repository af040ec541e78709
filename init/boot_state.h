/* The boot's state, shared by the stages (boot.c and the boot_*.c of the longer ones), and
 * the decisions more than one stage takes from it. */
#pragma once

#include <stdbool.h>

#include "boot.h"
#include "btrfs_scan.h"
#include "cmdline.h"
#include "devices.h"
#include "execute.h"
#include "fallback.h"
#include "last_failure.h"
#include "lvm_activate.h"
#include "md_assemble.h"
#include "modules.h"
#include "plan.h"
#include "systemd_handoff.h"
#include "timing.h"

#define DEFAULT_TIMEOUT_SEC 30
#define WHY_MAX 1024

struct boot {
	int argc;
	char **argv;
	/* an fstab read from the root names devices by what they hold: every filesystem is
	 * probed from then on (discovery alone probes those of its partition types) */
	bool probe_every_filesystem;
	struct options opts;
	struct modules modules;
	struct devices devices;
	struct lvm_boot lvm;
	struct md_boot md;
	struct btrfs_boot btrfs;
	struct machine machine;
	struct plan plan;
	int plan_result;
	bool wait_announced;
	/* the wait for the plan goes in slices (see boot_wait.c): whether this one has an md
	 * array's degraded timer, or the slow controllers' (storage_hold.h); that it ended to be
	 * made again (an array began to wait, or time went to a passphrase); the time the wait
	 * did not count (the passphrases) */
	bool wait_has_md_timer;
	bool wait_has_hold_timer; /* this slice ends when the slow controllers are due */
	bool wait_restart;
	double wait_paused_sec;
	bool replanning;          /* the root is mounted: the plan is made again with its files */
	double plan_counted_sec;  /* when the plan was taken: discovery's tail after settling */
	struct timings timings;
	struct fallback fallback; /* partitions that failed at this boot, passed over since */
	/* the LUKS volumes of rd.luks.uuid= unlocked (or tried) as they appeared, by header UUID */
	char unlocked_early[LUKS_MAX_VOLUMES][UUID_STR_LEN];
	size_t n_unlocked_early;
	bool unlock_failed;       /* one of them stopped the boot */
	char init[PLAN_PATH];
	char why[WHY_MAX];
	/* the source of the plan's step that failed, for the failure's record */
	char failed_device[PLAN_PATH];
	/* the record a failed boot before this one left, deleted at the handoff */
	struct last_failure last_failure;
	struct dual_clock started; /* the initrd's start, for systemd-analyze */
};

/* Sets b->why from fmt: r, for "return boot_fail(b, r, ...)". */
int boot_fail(struct boot *b, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A root named on the command line or a disk named by the boot loader: no disk still to
 * come changes the choice. */
bool boot_plan_pinned(const struct boot *b);
/* Ends the hold on the drivers of devices that hold no disk (modules_hold()). true when any
 * were held. */
bool boot_release_held(struct boot *b, enum held_release what);
/* Milliseconds until the drivers of the slow-scanning storage controllers held back under a
 * pinned plan go in (storage_hold_due_ms()): 0 now, -1 not timed yet. */
int boot_storage_hold_due_ms(const struct boot *b);
/* Milliseconds to wait for the plan; -1 is forever. */
int boot_plan_timeout_ms(const struct options *o);
/* The plan's init, resolved in the new root into b->init: 0, or -errno with b->why. */
int boot_check_init(struct boot *b);

/* The stages that have a file of their own. */
int boot_stage_wait_for_plan(struct boot *b); /* boot_wait.c */
int boot_stage_network(struct boot *b);       /* boot_network.c */
/* boot_wait.c: the plan made again once the root's files were read, waiting as the first
 * one did for a device they name: 0, or -errno with b->why. */
int boot_wait_for_replan(struct boot *b);
int boot_stage_mount(struct boot *b);         /* boot_mount.c */
/* boot_steps.c: the executor's context for plan's steps at boot. */
void boot_prepare_steps(struct boot *b, const struct plan *plan, struct execute_ctx *ctx);
/* boot_steps.c: unlocks the volumes rd.luks.uuid= lists that are there and were not tried yet
 * (plan_build_listed_unlocks()): 0, or -errno with b->why when one that must open did not. */
int boot_unlock_listed(struct boot *b);
/* boot_handoff.c: checks, then switches to the new root and runs its init; returns only
 * when that failed, with b->why. */
int boot_handoff(struct boot *b);
