/* One module into the kernel through libkmod, and what libkmod's answer means: counted and
 * reported where the module's name and the reason are known. */
#include <errno.h>
#include <libkmod/libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "modalias.h"
#include "module_insert.h"
#include "util.h"

/* Enough to recognise a device (bus, vendor, device, class); CPU modaliases list every
 * feature flag and run to kilobytes. */
#define UNMATCHED_SHOWN 96

void module_record_unmatched(struct modules *m, const char *what)
{
	char shown[UNMATCHED_SHOWN + sizeof("…")];
	char *copy;

	snprintf(shown, sizeof(shown), "%.*s%s", UNMATCHED_SHOWN, what,
		 strlen(what) > UNMATCHED_SHOWN ? "…" : "");
	for (size_t i = 0; i < m->n_unmatched; i++)
		if (streq(m->unmatched[i], shown))
			return;
	if (m->n_unmatched >= MODULES_MAX_UNMATCHED)
		return;
	copy = strdup(shown);
	if (copy)
		m->unmatched[m->n_unmatched++] = copy;
}

/* What libkmod's answer r for module name means: 1 inserted, 0 nothing to do, -errno a
 * failure, counted and reported here, where the module name and the reason are known. */
int module_insert_result(struct modules *m, const char *name, const char *wanted_for, int r)
{
	char missing[MODALIAS_MAX + 128];

	if (r == 0) {
		m->loaded++;
		log_debug("loaded module %s for %s", name, wanted_for);
		r = 1;
	} else if (r > 0) {
		log_info("not loading module %s for %s: it is blacklisted (modprobe.blacklist= or modprobe.d)",
			 name, wanted_for);
		r = 0;
	} else if (r == -ENODEV || r == -EEXIST) {
		/* hardware absent (crc32c-intel on some CPUs) or loaded meanwhile */
		log_debug("module %s for %s: %s", name, wanted_for, strerror(-r));
		r = 0;
	} else if (r == -ENOENT) {
		log_debug("module %s for %s is in the index but its file is not in the initramfs", name,
			  wanted_for);
		snprintf(missing, sizeof(missing), "%s (module %s missing)", wanted_for, name);
		module_record_unmatched(m, missing);
		r = 0;
	} else {
		m->failed++;
		log_warn("unable to load module %s for %s: %s", name, wanted_for, strerror(-r));
	}
	return r;
}

/* async_probe is the kernel's own parameter of every module (kernel/module/main.c): the
 * drivers the module registers probe their devices from a worker, after the insert. */
int module_probe_insert(struct kmod_module *mod, bool async_probe)
{
	return kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST,
					       async_probe ? "async_probe=1" : NULL, NULL, NULL, NULL);
}
