/* Kernel modules through libkmod: explicit lists, modalias coldplug, and the aliases that
 * uevents bring. libkmod itself reads /etc/modprobe.d and /proc/cmdline (blacklist,
 * module.param=). Effect layer. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct kmod_ctx;

#define MODULES_MAX_UNMATCHED 64

struct modules {
	struct kmod_ctx *ctx;
	unsigned loaded;  /* modules inserted by us */
	unsigned failed;  /* inserts that failed for a reason other than ENODEV/EEXIST */
	/* modaliases of present devices that no module matched, for the timeout report */
	char *unmatched[MODULES_MAX_UNMATCHED];
	size_t n_unmatched;
};

/* Opens libkmod on /lib/modules/$(uname -r). 0 or -errno. */
int modules_open(struct modules *m);
/* Loads each module of a comma-separated list (rd.modules-load=). 0 or the first -errno. */
int modules_load_names(struct modules *m, const char *list);
/* Loads every module matching one modalias; records it as unmatched when none does.
 * Returns the number of modules newly loaded, or -errno. */
int modules_load_alias(struct modules *m, const char *modalias);
/* Loads the modules for every modalias under /sys/devices. Number newly loaded, or -errno. */
int modules_coldplug(struct modules *m);
void modules_close(struct modules *m);
/* libkmod's log function, to kmod_set_log_fn(): its messages at debug level, since each
 * failure they describe is reported once, with context, by the caller. */
void modules_log_libkmod(void *data, int priority, const char *file, int line, const char *fn,
			 const char *format, va_list args);
