/* The parts of `earlymount initramfs` (host/cmd_initramfs.c and initramfs_*.c) share one
 * struct builder: each step reads what the ones before it found (the kernel release, the
 * chosen modules, the staging directory) and adds to the same archive. Not for use outside
 * the command: its only interface is commands.h. */
#pragma once

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "compress.h"
#include "cpio.h"
#include "dps.h"
#include "hostonly.h"
#include "name_list.h"
#include "path.h"

struct kmod_ctx;

struct chosen_module {
	char *name;
	char *path;     /* the .ko in the kernel's module directory */
	char *relpath;  /* below the module directory: kernel/fs/ext4/ext4.ko */
	bool requested; /* named by the default set or --module, not pulled in as a dependency */
	bool plain;     /* stored as .ko whatever --compress-modules says (initramfs_plain.c) */
	uint64_t size;
	uint64_t stored_size; /* in the image, compressed or not */
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
	struct name_list keymaps; /* --keymap: names or files, the first the default */
	uint32_t mtime;
	bool luks;               /* --luks: the LUKS helper and its modules */
	const char *luks_helper; /* --luks-helper, or NULL: the one beside /init */
	bool lvm;                /* --lvm: lvm2's tool and device-mapper's module */
	const char *lvm_tool;    /* --lvm-tool, or NULL: the one beside /init */
	bool md;                 /* --md: mdadm and md's modules */
	const char *md_tool;     /* --md-tool, or NULL: the one beside /init */
	const char *md_conf;     /* --md-conf, or NULL: with --host-only, the host's mdadm.conf */
	bool no_fsck;            /* --no-fsck: no filesystem checkers */
	const char *tools_root;  /* --tools-root (--fsck-root): where the checkers and ipconfig
				  * come from, NULL: / */
	bool network;            /* --network: ipconfig, network drivers and NFS's modules */
	const char *ssh_authorized_keys; /* --ssh-authorized-keys: dropbear, for unlocking over SSH */
	const char *ssh_host_keys; /* --ssh-host-keys: where its host keys are kept, NULL: the default */
	bool host_only;          /* --host-only: the modules of this host's / and /usr */
	const char *sysfs;       /* --sysfs: the host's sysfs (default /sys) */
	const char *mountinfo;   /* --mountinfo: its mounts (default /proc/self/mountinfo) */
	const char *fstab;       /* --fstab: its x-initrd.mount entries (default /etc/fstab) */
	bool print_modules;      /* --print-modules: name the modules chosen, build nothing */
	bool print_needs;        /* --print-needs: name what the host's stacks need, build nothing */
	const char *crypttab;    /* --crypttab, or NULL: with --host-only, the host's */
	bool print_crypttab;     /* --print-crypttab: the crypttab the image gets, build nothing */

	char kver[NAME_MAX + 1];
	struct kmod_ctx *kmod;
	struct chosen_module *modules;
	size_t n_modules;
	struct name_list builtin;
	struct name_list absent;
	char staging[PATH_MAX];
	uint64_t init_size;
	char luks_helper_found[PATH_MAX]; /* the helper put in the image */
	uint64_t luks_helper_size;
	char lvm_tool_found[PATH_MAX];    /* the lvm put in the image */
	uint64_t lvm_tool_size;
	char md_tool_found[PATH_MAX];     /* the mdadm put in the image */
	uint64_t md_tool_size;
	char md_conf_found[PATH_MAX];     /* the mdadm.conf put in the image; "" for none */
	/* LUKS_MODULES: in the image, built into the kernel, neither */
	size_t n_luks_modules, n_luks_builtin, n_luks_absent;
	struct name_list fsck_programs; /* the checkers added */
	struct name_list tool_files;    /* the files of the checkers and ipconfig in the image,
					 * libraries included */
	struct name_list fsck_left_out; /* why a checker is not in the image, one per line */
	/* --host-only: the filesystem types of the mounts the walk read, whose modules (and so
	 * whose checkers) the image gets */
	struct name_list host_fstypes;
	uint64_t fsck_bytes;
	size_t n_net_modules;  /* --network: its drivers and NFS's modules in the image */
	size_t net_files;      /* --network: ipconfig and its library */
	uint64_t net_bytes;
	size_t ssh_files;      /* --ssh-authorized-keys: dropbear and its libraries */
	uint64_t ssh_bytes;
	/* --host-only: the dm-crypt volumes under the mounts the walk read */
	struct hostonly_crypt host_crypt[HOSTONLY_MAX_CRYPT];
	size_t n_host_crypt;
	char *crypttab_text;            /* the image's /etc/crypttab, NULL for none */
	size_t crypttab_len;
	struct name_list crypttab_names; /* the volumes it opens */
	struct name_list crypttab_keys;  /* the key files it brings: the image is then 0600 */
	struct name_list crypttab_headers; /* the detached LUKS headers it brings (header=) */
	size_t n_files; /* files and symlinks put in the archive by initramfs_add_tree */
	size_t n_added; /* of those, from --add */
	bool indexes_copied;
	struct cpio_archive cpio;
};

/* initramfs_args.c: 0, 1 after --help, or -EINVAL (reported) */
int initramfs_parse_args(struct builder *b, int argc, char **argv);

/* initramfs_closure.c: a program of the tools root with what it needs. */
struct closure {
	struct name_list dests;   /* image paths */
	struct name_list sources; /* host paths, in pairs with dests */
	struct name_list link_to; /* "" for a file, else the absolute image path it points to */
	uint64_t bytes;
};
extern const char *const initramfs_gnu_triplets[ARCH_MAX];
const char *initramfs_tools_root(const struct builder *b);
/* rel (relative to the tools root) with its last component's symlinks followed inside the
 * root; out is the path on the host. -ENOENT when nothing is there. */
int initramfs_resolve_in_root(const struct builder *b, const char *rel, char *out, size_t size);
/* Adds src as dest (image path), then its interpreter and libraries, and theirs; -ENOEXEC or
 * -ENOENT (why says which file) when one is of another arch or missing. */
int closure_add(const struct builder *b, struct closure *c, const char *dest, const char *src,
		char *why, size_t why_size);
int closure_deps(const struct builder *b, struct closure *c, const char *src, int depth,
		 char *why, size_t why_size);
int closure_install(struct builder *b, const struct closure *c);
/* The program in_root (relative to the tools root) as dest (an image path) with what it needs;
 * a missing one is said naming option and Debian's package. The files and bytes added. 0 or
 * -errno (said). */
int initramfs_add_program(struct builder *b, const char *in_root, const char *dest,
			  const char *option, const char *package, size_t *files, uint64_t *bytes);
void closure_free(struct closure *c);

/* initramfs_network.c: --network's modules, and ipconfig. 0 or -errno (said). */
int initramfs_choose_network_modules(struct builder *b);
int initramfs_add_network(struct builder *b);
/* initramfs_ssh.c: --ssh-authorized-keys: dropbear, its host keys, root's account. */
int initramfs_add_ssh(struct builder *b);

/* initramfs_elf.c */
int elf_file_arch(const char *path, enum arch *arch);
int initramfs_check_init(struct builder *b, const char *init);
int initramfs_check_luks_helper(struct builder *b, const char *path);
int initramfs_check_lvm_tool(struct builder *b, const char *path);
int initramfs_check_md_tool(struct builder *b, const char *path);
/* The program interpreter ("" for a static file) and the DT_NEEDED names of an ELF file,
 * added to needed. 0, or -ENOEXEC for a file that is not ELF or is malformed. */
int elf_dependencies(const char *path, char *interp, size_t interp_size, struct name_list *needed);

/* initramfs_modules.c */
int initramfs_open_kmod(struct builder *b);
/* The default set: what earlymount boots from on most machines. */
int initramfs_choose_default_modules(struct builder *b);
/* What --luks and --module ask for, beside either set. */
int initramfs_choose_asked_modules(struct builder *b);
/* Adds what name resolves to (a module, an alias, a modalias) with its dependencies and
 * pre-softdeps. -ENOENT (not reported) when the kernel has no such module. */
int initramfs_choose_module(struct builder *b, const char *name);
/* The chosen module of that name, or NULL. */
struct chosen_module *initramfs_find_module(struct builder *b, const char *name);

/* initramfs_plain.c: marks the modules most boots insert, with what they need, to be stored
 * uncompressed. 0 or -errno (reported). */
int initramfs_mark_plain_modules(struct builder *b);

/* initramfs_hostonly.c: --host-only, instead of the default set */
int initramfs_choose_host_modules(struct builder *b);
/* --print-needs: the helpers this host's / and /usr need, one word a line ("luks", "lvm",
 * "md"). 0;
 * -EOPNOTSUPP (reported) when they are on a stack earlymount cannot assemble; -errno. */
int initramfs_print_host_needs(struct builder *b);
bool initramfs_is_default_module(const char *name);

/* initramfs_crypttab.c: --crypttab and --host-only: the entries the boot needs, their key
 * files. After the host's walk. 0 or -errno (reported: -EINVAL for a crypttab that cannot
 * be read, -EOPNOTSUPP for an entry the boot would refuse, -ENOENT for a missing key file). */
int initramfs_choose_crypttab(struct builder *b);
/* /etc/crypttab and the key files into the archive. */
int initramfs_add_crypttab(struct builder *b);
/* --print-crypttab: the crypttab the image would get on stdout. 0 or as above. */
int initramfs_print_crypttab(struct builder *b);
/* initramfs_hostonly.c: the walk alone, for what it finds on dm-crypt (host_crypt). 0 or
 * -errno (reported). */
int initramfs_walk_host_crypt(struct builder *b);

/* initramfs_stage.c */
int initramfs_stage_modules(struct builder *b, char *stage_dir, size_t size);
int initramfs_remove_tree(int dirfd, const char *name);

/* initramfs_fsck.c: the checkers, unless --no-fsck */
int initramfs_add_checkers(struct builder *b);

/* initramfs_archive.c */
int initramfs_add_tree(struct builder *b, const char *src, const char *dest, bool keep_modes, bool follow);
int initramfs_add_skeleton(struct builder *b, const char *init);
int initramfs_add_extras(struct builder *b);
/* initramfs_keymap.c: the --keymap maps, compiled with loadkeys -b. */
int initramfs_add_keymaps(struct builder *b);
int initramfs_write_image(struct builder *b, uint64_t *image_size, uint64_t *raw_size);
