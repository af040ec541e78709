/* Host shares at boot (virtiofs, 9p): their drivers, and which tags the machine has. Effect
 * layer: reads sysfs under a root given by the caller ("/sys" at boot, a tree in tests). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The modules a share of fstype needs beyond the fs-FSTYPE alias, NULL-terminated: the
 * virtio transport of 9p registers trans=virtio, and nothing requests it in an initramfs
 * without modprobe. NULL for a fstype that is no share. */
const char *const *share_modules(const char *fstype);

/* Whether a share tagged tag can be mounted now: its device is bound to its driver (9p's
 * mount_tag, virtiofs's /sys/fs/virtiofs/N/tag on kernels that have it; on those without,
 * such as Debian's 6.1, any bound virtiofs device counts: only the mount reads its tag). */
bool share_present(const char *sysfs, const char *fstype, const char *tag);

/* One clause for a message: the tags of fstype the machine has, or why they are not known. */
void share_describe(const char *sysfs, const char *fstype, char *out, size_t size);
