/* fsck before a read-write mount, the way systemd-fsck(8) reads fsck.mode= and fsck.repair=.
 * The rules (which checker, its options, what its exit code means) are pure; fsck_run() is
 * the effect: it runs the checker the image holds. */
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

struct fsck_result {
	enum fsck_verdict verdict;
	int status;                            /* the exit code, -1 when killed */
	char checker[64];                      /* the program's path in the image */
	char tail[FSCK_TAIL_LINES * 160];      /* its last lines, newline-separated */
};

/* Runs the checker of fstype in the image on device with options, its output logged line by
 * line. 0 with result filled; -ENOENT when the image holds no checker for fstype (nothing
 * ran); another -errno when it could not be started. */
int fsck_run(const char *device, const char *fstype, const char *options,
	     struct fsck_result *result);


/* The OP_FSCK step: checks device (what target will be mounted from) with options, and
 * judges the verdict. 0 to go on: clean, repaired (logged), or not checked because fstype
 * has no checker or the image holds none (logged). A repair that asks for a reboot reboots.
 * -errno with why naming the device, the mount point, the exit code and the checker's last
 * lines when errors are left or the checker could not run. When target is the root, a check
 * that let the boot go on leaves FSCK_ROOT_FLAG. */
int fsck_check(const char *device, const char *fstype, const char *target, const char *options,
	       char *why, size_t why_size);
