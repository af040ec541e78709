/* Loading modules at boot. libkmod does the work modprobe would: kmod_new(NULL, NULL) opens
 * /lib/modules/$(uname -r), reads /etc/modprobe.d (compiled-in sysconfdir), the kernel's
 * modules.softdep, and /proc/cmdline for modprobe.blacklist= and module.param=; the probe
 * call inserts dependencies and pre/post softdeps with their options. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libkmod/libkmod.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "modalias.h"
#include "modules.h"
#include "sysfs.h"
#include "timing.h"
#include "util.h"

#define MODALIAS_MAX 4096
/* Background inserts yield to the boot's own work and to what the plan waits for; once
 * the plan is made, to everything. */
#define LOADER_NICE 10
#define LOADER_NICE_YIELD 19

static void alias_list_free(struct alias_list *list);

enum load_mode {
	LOAD_NOW,        /* here, before returning */
	LOAD_SOON,       /* in the background at normal priority: the plan needs it */
	LOAD_BACKGROUND, /* in the background, yielding */
};

int modules_open(struct modules *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	m->ctx = kmod_new(NULL, NULL);
	if (!m->ctx) {
		r = -ENOMEM;
		goto out;
	}
	kmod_set_log_fn(m->ctx, log_libkmod, NULL);
	r = kmod_load_resources(m->ctx);
	if (r < 0) {
		kmod_unref(m->ctx);
		m->ctx = NULL;
	}
out:
	return r;
}

/* Enough to recognise a device (bus, vendor, device, class); CPU modaliases list every
 * feature flag and run to kilobytes. */
#define UNMATCHED_SHOWN 96

static void record_unmatched(struct modules *m, const char *what)
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
static int insert_result(struct modules *m, const char *name, const char *wanted_for, int r)
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
		record_unmatched(m, missing);
		r = 0;
	} else {
		m->failed++;
		log_warn("unable to load module %s for %s: %s", name, wanted_for, strerror(-r));
	}
	return r;
}

/* Drivers that may probe asynchronously for a pinned plan: their disks are SCSI disks, which
 * sd names from its own asynchronous probe anyway, so no disk name changes. Not virtio_blk,
 * nvme's PCI side or mmc: probed in parallel, vda and vdb could swap between boots (seen in
 * uefi-two-disks), and root=/dev/vda2 would name another disk. */
static const char *const async_probe_drivers[] = { "ahci" };

static bool may_probe_async(const char *name)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(async_probe_drivers) && !found; i++)
		found = streq(async_probe_drivers[i], name);
	return found;
}

/* async_probe is the kernel's own parameter of every module (kernel/module/main.c): the
 * drivers the module registers probe their devices from a worker, after the insert. */
static int probe_insert(struct kmod_module *mod, bool async_probe)
{
	return kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST,
					       async_probe ? "async_probe=1" : NULL, NULL, NULL, NULL);
}

static bool was_requested(const struct modules *m, const char *name)
{
	for (size_t i = 0; i < m->n_requested; i++)
		if (streq(m->requested[i], name))
			return true;
	return false;
}

static int remember_request(struct modules *m, const char *name)
{
	int r = 0;

	if (m->n_requested == m->cap_requested) {
		size_t cap = m->cap_requested ? m->cap_requested * 2 : 64;
		char **grown = realloc(m->requested, cap * sizeof(*grown));

		if (!grown) {
			r = -ENOMEM;
			goto out;
		}
		m->requested = grown;
		m->cap_requested = cap;
	}
	m->requested[m->n_requested] = strdup(name);
	if (!m->requested[m->n_requested])
		r = -ENOMEM;
	else
		m->n_requested++;
out:
	return r;
}

static void loader_release(struct modules *m, size_t i)
{
	struct module_loader *l = &m->loaders[i];

	close(l->fd);
	free(l->name);
	free(l->wanted_for);
	m->loaders[i] = m->loaders[--m->n_loaders];
}

/* Waits for loader i to report, and handles its result. 1 inserted, 0 or -errno. */
static int loader_finish(struct modules *m, size_t i)
{
	struct module_loader *l = &m->loaders[i];
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };
	int result = -EIO;
	ssize_t n;
	int r;

	while (poll(&pfd, 1, -1) < 0 && errno == EINTR)
		;
	n = read(l->fd, &result, sizeof(result));
	if (n != (ssize_t)sizeof(result))
		result = -EIO; /* the loader died before it could answer */
	/* ECHILD: an emergency shell's reaper took it; its answer is in the pipe all the same */
	(void)child_wait(l->pid, NULL);
	r = insert_result(m, l->name, l->wanted_for, result);
	loader_release(m, i);
	return r;
}

static bool loader_done(const struct module_loader *l)
{
	struct pollfd pfd = { .fd = l->fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

/* Inserts mod in a child process; the pipe tells when it is done, and what libkmod said.
 * The insert runs at the given nice level: with one CPU, what the plan waits for goes
 * first. */
static int loader_start(struct modules *m, struct kmod_module *mod, const char *wanted_for,
			int nice_level)
{
	const char *name = kmod_module_get_name(mod);
	struct module_loader *l;
	int fds[2];
	pid_t pid;
	int r = 0;

	if (m->n_loaders == MODULES_MAX_LOADERS)
		loader_finish(m, 0);
	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		int result;

		setpriority(PRIO_PROCESS, 0, nice_level);
		result = probe_insert(mod, m->async_probe && nice_level != 0 && may_probe_async(name));

		(void)!write(fds[1], &result, sizeof(result));
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		goto out;
	}
	l = &m->loaders[m->n_loaders++];
	*l = (struct module_loader){ .pid = pid, .fd = fds[0], .name = strdup(name),
				     .wanted_for = strdup(wanted_for), .soon = nice_level == 0 };
	if (!l->name || !l->wanted_for) {
		/* it runs all the same; only its report is lost */
		waitpid(pid, NULL, 0);
		loader_release(m, m->n_loaders - 1);
		r = -ENOMEM;
		goto out;
	}
	r = remember_request(m, name);
out:
	return r;
}

/* 1 when inserted (or, in the background, requested), 0 when there was nothing to do,
 * -errno when the insert failed. */
static int insert_module(struct modules *m, struct kmod_module *mod, const char *wanted_for,
			 enum load_mode mode)
{
	const char *name = kmod_module_get_name(mod);
	int state = kmod_module_get_initstate(mod);
	int r = 0;

	if (state == KMOD_MODULE_BUILTIN || state == KMOD_MODULE_LIVE)
		goto out;
	if (mode != LOAD_NOW && m->parallel) {
		if (state == KMOD_MODULE_COMING || was_requested(m, name))
			goto out;
		r = loader_start(m, mod, wanted_for, mode == LOAD_SOON ? 0 : LOADER_NICE);
		if (r == 0) {
			r = 1;
			goto out;
		}
		log_debug("unable to load %s in the background (%s): loading it now", name,
			  strerror(-r));
	}
	/* loading in the background already: its answer is this one's (a module that is
	 * COMING for another reason makes the kernel wait in the insert, then say EEXIST) */
	for (size_t i = 0; i < m->n_loaders; i++) {
		if (streq(m->loaders[i].name, name)) {
			r = loader_finish(m, i);
			goto out;
		}
	}
	r = insert_result(m, name, wanted_for, probe_insert(mod, false));
out:
	return r;
}

void modules_set_parallel(struct modules *m, bool parallel)
{
	/* what the plan asked for must be in before its mounts begin */
	for (size_t i = 0; i < m->n_loaders && !parallel;) {
		if (m->loaders[i].soon)
			loader_finish(m, i); /* the last loader moved into i */
		else
			i++;
	}
	m->parallel = parallel;
}

void modules_yield(struct modules *m)
{
	for (size_t i = 0; i < m->n_loaders; i++)
		if (!m->loaders[i].soon)
			setpriority(PRIO_PROCESS, m->loaders[i].pid, LOADER_NICE_YIELD);
}

size_t modules_loading(const struct modules *m)
{
	return m->n_loaders;
}

size_t modules_poll_fds(const struct modules *m, struct pollfd *fds, size_t max)
{
	size_t n = 0;

	for (; n < m->n_loaders && n < max; n++)
		fds[n] = (struct pollfd){ .fd = m->loaders[n].fd, .events = POLLIN };
	return n;
}

int modules_reap(struct modules *m, bool wait)
{
	int loaded = 0;

	for (size_t i = 0; i < m->n_loaders;) {
		if (wait || loader_done(&m->loaders[i]))
			loaded += loader_finish(m, i) > 0; /* the last loader moved into i */
		else
			i++;
	}
	return loaded;
}

/* Names of the loaders still running, "a (pid 1), b (pid 2)", cut to fit. */
static void loader_names(const struct modules *m, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < m->n_loaders && used < size; i++) {
		int n = snprintf(buf + used, size - used, "%s%s (pid %d)", i ? ", " : "",
				 m->loaders[i].name, (int)m->loaders[i].pid);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

size_t modules_finish(struct modules *m, int timeout_ms, double *waited_ms)
{
	struct pollfd fds[MODULES_MAX_LOADERS];
	size_t running = m->n_loaders;
	double start = timing_now(), elapsed = 0;
	char names[512];

	/* raised from the lowest priority: the boot has nothing else to do now */
	for (size_t i = 0; i < m->n_loaders; i++)
		setpriority(PRIO_PROCESS, m->loaders[i].pid, 0);
	while (m->n_loaders > 0 && elapsed < timeout_ms) {
		size_t n = modules_poll_fds(m, fds, ARRAY_SIZE(fds));

		if (poll(fds, n, timeout_ms - (int)elapsed) < 0 && errno != EINTR)
			break;
		modules_reap(m, false);
		elapsed = (timing_now() - start) * 1e3;
	}
	*waited_ms = elapsed;
	if (running > 0)
		log_info("waited %.0f ms for %zu module loads before the handoff", elapsed,
			 running - m->n_loaders);
	if (m->n_loaders > 0) {
		loader_names(m, names, sizeof(names));
		/* A kill could cut a driver's probe short in an interruptible wait: they are left
		 * to end by themselves, children of the real init, which reaps them. */
		log_warn("%zu module loads still running after %d ms, left to the real init: %s",
			 m->n_loaders, timeout_ms, names);
	}
	return m->n_loaders;
}

void modules_close(struct modules *m)
{
	/* a loader still running now is stuck in a module's init: it is left to finish alone */
	modules_reap(m, false);
	while (m->n_loaders > 0)
		loader_release(m, 0);
	for (size_t i = 0; i < m->n_requested; i++)
		free(m->requested[i]);
	free(m->requested);
	for (size_t i = 0; i < m->n_unmatched; i++)
		free(m->unmatched[i]);
	alias_list_free(&m->held);
	if (m->ctx)
		kmod_unref(m->ctx);
	memset(m, 0, sizeof(*m));
}

/* Loads what matches alias. *matched tells whether the index knew it at all. Number of
 * modules inserted, or the -errno of the lookup or, with first_error, of the first insert. */
static int load_lookup(struct modules *m, const char *alias, enum load_mode mode, bool *matched,
		       int *first_error)
{
	struct kmod_list *list = NULL, *l;
	int loaded = 0;
	int r;

	*matched = false;
	if (!m->ctx) {
		r = -ENOENT;
		goto out;
	}
	r = kmod_module_new_from_lookup(m->ctx, alias, &list);
	if (r < 0)
		goto out;
	kmod_list_foreach(l, list) {
		struct kmod_module *mod = kmod_module_get_module(l);
		int one = insert_module(m, mod, alias, mode);

		*matched = true;
		if (one > 0)
			loaded++;
		else if (one < 0 && first_error && *first_error == 0)
			*first_error = one;
		kmod_module_unref(mod);
	}
	r = loaded;
out:
	kmod_module_unref_list(list);
	return r;
}

static int alias_list_add(struct alias_list *list, const char *alias, bool bound)
{
	int r = 0;

	if (list->n == list->cap) {
		size_t cap = list->cap ? list->cap * 2 : 128;
		struct alias_seen *grown = realloc(list->items, cap * sizeof(*grown));

		if (!grown) {
			r = -ENOMEM;
			goto out;
		}
		list->items = grown;
		list->cap = cap;
	}
	list->items[list->n].alias = strdup(alias);
	if (!list->items[list->n].alias) {
		r = -ENOMEM;
		goto out;
	}
	list->items[list->n++].bound = bound;
out:
	return r;
}

static void alias_list_free(struct alias_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->items[i].alias);
	free(list->items);
}

static bool alias_list_has(const struct alias_list *list, const char *alias)
{
	for (size_t i = 0; i < list->n; i++)
		if (streq(list->items[i].alias, alias))
			return true;
	return false;
}

/* A background request for a device that holds no disk, while the hold lasts: kept for
 * later. true when it was kept (or known already). */
static bool hold_request(struct modules *m, const char *modalias, bool record, enum load_mode mode)
{
	bool held = mode == LOAD_BACKGROUND && m->hold && modalias_holds_no_disk(modalias);

	if (held && !alias_list_has(&m->held, modalias) && alias_list_add(&m->held, modalias, !record) < 0)
		held = false; /* out of memory: loaded now instead */
	return held;
}

void modules_hold(struct modules *m)
{
	m->hold = true;
}

void modules_probe_async(struct modules *m, bool async)
{
	m->async_probe = async;
}

static int load_alias(struct modules *m, const char *modalias, bool record, enum load_mode mode)
{
	bool matched;
	int r;

	if (hold_request(m, modalias, record, mode))
		return 0;
	r = load_lookup(m, modalias, mode, &matched, NULL);
	if (r >= 0 && !matched) {
		log_debug("no module for %s", modalias);
		if (record)
			record_unmatched(m, modalias);
	}
	return r;
}

size_t modules_release_held(struct modules *m, enum held_release what)
{
	struct alias_list held = m->held;

	m->hold = false;
	m->held = (struct alias_list){ 0 };
	for (size_t i = 0; i < held.n && what != HELD_FORGET; i++) {
		if (what == HELD_LOAD || !modalias_is_cpu_feature(held.items[i].alias))
			load_alias(m, held.items[i].alias, !held.items[i].bound, LOAD_BACKGROUND);
	}
	alias_list_free(&held);
	return held.n;
}

/* Modules a filesystem asks for with request_module() while it mounts: no modprobe in the
 * initramfs answers that call, so they are loaded with the filesystem. The names follow
 * Debian's kernels (FAT_DEFAULT_CODEPAGE 437, FAT_DEFAULT_IOCHARSET "ascii"); a missing one
 * is no error here, the mount says what it lacked. */
static const struct mount_time_modules {
	const char *alias;
	const char *modules[3];
} mount_time_modules[] = {
	{ "fs-vfat", { "nls_cp437", "nls_ascii", NULL } },
	{ "fs-msdos", { "nls_cp437", "nls_ascii", NULL } },
	{ "fs-iso9660", { "nls_ascii", NULL } },
};

static int load_mount_time_modules(struct modules *m, const char *alias, enum load_mode mode)
{
	int loaded = 0;

	for (size_t i = 0; i < ARRAY_SIZE(mount_time_modules); i++) {
		if (!streq(mount_time_modules[i].alias, alias))
			continue;
		for (size_t j = 0; mount_time_modules[i].modules[j]; j++) {
			int r = load_alias(m, mount_time_modules[i].modules[j], false, mode);

			loaded += r > 0 ? r : 0;
		}
	}
	return loaded;
}

int modules_load_alias(struct modules *m, const char *modalias)
{
	int r = load_alias(m, modalias, true, LOAD_NOW);

	if (r >= 0)
		r += load_mount_time_modules(m, modalias, LOAD_NOW);
	return r;
}

int modules_request_alias(struct modules *m, const char *modalias, bool soon)
{
	enum load_mode mode = soon ? LOAD_SOON : LOAD_BACKGROUND;
	int r = load_alias(m, modalias, true, mode);

	if (r >= 0)
		r += load_mount_time_modules(m, modalias, mode);
	return r;
}

int modules_load_names(struct modules *m, const char *list)
{
	char *copy = strdup(list);
	char *save = NULL;
	int first = 0;

	if (!copy) {
		first = -ENOMEM;
		goto out;
	}
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		bool matched;
		int r = load_lookup(m, name, LOAD_BACKGROUND, &matched, &first);

		if (r >= 0 && !matched) {
			log_warn("unable to load module %s: it is not in the initramfs (add it with earlymount initramfs --module %s)",
				 name, name);
			record_unmatched(m, name);
			r = -ENOENT;
		}
		if (r < 0 && first == 0)
			first = r;
	}
out:
	free(copy);
	return first;
}

/* The devices that can have a modalias: those on a bus, and of the devices on none only two
 * classes' (input devices, the DMI identity) carry one. Each list holds links to their
 * directories under /sys/devices. Reading those costs a few hundred system calls where
 * walking /sys/devices costs thousands (power/, queue/, attribute groups): 80 ms of a boot
 * under QEMU TCG; and looking into every class (70 ttys, memory devices, consoles, none with
 * a modalias) cost another 35 ms of arm64 virt's coldplug, 7-16 ms of q35's. */
static const struct device_list {
	const char *path;
	const char *devices; /* the subdirectory of each entry that lists devices; NULL: path does */
} device_lists[] = {
	{ "/sys/bus", "devices" },
	{ "/sys/class/input", NULL },
	{ "/sys/class/dmi", NULL },
};

static int collect_listed(int listfd, struct alias_list *list)
{
	DIR *dir = fdopendir(listfd);
	struct dirent *de;
	char path[NAME_MAX + sizeof("/modalias")];
	char alias[MODALIAS_MAX];
	int r = 0;

	if (!dir) {
		close(listfd);
		goto out;
	}
	while (r == 0 && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/modalias", de->d_name);
		if (!sysfs_read_line_at(listfd, path, alias, sizeof(alias)) || !alias[0])
			continue;
		snprintf(path, sizeof(path), "%s/driver", de->d_name);
		r = alias_list_add(list, alias, faccessat(listfd, path, F_OK, AT_SYMLINK_NOFOLLOW) == 0);
	}
	closedir(dir);
out:
	return r;
}

/* One entry of device_lists. A list or bus that is not there holds nothing to load. */
static int collect_device_list(const struct device_list *dl, struct alias_list *list)
{
	char path[NAME_MAX + 16];
	struct dirent *de;
	DIR *top;
	int r = 0;

	if (!dl->devices) {
		int fd = open(dl->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		r = fd >= 0 ? collect_listed(fd, list) : 0;
		goto out;
	}
	top = opendir(dl->path);
	if (!top)
		goto out;
	while (r == 0 && (de = readdir(top))) {
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", de->d_name, dl->devices);
		fd = openat(dirfd(top), path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			r = collect_listed(fd, list);
	}
	closedir(top);
out:
	return r;
}

#define CPU_MODALIAS "/sys/devices/system/cpu/modalias"

static int collect_modaliases(struct alias_list *list)
{
	char alias[MODALIAS_MAX];
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(device_lists) && r == 0; i++)
		r = collect_device_list(&device_lists[i], list);
	/* The CPUs' features: the cpu subsystem's root device, listed under no bus or class */
	if (r == 0 && sysfs_read_line_at(AT_FDCWD, CPU_MODALIAS, alias, sizeof(alias)) && alias[0])
		r = alias_list_add(list, alias, false);
	return r;
}

static int compare_alias(const void *a, const void *b)
{
	return strcmp(((const struct alias_seen *)a)->alias, ((const struct alias_seen *)b)->alias);
}

int modules_coldplug(struct modules *m)
{
	struct alias_list list = { 0 };
	int loaded = 0;
	int r;

	if (!m->ctx) {
		r = 0; /* no module index: nothing could be loaded */
		goto out;
	}
	r = collect_modaliases(&list);
	if (r < 0)
		goto out;
	if (list.n > 1)
		qsort(list.items, list.n, sizeof(*list.items), compare_alias);
	for (size_t i = 0; i < list.n; i++) {
		bool bound = list.items[i].bound;
		int one;

		/* many devices share an alias (CPUs, ports): look each one up once */
		while (i + 1 < list.n && streq(list.items[i].alias, list.items[i + 1].alias)) {
			i++;
			bound = bound && list.items[i].bound;
		}
		one = load_alias(m, list.items[i].alias, !bound, LOAD_BACKGROUND);
		if (one > 0)
			loaded += one;
	}
	log_info("coldplug: %zu device modaliases, %d modules %s", list.n, loaded,
		 m->parallel ? "requested" : "loaded");
	r = loaded;
out:
	alias_list_free(&list);
	return r;
}
