/* `earlymount uki`: a unified kernel image: systemd-stub (Debian's systemd-boot-efi) with the
 * kernel, an earlymount initramfs, the command line and the os-release added as the sections
 * the stub reads, by ukify where the system has it, else by objcopy; optionally a signed PCR 11 policy (systemd-measure), SBAT lines
 * and a Secure Boot signature (sbsign). The sections go after the stub's own, each at the next
 * section-aligned address, as systemd-stub(7) asks. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "cmdline.h"
#include "commands.h"
#include "fileio.h"
#include "guest_kernel.h"
#include "host_args.h"
#include "log.h"
#include "path.h"
#include "pe_file.h"
#include "util.h"

#define STUB_DIR "/usr/lib/systemd/boot/efi"
#define MEASURE_PATH "/usr/lib/systemd/systemd-measure"
#define HEAD_SIZE (64 * 1024)
#define SECTIONS_MAX 12
#define ARGV_MAX (4 + 4 * SECTIONS_MAX + 4)
/* The first line of every SBAT section (shim's SBAT.md): the format's own generation. */
#define SBAT_HEADER "sbat,1,SBAT Version,sbat,1,https://github.com/rhboot/shim/blob/main/SBAT.md\n"

struct uki_args {
	struct guest_inputs guest; /* --kernel, --moddir, --init, --initrd, --arch, --verbose */
	const char *output;
	const char *cmdline;
	const char *os_release;
	const char *stub;
	const char *splash;
	const char *sbat;
	const char *objcopy;
	const char *pcr_private_key, *pcr_public_key, *tpm2_device;
	const char *sb_key, *sb_cert;
	bool help;
	char partial[PATH_MAX + 8]; /* OUTPUT.tmp: what the tools write, renamed when all went well */
};

static int usage_error(const char *what, const char *value)
{
	return host_usage_error("uki", what, value);
}

static int set_arch(void *ctx, const char *value)
{
	struct uki_args *a = ctx;

	a->guest.arch = arch_from_name(value);
	return a->guest.arch == ARCH_INVALID ? usage_error("unknown architecture", value) : 0;
}

#define UKI_STRING(member) HOST_STRING(struct uki_args, member)

static const struct host_opt uki_opts[] = {
	{ "output", 'o', "FILE", UKI_STRING(output), .help = "the image to write" },
	{ "kernel", 0, "FILE", UKI_STRING(guest.kernel),
	  .help = "an EFI-stub kernel (default: /boot/vmlinuz-$(uname -r))" },
	{ "moddir", 0, "DIR", UKI_STRING(guest.moddir),
	  .help = "its modules, for the initramfs built here (default:\n/lib/modules/KVER)" },
	{ "initrd", 0, "FILE", UKI_STRING(guest.initrd), .help = "this initramfs instead of building one" },
	{ "init", 0, "PATH", UKI_STRING(guest.init),
	  .help = "the earlymount binary for the initramfs built here" },
	{ "arch", 0, "ARCH", HOST_SETTER(set_arch), .help = "x86_64 or aarch64 (default: the kernel's)" },
	{ "cmdline", 0, "TEXT|@FILE", UKI_STRING(cmdline),
	  .help = "the kernel command line (default: none)" },
	{ "os-release", 0, "FILE", UKI_STRING(os_release),
	  .help = "default: /etc/os-release, else /usr/lib/os-release" },
	{ "splash", 0, "FILE", UKI_STRING(splash), .help = "a BMP image the stub shows" },
	{ "stub", 0, "FILE", UKI_STRING(stub),
	  .help = "default: " STUB_DIR "/linux{x64,aa64}.efi.stub" },
	{ "sbat", 0, "FILE", UKI_STRING(sbat), .help = "SBAT lines added to the stub's" },
	{ "objcopy", 0, "PATH", UKI_STRING(objcopy),
	  .help = "default: ukify when it is installed, else objcopy\n"
		  "(ARCH-linux-gnu-objcopy for another arch); given, objcopy" },
	{ "pcr-private-key", 0, "FILE", UKI_STRING(pcr_private_key),
	  .help = "sign the PCR 11 values of the image's boot phases with" },
	{ "pcr-public-key", 0, "FILE", UKI_STRING(pcr_public_key),
	  .help = "this RSA key pair (systemd-measure; its .pcrsig and .pcrpkey)" },
	{ "tpm2-device", 0, "PATH", UKI_STRING(tpm2_device),
	  .help = "the TPM systemd-measure calculates with (systemd 252 needs one)" },
	{ "secureboot-private-key", 0, "FILE", UKI_STRING(sb_key),
	  .help = "sign the image for Secure Boot (sbsign)" },
	{ "secureboot-certificate", 0, "FILE", UKI_STRING(sb_cert), .help = "with this certificate" },
	{ "verbose", 'v', NULL, HOST_FLAG(struct uki_args, guest.verbose), .help = "print the commands run" },
	{ "help", 'h', NULL, HOST_FLAG(struct uki_args, help), .help = "this text" },
	{ 0 },
};

static const struct host_command uki_command = {
	.name = "uki",
	.head = "usage: earlymount uki -o FILE [--kernel FILE] [--cmdline TEXT|@FILE] [OPTIONS]\n"
		"\n"
		"Builds a unified kernel image: systemd-stub with the kernel, an earlymount initramfs,\n"
		"the command line and the os-release, bootable by UEFI firmware or a boot loader.\n"
		"\n",
	.groups = { { uki_opts, 0 } },
	.column = 27,
};

static int parse_args(int argc, char **argv, struct uki_args *a)
{
	int r;

	a->guest.arch = ARCH_INVALID;
	r = host_args_parse(&uki_command, argc, argv, a);
	if (r == 0 && optind < argc)
		r = usage_error("unexpected argument", argv[optind]);
	if (r == 0 && !a->help && !a->output)
		r = usage_error("give the image to write with -o FILE", NULL);
	if (r == 0 && !!a->pcr_private_key != !!a->pcr_public_key)
		r = usage_error("--pcr-private-key and --pcr-public-key go together", NULL);
	if (r == 0 && !!a->sb_key != !!a->sb_cert)
		r = usage_error("--secureboot-private-key and --secureboot-certificate go together", NULL);
	return r;
}

/* The headers of the PE image at path: 0, or an exit status, reported. */
static int read_pe(const char *path, const char *what, struct pe_file *pe)
{
	static uint8_t head[HEAD_SIZE];
	char why[160];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, head, sizeof(head));
	int r = 0;

	if (n < 0) {
		log_err("unable to read %s %s: %s", what, path, strerror(errno));
		r = EXIT_SYSTEM;
	} else if (pe_parse(head, (size_t)n, pe, why, sizeof(why)) < 0) {
		log_err("%s %s cannot go into a UKI: %s", what, path, why);
		r = EXIT_USAGE;
	}
	if (fd >= 0)
		close(fd);
	return r;
}

/* Both must be UEFI programs of the arch: a kernel built without the EFI stub, or a stub
 * of the other arch, would make an image the firmware refuses, or one that hangs. */
static int check_pe_arch(const char *path, const char *what, enum arch arch, struct pe_file *pe)
{
	int r = read_pe(path, what, pe);

	if (r == 0 && pe_machine_arch(pe->machine) != arch) {
		log_err("%s %s is a UEFI program for machine 0x%04x, not for %s%s", what, path,
			pe->machine, arch_name(arch),
			streq(what, "the kernel") ? " (a kernel built with CONFIG_EFI_STUB)" : "");
		r = EXIT_USAGE;
	}
	return r;
}

struct workdir {
	char path[PATH_MAX - 32]; /* room for the names of the files made in it */
};

static int write_text_file(const struct workdir *w, const char *name, const char *text,
			   char *out)
{
	int fd, r;

	snprintf(out, PATH_MAX, "%s/%s", w->path, name);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	r = fd < 0 ? -errno : write_all(fd, text, strlen(text));
	if (fd >= 0)
		close(fd);
	if (r < 0)
		log_err("unable to write %s: %s", out, strerror(-r));
	return r < 0 ? EXIT_SYSTEM : 0;
}

/* The command line as a file: @FILE as it is, TEXT written to one (the stub reads it as is:
 * no newline is added). */
static int cmdline_file(const struct uki_args *a, const struct workdir *w, char *out)
{
	int r = 0;

	if (a->cmdline && a->cmdline[0] == '@') {
		snprintf(out, PATH_MAX, "%s", a->cmdline + 1);
		if (access(out, R_OK) < 0) {
			log_err("unable to read the command line file %s: %s", out, strerror(errno));
			r = EXIT_SYSTEM;
		}
	} else {
		if (a->cmdline && strlen(a->cmdline) >= CMDLINE_MAX)
			r = usage_error("the command line is longer than the kernel takes", NULL);
		if (r == 0)
			r = write_text_file(w, "cmdline", a->cmdline ? a->cmdline : "", out);
	}
	return r;
}

static int os_release_file(const struct uki_args *a, char *out)
{
	static const char *const defaults[] = { "/etc/os-release", "/usr/lib/os-release" };
	int r = EXIT_SYSTEM;

	if (a->os_release) {
		snprintf(out, PATH_MAX, "%s", a->os_release);
		r = access(out, R_OK) == 0 ? 0 : EXIT_SYSTEM;
	}
	for (size_t i = 0; i < ARRAY_SIZE(defaults) && !a->os_release && r != 0; i++) {
		snprintf(out, PATH_MAX, "%s", defaults[i]);
		r = access(out, R_OK) == 0 ? 0 : EXIT_SYSTEM;
	}
	if (r != 0)
		log_err("unable to read the os-release %s: %s (give --os-release)",
			a->os_release ? a->os_release : "/etc/os-release", strerror(errno));
	return r;
}

/* The stub's own SBAT lines and those of --sbat, the header once: shim reads one section. */
static int sbat_file(const struct uki_args *a, const char *stub, const struct pe_file *pe,
		     const struct workdir *w, char *out)
{
	static char text[64 * 1024];
	const struct pe_section *s = pe_find_section(pe, ".sbat");
	size_t used = 0, extra_len;
	char extra[16 * 1024];
	int fd, r = 0;
	ssize_t n;

	if (s && s->virtual_size < sizeof(text) / 2) {
		fd = open(stub, O_RDONLY | O_CLOEXEC);
		n = fd < 0 ? -1 : pread(fd, text, s->virtual_size, s->raw_offset);
		used = n > 0 ? strnlen(text, (size_t)n) : 0;
		if (fd >= 0)
			close(fd);
	}
	if (used == 0)
		used = (size_t)snprintf(text, sizeof(text), "%s", SBAT_HEADER);
	if (used > 0 && text[used - 1] != '\n')
		text[used++] = '\n';
	n = read_file_at(AT_FDCWD, a->sbat, extra, sizeof(extra));
	if (n < 0) {
		log_err("unable to read the SBAT lines %s: %s", a->sbat, strerror((int)-n));
		return EXIT_SYSTEM;
	}
	extra_len = (size_t)n;
	/* the file's own header line, if it has one, is the stub's already */
	if (startswith(extra, "sbat,")) {
		const char *nl = strchr(extra, '\n');

		extra_len -= nl ? (size_t)(nl + 1 - extra) : extra_len;
		memmove(extra, nl ? nl + 1 : extra + n, extra_len + 1);
	}
	snprintf(text + used, sizeof(text) - used, "%s", extra);
	r = write_text_file(w, "sbat", text, out);
	return r;
}

/* Runs argv: 0, or EXIT_SYSTEM, reported. out: where its standard output goes (-1: ours). */
static int run_tool(const char *const *argv, int out, bool verbose)
{
	pid_t pid;
	int status = 0;
	int r;

	if (verbose) {
		fputs("+", stderr);
		for (size_t i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fputs("\n", stderr);
	}
	r = child_start(&(struct child_spec){ .argv = argv, .in = -1, .out = out, .err = -1,
					     .exec_failed = 127 },
			&pid);
	if (r == 0)
		r = child_wait(pid, &status);
	if (r < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		log_err("%s failed%s (see above)", argv[0],
			r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127 ? ": not installed?" : "");
		r = EXIT_SYSTEM;
	}
	return r;
}

/* The sections the image gains, in the order they are placed. */
struct section {
	const char *name;
	char path[PATH_MAX];
};

struct sections {
	struct section s[SECTIONS_MAX];
	size_t n;
};

static void add_section(struct sections *list, const char *name, const char *path)
{
	list->s[list->n].name = name;
	snprintf(list->s[list->n].path, PATH_MAX, "%s", path);
	list->n++;
}

/* systemd-measure signs what the stub will measure into PCR 11 for each boot phase: the
 * sections added so far, all but .pcrsig itself. Its JSON becomes .pcrsig. */
static int measure(const struct uki_args *a, const struct sections *list, const struct workdir *w,
		   char *out)
{
	static char words[SECTIONS_MAX + 4][PATH_MAX + 32];
	const char *argv[SECTIONS_MAX + 12];
	size_t n = 0, k = 0;
	int fd, r;

	argv[n++] = MEASURE_PATH;
	argv[n++] = "sign";
	for (size_t i = 0; i < list->n; i++, k++) {
		snprintf(words[k], sizeof(words[k]), "--%s=%s", list->s[i].name + 1, list->s[i].path);
		argv[n++] = words[k];
	}
	snprintf(words[k], sizeof(words[k]), "--private-key=%s", a->pcr_private_key);
	argv[n++] = words[k++];
	snprintf(words[k], sizeof(words[k]), "--public-key=%s", a->pcr_public_key);
	argv[n++] = words[k++];
	if (a->tpm2_device) {
		snprintf(words[k], sizeof(words[k]), "--tpm2-device=%s", a->tpm2_device);
		argv[n++] = words[k++];
	}
	argv[n++] = "--bank=sha256";
	argv[n++] = "--json=short";
	argv[n] = NULL;
	snprintf(out, PATH_MAX, "%s/pcrsig", w->path);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		log_err("unable to write %s: %s", out, strerror(errno));
		return EXIT_SYSTEM;
	}
	r = run_tool(argv, fd, a->guest.verbose);
	close(fd);
	return r;
}

static int file_size(const char *path, uint64_t *size)
{
	struct stat st;
	int r = stat(path, &st) < 0 ? -errno : 0;

	*size = r == 0 ? (uint64_t)st.st_size : 0;
	return r;
}

/* objcopy stub → out, each section at the next aligned address after the stub's. */
static int place_sections(const struct uki_args *a, const char *objcopy, const char *stub,
			  const struct pe_file *pe, const struct sections *list, bool replace_sbat,
			  const char *out)
{
	static char words[2 * SECTIONS_MAX][PATH_MAX + 64];
	const char *argv[ARGV_MAX];
	uint64_t address = pe_end_address(pe), align = pe->section_alignment, size;
	size_t n = 0, k = 0;

	argv[n++] = objcopy;
	if (replace_sbat) {
		argv[n++] = "--remove-section";
		argv[n++] = ".sbat";
	}
	for (size_t i = 0; i < list->n; i++) {
		if (file_size(list->s[i].path, &size) < 0) {
			log_err("unable to read %s: %s", list->s[i].path, strerror(errno));
			return EXIT_SYSTEM;
		}
		snprintf(words[k], sizeof(words[k]), "%s=%s", list->s[i].name, list->s[i].path);
		argv[n++] = "--add-section";
		argv[n++] = words[k++];
		snprintf(words[k], sizeof(words[k]), "%s=0x%llx", list->s[i].name,
			 (unsigned long long)(pe->image_base + address));
		argv[n++] = "--change-section-vma";
		argv[n++] = words[k++];
		address += (size + align - 1) / align * align;
	}
	argv[n++] = stub;
	argv[n++] = out;
	argv[n] = NULL;
	return run_tool(argv, -1, a->guest.verbose);
}

/* objcopy of the host's arch handles its own PE format; Debian's binutils-ARCH-linux-gnu
 * that of the other. */
static void objcopy_for(const struct uki_args *a, char *out, size_t size)
{
	if (a->objcopy)
		snprintf(out, size, "%s", a->objcopy);
	else if (a->guest.arch == arch_native())
		snprintf(out, size, "objcopy");
	else
		snprintf(out, size, "%s-linux-gnu-objcopy",
			 a->guest.arch == ARCH_AARCH64 ? "aarch64" : "x86_64");
}

/* systemd's own builder, where the system has it (systemd 253 and later; not Debian 12): it
 * merges SBAT, measures without a TPM and signs itself, as newer stubs expect. */
static int run_ukify(const struct uki_args *a, const char *ukify, const char *kernel,
		     const char *initrd, const char *stub, const char *cmdline, const char *osrel)
{
	static char words[10][PATH_MAX + 32];
	const char *argv[20];
	size_t n = 0, k = 0;
	const struct {
		const char *option, *value, *prefix;
	} opts[] = {
		{ "--linux", kernel, "" },
		{ "--initrd", initrd, "" },
		{ "--cmdline", cmdline, "@" },
		{ "--os-release", osrel, "@" },
		{ "--stub", stub, "" },
		{ "--splash", a->splash, "" },
		{ "--sbat", a->sbat, "@" },
		{ "--pcr-private-key", a->pcr_private_key, "" },
		{ "--pcr-public-key", a->pcr_public_key, "" },
		{ "--secureboot-private-key", a->sb_key, "" },
		{ "--secureboot-certificate", a->sb_cert, "" },
		{ "--output", a->partial, "" },
	};

	argv[n++] = ukify;
	argv[n++] = "build";
	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if (!opts[i].value)
			continue;
		snprintf(words[k], sizeof(words[k]), "%s=%s%s", opts[i].option, opts[i].prefix,
			 opts[i].value);
		argv[n++] = words[k++];
	}
	argv[n] = NULL;
	if (a->tpm2_device)
		log_warn("ukify measures without a TPM: --tpm2-device %s is not used", a->tpm2_device);
	return run_tool(argv, -1, a->guest.verbose);
}

static int build(struct uki_args *a, const struct workdir *w)
{
	static char kernel[PATH_MAX], moddir[PATH_MAX], initrd[PATH_MAX], stub[PATH_MAX];
	static char cmdline[PATH_MAX], osrel[PATH_MAX], sbat[PATH_MAX], pcrsig[PATH_MAX];
	static char unsigned_out[PATH_MAX + 16], objcopy[PATH_MAX], ukify[PATH_MAX];
	static struct pe_file stub_pe, kernel_pe;
	struct sections list = { .n = 0 };
	const char *result = a->partial;
	int r = guest_find_kernel(&a->guest, kernel, moddir);

	if (r == 0)
		r = check_pe_arch(kernel, "the kernel", a->guest.arch, &kernel_pe);
	if (r == 0)
		snprintf(stub, sizeof(stub), "%s/linux%s.efi.stub", STUB_DIR,
			 a->guest.arch == ARCH_AARCH64 ? "aa64" : "x64");
	if (r == 0 && a->stub)
		snprintf(stub, sizeof(stub), "%s", a->stub);
	if (r == 0 && access(stub, R_OK) < 0) {
		log_err("no systemd-stub at %s: install systemd-boot-efi (of the %s arch), or give --stub",
			stub, arch_name(a->guest.arch));
		r = EXIT_SYSTEM;
	}
	if (r == 0)
		r = check_pe_arch(stub, "the stub", a->guest.arch, &stub_pe);
	if (r == 0)
		r = guest_find_initrd(&a->guest, moddir, initrd);
	if (r == 0)
		r = cmdline_file(a, w, cmdline);
	if (r == 0)
		r = os_release_file(a, osrel);
	if (r == 0 && !a->objcopy && path_find_program("ukify", "/usr/lib/systemd", ukify,
							  sizeof(ukify)) == 0)
		return run_ukify(a, ukify, kernel, initrd, stub, cmdline, osrel);
	if (r == 0 && a->sbat)
		r = sbat_file(a, stub, &stub_pe, w, sbat);
	if (r != 0)
		return r;
	add_section(&list, ".osrel", osrel);
	add_section(&list, ".cmdline", cmdline);
	if (a->splash)
		add_section(&list, ".splash", a->splash);
	if (a->pcr_public_key)
		add_section(&list, ".pcrpkey", a->pcr_public_key);
	add_section(&list, ".initrd", initrd);
	add_section(&list, ".linux", kernel);
	if (a->pcr_private_key) {
		r = measure(a, &list, w, pcrsig);
		if (r == 0)
			add_section(&list, ".pcrsig", pcrsig);
	}
	if (r == 0 && a->sbat)
		add_section(&list, ".sbat", sbat);
	if (r == 0 && a->sb_key) {
		snprintf(unsigned_out, sizeof(unsigned_out), "%s/unsigned.efi", w->path);
		result = unsigned_out;
	}
	objcopy_for(a, objcopy, sizeof(objcopy));
	if (r == 0)
		r = place_sections(a, objcopy, stub, &stub_pe, &list,
				   a->sbat && pe_find_section(&stub_pe, ".sbat"), result);
	if (r == 0 && a->sb_key)
		r = run_tool((const char *const[]){ "sbsign", "--key", a->sb_key, "--cert", a->sb_cert,
						    "--output", a->partial, unsigned_out, NULL },
			     -1, a->guest.verbose);
	return r;
}

static void remove_workdir(const struct workdir *w)
{
	static const char *const files[] = { "cmdline", "sbat", "pcrsig", "unsigned.efi" };
	char path[PATH_MAX + 16];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", w->path, files[i]);
		unlink(path);
	}
	rmdir(w->path);
}

int cmd_uki(int argc, char **argv)
{
	static struct uki_args args;
	struct workdir w;
	const char *tmp = getenv("TMPDIR");
	int r;

	memset(&args, 0, sizeof(args));
	r = parse_args(argc, argv, &args);
	if (r != 0 || args.help) {
		if (args.help)
			host_args_help(&uki_command, stdout);
		return r;
	}
	snprintf(w.path, sizeof(w.path), "%s/earlymount-uki.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
	if (!mkdtemp(w.path)) {
		log_err("unable to make a temporary directory %s: %s", w.path, strerror(errno));
		return EXIT_SYSTEM;
	}
	/* an image that exists is replaced only by a finished one */
	snprintf(args.partial, sizeof(args.partial), "%s.tmp", args.output);
	r = build(&args, &w);
	remove_workdir(&w);
	if (r == 0 && rename(args.partial, args.output) < 0) {
		log_err("unable to write %s: %s", args.output, strerror(errno));
		r = EXIT_SYSTEM;
	}
	if (r == 0)
		fprintf(stderr, "earlymount uki: %s\n", args.output);
	else
		unlink(args.partial);
	return r;
}
