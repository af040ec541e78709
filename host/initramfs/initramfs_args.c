/* `earlymount initramfs`: its command line, read into struct builder. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "initramfs.h"
#include "log.h"
#include "luks_helper.h"
#include "paths.h"
#include "util.h"

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
		"  --init PATH         the earlymount binary to use as /init (default: earlymount-init\n"
		"                      beside this one, or PREFIX/lib/earlymount/init for\n"
		"                      PREFIX/bin/earlymount; else this one, which boots too)\n"
		"  --module NAME       a module to add besides the default set (repeatable)\n"
		"  --omit NAME         a module of the default set to leave out (repeatable); it still\n"
		"                      comes in when another module needs it\n"
		"  --host-only         instead of the default set, the modules of this host's / and\n"
		"                      /usr: the drivers of their devices and of every device they sit\n"
		"                      on, as sysfs names them, and their filesystems' (mountinfo);\n"
		"                      the host must be the machine the image will boot\n"
		"  --sysfs DIR         the sysfs --host-only reads (default /sys)\n"
		"  --mountinfo FILE    the mount table --host-only reads (default /proc/self/mountinfo)\n"
		"  --fstab FILE        the fstab whose x-initrd.mount entries --host-only walks too,\n"
		"                      as the boot mounts them (default /etc/fstab)\n"
		"  --print-modules     print the names of the modules chosen (not those they need),\n"
		"                      one a line, and build nothing (-o is then not needed): for\n"
		"                      initramfs generators that add the modules themselves\n"
		"  --print-needs       print what this host's / and /usr need of an image, one word\n"
		"                      a line (luks, lvm, md), and build nothing (no --moddir or\n"
		"                      -o); exit 1 with a message when they are on a stack\n"
		"                      earlymount cannot assemble (multipath, firmware RAID, NFS,\n"
		"                      ...): for the generators' hooks, which then stop\n"
		"  --add SRC[:DEST]    a file or directory to add at DEST (repeatable)\n"
		"  --luks              add the LUKS helper, earlymount-luks from beside the /init\n"
		"                      binary (for PREFIX/bin/earlymount without one there:\n"
		"                      PREFIX/lib/earlymount/earlymount-luks), as\n"
		"                      " LUKS_HELPER_PATH ", and the kernel\n"
		"                      modules it needs (those the kernel has)\n"
		"  --luks-helper PATH  the earlymount-luks binary to add (implies --luks)\n"
		"  --lvm               add lvm2's tool (the static lvm beside the /init binary, or\n"
		"                      PREFIX/lib/earlymount/lvm) as " EARLYMOUNT_LVM ", and\n"
		"                      device-mapper's module: volume groups are then activated\n"
		"                      as their physical volumes appear\n"
		"  --lvm-tool PATH     the static lvm binary to add (implies --lvm)\n"
		"  --md                add mdadm (the static mdadm beside the /init binary, or\n"
		"                      PREFIX/lib/earlymount/mdadm) as " EARLYMOUNT_MDADM ", and\n"
		"                      md's modules: arrays are then assembled as their members\n"
		"                      appear; with --host-only, the host's " MDADM_CONF " too\n"
		"  --md-tool PATH      the static mdadm binary to add (implies --md)\n"
		"  --md-conf FILE      the mdadm.conf to add as " MDADM_CONF " (implies --md)\n"
		"  --keymap NAME|FILE  a console keymap for the passphrase prompt, compiled with\n"
		"                      loadkeys -b (package kbd; keymaps from console-data):\n"
		"                      de-latin1, or a .map(.gz) file; repeatable, the first is the\n"
		"                      default, rd.vconsole.keymap=NAME picks another\n"
		"  --no-fsck           leave out the filesystem checkers (e2fsck, fsck.fat), which are\n"
		"                      otherwise added with their libraries when present and built\n"
		"                      for the image's architecture\n"
		"  --fsck-root DIR     take the checkers and their libraries from DIR instead of /\n"
		"                      (another architecture's packages unpacked with dpkg-deb -x)\n"
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

int initramfs_parse_args(struct builder *b, int argc, char **argv)
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
		OPT_LUKS,
		OPT_LUKS_HELPER,
		OPT_LVM,
		OPT_LVM_TOOL,
		OPT_MD,
		OPT_MD_TOOL,
		OPT_MD_CONF,
		OPT_KEYMAP,
		OPT_NO_FSCK,
		OPT_FSCK_ROOT,
		OPT_HOST_ONLY,
		OPT_SYSFS,
		OPT_MOUNTINFO,
		OPT_FSTAB,
		OPT_PRINT_MODULES,
		OPT_PRINT_NEEDS,
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
		{ "luks", no_argument, NULL, OPT_LUKS },
		{ "luks-helper", required_argument, NULL, OPT_LUKS_HELPER },
		{ "lvm", no_argument, NULL, OPT_LVM },
		{ "lvm-tool", required_argument, NULL, OPT_LVM_TOOL },
		{ "md", no_argument, NULL, OPT_MD },
		{ "md-tool", required_argument, NULL, OPT_MD_TOOL },
		{ "md-conf", required_argument, NULL, OPT_MD_CONF },
		{ "keymap", required_argument, NULL, OPT_KEYMAP },
		{ "no-fsck", no_argument, NULL, OPT_NO_FSCK },
		{ "fsck-root", required_argument, NULL, OPT_FSCK_ROOT },
		{ "host-only", no_argument, NULL, OPT_HOST_ONLY },
		{ "sysfs", required_argument, NULL, OPT_SYSFS },
		{ "mountinfo", required_argument, NULL, OPT_MOUNTINFO },
		{ "fstab", required_argument, NULL, OPT_FSTAB },
		{ "print-modules", no_argument, NULL, OPT_PRINT_MODULES },
		{ "print-needs", no_argument, NULL, OPT_PRINT_NEEDS },
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
		case OPT_LUKS:
			b->luks = true;
			break;
		case OPT_LUKS_HELPER:
			b->luks = true;
			b->luks_helper = optarg;
			break;
		case OPT_LVM:
			b->lvm = true;
			break;
		case OPT_LVM_TOOL:
			b->lvm = true;
			b->lvm_tool = optarg;
			break;
		case OPT_MD:
			b->md = true;
			break;
		case OPT_MD_TOOL:
			b->md = true;
			b->md_tool = optarg;
			break;
		case OPT_MD_CONF:
			b->md = true;
			b->md_conf = optarg;
			break;
		case OPT_KEYMAP:
			r = name_list_add(&b->keymaps, optarg);
			break;
		case OPT_NO_FSCK:
			b->no_fsck = true;
			break;
		case OPT_FSCK_ROOT:
			b->fsck_root = optarg;
			break;
		case OPT_HOST_ONLY:
			b->host_only = true;
			break;
		case OPT_SYSFS:
			b->sysfs = optarg;
			break;
		case OPT_MOUNTINFO:
			b->mountinfo = optarg;
			break;
		case OPT_FSTAB:
			b->fstab = optarg;
			break;
		case OPT_PRINT_NEEDS:
			b->print_needs = true;
			b->host_only = true;
			break;
		case OPT_PRINT_MODULES:
			b->print_modules = true;
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
	if (r == 0 && !b->print_needs && (!b->moddir || (!b->output && !b->print_modules))) {
		log_err("%s is required (see earlymount initramfs --help)", !b->moddir ? "--moddir" : "-o OUT");
		r = -EINVAL;
	}
	if (r == 0)
		r = parse_mtime(b);
	return r;
}
