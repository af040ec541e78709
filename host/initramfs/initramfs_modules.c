/* `earlymount initramfs`: which modules go into the image. The default set and --module, each
 * resolved by libkmod with its dependencies and pre-softdeps; built-in ones are left out. */
#include <errno.h>
#include <libkmod/libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "initramfs.h"
#include "log.h"
#include "luks_helper.h"
#include "md_rules.h"
#include "util.h"

/* The drivers and filesystems a disk-booting machine most likely needs, by the names Debian's
 * amd64 and arm64 kernels give them. What a kernel builds in is skipped. */
static const struct default_module {
	const char *name;
	enum arch only_on; /* ARCH_INVALID: every architecture */
} default_modules[] = {
	{ "virtio_pci", ARCH_INVALID },
	{ "virtio_blk", ARCH_INVALID },
	{ "virtio_scsi", ARCH_INVALID },
	{ "sd_mod", ARCH_INVALID },
	{ "nvme", ARCH_INVALID },
	{ "ahci", ARCH_INVALID },
	{ "usb_storage", ARCH_INVALID },
	{ "uas", ARCH_INVALID },
	{ "xhci_pci", ARCH_INVALID },
	{ "xhci_hcd", ARCH_INVALID },
	{ "ehci_pci", ARCH_INVALID },
	{ "ehci_hcd", ARCH_INVALID },
	/* a USB keyboard at a LUKS passphrase prompt (atkbd, the PS/2 one, is built in) */
	{ "usbhid", ARCH_INVALID },
	{ "hid_generic", ARCH_INVALID },
	{ "sdhci", ARCH_INVALID },
	{ "sdhci_pci", ARCH_INVALID },
	{ "mmc_block", ARCH_INVALID },
	{ "ext4", ARCH_INVALID },
	{ "vfat", ARCH_INVALID },
	{ "nls_cp437", ARCH_INVALID },
	{ "nls_iso8859_1", ARCH_INVALID },
	/* vfat loads the default iocharset at mount time, "ascii" in Debian's config, and there
	 * is no modprobe in the initramfs for the kernel to call */
	{ "nls_ascii", ARCH_INVALID },
	{ "erofs", ARCH_INVALID },
	{ "squashfs", ARCH_INVALID },
	{ "btrfs", ARCH_INVALID },
	{ "xfs", ARCH_INVALID },
	{ "overlay", ARCH_INVALID },
	/* a root or /usr shared by the host (QEMU's vhost-user-fs and virtio-9p; netfs comes
	 * with 9p as its dependency) */
	{ "virtiofs", ARCH_INVALID },
	{ "9p", ARCH_INVALID },
	{ "9pnet_virtio", ARCH_INVALID },
	/* roothash=/usrhash=: verified images (device-mapper and its buffer cache come along) */
	{ "dm_verity", ARCH_INVALID },
	/* LoaderDevicePartUUID is read from efivarfs, a module in Debian's kernels */
	{ "efivarfs", ARCH_INVALID },
	/* QEMU's fw_cfg in sysfs: systemd imports the credentials there when it starts, and
	 * loads nothing first (a systemd initrd's udev had loaded it); the boot loads it for the
	 * device's modalias like any other driver */
	{ "qemu_fw_cfg", ARCH_INVALID },
	/* arm64 machines put virtio and host controllers on platform buses (QEMU virt's
	 * virtio-mmio transports, SoC USB and SD controllers) */
	{ "virtio_mmio", ARCH_AARCH64 },
	{ "xhci_plat_hcd", ARCH_AARCH64 },
	{ "ehci_platform", ARCH_AARCH64 },
	{ "ahci_platform", ARCH_AARCH64 },
	{ "sdhci_pltfm", ARCH_AARCH64 },
};

int initramfs_open_kmod(struct builder *b)
{
	/* The image is for another machine: the host's modprobe.d must not shape it. */
	static const char *const no_config[] = { NULL };
	char path[PATH_MAX];
	int r = 0;

	if (path_join(path, sizeof(path), b->moddir, "modules.dep") < 0 || access(path, R_OK) < 0) {
		r = -errno;
		log_err("unable to read %s: %s (is %s a kernel's module directory? run depmod -b ROOT %s)",
			path, strerror(-r), b->moddir, b->kver);
		goto out;
	}
	b->kmod = kmod_new(b->moddir, no_config);
	if (!b->kmod) {
		r = -ENOMEM;
		log_err("unable to open the module directory %s: %s", b->moddir, strerror(-r));
		goto out;
	}
	kmod_set_log_fn(b->kmod, log_libkmod, NULL);
	r = kmod_load_resources(b->kmod);
	if (r < 0)
		log_err("unable to load the module indexes of %s: %s (run depmod -b ROOT %s)", b->moddir,
			strerror(-r), b->kver);
out:
	return r;
}

struct chosen_module *initramfs_find_module(struct builder *b, const char *name)
{
	for (size_t i = 0; i < b->n_modules; i++)
		if (streq(b->modules[i].name, name))
			return &b->modules[i];
	return NULL;
}

static bool module_is_builtin(struct kmod_module *mod)
{
	/* initstate looks at this kernel's modules.builtin first; a module without a path in
	 * modules.dep can only be built in */
	return kmod_module_get_initstate(mod) == KMOD_MODULE_BUILTIN || !kmod_module_get_path(mod);
}

static int check_module_arch(const struct builder *b, const char *name, const char *path)
{
	size_t len = strlen(path);
	enum arch arch;
	int r = 0;

	/* compressed modules (.ko.xz, .ko.zst) are not looked into */
	if (len < 3 || !streq(path + len - 3, ".ko"))
		goto out;
	r = elf_file_arch(path, &arch);
	if (r < 0) {
		log_err("unable to read module %s (%s): %s", name, path,
			r == -ENOEXEC ? "not an ELF file of a known architecture" : strerror(-r));
	} else if (arch != b->arch) {
		log_err("module %s (%s) is built for %s, but the image is for %s: pass --arch %s or the module directory of a kernel for %s",
			name, path, arch_name(arch), arch_name(b->arch), arch_name(arch), arch_name(b->arch));
		r = -ENOEXEC;
	}
out:
	return r;
}

static int add_module_with_deps(struct builder *b, struct kmod_module *mod, bool requested);

static int add_module_list(struct builder *b, struct kmod_list *list)
{
	struct kmod_list *l;
	int r = 0;

	kmod_list_foreach(l, list) {
		struct kmod_module *dep = kmod_module_get_module(l);

		if (r == 0)
			r = add_module_with_deps(b, dep, false);
		kmod_module_unref(dep);
	}
	return r;
}

static int record_module(struct builder *b, struct kmod_module *mod, bool requested)
{
	const char *name = kmod_module_get_name(mod);
	const char *path = kmod_module_get_path(mod);
	const char *dir = kmod_get_dirname(b->kmod);
	const char *rel = startswith(path, dir);
	struct chosen_module *grown, *m;
	struct stat st;
	int r;

	r = check_module_arch(b, name, path);
	if (r < 0)
		goto out;
	if (stat(path, &st) < 0) {
		r = -errno;
		log_err("unable to read module %s (%s): %s", name, path, strerror(-r));
		goto out;
	}
	grown = realloc(b->modules, (b->n_modules + 1) * sizeof(*grown));
	if (!grown) {
		r = -ENOMEM;
		goto out;
	}
	b->modules = grown;
	m = &b->modules[b->n_modules];
	/* modules.dep names files relative to the directory; libkmod joins them with it */
	m->relpath = strdup(rel && rel[0] == '/' ? rel + 1 : path);
	m->name = strdup(name);
	m->path = strdup(path);
	m->requested = requested;
	m->plain = false;
	m->size = (uint64_t)st.st_size;
	b->n_modules++;
	if (!m->relpath || !m->name || !m->path)
		r = -ENOMEM;
out:
	return r;
}

static int add_module_with_deps(struct builder *b, struct kmod_module *mod, bool requested)
{
	struct kmod_list *deps = NULL, *pre = NULL, *post = NULL;
	struct chosen_module *known = initramfs_find_module(b, kmod_module_get_name(mod));
	int r = 0;

	if (known) {
		known->requested |= requested;
		goto out;
	}
	if (module_is_builtin(mod))
		goto out;
	r = record_module(b, mod, requested);
	if (r < 0)
		goto out;
	deps = kmod_module_get_dependencies(mod);
	r = add_module_list(b, deps);
	if (r < 0)
		goto out;
	/* pre-softdeps are loaded before the module at boot (ext4 wants crc32c); libkmod turns
	 * their names into modules, and what the kernel lacks is left out silently */
	if (kmod_module_get_softdeps(mod, &pre, &post) == 0)
		r = add_module_list(b, pre);
out:
	kmod_module_unref_list(deps);
	kmod_module_unref_list(pre);
	kmod_module_unref_list(post);
	return r;
}

int initramfs_choose_module(struct builder *b, const char *name)
{
	struct kmod_list *list = NULL, *l;
	bool all_builtin = true;
	int r;

	r = kmod_module_new_from_lookup(b->kmod, name, &list);
	if (r < 0) {
		log_err("unable to look up module %s in %s: %s", name, b->moddir, strerror(-r));
		goto out;
	}
	if (!list) {
		r = -ENOENT;
		goto out;
	}
	kmod_list_foreach(l, list) {
		struct kmod_module *mod = kmod_module_get_module(l);

		if (!module_is_builtin(mod))
			all_builtin = false;
		if (r == 0)
			r = add_module_with_deps(b, mod, true);
		kmod_module_unref(mod);
	}
	if (r == 0 && all_builtin && !name_list_has(&b->builtin, name))
		r = name_list_add(&b->builtin, name);
out:
	kmod_module_unref_list(list);
	return r;
}

bool initramfs_is_default_module(const char *name)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(default_modules) && !found; i++)
		found = streq(default_modules[i].name, name);
	return found;
}

/* What the LUKS helper's calls need; the names of other architectures (aesni_intel on
 * arm64) and what the kernel builds in are not in the image, and not an error. */
static int choose_luks_modules(struct builder *b)
{
	static const char *const names[] = { LUKS_MODULES };
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(names) && r == 0; i++) {
		r = initramfs_choose_module(b, names[i]);
		if (r == -ENOENT) {
			b->n_luks_absent++;
			r = 0;
		} else if (r == 0 && name_list_has(&b->builtin, names[i])) {
			b->n_luks_builtin++;
		} else if (r == 0) {
			b->n_luks_modules++;
		}
	}
	return r;
}

int initramfs_choose_default_modules(struct builder *b)
{
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(default_modules) && r >= 0; i++) {
		const struct default_module *dm = &default_modules[i];

		if (dm->only_on != ARCH_INVALID && dm->only_on != b->arch)
			continue;
		if (name_list_has(&b->omitted, dm->name))
			continue;
		r = initramfs_choose_module(b, dm->name);
		if (r == -ENOENT)
			r = name_list_add(&b->absent, dm->name);
	}
	return r;
}

/* md_mod and every RAID level's module the kernel has (mdadm assembles what the disks hold;
 * the image cannot know which level that is unless --host-only chose it already). */
static void choose_md_modules(struct builder *b)
{
	char alias[32];

	if (initramfs_choose_module(b, "md_mod") == -ENOENT)
		log_info("md_mod is not a module of %s: built in (or absent)", b->moddir);
	for (size_t i = 0; i < md_levels_n; i++) {
		snprintf(alias, sizeof(alias), "md-%s", md_levels[i]);
		if (initramfs_choose_module(b, alias) == -ENOENT)
			log_info("%s is not a module of %s: built in (or absent)", alias, b->moddir);
	}
}

int initramfs_choose_asked_modules(struct builder *b)
{
	int r = 0;

	if (b->luks)
		r = choose_luks_modules(b);
	/* LVM's linear and striped targets are dm_mod's own; built in where absent */
	if (r >= 0 && b->lvm && initramfs_choose_module(b, "dm_mod") == -ENOENT)
		log_info("dm_mod is not a module of %s: device-mapper is built in (or absent)", b->moddir);
	if (r >= 0 && b->md)
		choose_md_modules(b);
	for (size_t i = 0; i < b->extra_modules.n && r >= 0; i++) {
		r = initramfs_choose_module(b, b->extra_modules.names[i]);
		if (r == -ENOENT)
			log_err("module %s (--module) is not in %s: no module, alias or built-in driver has that name",
				b->extra_modules.names[i], b->moddir);
	}
	return r;
}
