/* `earlymount check`: the dm-crypt volumes under the host's mounts, against what the boot
 * opens (host/check_volumes.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "hostonly.h"
#include "plan.h"

struct check_volumes_result {
	bool quiet;         /* print only what fails or warns */
	unsigned failures;  /* a volume the boot would not open */
	unsigned warnings;  /* one it opens under another name than the running system's */
};

/* Checks each of the n volumes in crypt (found under the host's mounts) against plan, made
 * from in: opened by one of its steps, or listed by the command line or the image's
 * crypttab; says so on stdout and counts into res. */
void check_volumes(const struct plan_input *in, const struct plan *plan,
		   const struct hostonly_crypt *crypt, size_t n, struct check_volumes_result *res);
