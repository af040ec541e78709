/* One module into the kernel, for modules.c and module_loaders.c. */
#pragma once

#include <stdbool.h>

#include "modules.h"

struct kmod_module;

/* Keeps what (a modalias, or "ALIAS (module NAME missing)") for the report of devices no
 * module matched, cut to a readable length, once. */
void module_record_unmatched(struct modules *m, const char *what);
/* What libkmod's answer r for module name means: 1 inserted, 0 nothing to do, -errno a
 * failure (each counted and logged). */
int module_insert_result(struct modules *m, const char *name, const char *wanted_for, int r);
/* Inserts mod with its dependencies and softdeps, modprobe's blacklist applied; async_probe
 * asks the kernel to probe its devices from a worker. libkmod's answer. */
int module_probe_insert(struct kmod_module *mod, bool async_probe);
