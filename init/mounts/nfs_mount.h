/* An NFS export mounted by the kernel's client, tried again until the boot's timeout: a
 * server still starting, or a link still negotiating, answers a little later. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Whether fstype is NFS's ("nfs", "nfs4"). */
bool nfs_fstype(const char *fstype);

/* The modules a mount of fstype needs, NULL-terminated: nfs loads the version's module by
 * request_module(), which nothing answers in an initramfs. */
const char *const *nfs_modules(const char *fstype);

/* Mounts source ("SERVER:/PATH") on target with options as a plan gives them, each try in a
 * child process that is ended when it hangs, until timeout_sec pass. 0, or -errno with why
 * naming the server. */
int nfs_mount(const char *source, const char *target, const char *fstype, const char *options,
	      int timeout_sec, char *why, size_t why_size);
