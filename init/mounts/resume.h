/* Resume from hibernation through /sys/power: the effect of the plan's OP_RESUME. */
#pragma once

#include <stddef.h>

#define SYS_POWER_RESUME "/sys/power/resume"
#define SYS_POWER_RESUME_OFFSET "/sys/power/resume_offset"

/* Asks the kernel to resume from device (a /dev node or "MAJ:MIN"), offset pages into it
 * (NULL: none given). When there is an image the kernel can load, this never returns. It
 * returns 0 when the boot goes on fresh (no image, or one the kernel refused: logged, with
 * why), or -errno with why set when resume could not even be asked for (no hibernation in
 * the kernel, no such device). */
int resume_attempt(const char *device, const char *offset, char *why, size_t size);
