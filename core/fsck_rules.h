/* fsck's rules, the way systemd-fsck(8) reads fsck.mode= and fsck.repair=: which checker,
 * its options, what its exit code means. Pure; init/mounts/fsck.h runs the checker. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cmdline.h"

/* Where the real init learns that earlymount checked the root: Debian's systemd-fsck-root
 * and initramfs-tools' checkroot skip their own check when it exists. */
#define FSCK_ROOT_DIR "/run/initramfs"
#define FSCK_ROOT_FLAG FSCK_ROOT_DIR "/fsck-root"
/* Lines of the checker's output kept for the message when it fails. */
#define FSCK_TAIL_LINES 6

struct fsck_checker {
	const char *fstype;
	const char *const *programs; /* looked for in that order, in FSCK_DIRS */
	bool takes_force;            /* -f forces a full check; fsck.fat's -f means another thing */
};

/* The checker of fstype, or NULL when earlymount checks no such filesystem (xfs and btrfs
 * check themselves on mount; erofs, squashfs and iso9660 are read-only). */
const struct fsck_checker *fsck_checker_for(const char *fstype);

/* The options fsck(8) and systemd-fsck pass for repair and mode: "-a", "-y" or "-n", then
 * " -f" when forced. Every checker earlymount runs takes them, -f where takes_force. */
const char *fsck_repair_option(enum fsck_repair repair);

enum fsck_verdict {
	FSCK_VERDICT_CLEAN,    /* 0: nothing to fix */
	FSCK_VERDICT_REPAIRED, /* 1: errors fixed; the boot goes on */
	FSCK_VERDICT_REBOOT,   /* 2 (or 3): fixed, but the system must reboot (as mkinitcpio does) */
	FSCK_VERDICT_FAILED,   /* 4 and above, or killed: errors left; the boot stops */
};

/* fsck(8)'s exit code bits; a negative status (the checker was killed, or could not run)
 * is a failure. Pure. */
enum fsck_verdict fsck_verdict(int status);

/* The checker's argv for device: the program, the step's options (-f dropped for a checker
 * that does not take it), the device. argv holds at most max entries with its NULL; the
 * words are copied into words. 0, or -E2BIG. Pure. */
int fsck_argv(const struct fsck_checker *c, const char *program, const char *options,
	      const char *device, char *words, size_t words_size, const char **argv, size_t max);
