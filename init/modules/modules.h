/* Kernel modules through libkmod: explicit lists, modalias coldplug, and the aliases that
 * uevents bring. libkmod itself reads /etc/modprobe.d and /proc/cmdline (blacklist,
 * module.param=). Effect layer. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "alias_list.h"

struct kmod_ctx;
struct pollfd;

#define MODULES_MAX_UNMATCHED 64
/* Inserts running at once; past it a request waits for the oldest. A module's init may
 * sleep (ahci probes every empty port): the others go on meanwhile. */
#define MODULES_MAX_LOADERS 32

/* One insert in a child process: it writes libkmod's result to fd and exits. */
struct module_loader {
	pid_t pid;
	int fd;
	char *name;
	char *wanted_for;
	bool soon; /* the plan waits for it */
};

struct modules {
	struct kmod_ctx *ctx;
	unsigned loaded;  /* modules inserted by us */
	unsigned failed;  /* inserts that failed for a reason other than ENODEV/EEXIST */
	/* modaliases of present devices that no module matched, for the timeout report */
	char *unmatched[MODULES_MAX_UNMATCHED];
	size_t n_unmatched;
	/* With parallel set, requests insert in child processes (module_loader) */
	bool parallel;
	struct module_loader loaders[MODULES_MAX_LOADERS];
	size_t n_loaders;
	char **requested; /* names handed to a loader: each is inserted once */
	size_t n_requested;
	size_t cap_requested;
	/* With hold set, background requests for devices that hold no disk wait in held */
	bool hold;
	struct alias_list held;
	/* With async_probe set, background inserts of some drivers ask the kernel to probe
	 * their devices asynchronously: the insert returns before ahci has scanned its ports */
	bool async_probe;
	/* With hold_slow set too, background requests for slow-scanning storage controllers
	 * (modalias_scans_slowly()) wait in held as well: a pinned root is looked for behind the
	 * likely controllers first */
	bool hold_slow;
	bool likely_requested; /* a likely controller's driver was requested */
	bool want_network;     /* network controllers' drivers are not held (modules_want_network) */
};

/* The boot brings up the network: the held drivers of network controllers
 * (modalias_is_network()) are loaded now, and those of controllers that appear later are no
 * longer held. The other held ones stay held. The number of modules loaded. */
size_t modules_want_network(struct modules *m);

/* Opens libkmod on /lib/modules/$(uname -r). 0 or -errno. */
int modules_open(struct modules *m);
/* Loads each module of a comma-separated list (rd.modules-load=), in the background when
 * parallel is set. 0 or the first -errno. */
int modules_load_names(struct modules *m, const char *list);
/* Loads every module matching one modalias; records it as unmatched when none does.
 * Returns when they are in the kernel: the number newly loaded, or -errno. */
int modules_load_alias(struct modules *m, const char *modalias);
/* Like modules_load_alias() (a filesystem's mount-time modules included), but with parallel
 * set the inserts start in the background: at normal priority when soon is set (the plan
 * waits for them), else yielding. The number of modules newly requested, or -errno. */
int modules_request_alias(struct modules *m, const char *modalias, bool soon);
/* Requests the modules for every modalias under /sys/devices. Number requested, or -errno. */
int modules_coldplug(struct modules *m);
/* Turns background inserts on or off; off first waits for those requested soon. */
void modules_set_parallel(struct modules *m, bool parallel);
/* Lowers the background inserts still running, but those requested soon, to the lowest
 * priority: the boot goes on without them. */
void modules_yield(struct modules *m);
/* From now on, background requests for devices that hold no disk (modalias_holds_no_disk())
 * wait until modules_release_held(): with one CPU, their inserts would slow the disks'. */
void modules_hold(struct modules *m);
/* While the hold lasts, background requests for slow-scanning storage controllers wait too
 * (a pinned plan); off: from now on they go in at once. */
void modules_hold_slow(struct modules *m, bool hold);
/* How many of the requests held are for slow-scanning storage controllers. */
size_t modules_held_slow(const struct modules *m);
/* What becomes of the requests held when the hold ends. */
enum held_release {
	HELD_FORGET,       /* left to the real system's coldplug (its udev) */
	HELD_LOAD,         /* made now */
	HELD_LOAD_DEVICES, /* made now but for CPU features (modalias_is_cpu_feature()) */
};
/* Ends the hold; requests made now go to the background when parallel is set. The number
 * of modaliases that were held. */
size_t modules_release_held(struct modules *m, enum held_release what);
/* Background inserts of the drivers that allow it (see module_loaders.c) from now on ask for
 * asynchronous probing (the module parameter async_probe=1): for a pinned plan, which needs
 * no controller to finish. */
void modules_probe_async(struct modules *m, bool async);
/* Number of background inserts still running. */
size_t modules_loading(const struct modules *m);
/* Fills up to max pollfds that become readable when a background insert ends. Count. */
size_t modules_poll_fds(const struct modules *m, struct pollfd *fds, size_t max);
/* Collects the background inserts that ended (all of them when wait is set), logging each
 * result. Number of modules they inserted. */
int modules_reap(struct modules *m, bool wait);
/* Before the handoff: waits up to timeout_ms for the background inserts still running,
 * raised to normal priority, so the real init does not inherit them as children. Logs
 * "waited N ms for M module loads" when there were any, and names those still running at
 * the bound (left alone: see module_loaders.c). *waited_ms is the time spent. Number left. */
size_t modules_finish(struct modules *m, int timeout_ms, double *waited_ms);
void modules_close(struct modules *m);

