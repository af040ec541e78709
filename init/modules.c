/* Loading modules at boot. libkmod does the work modprobe would: kmod_new(NULL, NULL) opens
 * /lib/modules/$(uname -r), reads /etc/modprobe.d (compiled-in sysconfdir), the kernel's
 * modules.softdep, and /proc/cmdline for modprobe.blacklist= and module.param=; the probe
 * call inserts dependencies and pre/post softdeps with their options. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libkmod/libkmod.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "modules.h"
#include "sysfs.h"
#include "util.h"

#define MODALIAS_MAX 4096

struct alias_seen {
	char *alias;
	bool bound; /* the device already has a driver: no module is no problem */
};

struct alias_list {
	struct alias_seen *items;
	size_t n;
	size_t cap;
};

void modules_log_libkmod(void *data, int priority, const char *file, int line, const char *fn,
			 const char *format, va_list args)
{
	char text[512];
	size_t len;

	vsnprintf(text, sizeof(text), format, args);
	len = strlen(text);
	if (len > 0 && text[len - 1] == '\n')
		text[len - 1] = '\0';
	/* libkmod's errors are details of a failure we report ourselves with context */
	log_msg(LOG_DEBUG, "libkmod: %s", text);
}

int modules_open(struct modules *m)
{
	int r;

	memset(m, 0, sizeof(*m));
	m->ctx = kmod_new(NULL, NULL);
	if (!m->ctx) {
		r = -ENOMEM;
		goto out;
	}
	kmod_set_log_fn(m->ctx, modules_log_libkmod, NULL);
	r = kmod_load_resources(m->ctx);
	if (r < 0) {
		kmod_unref(m->ctx);
		m->ctx = NULL;
	}
out:
	return r;
}

void modules_close(struct modules *m)
{
	for (size_t i = 0; i < m->n_unmatched; i++)
		free(m->unmatched[i]);
	if (m->ctx)
		kmod_unref(m->ctx);
	memset(m, 0, sizeof(*m));
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

/* 1 when inserted, 0 when there was nothing to do, -errno when the insert failed (counted
 * and reported here, where the module name and the reason are known). */
static int insert_module(struct modules *m, struct kmod_module *mod, const char *wanted_for)
{
	const char *name = kmod_module_get_name(mod);
	int state = kmod_module_get_initstate(mod);
	char missing[MODALIAS_MAX + 128];
	int r = 0;

	if (state == KMOD_MODULE_BUILTIN || state == KMOD_MODULE_LIVE || state == KMOD_MODULE_COMING)
		goto out;
	r = kmod_module_probe_insert_module(mod, KMOD_PROBE_APPLY_BLACKLIST, NULL, NULL, NULL, NULL);
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
out:
	return r;
}

/* Loads what matches alias. *matched tells whether the index knew it at all. Number of
 * modules inserted, or the -errno of the lookup or, with first_error, of the first insert. */
static int load_lookup(struct modules *m, const char *alias, bool *matched, int *first_error)
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
		int one = insert_module(m, mod, alias);

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

static int load_alias(struct modules *m, const char *modalias, bool record)
{
	bool matched;
	int r = load_lookup(m, modalias, &matched, NULL);

	if (r >= 0 && !matched) {
		log_debug("no module for %s", modalias);
		if (record)
			record_unmatched(m, modalias);
	}
	return r;
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

static int load_mount_time_modules(struct modules *m, const char *alias)
{
	int loaded = 0;

	for (size_t i = 0; i < ARRAY_SIZE(mount_time_modules); i++) {
		if (!streq(mount_time_modules[i].alias, alias))
			continue;
		for (size_t j = 0; mount_time_modules[i].modules[j]; j++) {
			int r = load_alias(m, mount_time_modules[i].modules[j], false);

			loaded += r > 0 ? r : 0;
		}
	}
	return loaded;
}

int modules_load_alias(struct modules *m, const char *modalias)
{
	int r = load_alias(m, modalias, true);

	if (r >= 0)
		r += load_mount_time_modules(m, modalias);
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
		int r = load_lookup(m, name, &matched, &first);

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

/* Depth-first over a sysfs directory. Symlinks (subsystem, driver, …) are never followed:
 * every device has exactly one real directory under /sys/devices. */
static int collect_modaliases(int dirfd, struct alias_list *list)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *de;
	char alias[MODALIAS_MAX];
	int r = 0;

	if (!dir) {
		close(dirfd);
		goto out;
	}
	sysfs_read_line_at(dirfd, "modalias", alias, sizeof(alias));
	if (alias[0]) {
		bool bound = faccessat(dirfd, "driver", F_OK, AT_SYMLINK_NOFOLLOW) == 0;

		r = alias_list_add(list, alias, bound);
	}
	while (r == 0 && (de = readdir(dir))) {
		int sub;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			r = collect_modaliases(sub, list);
	}
	closedir(dir);
out:
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
	int fd;
	int r;

	if (!m->ctx) {
		r = 0; /* no module index: nothing could be loaded */
		goto out;
	}
	fd = open("/sys/devices", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = collect_modaliases(fd, &list);
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
		one = load_alias(m, list.items[i].alias, !bound);
		if (one > 0)
			loaded += one;
	}
	log_info("coldplug: %zu device modaliases, %d modules loaded", list.n, loaded);
	r = loaded;
out:
	alias_list_free(&list);
	return r;
}
