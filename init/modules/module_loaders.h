/* The background inserts of modules.c (see modules.h for the public calls). */
#pragma once

#include <stdbool.h>

#include "modules.h"

struct kmod_module;

/* Background inserts yield to the boot's own work and to what the plan waits for; once
 * the plan is made, to everything. */
#define LOADER_NICE 10
#define LOADER_NICE_YIELD 19

/* A loader was started for name already: it is inserted once. */
bool module_loader_requested(const struct modules *m, const char *name);
/* Starts inserting mod in a child process at nice_level. 0 or -errno (nothing started). */
int module_loader_start(struct modules *m, struct kmod_module *mod, const char *wanted_for,
			int nice_level);
/* Waits for loader i to report, and handles its result (the last loader moves into i).
 * 1 inserted, 0 or -errno. */
int module_loader_finish(struct modules *m, size_t i);
/* Forgets loader i, whose report is not wanted (the last loader moves into i). */
void module_loader_release(struct modules *m, size_t i);
