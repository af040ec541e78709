/* `earlymount initramfs`: builds a reproducible initramfs whose /init is earlymount, with the
 * kernel modules a disk needs, resolved (dependencies, pre-softdeps) through libkmod and
 * indexed again with the host's depmod so the image's indexes name only what it holds. The
 * command's parts are the files of host/initramfs/, sharing host/initramfs/initramfs.h. */
#include <errno.h>
#include <inttypes.h>
#include <libkmod/libkmod.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "format_size.h"
#include "initramfs.h"
#include "log.h"
#include "luks_helper.h"
#include "paths.h"
#include "util.h"

static void name_list_print(const struct name_list *list, FILE *out)
{
	for (size_t i = 0; i < list->n; i++)
		fprintf(out, "%s%s", i ? ", " : "", list->names[i]);
}

static void print_checkers(const struct builder *b)
{
	char size[32];

	if (b->no_fsck) {
		printf("fsck: no checkers (--no-fsck)\n");
		return;
	}
	format_size(b->fsck_bytes, size, sizeof(size));
	printf("fsck: ");
	name_list_print(&b->fsck_programs, stdout);
	printf("%s (%zu files with their libraries, %s) from %s\n", b->fsck_programs.n ? "" : "no checkers",
	       b->tool_files.n - b->net_files, size, initramfs_tools_root(b));
	for (size_t i = 0; i < b->fsck_left_out.n; i++)
		printf("fsck: left out: %s\n", b->fsck_left_out.names[i]);
}

static void print_summary(const struct builder *b, const char *init, uint64_t image_size,
			  uint64_t raw_size)
{
	size_t requested = 0, plain = 0;
	uint64_t bytes = 0, stored = 0, plain_bytes = 0;
	char size[32];

	for (size_t i = 0; i < b->n_modules; i++) {
		const struct chosen_module *m = &b->modules[i];

		requested += m->requested;
		bytes += m->size;
		if (m->plain) {
			plain++;
			plain_bytes += m->stored_size;
		} else {
			stored += m->stored_size;
		}
	}
	format_size(bytes, size, sizeof(size));
	printf("modules: %zu (+ %zu dependencies), %s", requested, b->n_modules - requested, size);
	if (b->module_compression != COMPRESS_NONE && b->n_modules > plain) {
		format_size(stored, size, sizeof(size));
		printf(", %s as .ko%s", size, compress_suffix(b->module_compression));
	}
	if (b->module_compression != COMPRESS_NONE && plain) {
		format_size(plain_bytes, size, sizeof(size));
		printf(", %zu most boots insert as .ko (%s)", plain, size);
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
	if (b->host_only) {
		printf("host-only: in the image:");
		for (size_t i = 0; i < b->n_modules; i++)
			printf(" %s", b->modules[i].name);
		printf("\n");
	}
	printf("module index: %s\n", b->indexes_copied
					     ? "copied from the kernel (no depmod found): it names modules the image lacks"
					     : "regenerated with depmod");
	format_size(b->init_size, size, sizeof(size));
	printf("/init: %s (%s, %s)\n", init, arch_name(b->arch), size);
	if (b->luks) {
		format_size(b->luks_helper_size, size, sizeof(size));
		printf("LUKS helper: %s (%s, %s) as %s; its modules: %zu in the image, %zu built in, %zu not in this kernel\n",
		       b->luks_helper_found, arch_name(b->arch), size, LUKS_HELPER_PATH, b->n_luks_modules,
		       b->n_luks_builtin, b->n_luks_absent);
	}
	if (b->network) {
		format_size(b->net_bytes, size, sizeof(size));
		printf("network: ipconfig as %s (%zu files with its library, %s) from %s; %zu network "
		       "and NFS modules\n", EARLYMOUNT_IPCONFIG, b->net_files, size,
		       initramfs_tools_root(b), b->n_net_modules);
	}
	if (b->ssh_authorized_keys) {
		format_size(b->ssh_bytes, size, sizeof(size));
		printf("ssh: dropbear as %s (%zu files with its libraries, %s); host keys from %s; "
		       "root's keys from %s (the image is mode 0600)\n", EARLYMOUNT_DROPBEAR, b->ssh_files,
		       size, b->ssh_host_keys ? b->ssh_host_keys : "/etc/earlymount/dropbear",
		       b->ssh_authorized_keys);
	}
	if (b->lvm) {
		format_size(b->lvm_tool_size, size, sizeof(size));
		printf("lvm: %s (%s, %s) as %s, with dm_mod\n", b->lvm_tool_found, arch_name(b->arch),
		       size, EARLYMOUNT_LVM);
	}
	if (b->md) {
		format_size(b->md_tool_size, size, sizeof(size));
		printf("mdadm: %s (%s, %s) as %s, with md_mod and the RAID levels' modules; %s%s\n",
		       b->md_tool_found, arch_name(b->arch), size, EARLYMOUNT_MDADM,
		       b->md_conf_found[0] ? "mdadm.conf: " : "no mdadm.conf",
		       b->md_conf_found);
	}
	if (b->crypttab_names.n) {
		printf("crypttab: " INITRAMFS_CRYPTTAB " opens ");
		name_list_print(&b->crypttab_names, stdout);
		printf("; key files: %zu%s; detached headers: %zu\n", b->crypttab_keys.n,
		       b->crypttab_keys.n ? " (the image is mode 0600)" : "", b->crypttab_headers.n);
	}
	print_checkers(b);
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

/* NAME beside BINARY into OUT (0), else, when BINARY is PREFIX/bin/..., as installed:
 * PREFIX/lib/earlymount/INSTALLED (0); else -ENOENT with OUT the path beside BINARY. */
static int find_beside(const char *binary, const char *name, const char *installed, char *out,
		       size_t size)
{
	const char *slash = strrchr(binary, '/');
	const char *dir = binary;
	char lib[PATH_MAX];
	int n = snprintf(out, size, "%.*s%s", slash ? (int)(slash - binary + 1) : 0, binary, name);
	int r = -ENOENT;

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	if (access(out, F_OK) == 0)
		return 0;
	for (const char *p = binary; slash && p < slash; p++)
		if (*p == '/')
			dir = p + 1;
	if (!slash || (int)(slash - dir) != 3 || strncmp(dir, "bin", 3) != 0)
		return r;
	n = snprintf(lib, sizeof(lib), "%.*slib/earlymount/%s", (int)(dir - binary), binary, installed);
	if (n > 0 && (size_t)n < sizeof(lib) && access(lib, F_OK) == 0)
		r = snprintf(out, size, "%s", lib) < (int)size ? 0 : -ENAMETOOLONG;
	return r;
}

/* Without --init, the binary made to be /init: earlymount-init (PID 1 alone, without the
 * host commands) beside this one in the build tree, or PREFIX/lib/earlymount/init beside an
 * installed PREFIX/bin/earlymount; without one, this binary, which boots as well. */
static int choose_init(const struct builder *b, char *init, size_t size)
{
	char self[PATH_MAX];
	int r;

	if (b->init) {
		r = snprintf(init, size, "%s", b->init) < (int)size ? 0 : -ENAMETOOLONG;
		goto out;
	}
	r = path_self(self, sizeof(self));
	if (r < 0) {
		snprintf(self, sizeof(self), PATH_SELF);
		goto out;
	}
	r = find_beside(self, "earlymount-init", "init", init, size);
	if (r == -ENOENT) {
		log_notice("no earlymount-init beside %s: it is /init itself, host commands included "
			   "(--init PATH names another)", self);
		r = snprintf(init, size, "%s", self) < (int)size ? 0 : -ENAMETOOLONG;
	}
out:
	if (r < 0)
		log_err("unable to choose the /init binary (%s): %s", b->init ? b->init : self, strerror(-r));
	return r;
}

/* A program the image runs besides /init (the LUKS helper, lvm): given (--luks-helper,
 * --lvm-tool), or the one named as in the image (image_path's last component) beside the
 * /init binary: the build directory of that architecture, or the directory earlymount is
 * installed in. An installed earlymount runs as PREFIX/bin/earlymount, its programs are in
 * PREFIX/lib/earlymount/ (beside PREFIX/lib/earlymount/init): when a binary in a directory
 * named bin has none beside it, that one is taken. What is taken is checked as /init is (a
 * missing one is named then). */
static int find_image_program(const char *given, const char *image_path, const char *init,
			      char *found, size_t size)
{
	const char *name = strrchr(image_path, '/') + 1;
	int r;

	if (given)
		r = copy_str(found, size, given);
	else
		r = find_beside(init, name, name, found, size);
	if (r == -ENOENT)
		r = 0;
	if (r < 0)
		log_err("unable to find %s beside %s: %s", name, init, strerror(-r));
	return r;
}

/* The mdadm.conf the image gets: --md-conf, or with --host-only the host's when it has one
 * (its ARRAY lines name the arrays as the host does: /dev/md0 stays md0). */
static int choose_md_conf(struct builder *b)
{
	const char *conf = b->md_conf ? b->md_conf : b->host_only ? MDADM_CONF : NULL;
	int r = 0;

	if (conf && access(conf, R_OK) < 0) {
		r = b->md_conf ? -errno : 0;
		if (r < 0)
			log_err("unable to read %s (--md-conf): %s", conf, strerror(-r));
		conf = NULL;
	}
	if (conf)
		r = copy_str(b->md_conf_found, sizeof(b->md_conf_found), conf);
	return r;
}

/* The module directory opened and the modules chosen: 0 or an exit code. A --module the
 * kernel lacks, modules of another architecture, a host-only image for a host that has no
 * disk under / or needs --luks or --lvm, a mount table without /: the command line's fault;
 * a host on a stack no image can boot (md RAID, multipath, …): refused. */
static int open_and_choose(struct builder *b)
{
	int r = initramfs_open_kmod(b);

	if (r < 0) {
		r = EXIT_SYSTEM;
		goto out;
	}
	r = b->host_only ? initramfs_choose_host_modules(b) : initramfs_choose_default_modules(b);
	if (r >= 0)
		r = initramfs_choose_asked_modules(b);
	if (r >= 0)
		r = initramfs_choose_network_modules(b);
	if (r >= 0)
		r = initramfs_mark_plain_modules(b);
	/* a host whose stack no image of earlymount's can boot: the answer is no */
	if (r == -EOPNOTSUPP)
		r = EXIT_REFUSED;
	else if (r < 0)
		r = r == -ENOENT || r == -ENOEXEC || r == -ENOTBLK || r == -EINVAL || r == -ENODATA ?
			EXIT_USAGE : EXIT_SYSTEM;
out:
	return r;
}

/* --print-modules: what was asked for and found, not what it needs: a generator resolves
 * the dependencies with its own tools. */
static int print_modules(struct builder *b)
{
	int r = open_and_choose(b);

	if (r != 0)
		goto out;
	for (size_t i = 0; i < b->n_modules; i++)
		if (b->modules[i].requested)
			printf("%s\n", b->modules[i].name);
out:
	return r;
}

/* The exit code of initramfs_choose_crypttab()'s -errno. */
static int crypttab_exit(int r)
{
	if (r == -EOPNOTSUPP)
		return EXIT_REFUSED;
	return r == -EINVAL || r == -ENOENT ? EXIT_USAGE : EXIT_SYSTEM;
}

static int build(struct builder *b)
{
	char init[PATH_MAX], stage_dir[PATH_MAX], image_dir[PATH_MAX];
	uint64_t image_size = 0, raw_size = 0;
	int r;

	r = check_compressors(b);
	if (r < 0) {
		r = EXIT_USAGE;
		goto out;
	}
	r = choose_init(b, init, sizeof(init));
	if (r == 0)
		r = initramfs_check_init(b, init);
	if (r == 0 && b->luks)
		r = find_image_program(b->luks_helper, LUKS_HELPER_PATH, init, b->luks_helper_found,
				       sizeof(b->luks_helper_found));
	if (r == 0 && b->luks)
		r = initramfs_check_luks_helper(b, b->luks_helper_found);
	if (r == 0 && b->lvm)
		r = find_image_program(b->lvm_tool, EARLYMOUNT_LVM, init, b->lvm_tool_found,
				       sizeof(b->lvm_tool_found));
	if (r == 0 && b->lvm)
		r = initramfs_check_lvm_tool(b, b->lvm_tool_found);
	if (r == 0 && b->md)
		r = find_image_program(b->md_tool, EARLYMOUNT_MDADM, init, b->md_tool_found,
				       sizeof(b->md_tool_found));
	if (r == 0 && b->md)
		r = initramfs_check_md_tool(b, b->md_tool_found);
	if (r == 0 && b->md)
		r = choose_md_conf(b);
	if (r < 0) {
		r = r == -ENOEXEC ? EXIT_USAGE : EXIT_SYSTEM;
		goto out;
	}
	r = open_and_choose(b);
	if (r != 0)
		goto out;
	r = initramfs_choose_crypttab(b);
	if (r < 0) {
		r = crypttab_exit(r);
		goto out;
	}
	r = initramfs_stage_modules(b, stage_dir, sizeof(stage_dir));
	if (r == 0)
		r = initramfs_add_skeleton(b, init);
	if (r == 0)
		r = path_join(image_dir, sizeof(image_dir), "lib/modules", b->kver);
	if (r == 0)
		r = initramfs_add_tree(b, stage_dir, image_dir, false, false);
	if (r == 0)
		r = initramfs_add_checkers(b);
	if (r == 0)
		r = initramfs_add_network(b);
	if (r == 0)
		r = initramfs_add_ssh(b);
	if (r == 0)
		r = initramfs_add_keymaps(b);
	if (r == 0)
		r = initramfs_add_crypttab(b);
	if (r == 0)
		r = initramfs_add_extras(b);
	if (r == 0)
		r = initramfs_write_image(b, &image_size, &raw_size);
	if (r < 0) {
		/* a path added twice is a contradiction on the command line, not a system failure */
		r = r == -EEXIST ? EXIT_USAGE : EXIT_SYSTEM;
		goto out;
	}
	print_summary(b, init, image_size, raw_size);
out:
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
	name_list_free(&b->fsck_programs);
	name_list_free(&b->tool_files);
	name_list_free(&b->fsck_left_out);
	name_list_free(&b->host_fstypes);
	name_list_free(&b->crypttab_names);
	name_list_free(&b->crypttab_keys);
	name_list_free(&b->crypttab_headers);
	free(b->crypttab_text);
	if (b->staging[0])
		initramfs_remove_tree(AT_FDCWD, b->staging);
	if (b->kmod)
		kmod_unref(b->kmod);
	cpio_free(&b->cpio);
}

int cmd_initramfs(int argc, char **argv)
{
	struct builder b = {
		.arch = arch_native(),
		/* the kernel copies an uncompressed archive of .ko.zst modules faster than it
		 * unpacks a zstd archive of raw ones, and libkmod decompresses only the few
		 * modules a machine loads (docs/performance.md has the measurement) */
		.compression = COMPRESS_NONE,
		.module_compression = COMPRESS_ZSTD,
		.sysfs = "/sys",
		.mountinfo = "/proc/self/mountinfo",
		.fstab = "/etc/fstab",
	};
	int r;

	cpio_init(&b.cpio);
	r = initramfs_parse_args(&b, argc, argv);
	if (r != 0) {
		r = r > 0 ? 0 : EXIT_USAGE;
		goto out;
	}
	if (b.print_needs) {
		r = initramfs_print_host_needs(&b);
		r = r == -EOPNOTSUPP ? EXIT_REFUSED : r < 0 ? EXIT_SYSTEM : 0;
		goto out;
	}
	if (b.print_crypttab) {
		r = initramfs_print_crypttab(&b);
		r = r < 0 ? crypttab_exit(r) : 0;
		goto out;
	}
	r = find_kver(&b);
	if (r < 0) {
		r = EXIT_SYSTEM;
		goto out;
	}
	r = b.print_modules ? print_modules(&b) : build(&b);
out:
	builder_free(&b);
	return r;
}
