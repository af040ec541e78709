/* fsck before a read-write mount: runs the checker the image holds (the rules are
 * core/fsck_rules.h). */
#pragma once

#include <errno.h>
#include <stddef.h>

#include "child.h"
#include "fsck_rules.h"

/* fsck_check()'s answer when the checker repaired errors and asks for a reboot (exit 2 or 3).
 * The kernel never gives userspace ERESTART, so no mount or device error can be mistaken for
 * it. */
#define FSCK_REBOOT (-ERESTART)

struct fsck_result {
	enum fsck_verdict verdict;
	int status;                            /* the exit code, -1 when killed */
	char checker[64];                      /* the program's path in the image */
	char tail[FSCK_TAIL_LINES * CHILD_LINE_MAX]; /* its last lines, newline-separated */
};

/* Runs the checker of fstype in the image on device with options, its output logged line by
 * line. 0 with result filled; -ENOENT when the image holds no checker for fstype (nothing
 * ran); another -errno when it could not be started. */
int fsck_run(const char *device, const char *fstype, const char *options,
	     struct fsck_result *result);


/* The OP_FSCK step: checks device (what target will be mounted from) with options, and
 * judges the verdict. 0 to go on: clean, repaired (logged), or not checked because fstype
 * has no checker or the image holds none (logged). FSCK_REBOOT, with why saying so, when a
 * repair asks for a reboot: the boot decides what to do. -errno with why naming the device, the mount point, the exit code and the checker's last
 * lines when errors are left or the checker could not run. When target is the root, a check
 * that let the boot go on leaves FSCK_ROOT_FLAG. */
int fsck_check(const char *device, const char *fstype, const char *target, const char *options,
	       char *why, size_t why_size);
