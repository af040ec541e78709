/* Runs plan steps: mounts, binds, moves, directories, links, swap. Knows nothing about the
 * Discoverable Partitions spec; the plan said what and why, this does it. Effect layer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "disk.h"
#include "plan.h"

struct ask_watch;

#define EXECUTE_WHY 512

/* How long a network share is tried when the context names no timeout. */
#define EXECUTE_DEFAULT_TIMEOUT_SEC 30

struct execute_ctx {
	const struct disk_set *disks; /* for sources the plan gives as a spec (UUID=, …) */
	/* Makes sure the kernel can mount fstype (loads its module); may be NULL. The result is
	 * advisory: mount(2) has the last word. */
	int (*ensure_fs)(const char *fstype, void *data);
	/* Loads the module a modalias names (a device-mapper target: "dm-verity"); may be NULL.
	 * Advisory as well: the kernel refuses what it cannot do. */
	int (*load_module)(const char *modalias, void *data);
	void *data;
	/* What a passphrase prompt does while it waits (ask_password.h); may be NULL. */
	const struct ask_watch *watch;
	int tpm2_wait;                /* systemd.tpm2_wait= (luks_open.h) */
	int timeout_sec;              /* how long a network share is tried; <= 0: the default */
	char why[EXECUTE_WHY];        /* after a failure: what failed, why, and what to try */
	size_t failed;                /* after execute_steps() failed: the index of that step */
};

/* Runs steps[from, to) in order and stops at the first that fails. 0 or its -errno. */
int execute_steps(const struct plan_step *steps, size_t from, size_t to, struct execute_ctx *ctx);
int execute_step(const struct plan_step *step, struct execute_ctx *ctx);

/* Takes back, in reverse order and as far as it can, what steps[from, to) did: unmounts,
 * swapoff, verity devices removed. For the A/B fallback, before other partitions are tried;
 * directories and links stay. */
void execute_undo(const struct plan_step *steps, size_t from, size_t to, struct execute_ctx *ctx);

/* Resolves the source of a mount step to a path: the partition's device node when the plan
 * knows it, a path as it is, else the spec looked up in disks. part (may be NULL) gets the
 * partition when one is known, else NULL. 0 or -errno. */
int execute_resolve_source(const struct plan_step *step, const struct disk_set *disks,
			   char *out, size_t size, const struct part **part);


/* Whether /proc/filesystems-style text lists fstype. Pure. */
bool filesystems_text_has(const char *text, const char *fstype);
/* Whether the running kernel knows fstype now (/proc/filesystems). */
bool filesystem_registered(const char *fstype);
