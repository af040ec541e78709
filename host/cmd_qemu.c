/* `earlymount qemu`: boots a kernel with an earlymount initramfs in QEMU, against a disk image
 * or a directory shared as the root, and exits with the guest's status (for CI). A thin
 * wrapper: the initramfs comes from `earlymount initramfs` (cached by its inputs), the VM
 * from qemu_run.c, and --verbose prints both commands. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmdline.h"
#include "commands.h"
#include "guest_kernel.h"
#include "host_args.h"
#include "log.h"
#include "pe_file.h"
#include "qemu_run.h"
#include "util.h"

#define ROOT_TAG "root"

struct qemu_args {
	struct guest_inputs guest; /* --kernel, --moddir, --init, --initrd, --arch, --verbose */
	const char *image;
	const char *root;
	const char *share;
	const char *accel;
	const char *uki;
	bool rw;
	bool help;
	unsigned memory_mib;
	int timeout_sec;
	char extra[CMDLINE_MAX];
};

static int usage_error(const char *what, const char *value)
{
	return host_usage_error("qemu", what, value);
}

static int parse_number(const char *s, unsigned max, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v == 0 || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

static int set_arch(void *ctx, const char *value)
{
	struct qemu_args *a = ctx;

	a->guest.arch = arch_from_name(value);
	return a->guest.arch == ARCH_INVALID ? usage_error("unknown architecture", value) : 0;
}

static int set_share(void *ctx, const char *value)
{
	struct qemu_args *a = ctx;

	a->share = value;
	return streq(value, "virtiofs") || streq(value, "9p") ?
		       0 : usage_error("--share is virtiofs or 9p, not", value);
}

static int set_accel(void *ctx, const char *value)
{
	struct qemu_args *a = ctx;

	a->accel = value;
	return streq(value, "kvm") || streq(value, "tcg") ?
		       0 : usage_error("--accel is kvm or tcg, not", value);
}

static int set_memory(void *ctx, const char *value)
{
	struct qemu_args *a = ctx;

	return parse_number(value, 1024 * 1024, &a->memory_mib) == 0 ?
		       0 : usage_error("--memory is a number of MiB, not", value);
}

static int set_timeout(void *ctx, const char *value)
{
	struct qemu_args *a = ctx;
	unsigned n = 0;
	int r = parse_number(value, 24 * 3600, &n) == 0 ?
			0 : usage_error("--timeout is a number of seconds, not", value);

	a->timeout_sec = (int)n;
	return r;
}

#define QEMU_STRING(member) HOST_STRING(struct qemu_args, member)

static const struct host_opt qemu_opts[] = {
	{ "kernel", 0, "FILE", QEMU_STRING(guest.kernel),
	  .help = "the kernel (default: /boot/vmlinuz-$(uname -r))" },
	{ "moddir", 0, "DIR", QEMU_STRING(guest.moddir),
	  .help = "its modules (default: /lib/modules/KVER, KVER from the kernel's\n"
		  "file name vmlinuz-KVER or from a bzImage's header)" },
	{ "arch", 0, "ARCH", HOST_SETTER(set_arch),
	  .help = "the kernel's architecture (default: read from the kernel)" },
	{ "image", 0, "FILE", QEMU_STRING(image),
	  .help = "a disk image, as a virtio disk (a snapshot: never written)" },
	{ "root", 0, "DIR", QEMU_STRING(root),
	  .help = "a directory shared as the root: read-only under a tmpfs overlay\n"
		  "(systemd.volatile=overlay) unless --rw" },
	{ "share", 0, "KIND", HOST_SETTER(set_share),
	  .help = "how --root is shared: virtiofs (default when " VIRTIOFSD_PATH "\n"
		  "is there and this runs as root) or 9p" },
	{ "rw", 0, NULL, HOST_FLAG(struct qemu_args, rw), .help = "--root read-write, without the overlay" },
	{ "init", 0, "PATH", QEMU_STRING(guest.init),
	  .help = "the earlymount binary for the guest (default: this one, or\n"
		  "../ARCH/earlymount beside it for another architecture)" },
	{ "initrd", 0, "FILE", QEMU_STRING(guest.initrd),
	  .help = "boot this initramfs instead of building one" },
	{ "uki", 0, "FILE", QEMU_STRING(uki),
	  .help = "boot this unified kernel image (earlymount uki) under UEFI firmware\n"
		  "(OVMF, AAVMF) instead of a kernel and an initramfs; with --root or\n"
		  "ARGS the command line made here replaces the image's (systemd-stub\n"
		  "takes the loader's while Secure Boot is off)" },
	{ "accel", 0, "kvm|tcg", HOST_SETTER(set_accel),
	  .help = "default: kvm when /dev/kvm can make a VM of the kernel's arch,\n"
		  "tcg again when that guest says nothing within 5 s" },
	{ "memory", 0, "MIB", HOST_SETTER(set_memory), .help = "the guest's memory (default 512)" },
	{ "timeout", 0, "SEC", HOST_SETTER(set_timeout),
	  .help = "stop QEMU after SEC seconds (exit 124)" },
	{ "verbose", 'v', NULL, HOST_FLAG(struct qemu_args, guest.verbose), .help = "print the commands run" },
	{ "help", 'h', NULL, HOST_FLAG(struct qemu_args, help), .help = "this text" },
	{ 0 },
};

static const struct host_command qemu_command = {
	.name = "qemu",
	.head = "usage: earlymount qemu [--kernel FILE] (--image FILE | --root DIR) [OPTIONS] [-- ARGS...]\n"
		"\n"
		"Boots a kernel in QEMU with an earlymount initramfs for its modules; exits 0 when the\n"
		"guest powers off, 1 when its boot fails, 124 on --timeout.\n"
		"\n",
	.groups = { { qemu_opts, 0 } },
	.tail = "  -- ARGS...        more kernel command-line arguments\n",
	.column = 20,
};

/* The words after "--", joined: more kernel arguments. */
static int join_extra(struct qemu_args *a, int argc, char **argv)
{
	size_t used = 0;

	for (int i = optind; i < argc; i++) {
		int n = snprintf(a->extra + used, sizeof(a->extra) - used, "%s%s", used ? " " : "",
				 argv[i]);

		if (n < 0 || (size_t)n >= sizeof(a->extra) - used)
			return usage_error("the kernel arguments after -- are too long", NULL);
		used += (size_t)n;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct qemu_args *a)
{
	int r;

	a->guest.arch = ARCH_INVALID;
	a->memory_mib = 512;
	r = host_args_parse(&qemu_command, argc, argv, a);
	if (r == 0)
		r = join_extra(a, argc, argv);
	if (r == 0 && !a->help && !!a->image == !!a->root)
		r = usage_error("give one of --image FILE and --root DIR", NULL);
	if (r == 0 && a->rw && !a->root)
		r = usage_error("--rw is for --root", NULL);
	if (r == 0 && a->uki && (a->guest.kernel || a->guest.initrd || a->guest.moddir))
		r = usage_error("--uki holds the kernel and the initramfs: no --kernel, --initrd or --moddir with it", NULL);
	return r;
}

/* The UKI's arch, from its PE header: 0, or an exit status, reported. */
static int uki_arch(struct qemu_args *a)
{
	static uint8_t head[64 * 1024];
	static struct pe_file pe;
	char why[160] = "";
	int fd = open(a->uki, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head));
	enum arch arch = ARCH_INVALID;

	if (n >= 0 && pe_parse(head, (size_t)n, &pe, why, sizeof(why)) == 0)
		arch = pe_machine_arch(pe.machine);
	if (fd >= 0)
		close(fd);
	if (n < 0) {
		log_err("unable to read %s: %s", a->uki, strerror(errno));
		return EXIT_SYSTEM;
	}
	if (arch == ARCH_INVALID || (a->guest.arch != ARCH_INVALID && a->guest.arch != arch)) {
		log_err("%s is not a unified kernel image for %s: %s", a->uki,
			a->guest.arch != ARCH_INVALID ? arch_name(a->guest.arch) : "x86-64 or arm64",
			why[0] ? why : "another machine");
		return EXIT_USAGE;
	}
	a->guest.arch = arch;
	return 0;
}

/* virtiofs needs virtiofsd, which needs root; 9p needs only QEMU. */
static const char *choose_share(const struct qemu_args *a)
{
	if (a->share)
		return a->share;
	return geteuid() == 0 && access(VIRTIOFSD_PATH, X_OK) == 0 ? "virtiofs" : "9p";
}

int cmd_qemu(int argc, char **argv)
{
	static struct qemu_args args;
	static char kernel[PATH_MAX], moddir[PATH_MAX], initrd[PATH_MAX], root[PATH_MAX];
	static char append[CMDLINE_MAX];
	struct qemu_vm vm = { 0 };
	int r;

	memset(&args, 0, sizeof(args));
	moddir[0] = '\0';
	r = parse_args(argc, argv, &args);
	if (r != 0 || args.help) {
		if (args.help)
			host_args_help(&qemu_command, stdout);
		return r;
	}
	if (args.uki) {
		r = uki_arch(&args);
	} else {
		r = guest_find_kernel(&args.guest, kernel, moddir);
		if (r == 0)
			r = guest_find_initrd(&args.guest, moddir, initrd);
	}
	if (r != 0)
		return r;
	if (args.root && !realpath(args.root, root)) {
		log_err("unable to share %s: %s", args.root, strerror(errno));
		return EXIT_SYSTEM;
	}
	vm = (struct qemu_vm){ .arch = args.guest.arch, .kernel = kernel, .initrd = initrd,
			       .append = args.uki && !args.root && !args.extra[0] ? NULL : append,
			       .uki = args.uki, .image = args.image,
			       .share_dir = args.root ? root : NULL, .share_kind = choose_share(&args),
			       .share_tag = ROOT_TAG, .memory_mib = args.memory_mib,
			       .timeout_sec = args.timeout_sec, .verbose = args.guest.verbose };
	vm.kvm = args.accel ? streq(args.accel, "kvm") : qemu_kvm_usable(args.guest.arch);
	vm.kvm_fallback = !args.accel;
	if (snprintf(append, sizeof(append), "console=%s panic=-1%s%s%s%s%s",
		     qemu_console_device(args.guest.arch), args.root ? " root=" : "",
		     !args.root			    ? ""
		     : streq(vm.share_kind, "9p") ? "virtfs:" ROOT_TAG
						    : "virtiofs:" ROOT_TAG,
		     !args.root ? "" : args.rw ? " rw" : " systemd.volatile=overlay",
		     args.extra[0] ? " " : "", args.extra) >= (int)sizeof(append))
		return usage_error("the kernel command line would be too long", NULL);
	/* which accelerator, always: a TCG boot is many times slower, and people should know why */
	fprintf(stderr, "earlymount qemu: %s guest%s, %s, root %s\n", arch_name(args.guest.arch),
		args.uki ? " from a UKI under UEFI" : "",
		vm.kvm ? "KVM" : args.accel ? "TCG (--accel tcg)" : "TCG (no /dev/kvm that makes VMs)",
		args.image ? "discovered on the image" : vm.share_kind);
	return qemu_run(&vm);
}
