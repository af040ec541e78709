/* Loading modules at boot. libkmod does the work modprobe would: kmod_new(NULL, NULL) opens
 * /lib/modules/$(uname -r), reads /etc/modprobe.d (compiled-in sysconfdir), the kernel's
 * modules.softdep, and /proc/cmdline for modprobe.blacklist= and module.param=; the probe
 * call inserts dependencies and pre/post softdeps with their options. */
#include <errno.h>
#include <libkmod/libkmod.h>
#include <stdlib.h>
#include <string.h>

#include "alias_list.h"
#include "coldplug.h"
#include "log.h"
#include "modalias.h"
#include "module_insert.h"
#include "module_loaders.h"
#include "modules.h"
#include "util.h"

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
		if (state == KMOD_MODULE_COMING || module_loader_requested(m, name))
			goto out;
		r = module_loader_start(m, mod, wanted_for, mode == LOAD_SOON ? 0 : LOADER_NICE);
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
			r = module_loader_finish(m, i);
			goto out;
		}
	}
	r = module_insert_result(m, name, wanted_for, module_probe_insert(mod, false));
out:
	return r;
}

void modules_close(struct modules *m)
{
	/* a loader still running now is stuck in a module's init: it is left to finish alone */
	modules_reap(m, false);
	while (m->n_loaders > 0)
		module_loader_release(m, 0);
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

/* A background request for a device that holds no disk, while the hold lasts: kept for
 * later. true when it was kept (or known already). */
static bool hold_request(struct modules *m, const char *modalias, bool record, enum load_mode mode)
{
	bool held = mode == LOAD_BACKGROUND && m->hold &&
		    (modalias_holds_no_disk(modalias) || (m->hold_slow && modalias_scans_slowly(modalias))) &&
		    !(m->want_network && modalias_is_network(modalias));

	if (held && !alias_list_has(&m->held, modalias) && alias_list_add(&m->held, modalias, !record) < 0)
		held = false; /* out of memory: loaded now instead */
	return held;
}

void modules_hold(struct modules *m)
{
	m->hold = true;
}

void modules_hold_slow(struct modules *m, bool hold)
{
	m->hold_slow = hold;
}

size_t modules_held_slow(const struct modules *m)
{
	size_t n = 0;

	for (size_t i = 0; i < m->held.n; i++)
		n += modalias_scans_slowly(m->held.items[i].alias);
	return n;
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
	if (r > 0 && modalias_is_likely_storage(modalias))
		m->likely_requested = true;
	if (r >= 0 && !matched) {
		log_debug("no module for %s", modalias);
		if (record)
			module_record_unmatched(m, modalias);
	}
	return r;
}

size_t modules_want_network(struct modules *m)
{
	struct alias_list held = m->held, kept = { 0 };
	size_t loaded = 0;

	m->want_network = true;
	m->held = (struct alias_list){ 0 };
	for (size_t i = 0; i < held.n; i++) {
		const struct alias_seen *a = &held.items[i];

		if (!modalias_is_network(a->alias)) {
			if (alias_list_add(&kept, a->alias, a->bound) < 0)
				load_alias(m, a->alias, !a->bound, LOAD_BACKGROUND); /* out of memory */
			continue;
		}
		if (load_alias(m, a->alias, !a->bound, LOAD_NOW) > 0)
			loaded++;
	}
	alias_list_free(&held);
	m->held = kept;
	return loaded;
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
			module_record_unmatched(m, name);
			r = -ENOENT;
		}
		if (r < 0 && first == 0)
			first = r;
	}
out:
	free(copy);
	return first;
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
	r = coldplug_modaliases(&list);
	if (r < 0)
		goto out;
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
