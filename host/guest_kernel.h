/* The kernel and the earlymount initramfs of a guest (`earlymount qemu`, `earlymount uki`). */
#pragma once

#include <stdbool.h>

#include "dps.h"

struct guest_inputs {
	const char *kernel; /* NULL: /boot/vmlinuz-$(uname -r) */
	const char *moddir; /* NULL: /lib/modules/KVER */
	const char *init;   /* the earlymount binary for the guest; NULL: found */
	const char *initrd; /* NULL: built (and cached) */
	enum arch arch;     /* ARCH_INVALID: read from the kernel */
	bool verbose;       /* print the commands run */
};

/* The kernel (kernel, PATH_MAX) and its modules (moddir, PATH_MAX; "" when an initrd is
 * given and none can be told), a->arch filled in: 0, or an exit status, reported. */
int guest_find_kernel(struct guest_inputs *a, char *kernel, char *moddir);

/* The initramfs (initrd, PATH_MAX): a->initrd, or the cached image of these inputs, built
 * when missing: 0, or an exit status, reported. */
int guest_find_initrd(const struct guest_inputs *a, const char *moddir, char *initrd);
