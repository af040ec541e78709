/* `earlymount qemu`: boots a kernel with an earlymount initramfs in QEMU, against a disk image
 * or a directory shared as the root, and exits with the guest's status (for CI). A thin
 * wrapper: the initramfs comes from `earlymount initramfs` (cached by its inputs), the VM
 * from qemu_run.c, and --verbose prints both commands. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "cmdline.h"
#include "commands.h"
#include "execute.h"
#include "fileio.h"
#include "host_args.h"
#include "initramfs.h"
#include "log.h"
#include "path.h"
#include "qemu_run.h"
#include "sha256.h"
#include "util.h"

#define ROOT_TAG "root"

struct qemu_args {
	const char *kernel;
	const char *moddir;
	const char *image;
	const char *root;
	const char *share;
	const char *init;
	const char *initrd;
	const char *accel;
	enum arch arch;
	bool rw;
	bool verbose;
	bool help;
	unsigned memory_mib;
	int timeout_sec;
	char extra[CMDLINE_MAX];
};

static const char usage_text[] =
	"usage: earlymount qemu [--kernel FILE] (--image FILE | --root DIR) [OPTIONS] [-- ARGS...]\n"
	"\n"
	"Boots a kernel in QEMU with an earlymount initramfs for its modules; exits 0 when the\n"
	"guest powers off, 1 when its boot fails, 124 on --timeout.\n"
	"\n"
	"  --kernel FILE     the kernel (default: /boot/vmlinuz-$(uname -r))\n"
	"  --moddir DIR      its modules (default: /lib/modules/KVER, KVER from the kernel's\n"
	"                    file name vmlinuz-KVER or from a bzImage's header)\n"
	"  --arch ARCH       the kernel's architecture (default: read from the kernel)\n"
	"  --image FILE      a disk image, as a virtio disk (a snapshot: never written)\n"
	"  --root DIR        a directory shared as the root: read-only under a tmpfs overlay\n"
	"                    (systemd.volatile=overlay) unless --rw\n"
	"  --share KIND      how --root is shared: virtiofs (default when " VIRTIOFSD_PATH "\n"
	"                    is there and this runs as root) or 9p\n"
	"  --rw              --root read-write, without the overlay\n"
	"  --init PATH       the earlymount binary for the guest (default: this one, or\n"
	"                    ../ARCH/earlymount beside it for another architecture)\n"
	"  --initrd FILE     boot this initramfs instead of building one\n"
	"  --accel kvm|tcg   default: kvm when /dev/kvm can make a VM of the kernel's arch,\n"
	"                    tcg again when that guest says nothing within 5 s\n"
	"  --memory MIB      the guest's memory (default 512)\n"
	"  --timeout SEC     stop QEMU after SEC seconds (exit 124)\n"
	"  -v, --verbose     print the commands run\n"
	"  -h, --help        this text\n"
	"  -- ARGS...        more kernel command-line arguments\n";

static const struct option long_options[] = {
	{ "kernel", required_argument, NULL, 'k' }, { "moddir", required_argument, NULL, 'M' },
	{ "arch", required_argument, NULL, 'a' },   { "image", required_argument, NULL, 'i' },
	{ "root", required_argument, NULL, 'r' },   { "share", required_argument, NULL, 's' },
	{ "rw", no_argument, NULL, 'w' },           { "init", required_argument, NULL, 'I' },
	{ "initrd", required_argument, NULL, 'R' }, { "accel", required_argument, NULL, 'A' },
	{ "memory", required_argument, NULL, 'm' }, { "timeout", required_argument, NULL, 't' },
	{ "verbose", no_argument, NULL, 'v' },      { "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
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

static int parse_option(int c, const char *value, void *ctx)
{
	struct qemu_args *a = ctx;
	unsigned n;
	int r = 0;

	switch (c) {
	case 'k': a->kernel = value; break;
	case 'M': a->moddir = value; break;
	case 'i': a->image = value; break;
	case 'r': a->root = value; break;
	case 'w': a->rw = true; break;
	case 'I': a->init = value; break;
	case 'R': a->initrd = value; break;
	case 'v': a->verbose = true; break;
	case 'h': a->help = true; break;
	case 'a':
		a->arch = arch_from_name(value);
		if (a->arch == ARCH_INVALID)
			r = usage_error("unknown architecture", value);
		break;
	case 's':
		a->share = value;
		if (!streq(value, "virtiofs") && !streq(value, "9p"))
			r = usage_error("--share is virtiofs or 9p, not", value);
		break;
	case 'A':
		a->accel = value;
		if (!streq(value, "kvm") && !streq(value, "tcg"))
			r = usage_error("--accel is kvm or tcg, not", value);
		break;
	case 'm':
		if (parse_number(value, 1024 * 1024, &a->memory_mib) < 0)
			r = usage_error("--memory is a number of MiB, not", value);
		break;
	case 't':
		if (parse_number(value, 24 * 3600, &n) < 0)
			r = usage_error("--timeout is a number of seconds, not", value);
		a->timeout_sec = (int)n;
		break;
	}
	return r;
}

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

	a->arch = ARCH_INVALID;
	a->memory_mib = 512;
	r = host_getopt("qemu", argc, argv, "+:vh", long_options, parse_option, a);
	if (r == 0)
		r = join_extra(a, argc, argv);
	if (r == 0 && !a->help && !!a->image == !!a->root)
		r = usage_error("give one of --image FILE and --root DIR", NULL);
	if (r == 0 && a->rw && !a->root)
		r = usage_error("--rw is for --root", NULL);
	return r;
}

/* The kernel's arch from its header: a bzImage ("HdrS" at 0x202), an arm64 Image ("ARM\x64"
 * at 0x38), or an ELF vmlinux; KVER from a bzImage's version string when asked. */
static enum arch kernel_arch(const char *path, char *kver, size_t kver_size)
{
	unsigned char h[0x240];
	enum arch arch = ARCH_INVALID;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? pread(fd, h, sizeof(h), 0) : -1;

	if (n == (ssize_t)sizeof(h) && memcmp(h + 0x202, "HdrS", 4) == 0) {
		unsigned off = (unsigned)h[0x20e] | (unsigned)h[0x20f] << 8;
		char text[128] = "";

		arch = ARCH_X86_64;
		if (off && pread(fd, text, sizeof(text) - 1, off + 0x200) > 0) {
			text[strcspn(text, " ")] = '\0';
			snprintf(kver, kver_size, "%s", text);
		}
	} else if (n == (ssize_t)sizeof(h) && memcmp(h + 0x38, "ARM\x64", 4) == 0) {
		arch = ARCH_AARCH64;
	} else if (n > 0 && elf_file_arch(path, &arch) < 0) {
		arch = ARCH_INVALID;
	}
	if (fd >= 0)
		close(fd);
	return arch;
}

/* --kernel, --moddir and --arch as given, or found. */
static int find_kernel(struct qemu_args *a, char *kernel, char *moddir)
{
	char kver[NAME_MAX + 1] = "";
	struct utsname u;
	const char *base;

	if (!a->kernel) {
		uname(&u);
		snprintf(kver, sizeof(kver), "%s", u.release);
		snprintf(kernel, PATH_MAX, "/boot/vmlinuz-%s", u.release);
	} else {
		snprintf(kernel, PATH_MAX, "%s", a->kernel);
		base = strrchr(a->kernel, '/') ? strrchr(a->kernel, '/') + 1 : a->kernel;
		if (startswith(base, "vmlinuz-") || startswith(base, "vmlinux-"))
			snprintf(kver, sizeof(kver), "%s", base + 8);
	}
	if (access(kernel, R_OK) < 0) {
		log_err("unable to read the kernel %s: %s (give --kernel)", kernel, strerror(errno));
		return EXIT_SYSTEM;
	}
	if (a->arch == ARCH_INVALID)
		a->arch = kernel_arch(kernel, kver[0] ? NULL : kver, kver[0] ? 0 : sizeof(kver));
	if (a->arch == ARCH_INVALID) {
		log_err("unable to tell the architecture of %s: give --arch", kernel);
		return EXIT_USAGE;
	}
	if (a->moddir)
		snprintf(moddir, PATH_MAX, "%s", a->moddir);
	else if (kver[0])
		snprintf(moddir, PATH_MAX, "/lib/modules/%s", kver);
	if (!a->initrd && !moddir[0]) {
		log_err("unable to tell which modules go with %s: give --moddir", kernel);
		return EXIT_USAGE;
	}
	return 0;
}

/* The earlymount binary for the guest: --init, this one, or ../ARCH/earlymount beside it
 * (the build tree's layout). */
static int find_init(const struct qemu_args *a, char *init)
{
	char self[PATH_MAX];
	enum arch arch = ARCH_INVALID;
	int r;
	char *slash;

	if (a->init) {
		snprintf(init, PATH_MAX, "%s", a->init);
		return 0;
	}
	r = path_self(self, sizeof(self));
	if (r < 0)
		return r;
	if (elf_file_arch(self, &arch) == 0 && arch == a->arch) {
		snprintf(init, PATH_MAX, "%s", self);
		return 0;
	}
	slash = strrchr(self, '/');
	*slash = '\0';
	slash = strrchr(self, '/');
	if (slash)
		*slash = '\0';
	if (snprintf(init, PATH_MAX, "%s/%s/earlymount", self,
		     a->arch == ARCH_AARCH64 ? "aarch64" : a->arch == ARCH_X86_64 ? "x86_64" : "?") >=
	    PATH_MAX)
		return -ENAMETOOLONG;
	return access(init, X_OK) == 0 ? 0 : -ENOENT;
}

static void hash_file(struct sha256_ctx *h, const char *path)
{
	struct stat st = { 0 };

	stat(path, &st);
	sha256_update(h, path, strlen(path) + 1);
	sha256_update(h, &st.st_size, sizeof(st.st_size));
	sha256_update(h, &st.st_mtim, sizeof(st.st_mtim));
}

/* The cached image for these inputs: the module set (modules.dep), the /init binary, the
 * builder (this binary) and the arch. */
static void cache_path(const struct qemu_args *a, const char *moddir, const char *init, char *out)
{
	char dep[PATH_MAX + 16];
	uint8_t digest[SHA256_DIGEST_SIZE];
	struct sha256_ctx h;
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char hex[17];

	snprintf(dep, sizeof(dep), "%s/modules.dep", moddir);
	sha256_init(&h);
	hash_file(&h, dep);
	hash_file(&h, init);
	hash_file(&h, PATH_SELF);
	sha256_update(&h, &a->arch, sizeof(a->arch));
	sha256_final(&h, digest);
	for (size_t i = 0; i < 8; i++)
		snprintf(hex + 2 * i, 3, "%02x", digest[i]);
	if (xdg && xdg[0])
		snprintf(out, PATH_MAX, "%s/earlymount/initramfs-%s.img", xdg, hex);
	else if (home && home[0])
		snprintf(out, PATH_MAX, "%s/.cache/earlymount/initramfs-%s.img", home, hex);
	else
		snprintf(out, PATH_MAX, "/tmp/earlymount-cache/initramfs-%s.img", hex);
}

static int build_initramfs(const struct qemu_args *a, const char *moddir, const char *init,
			   const char *out)
{
	char tmp[PATH_MAX + 8], dir[PATH_MAX];
	const char *argv[] = { PATH_SELF, "initramfs", "--moddir", moddir, "--init", init,
			       "--arch", arch_name(a->arch), "-o", tmp, NULL };
	int quiet = open("/dev/null", O_WRONLY | O_CLOEXEC);
	int status = 0;
	pid_t pid;
	int r;

	snprintf(tmp, sizeof(tmp), "%s.tmp", out);
	snprintf(dir, sizeof(dir), "%s", out);
	*strrchr(dir, '/') = '\0';
	if (make_directories(dir, 0755) < 0) {
		log_err("unable to make the cache directory %s: %s", dir, strerror(errno));
		return EXIT_SYSTEM;
	}
	if (a->verbose)
		fprintf(stderr, "+ earlymount initramfs --moddir %s --init %s --arch %s -o %s\n", moddir,
			init, arch_name(a->arch), tmp);
	r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = a->verbose ? -1 : quiet,
					     .err = -1, .exec_failed = 127 },
			&pid);
	if (quiet >= 0)
		close(quiet);
	if (r == 0)
		r = child_wait(pid, &status);
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		log_err("earlymount initramfs failed for %s (see above)", moddir);
		unlink(tmp);
		return EXIT_SYSTEM;
	}
	return rename(tmp, out) == 0 ? 0 : EXIT_SYSTEM;
}

/* --initrd, or the cached image, built when missing. */
static int find_initrd(const struct qemu_args *a, const char *moddir, char *initrd)
{
	char init[PATH_MAX];

	if (a->initrd) {
		snprintf(initrd, PATH_MAX, "%s", a->initrd);
		return 0;
	}
	if (find_init(a, init) < 0) {
		log_err("no earlymount binary for %s guests: give --init", arch_name(a->arch));
		return EXIT_USAGE;
	}
	cache_path(a, moddir, init, initrd);
	if (access(initrd, R_OK) == 0) {
		if (a->verbose)
			fprintf(stderr, "earlymount qemu: reusing %s\n", initrd);
		return 0;
	}
	return build_initramfs(a, moddir, init, initrd);
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
			fputs(usage_text, stdout);
		return r;
	}
	r = find_kernel(&args, kernel, moddir);
	if (r == 0)
		r = find_initrd(&args, moddir, initrd);
	if (r != 0)
		return r;
	if (args.root && !realpath(args.root, root)) {
		log_err("unable to share %s: %s", args.root, strerror(errno));
		return EXIT_SYSTEM;
	}
	vm = (struct qemu_vm){ .arch = args.arch, .kernel = kernel, .initrd = initrd,
			       .append = append, .image = args.image,
			       .share_dir = args.root ? root : NULL, .share_kind = choose_share(&args),
			       .share_tag = ROOT_TAG, .memory_mib = args.memory_mib,
			       .timeout_sec = args.timeout_sec, .verbose = args.verbose };
	vm.kvm = args.accel ? streq(args.accel, "kvm") : qemu_kvm_usable(args.arch);
	vm.kvm_fallback = !args.accel;
	if (snprintf(append, sizeof(append), "console=%s panic=-1%s%s%s%s%s",
		     qemu_console_device(args.arch), args.root ? " root=" : "",
		     !args.root			    ? ""
		     : streq(vm.share_kind, "9p") ? "virtfs:" ROOT_TAG
						    : "virtiofs:" ROOT_TAG,
		     !args.root ? "" : args.rw ? " rw" : " systemd.volatile=overlay",
		     args.extra[0] ? " " : "", args.extra) >= (int)sizeof(append))
		return usage_error("the kernel command line would be too long", NULL);
	/* which accelerator, always: a TCG boot is many times slower, and people should know why */
	fprintf(stderr, "earlymount qemu: %s guest, %s, root %s\n", arch_name(args.arch),
		vm.kvm ? "KVM" : args.accel ? "TCG (--accel tcg)" : "TCG (no /dev/kvm that makes VMs)",
		args.image ? "discovered on the image" : vm.share_kind);
	return qemu_run(&vm);
}
