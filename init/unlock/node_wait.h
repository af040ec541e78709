/* Waiting for a device node that a driver has yet to make (a key device, the TPM), with the
 * uevents that arrive meanwhile handled (their modules loaded) when a watch is given. Effect
 * layer. */
#pragma once

#include <stdbool.h>

struct ask_watch;

/* Waits for any of paths (NULL-terminated) to exist, as a block device when block, at most
 * timeout_ms (0: only looks; -1: forever). The index of the one found, or -ENOENT. */
int node_wait(const char *const paths[], bool block, int timeout_ms,
	      const struct ask_watch *watch);
