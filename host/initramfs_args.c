/* `earlymount initramfs`: its command line, declared, read into struct builder. */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_args.h"
#include "initramfs.h"
#include "log.h"
#include "luks_helper.h"
#include "paths.h"
#include "util.h"

/* A setter's answer to --help: the usage, and nothing after it read, or checked. */
#define STOP_FOR_HELP 1

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

static int set_arch(void *ctx, const char *value)
{
	struct builder *b = ctx;
	int r = 0;

	b->arch = arch_from_name(value);
	if (b->arch == ARCH_INVALID) {
		log_err("unknown architecture '%s' (x86-64, arm64, x86, arm, riscv64, ppc64le, s390x, loongarch64)",
			value);
		r = -EINVAL;
	}
	return r;
}

static int add_file(void *ctx, const char *value)
{
	struct builder *b = ctx;
	int r = name_list_add(&b->adds, value);

	if (r == 0 && (value[0] == ':' || (strchr(value, ':') && !strchr(value, ':')[1]))) {
		log_err("--add %s: expected SRC:DEST with both parts", value);
		r = -EINVAL;
	}
	return r;
}

static int set_compress(void *ctx, const char *value)
{
	struct builder *b = ctx;

	return parse_compression(value, "--compress", &b->compression);
}

static int set_compress_modules(void *ctx, const char *value)
{
	struct builder *b = ctx;
	int r = parse_compression(value, "--compress-modules", &b->module_compression);

	/* libkmod is built without zlib: it could not load a .ko.gz */
	if (r == 0 && b->module_compression == COMPRESS_GZIP) {
		log_err("--compress-modules gzip: earlymount loads .ko.zst and .ko.xz modules, not .ko.gz (none, zstd, xz)");
		r = -EINVAL;
	}
	return r;
}

static int stop_for_help(void *ctx, const char *value)
{
	return STOP_FOR_HELP;
}

static const char *native_arch_name(void)
{
	return arch_name(arch_native());
}

#define STRING(member) HOST_STRING(struct builder, member)
#define FLAG(member) HOST_FLAG(struct builder, member)
#define LIST(member) HOST_LIST(struct builder, member)
#define IMPLIES(member) HOST_IMPLIES(struct builder, member)

static const struct host_opt initramfs_opts[] = {
	{ "moddir", 0, "DIR", STRING(moddir),
	  .help = "a kernel's module directory (.../lib/modules/KVER, with modules.dep)" },
	{ "output", 'o', "OUT", STRING(output), .help = "the image to write" },
	{ "arch", 0, "ARCH", HOST_SETTER(set_arch), .help = "the machine the image is for (default: %s)",
	  .help_default = native_arch_name },
	{ "init", 0, "PATH", STRING(init),
	  .help = "the earlymount binary to use as /init (default: earlymount-init\n"
		  "beside this one, or PREFIX/lib/earlymount/init for\n"
		  "PREFIX/bin/earlymount; else this one, which boots too)" },
	{ "module", 0, "NAME", LIST(extra_modules),
	  .help = "a module to add besides the default set (repeatable)" },
	{ "omit", 0, "NAME", LIST(omitted),
	  .help = "a module of the default set to leave out (repeatable); it still\n"
		  "comes in when another module needs it" },
	{ "host-only", 0, NULL, FLAG(host_only),
	  .help = "instead of the default set, the modules of this host's / and\n"
		  "/usr: the drivers of their devices and of every device they sit\n"
		  "on, as sysfs names them, and their filesystems' (mountinfo);\n"
		  "the host must be the machine the image will boot" },
	{ "sysfs", 0, "DIR", STRING(sysfs), .help = "the sysfs --host-only reads (default /sys)" },
	{ "mountinfo", 0, "FILE", STRING(mountinfo),
	  .help = "the mount table --host-only reads (default /proc/self/mountinfo)" },
	{ "fstab", 0, "FILE", STRING(fstab),
	  .help = "the fstab whose x-initrd.mount entries --host-only walks too,\n"
		  "as the boot mounts them (default /etc/fstab)" },
	{ "print-modules", 0, NULL, FLAG(print_modules),
	  .help = "print the names of the modules chosen (not those they need),\n"
		  "one a line, and build nothing (-o is then not needed): for\n"
		  "initramfs generators that add the modules themselves" },
	{ "print-needs", 0, NULL, FLAG(print_needs), IMPLIES(host_only),
	  .help = "print what this host's / and /usr need of an image, one word\n"
		  "a line (luks, lvm, md), and build nothing (no --moddir or\n"
		  "-o); exit 1 with a message when they are on a stack\n"
		  "earlymount cannot assemble (multipath, firmware RAID, NFS,\n"
		  "...): for the generators' hooks, which then stop" },
	{ "crypttab", 0, "FILE", STRING(crypttab),
	  .help = "the crypttab whose entries the boot opens, under their names\n"
		  "(with --luks): every entry, or with --host-only those of the\n"
		  "volumes under /, /usr and x-initrd.mount entries and those\n"
		  "marked initramfs (--host-only's default: /etc/crypttab); a key\n"
		  "file named by path goes in too, and the image is then mode 0600" },
	{ "print-crypttab", 0, NULL, FLAG(print_crypttab),
	  .help = "print the crypttab the image would get, and build nothing\n"
		  "(no --moddir or -o); exit 1 naming an entry the boot would\n"
		  "refuse: for the generators' hooks" },
	{ "add", 0, "SRC[:DEST]", HOST_SETTER(add_file),
	  .help = "a file or directory to add at DEST (repeatable)" },
	{ "luks", 0, NULL, FLAG(luks),
	  .help = "add the LUKS helper, earlymount-luks from beside the /init\n"
		  "binary (for PREFIX/bin/earlymount without one there:\n"
		  "PREFIX/lib/earlymount/earlymount-luks), as\n"
		  LUKS_HELPER_PATH ", and the kernel\n"
		  "modules it needs (those the kernel has)" },
	{ "luks-helper", 0, "PATH", STRING(luks_helper), IMPLIES(luks),
	  .help = "the earlymount-luks binary to add (implies --luks)" },
	{ "lvm", 0, NULL, FLAG(lvm),
	  .help = "add lvm2's tool (the static lvm beside the /init binary, or\n"
		  "PREFIX/lib/earlymount/lvm) as " EARLYMOUNT_LVM ", and\n"
		  "device-mapper's module: volume groups are then activated\n"
		  "as their physical volumes appear" },
	{ "lvm-tool", 0, "PATH", STRING(lvm_tool), IMPLIES(lvm),
	  .help = "the static lvm binary to add (implies --lvm)" },
	{ "md", 0, NULL, FLAG(md),
	  .help = "add mdadm (the static mdadm beside the /init binary, or\n"
		  "PREFIX/lib/earlymount/mdadm) as " EARLYMOUNT_MDADM ", and\n"
		  "md's modules: arrays are then assembled as their members\n"
		  "appear; with --host-only, the host's " MDADM_CONF " too" },
	{ "md-tool", 0, "PATH", STRING(md_tool), IMPLIES(md),
	  .help = "the static mdadm binary to add (implies --md)" },
	{ "md-conf", 0, "FILE", STRING(md_conf), IMPLIES(md),
	  .help = "the mdadm.conf to add as " MDADM_CONF " (implies --md)" },
	{ "keymap", 0, "NAME|FILE", LIST(keymaps),
	  .help = "a console keymap for the passphrase prompt, compiled with\n"
		  "loadkeys -b (package kbd; keymaps from console-data):\n"
		  "de-latin1, or a .map(.gz) file; repeatable, the first is the\n"
		  "default, rd.vconsole.keymap=NAME picks another" },
	{ "no-fsck", 0, NULL, FLAG(no_fsck),
	  .help = "leave out the filesystem checkers (e2fsck, fsck.fat), which are\n"
		  "otherwise added with their libraries when present and built\n"
		  "for the image's architecture" },
	{ "tools-root", 0, "DIR", STRING(tools_root),
	  .help = "take the checkers, ipconfig and their libraries from DIR\n"
		  "instead of / (another architecture's packages unpacked with\n"
		  "dpkg-deb -x)" },
	{ "fsck-root", 0, "DIR", STRING(tools_root), .help = "the same as --tools-root" },
	{ "ssh-authorized-keys", 0, "FILE", STRING(ssh_authorized_keys), IMPLIES(network),
	  .help = "add Debian's dropbear (dropbear-bin, from the tools root) with\n"
		  "FILE as root's authorized_keys: once the network is up, an\n"
		  "SSH login answers the passphrase prompt (implies --network)" },
	{ "ssh-host-keys", 0, "DIR", STRING(ssh_host_keys),
	  .help = "where dropbear's host keys are kept, made once with\n"
		  "dropbearkey when missing (default /etc/earlymount/dropbear)" },
	{ "network", 0, NULL, FLAG(network),
	  .help = "add klibc's ipconfig (package klibc-utils) with its library,\n"
		  "the common network drivers and NFS's modules: ip= and NFS\n"
		  "roots then boot; a boot without those keys loads none of it" },
	{ "compress", 0, "METHOD", HOST_SETTER(set_compress),
	  .help = "the archive's compression: none (default), gzip, zstd or xz" },
	{ "compress-modules", 0, "METHOD", HOST_SETTER(set_compress_modules),
	  .help = "the modules' compression: zstd (default, as .ko.zst), xz\n"
		  "(.ko.xz) or none; earlymount decompresses only those it loads;\n"
		  "those most boots load (virtio, nvme, ext4) stay .ko" },
	{ "help", 'h', NULL, HOST_SETTER(stop_for_help), .help = "this text" },
	{ 0 },
};

static const struct host_command initramfs_command = {
	.name = "initramfs",
	.head = "usage: earlymount initramfs --moddir DIR -o OUT [OPTIONS]\n"
		"\n"
		"Builds a reproducible initramfs whose /init is earlymount.\n"
		"\n",
	.groups = { { initramfs_opts, 0 } },
	.tail = "\n"
		"SOURCE_DATE_EPOCH sets the timestamp of every entry (default 0). Compression runs\n"
		"the host's gzip, zstd or xz (Debian packages gzip, zstd, xz-utils).\n",
	.column = 22,
};

/* What the options say together, once all are read: 0 or -EINVAL, said. */
static int check_options(const struct builder *b)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < b->omitted.n; i++)
		if (!initramfs_is_default_module(b->omitted.names[i])) {
			log_err("--omit %s: no module of that name is in the default set",
				b->omitted.names[i]);
			r = -EINVAL;
		}
	if (r == 0 && b->host_only && b->omitted.n) {
		log_err("--omit %s: --host-only replaces the default set that --omit leaves modules out of",
			b->omitted.names[0]);
		r = -EINVAL;
	}
	if (r == 0 && !b->print_needs && !b->print_crypttab &&
	    (!b->moddir || (!b->output && !b->print_modules))) {
		log_err("%s is required (see earlymount initramfs --help)", !b->moddir ? "--moddir" : "-o OUT");
		r = -EINVAL;
	}
	return r;
}

int initramfs_parse_args(struct builder *b, int argc, char **argv)
{
	int r = host_args_parse(&initramfs_command, argc, argv, b);

	if (r == STOP_FOR_HELP) {
		host_args_help(&initramfs_command, stdout);
		goto out;
	}
	if (r > 0)
		r = -EINVAL; /* a usage error, said */
	if (r == 0 && optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		r = -EINVAL;
	}
	if (r == 0)
		r = check_options(b);
	if (r == 0)
		r = parse_mtime(b);
out:
	return r;
}
