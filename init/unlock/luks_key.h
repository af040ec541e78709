/* A LUKS key file of rd.luks.key=: in the initramfs, or on a device mounted read-only for as
 * long as it takes to read it. Effect layer. */
#pragma once

#include <stddef.h>

#include "luks.h"

struct luks_key {
	char *bytes; /* mlock'ed when the kernel allows; luks_key_free() wipes it */
	size_t len;
};

/* Reads path (on the device device_spec when not NULL or "", waited for up to
 * o->keyfile_timeout_sec), honouring keyfile-offset= and keyfile-size=. 0, or -errno with why
 * saying what is missing. ensure_fs (may be NULL) loads the device's filesystem. */
int luks_key_read(const char *path, const char *device_spec, const struct luks_options *o,
		  int (*ensure_fs)(const char *fstype, void *data), void *data, struct luks_key *key,
		  char *why, size_t why_size);
void luks_key_free(struct luks_key *key);
