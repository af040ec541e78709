/* `earlymount initramfs`: builds a reproducible initramfs whose /init is earlymount, with the
 * kernel modules a disk needs, resolved (dependencies, pre-softdeps) through libkmod and
 * indexed again with the host's depmod so the image's indexes name only what it holds. */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <libkmod/libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "compress.h"
#include "cpio.h"
#include "dps.h"
#include "log.h"
#include "modules.h"
#include "util.h"

#ifndef EM_LOONGARCH
#define EM_LOONGARCH 258
#endif

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
	/* roothash=/usrhash=: verified images (device-mapper and its buffer cache come along) */
	{ "dm_verity", ARCH_INVALID },
	/* LoaderDevicePartUUID is read from efivarfs, a module in Debian's kernels */
	{ "efivarfs", ARCH_INVALID },
	/* arm64 machines put virtio and host controllers on platform buses (QEMU virt's
	 * virtio-mmio transports, SoC USB and SD controllers) */
	{ "virtio_mmio", ARCH_AARCH64 },
	{ "xhci_plat_hcd", ARCH_AARCH64 },
	{ "ehci_platform", ARCH_AARCH64 },
	{ "ahci_platform", ARCH_AARCH64 },
	{ "sdhci_pltfm", ARCH_AARCH64 },
};

/* Index files depmod writes; copied from the kernel's directory when there is no depmod. */
static const char *const module_indexes[] = {
	"modules.dep",     "modules.dep.bin",     "modules.alias",   "modules.alias.bin",
	"modules.softdep", "modules.symbols",     "modules.symbols.bin",
	"modules.builtin.bin", "modules.builtin.alias.bin", "modules.devname",
};
/* What depmod reads besides the modules themselves. */
static const char *const module_metadata[] = {
	"modules.order",
	"modules.builtin",
	"modules.builtin.modinfo",
};

static const struct elf_arch {
	enum arch arch;
	uint16_t machine;
	unsigned char elf_class;
	unsigned char data;
} elf_arches[] = {
	{ ARCH_X86_64, EM_X86_64, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_AARCH64, EM_AARCH64, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_X86, EM_386, ELFCLASS32, ELFDATA2LSB },
	{ ARCH_ARM, EM_ARM, ELFCLASS32, ELFDATA2LSB },
	{ ARCH_RISCV64, EM_RISCV, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_PPC64LE, EM_PPC64, ELFCLASS64, ELFDATA2LSB },
	{ ARCH_S390X, EM_S390, ELFCLASS64, ELFDATA2MSB },
	{ ARCH_LOONGARCH64, EM_LOONGARCH, ELFCLASS64, ELFDATA2LSB },
};

/* The image's fixed skeleton. /dev/console must exist before devtmpfs is mounted: the kernel
 * opens it for PID 1's standard file descriptors. */
static const struct skeleton_dir {
	const char *path;
	unsigned mode;
} skeleton_dirs[] = {
	{ "dev", 0755 }, { "proc", 0755 }, { "sys", 0755 }, { "run", 0755 },
	{ "sysroot", 0755 }, { "tmp", 01777 }, { "etc", 0755 },
};
#define CONSOLE_MAJOR 5
#define CONSOLE_MINOR 1

struct chosen_module {
	char *name;
	char *path;     /* the .ko in the kernel's module directory */
	char *relpath;  /* below the module directory: kernel/fs/ext4/ext4.ko */
	bool requested; /* named by the default set or --module, not pulled in as a dependency */
	uint64_t size;
	uint64_t stored_size; /* in the image, compressed or not */
};

struct name_list {
	char **names;
	size_t n;
};

struct builder {
	/* from the command line */
	const char *moddir;
	const char *output;
	const char *init;
	enum arch arch;
	enum compression compression;
	enum compression module_compression;
	struct name_list extra_modules;
	struct name_list omitted; /* default modules left out (--omit) */
	struct name_list adds; /* "SRC:DEST" */
	uint32_t mtime;

	char kver[NAME_MAX + 1];
	struct kmod_ctx *kmod;
	struct chosen_module *modules;
	size_t n_modules;
	struct name_list builtin;
	struct name_list absent;
	char staging[PATH_MAX];
	uint64_t init_size;
	size_t n_files; /* files and symlinks put in the archive by add_tree */
	size_t n_added; /* of those, from --add */
	bool indexes_copied;
	struct cpio_archive cpio;
};

static int name_list_add(struct name_list *list, const char *name)
{
	char **grown = realloc(list->names, (list->n + 1) * sizeof(*grown));
	int r = -ENOMEM;

	if (!grown)
		goto out;
	list->names = grown;
	list->names[list->n] = strdup(name);
	if (list->names[list->n]) {
		list->n++;
		r = 0;
	}
out:
	return r;
}

static bool name_list_has(const struct name_list *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (streq(list->names[i], name))
			return true;
	return false;
}

static void name_list_free(struct name_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->names[i]);
	free(list->names);
	list->names = NULL;
	list->n = 0;
}

static void name_list_print(const struct name_list *list, FILE *out)
{
	for (size_t i = 0; i < list->n; i++)
		fprintf(out, "%s%s", i ? ", " : "", list->names[i]);
}

static void format_size(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= 1024 * 1024)
		snprintf(buf, size, "%.1f MiB", (double)bytes / (1024 * 1024));
	else if (bytes >= 1024)
		snprintf(buf, size, "%.1f KiB", (double)bytes / 1024);
	else
		snprintf(buf, size, "%u bytes", (unsigned)bytes);
}

static int path_join(char *out, size_t size, const char *dir, const char *name)
{
	int n = snprintf(out, size, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* ---- checking architectures ---- */

static enum arch elf_header_arch(const unsigned char *h, size_t len)
{
	uint16_t machine;

	if (len < EI_NIDENT + 4 || memcmp(h, ELFMAG, SELFMAG) != 0)
		return ARCH_INVALID;
	machine = h[EI_DATA] == ELFDATA2MSB ? (uint16_t)(h[18] << 8 | h[19])
					    : (uint16_t)(h[19] << 8 | h[18]);
	for (size_t i = 0; i < ARRAY_SIZE(elf_arches); i++)
		if (elf_arches[i].machine == machine && elf_arches[i].elf_class == h[EI_CLASS] &&
		    elf_arches[i].data == h[EI_DATA])
			return elf_arches[i].arch;
	return ARCH_INVALID;
}

/* The architecture of an ELF file; -ENOEXEC when it is not an ELF file of a known one. */
static int file_arch(const char *path, enum arch *arch)
{
	unsigned char header[64];
	ssize_t n = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0) {
		r = -errno;
		goto out;
	}
	n = read(fd, header, sizeof(header));
	if (n < 0) {
		r = -errno;
		goto out;
	}
	*arch = elf_header_arch(header, (size_t)n);
	if (*arch == ARCH_INVALID)
		r = -ENOEXEC;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static uint64_t elf_read(const unsigned char *p, size_t size, bool big_endian)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[big_endian ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Whether the ELF file asks for a program interpreter: a dynamically linked /init cannot
 * start in an initramfs that holds no libc, and the kernel only says "error -2". */
static int elf_is_dynamic(const char *path, bool *dynamic)
{
	unsigned char h[64], ph[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool is64, be;
	uint64_t phoff;
	unsigned phentsize, phnum;
	int r = -ENOEXEC;

	*dynamic = false;
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		goto out;
	is64 = h[EI_CLASS] == ELFCLASS64;
	be = h[EI_DATA] == ELFDATA2MSB;
	phoff = is64 ? elf_read(h + 32, 8, be) : elf_read(h + 28, 4, be);
	phentsize = (unsigned)elf_read(h + (is64 ? 54 : 42), 2, be);
	phnum = (unsigned)elf_read(h + (is64 ? 56 : 44), 2, be);
	for (unsigned i = 0; i < phnum; i++) {
		if (pread(fd, ph, sizeof(ph), (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof(ph))
			goto out;
		if (elf_read(ph, 4, be) == PT_INTERP)
			*dynamic = true;
	}
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* ---- choosing modules ---- */

static int open_kmod(struct builder *b)
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
	kmod_set_log_fn(b->kmod, modules_log_libkmod, NULL);
	r = kmod_load_resources(b->kmod);
	if (r < 0)
		log_err("unable to load the module indexes of %s: %s (run depmod -b ROOT %s)", b->moddir,
			strerror(-r), b->kver);
out:
	return r;
}

static struct chosen_module *find_chosen(struct builder *b, const char *name)
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
	r = file_arch(path, &arch);
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
	struct chosen_module *known = find_chosen(b, kmod_module_get_name(mod));
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

/* Adds what name resolves to. -ENOENT (not reported) when the kernel has no such module. */
static int choose_module(struct builder *b, const char *name)
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

static bool is_default_module(const char *name)
{
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(default_modules) && !found; i++)
		found = streq(default_modules[i].name, name);
	return found;
}

static int choose_modules(struct builder *b)
{
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(default_modules) && r >= 0; i++) {
		const struct default_module *dm = &default_modules[i];

		if (dm->only_on != ARCH_INVALID && dm->only_on != b->arch)
			continue;
		if (name_list_has(&b->omitted, dm->name))
			continue;
		r = choose_module(b, dm->name);
		if (r == -ENOENT)
			r = name_list_add(&b->absent, dm->name);
	}
	for (size_t i = 0; i < b->extra_modules.n && r >= 0; i++) {
		r = choose_module(b, b->extra_modules.names[i]);
		if (r == -ENOENT)
			log_err("module %s (--module) is not in %s: no module, alias or built-in driver has that name",
				b->extra_modules.names[i], b->moddir);
	}
	return r;
}

/* ---- the staging tree and depmod ---- */

static int mkdir_parents(const char *path, unsigned mode)
{
	char buf[PATH_MAX];
	int r = COPY_STR(buf, path);

	for (char *p = buf + 1; r == 0 && *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			r = -errno;
		*p = '/';
	}
	if (r == 0 && mkdir(buf, mode) < 0 && errno != EEXIST)
		r = -errno;
	return r;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = -1;
	ssize_t n;
	int r = 0;

	if (in < 0) {
		r = -errno;
		goto out;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		r = -errno;
		goto out;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			r = errno ? -errno : -EIO;
			goto out;
		}
	if (n < 0)
		r = -errno;
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && r == 0)
		r = -errno;
	return r;
}

static int remove_tree(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	int flags = 0;

	if (dir) {
		while ((de = readdir(dir)))
			if (!streq(de->d_name, ".") && !streq(de->d_name, ".."))
				remove_tree(fd, de->d_name);
		closedir(dir);
		flags = AT_REMOVEDIR;
	} else if (fd >= 0) {
		close(fd);
	}
	return unlinkat(dirfd, name, flags) < 0 ? -errno : 0;
}

static bool find_program(const char *name, char *found, size_t size)
{
	/* depmod lives in /sbin, which is not on an ordinary user's PATH in Debian */
	const char *env = getenv("PATH");
	char path[4096];
	char *save = NULL;
	bool ok = false;

	snprintf(path, sizeof(path), "%s:/usr/sbin:/sbin", env ? env : "/usr/bin:/bin");
	for (char *dir = strtok_r(path, ":", &save); dir && !ok; dir = strtok_r(NULL, ":", &save))
		ok = path_join(found, size, dir, name) == 0 && access(found, X_OK) == 0;
	return ok;
}

static int run_depmod(const struct builder *b, const char *depmod)
{
	pid_t pid = fork();
	int status;
	int r = 0;

	if (pid < 0) {
		r = -errno;
		log_err("unable to start %s: %s", depmod, strerror(-r));
		goto out;
	}
	if (pid == 0) {
		execl(depmod, "depmod", "-b", b->staging, b->kver, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			r = -errno;
			goto out;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_err("%s -b %s %s failed (%s %d)", depmod, b->staging, b->kver,
			WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		r = -EIO;
	}
out:
	return r;
}

static int copy_into_staging(const struct builder *b, const char *stage_dir, const char *from_dir,
			     const char *const *names, size_t n, bool optional)
{
	char from[PATH_MAX], to[PATH_MAX];
	int r = 0;

	for (size_t i = 0; i < n && r == 0; i++) {
		r = path_join(from, sizeof(from), from_dir, names[i]);
		if (r == 0)
			r = path_join(to, sizeof(to), stage_dir, names[i]);
		if (r == 0 && optional && access(from, F_OK) < 0)
			continue;
		if (r == 0)
			r = copy_file(from, to);
		if (r < 0)
			log_err("unable to copy %s to %s: %s", from, to, strerror(-r));
	}
	return r;
}

/* A module whose name says it is compressed already (.ko.xz, .ko.zst) is stored as it is. */
static bool module_compressible(const struct builder *b, const struct chosen_module *m)
{
	size_t len = strlen(m->relpath);

	return b->module_compression != COMPRESS_NONE && len > 3 && streq(m->relpath + len - 3, ".ko");
}

/* Copies m below stage_dir, compressed with --compress-modules (depmod then names the
 * compressed file in modules.dep, and libkmod decompresses it when it loads it). */
static int stage_module(struct builder *b, struct chosen_module *m, const char *stage_dir)
{
	enum compression c = module_compressible(b, m) ? b->module_compression : COMPRESS_NONE;
	char to[PATH_MAX];
	int in = -1, out = -1;
	struct stat st;
	int n, r;

	n = snprintf(to, sizeof(to), "%s/%s%s", stage_dir, m->relpath, compress_suffix(c));
	r = n < 0 || (size_t)n >= sizeof(to) ? -ENAMETOOLONG : 0;
	if (r == 0) {
		*strrchr(to, '/') = '\0';
		r = mkdir_parents(to, 0755);
		to[strlen(to)] = '/';
	}
	if (r < 0)
		goto out;
	in = open(m->path, O_RDONLY | O_CLOEXEC);
	out = in < 0 ? -1 : open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (in < 0 || out < 0) {
		r = -errno;
		goto out;
	}
	r = compress_fd(c, in, out);
	if (r == 0 && fstat(out, &st) < 0)
		r = -errno;
	if (r == 0)
		m->stored_size = (uint64_t)st.st_size;
out:
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		log_err("unable to %s %s to %s: %s", c == COMPRESS_NONE ? "copy" : "compress", m->path, to,
			r == -EIO ? "the compressor failed" : strerror(-r));
	return r;
}

static int stage_modules(struct builder *b, char *stage_dir, size_t size)
{
	const char *tmp = getenv("TMPDIR");
	char depmod[PATH_MAX];
	int n, r = 0;

	snprintf(b->staging, sizeof(b->staging), "%s/earlymount-initramfs.XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(b->staging)) {
		r = -errno;
		log_err("unable to create a staging directory %s: %s", b->staging, strerror(-r));
		b->staging[0] = '\0';
		goto out;
	}
	n = snprintf(stage_dir, size, "%s/lib/modules/%s", b->staging, b->kver);
	if (n < 0 || (size_t)n >= size)
		r = -ENAMETOOLONG;
	for (size_t i = 0; i < b->n_modules && r == 0; i++)
		r = stage_module(b, &b->modules[i], stage_dir);
	if (r == 0)
		r = mkdir_parents(stage_dir, 0755);
	if (r == 0)
		r = copy_into_staging(b, stage_dir, b->moddir, module_metadata, ARRAY_SIZE(module_metadata),
				      true);
	if (r < 0)
		goto out;
	if (find_program("depmod", depmod, sizeof(depmod))) {
		r = run_depmod(b, depmod);
		goto out;
	}
	/* the original indexes name modules the image lacks; at boot those are reported as
	 * missing, which is still better than no index at all */
	b->indexes_copied = true;
	r = copy_into_staging(b, stage_dir, b->moddir, module_indexes, ARRAY_SIZE(module_indexes), true);
out:
	return r;
}

/* ---- filling the archive ---- */

/* Adds the tree at src as dest. keep_modes: the host's permission bits, else 0755/0644. */
static int add_tree(struct builder *b, const char *src, const char *dest, bool keep_modes,
		    bool follow)
{
	char sub_src[PATH_MAX], sub_dest[PATH_MAX], target[PATH_MAX];
	struct stat st;
	DIR *dir = NULL;
	struct dirent *de;
	ssize_t n;
	int r = 0;

	if ((follow ? stat(src, &st) : lstat(src, &st)) < 0) {
		r = -errno;
		log_err("unable to add %s: %s", src, strerror(-r));
		goto out;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(src, target, sizeof(target) - 1);
		if (n < 0) {
			r = -errno;
			log_err("unable to read the symlink %s: %s", src, strerror(-r));
			goto out;
		}
		target[n] = '\0';
		r = cpio_add_symlink(&b->cpio, dest, target);
	} else if (S_ISREG(st.st_mode)) {
		r = cpio_add_file(&b->cpio, dest, keep_modes ? st.st_mode : 0644, src);
	} else if (S_ISDIR(st.st_mode)) {
		r = cpio_add_dir(&b->cpio, dest, keep_modes ? st.st_mode : 0755);
		dir = r == 0 ? opendir(src) : NULL;
		if (r == 0 && !dir) {
			r = -errno;
			log_err("unable to read the directory %s: %s", src, strerror(-r));
		}
		while (r == 0 && dir && (de = readdir(dir))) {
			if (streq(de->d_name, ".") || streq(de->d_name, ".."))
				continue;
			r = path_join(sub_src, sizeof(sub_src), src, de->d_name);
			if (r == 0)
				r = path_join(sub_dest, sizeof(sub_dest), dest, de->d_name);
			if (r == 0)
				r = add_tree(b, sub_src, sub_dest, keep_modes, false);
			else
				log_err("unable to add %s/%s: the path is too long", src, de->d_name);
		}
	} else {
		log_warn("skipping %s: only files, directories and symlinks are added", src);
		goto out;
	}
	if (r == -EINVAL)
		log_err("unable to add %s as %s: not a path inside the image", src, dest);
	else if (r == -ENOMEM)
		log_err("unable to add %s: %s", src, strerror(-r));
	if (r == 0 && !S_ISDIR(st.st_mode))
		b->n_files++;
out:
	if (dir)
		closedir(dir);
	return r;
}

static int check_init(struct builder *b, const char *init)
{
	struct stat st;
	enum arch arch;
	bool dynamic;
	int r;

	if (stat(init, &st) < 0) {
		r = -errno;
		log_err("unable to use %s as /init: %s", init, strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -ENOEXEC;
		log_err("unable to use %s as /init: not a regular file", init);
		goto out;
	}
	b->init_size = (uint64_t)st.st_size;
	r = file_arch(init, &arch);
	if (r < 0) {
		log_err("unable to use %s as /init: %s", init,
			r == -ENOEXEC ? "not an ELF executable of a known architecture" : strerror(-r));
	} else if (arch != b->arch) {
		log_err("%s is built for %s, but the image is for %s: pass --init with an earlymount built for %s, or --arch %s",
			init, arch_name(arch), arch_name(b->arch), arch_name(b->arch), arch_name(arch));
		r = -ENOEXEC;
	}
	if (r == 0)
		r = elf_is_dynamic(init, &dynamic);
	if (r == 0 && dynamic) {
		log_err("%s is dynamically linked, and the initramfs holds no libraries: use the static earlymount that make builds",
			init);
		r = -ENOEXEC;
	} else if (r < 0 && r != -ENOEXEC) {
		log_err("unable to read %s: %s", init, strerror(-r));
	}
out:
	return r;
}

static int add_skeleton(struct builder *b, const char *init)
{
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(skeleton_dirs) && r == 0; i++)
		r = cpio_add_dir(&b->cpio, skeleton_dirs[i].path, skeleton_dirs[i].mode);
	if (r == 0)
		r = cpio_add_char_dev(&b->cpio, "dev/console", 0600, CONSOLE_MAJOR, CONSOLE_MINOR);
	if (r == 0)
		r = cpio_add_file(&b->cpio, "init", 0755, init);
	return r;
}

static int add_extras(struct builder *b)
{
	size_t before = b->n_files;
	int r = 0;

	for (size_t i = 0; i < b->adds.n && r == 0; i++) {
		char *spec = b->adds.names[i];
		char *colon = strchr(spec, ':');
		const char *dest = colon ? colon + 1 : spec;

		if (colon)
			*colon = '\0';
		r = add_tree(b, spec, dest, true, true);
		if (colon)
			*colon = ':';
	}
	b->n_added = b->n_files - before;
	return r;
}

/* ---- writing ---- */

/* Writes the archive into fd, reporting what failed. */
static int write_archive(struct builder *b, int fd, uint64_t *written)
{
	int copy = dup(fd);
	FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
	int r;

	if (!f) {
		r = -errno;
		if (copy >= 0)
			close(copy);
		log_err("unable to write the archive: %s", strerror(-r));
		goto out;
	}
	r = cpio_write(&b->cpio, f, b->mtime, written);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == -EEXIST)
		log_err("unable to write the archive: /%s is added twice (--add over a file the image already has?)",
			b->cpio.failed_path);
	else if (r < 0 && b->cpio.failed_path[0])
		log_err("unable to write /%s into the archive: %s", b->cpio.failed_path, strerror(-r));
	else if (r < 0)
		log_err("unable to write the archive: %s", strerror(-r));
out:
	return r;
}

/* The archive goes to a file in the staging directory, then through the compressor into
 * out_fd: the compressor then knows the size (zstd puts it in the frame header). */
static int write_compressed(struct builder *b, int out_fd, uint64_t *raw_size)
{
	char path[PATH_MAX];
	int fd = -1;
	int r;

	r = path_join(path, sizeof(path), b->staging, "archive.cpio");
	if (r == 0) {
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		r = fd < 0 ? -errno : 0;
	}
	if (r < 0) {
		log_err("unable to create %s: %s", path, strerror(-r));
		goto out;
	}
	r = write_archive(b, fd, raw_size);
	if (r < 0)
		goto out;
	if (lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	if (r == 0)
		r = compress_fd(b->compression, fd, out_fd);
	if (r < 0)
		log_err("unable to compress the archive with %s: %s", compress_program(b->compression),
			r == -EIO ? "it failed (see above)" : strerror(-r));
out:
	if (fd >= 0)
		close(fd);
	return r;
}

/* Writes the image next to b->output and renames it into place, so that a failed build
 * leaves no half image behind. */
static int write_image(struct builder *b, uint64_t *image_size, uint64_t *raw_size)
{
	char tmp[PATH_MAX];
	struct stat st;
	int fd = -1;
	int n, r = 0;

	n = snprintf(tmp, sizeof(tmp), "%s.XXXXXX", b->output);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		r = -ENAMETOOLONG;
		log_err("unable to write %s: %s", b->output, strerror(-r));
		tmp[0] = '\0';
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		r = -errno;
		log_err("unable to write %s: %s", b->output, strerror(-r));
		tmp[0] = '\0';
		goto out;
	}
	if (b->compression == COMPRESS_NONE)
		r = write_archive(b, fd, raw_size);
	else
		r = write_compressed(b, fd, raw_size);
	if (r < 0)
		goto out;
	if (fstat(fd, &st) < 0 || fchmod(fd, 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	fd = -1;
	if (r == 0 && rename(tmp, b->output) < 0)
		r = -errno;
	if (r < 0) {
		log_err("unable to write %s: %s", b->output, strerror(-r));
		goto out;
	}
	*image_size = (uint64_t)st.st_size;
out:
	if (fd >= 0)
		close(fd);
	if (r < 0 && tmp[0])
		unlink(tmp);
	return r;
}

static void print_summary(const struct builder *b, const char *init, uint64_t image_size,
			  uint64_t raw_size)
{
	size_t requested = 0;
	uint64_t bytes = 0, stored = 0;
	char size[32];

	for (size_t i = 0; i < b->n_modules; i++) {
		requested += b->modules[i].requested;
		bytes += b->modules[i].size;
		stored += b->modules[i].stored_size;
	}
	format_size(bytes, size, sizeof(size));
	printf("modules: %zu (+ %zu dependencies), %s", requested, b->n_modules - requested, size);
	if (b->module_compression != COMPRESS_NONE && b->n_modules) {
		format_size(stored, size, sizeof(size));
		printf(", %s as .ko%s", size, compress_suffix(b->module_compression));
	}
	if (b->builtin.n) {
		printf("; built in: ");
		name_list_print(&b->builtin, stdout);
	}
	if (b->absent.n) {
		printf("; not in this kernel: ");
		name_list_print(&b->absent, stdout);
	}
	printf("\n");
	printf("module index: %s\n", b->indexes_copied
					     ? "copied from the kernel (no depmod found): it names modules the image lacks"
					     : "regenerated with depmod");
	format_size(b->init_size, size, sizeof(size));
	printf("/init: %s (%s, %s)\n", init, arch_name(b->arch), size);
	if (b->adds.n)
		printf("extra files: %zu (from %zu --add)\n", b->n_added, b->adds.n);
	printf("wrote %s: %" PRIu64 " bytes (%s), %" PRIu64 " bytes uncompressed\n", b->output,
	       image_size, compress_name(b->compression), raw_size);
}

/* Both compressors are looked for before any work, so that a missing one costs nothing. */
static int check_compressors(const struct builder *b)
{
	static const char *const options[] = { "--compress", "--compress-modules" };
	const enum compression wanted[] = { b->compression, b->module_compression };
	char path[PATH_MAX];
	int r = 0;

	for (size_t i = 0; i < ARRAY_SIZE(wanted) && r == 0; i++) {
		r = compress_find_program(wanted[i], path, sizeof(path));
		if (r == -ENOENT)
			log_err("%s %s needs the program %s, which is not on PATH: install it (Debian package %s), or pass %s none",
				options[i], compress_name(wanted[i]), compress_program(wanted[i]),
				compress_package(wanted[i]), options[i]);
	}
	return r;
}

static int build(struct builder *b)
{
	const char *init = b->init ? b->init : "/proc/self/exe";
	char stage_dir[PATH_MAX], image_dir[PATH_MAX];
	uint64_t image_size = 0, raw_size = 0;
	int r;

	r = check_compressors(b);
	if (r < 0) {
		r = EXIT_USAGE;
		goto out;
	}
	r = check_init(b, init);
	if (r < 0) {
		r = r == -ENOEXEC ? EXIT_USAGE : EXIT_SYSTEM;
		goto out;
	}
	r = open_kmod(b);
	if (r < 0) {
		r = EXIT_SYSTEM;
		goto out;
	}
	r = choose_modules(b);
	if (r < 0) {
		/* a --module the kernel lacks, or modules of another architecture */
		r = r == -ENOENT || r == -ENOEXEC ? EXIT_USAGE : EXIT_SYSTEM;
		goto out;
	}
	r = stage_modules(b, stage_dir, sizeof(stage_dir));
	if (r == 0)
		r = add_skeleton(b, init);
	if (r == 0)
		r = path_join(image_dir, sizeof(image_dir), "lib/modules", b->kver);
	if (r == 0)
		r = add_tree(b, stage_dir, image_dir, false, false);
	if (r == 0)
		r = add_extras(b);
	if (r == 0)
		r = write_image(b, &image_size, &raw_size);
	if (r < 0) {
		/* a path added twice is a contradiction on the command line, not a system failure */
		r = r == -EEXIST ? EXIT_USAGE : EXIT_SYSTEM;
		goto out;
	}
	print_summary(b, init, image_size, raw_size);
out:
	return r;
}

/* ---- the command line ---- */

static void usage(FILE *out)
{
	fprintf(out,
		"usage: earlymount initramfs --moddir DIR -o OUT [OPTIONS]\n"
		"\n"
		"Builds a reproducible initramfs whose /init is earlymount.\n"
		"\n"
		"  --moddir DIR        a kernel's module directory (.../lib/modules/KVER, with modules.dep)\n"
		"  -o, --output OUT    the image to write\n"
		"  --arch ARCH         the machine the image is for (default: %s)\n"
		"  --init PATH         the earlymount binary to use as /init (default: this one)\n"
		"  --module NAME       a module to add besides the default set (repeatable)\n"
		"  --omit NAME         a module of the default set to leave out (repeatable); it still\n"
		"                      comes in when another module needs it\n"
		"  --add SRC[:DEST]    a file or directory to add at DEST (repeatable)\n"
		"  --compress METHOD   the archive's compression: none (default), gzip, zstd or xz\n"
		"  --compress-modules METHOD\n"
		"                      the modules' compression: zstd (default, as .ko.zst), xz\n"
		"                      (.ko.xz) or none; earlymount decompresses only those it loads\n"
		"  -h, --help          this text\n"
		"\n"
		"SOURCE_DATE_EPOCH sets the timestamp of every entry (default 0). Compression runs\n"
		"the host's gzip, zstd or xz (Debian packages gzip, zstd, xz-utils).\n",
		arch_name(arch_native()));
}

static int parse_mtime(struct builder *b)
{
	const char *env = getenv("SOURCE_DATE_EPOCH");
	char *end;
	unsigned long long v;
	int r = 0;

	if (!env || !*env)
		goto out;
	errno = 0;
	v = strtoull(env, &end, 10);
	if (errno || *end || env[0] == '-' || v > UINT32_MAX) {
		log_err("SOURCE_DATE_EPOCH=%s is not a number of seconds that fits the cpio format", env);
		r = -EINVAL;
		goto out;
	}
	b->mtime = (uint32_t)v;
out:
	return r;
}

static int parse_compression(const char *name, const char *option, enum compression *c)
{
	int r = compress_from_name(name);

	if (r < 0) {
		log_err("%s %s: unknown compression (none, gzip, zstd, xz)", option, name);
	} else {
		*c = (enum compression)r;
		r = 0;
	}
	return r;
}

static int parse_args(struct builder *b, int argc, char **argv)
{
	enum {
		OPT_MODDIR = 256,
		OPT_ARCH,
		OPT_INIT,
		OPT_MODULE,
		OPT_OMIT,
		OPT_ADD,
		OPT_COMPRESS,
		OPT_COMPRESS_MODULES,
	};
	static const struct option longopts[] = {
		{ "moddir", required_argument, NULL, OPT_MODDIR },
		{ "output", required_argument, NULL, 'o' },
		{ "arch", required_argument, NULL, OPT_ARCH },
		{ "init", required_argument, NULL, OPT_INIT },
		{ "module", required_argument, NULL, OPT_MODULE },
		{ "omit", required_argument, NULL, OPT_OMIT },
		{ "add", required_argument, NULL, OPT_ADD },
		{ "compress", required_argument, NULL, OPT_COMPRESS },
		{ "compress-modules", required_argument, NULL, OPT_COMPRESS_MODULES },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, r = 0;

	/* getopt keeps global state; start afresh so the command can run more than once */
	optind = 0;
	while (r == 0 && (c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_MODDIR:
			b->moddir = optarg;
			break;
		case 'o':
			b->output = optarg;
			break;
		case OPT_ARCH:
			b->arch = arch_from_name(optarg);
			if (b->arch == ARCH_INVALID) {
				log_err("unknown architecture '%s' (x86-64, arm64, x86, arm, riscv64, ppc64le, s390x, loongarch64)",
					optarg);
				r = -EINVAL;
			}
			break;
		case OPT_INIT:
			b->init = optarg;
			break;
		case OPT_MODULE:
			r = name_list_add(&b->extra_modules, optarg);
			break;
		case OPT_OMIT:
			r = name_list_add(&b->omitted, optarg);
			break;
		case OPT_ADD:
			r = name_list_add(&b->adds, optarg);
			if (r == 0 && (optarg[0] == ':' || (strchr(optarg, ':') && !strchr(optarg, ':')[1]))) {
				log_err("--add %s: expected SRC:DEST with both parts", optarg);
				r = -EINVAL;
			}
			break;
		case OPT_COMPRESS:
			r = parse_compression(optarg, "--compress", &b->compression);
			break;
		case OPT_COMPRESS_MODULES:
			r = parse_compression(optarg, "--compress-modules", &b->module_compression);
			/* libkmod is built without zlib: it could not load a .ko.gz */
			if (r == 0 && b->module_compression == COMPRESS_GZIP) {
				log_err("--compress-modules gzip: earlymount loads .ko.zst and .ko.xz modules, not .ko.gz (none, zstd, xz)");
				r = -EINVAL;
			}
			break;
		case 'h':
			usage(stdout);
			r = 1;
			break;
		default:
			r = -EINVAL; /* getopt said what was wrong */
			break;
		}
	}
	if (r == 0 && optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		r = -EINVAL;
	}
	for (size_t i = 0; r == 0 && i < b->omitted.n; i++)
		if (!is_default_module(b->omitted.names[i])) {
			log_err("--omit %s: no module of that name is in the default set",
				b->omitted.names[i]);
			r = -EINVAL;
		}
	if (r == 0 && (!b->moddir || !b->output)) {
		log_err("%s is required (see earlymount initramfs --help)", !b->moddir ? "--moddir" : "-o OUT");
		r = -EINVAL;
	}
	if (r == 0)
		r = parse_mtime(b);
	return r;
}

/* The kernel release is the module directory's name: .../lib/modules/KVER. */
static int find_kver(struct builder *b)
{
	char real[PATH_MAX];
	const char *base;
	int r = 0;

	if (!realpath(b->moddir, real)) {
		r = -errno;
		log_err("unable to open the module directory %s: %s", b->moddir, strerror(-r));
		goto out;
	}
	base = strrchr(real, '/');
	r = COPY_STR(b->kver, base ? base + 1 : real);
	if (r == 0 && !b->kver[0])
		r = -EINVAL;
	if (r < 0)
		log_err("unable to tell the kernel release from the module directory %s", b->moddir);
out:
	return r;
}

static void builder_free(struct builder *b)
{
	for (size_t i = 0; i < b->n_modules; i++) {
		free(b->modules[i].name);
		free(b->modules[i].path);
		free(b->modules[i].relpath);
	}
	free(b->modules);
	name_list_free(&b->extra_modules);
	name_list_free(&b->adds);
	name_list_free(&b->builtin);
	name_list_free(&b->absent);
	name_list_free(&b->omitted);
	if (b->staging[0])
		remove_tree(AT_FDCWD, b->staging);
	if (b->kmod)
		kmod_unref(b->kmod);
	cpio_free(&b->cpio);
}

int cmd_initramfs(int argc, char **argv)
{
	struct builder b = {
		.arch = arch_native(),
		/* measured on QEMU (README, Performance): the kernel copies an uncompressed
		 * archive of .ko.zst modules 6x faster than it unpacks a zstd archive of raw
		 * ones, and libkmod decompresses only the few modules a machine loads */
		.compression = COMPRESS_NONE,
		.module_compression = COMPRESS_ZSTD,
	};
	int r;

	cpio_init(&b.cpio);
	r = parse_args(&b, argc, argv);
	if (r != 0) {
		r = r > 0 ? 0 : EXIT_USAGE;
		goto out;
	}
	r = find_kver(&b);
	if (r < 0) {
		r = EXIT_SYSTEM;
		goto out;
	}
	r = build(&b);
out:
	builder_free(&b);
	return r;
}
