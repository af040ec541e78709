/* A device holding a file an unlock needs (a key file, a detached LUKS header), mounted
 * read-only for as long as the unlock needs it: reading the file must not change the device.
 * Effect layer. */
#pragma once

#include <stddef.h>

/* Mounts the filesystem of spec (a /dev path; a tag the executor could not turn into a node
 * is not there) read-only at where, waiting up to timeout_sec for the node. role names the
 * file in messages ("key", "header"). 0, or -errno with why saying what is missing.
 * ensure_fs (may be NULL) loads the filesystem's module. */
int file_device_mount(const char *spec, int timeout_sec, const char *where, const char *role,
		      int (*ensure_fs)(const char *fstype, void *data), void *data, char *why,
		      size_t why_size);
void file_device_umount(const char *where);
