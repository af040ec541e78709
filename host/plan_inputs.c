/* The inputs of a plan made on the host: options, images, the command line. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "block_probe.h"
#include "efivars.h"
#include "exit_codes.h"
#include "fileio.h"
#include "host_args.h"
#include "plan_inputs.h"
#include "probe.h"
#include "stack_predict.h"
#include "util.h"
#include "uuid.h"

int plan_inputs_init(struct plan_inputs *in, const char *command)
{
	memset(in, 0, sizeof(*in));
	in->command = command;
	in->machine.arch = arch_native();
	in->opts = calloc(1, sizeof(*in->opts));
	if (!in->opts)
		fprintf(stderr, "earlymount: out of memory\n");
	return in->opts ? 0 : EXIT_SYSTEM;
}

static int usage_error(const struct plan_inputs *in, const char *what, const char *value)
{
	return host_usage_error(in->command, what, value);
}

int plan_inputs_fstab(struct plan_inputs *in, const char *path)
{
	static char text[FSTAB_TEXT_MAX + 1];
	ssize_t n = read_file_at(AT_FDCWD, path, text, sizeof(text));

	if (n < 0)
		return usage_error(in, "--fstab names no readable file:", path);
	fstab_parse_initrd(text, (size_t)n, &in->machine.fstab);
	in->machine.has_fstab = true;
	return 0;
}

int plan_inputs_crypttab(struct plan_inputs *in, const char *path)
{
	static char text[CRYPTTAB_TEXT_MAX + 1];
	ssize_t n = read_file_at(AT_FDCWD, path, text, sizeof(text));

	if (n < 0)
		return usage_error(in, "--crypttab names no readable file:", path);
	plan_inputs_crypttab_text(in, text, (size_t)n);
	return 0;
}

void plan_inputs_crypttab_text(struct plan_inputs *in, const char *text, size_t len)
{
	crypttab_parse(text, len, &in->machine.crypttab);
	in->machine.has_crypttab = true;
}

static int set_image(void *ctx, const char *value)
{
	struct plan_inputs *in = ctx;
	int r = 0;

	if (in->n_images == PLAN_MAX_IMAGES)
		r = usage_error(in, "too many --image options; the limit is 64", NULL);
	else
		in->images[in->n_images++] = value;
	return r;
}

static int set_machine_id(void *ctx, const char *value)
{
	struct plan_inputs *in = ctx;
	int r = 0;

	if (id128_parse(value, in->machine.machine_id) < 0)
		r = usage_error(in, "--machine-id needs 32 hex digits (or a UUID), not", value);
	in->machine.has_machine_id = true;
	in->has_machine_id = true;
	return r;
}

static int set_arch(void *ctx, const char *value)
{
	struct plan_inputs *in = ctx;
	int r = 0;

	in->machine.arch = arch_from_name(value);
	if (in->machine.arch == ARCH_INVALID)
		r = usage_error(in, "--arch names no architecture earlymount knows (x86-64, arm64, "
				"x86, arm, riscv64, ppc64le, s390x, loongarch64):", value);
	return r;
}

static int set_loader_partuuid(void *ctx, const char *value)
{
	struct plan_inputs *in = ctx;
	struct machine *m = &in->machine;
	int r = 0;

	if (COPY_STR(m->loader_partuuid, value) < 0 || uuid_normalize(m->loader_partuuid) < 0)
		r = usage_error(in, "--loader-partuuid needs a UUID, not", value);
	return r;
}

static int set_fstab(void *ctx, const char *value)
{
	return plan_inputs_fstab(ctx, value);
}

static int set_crypttab(void *ctx, const char *value)
{
	return plan_inputs_crypttab(ctx, value);
}

/* A /run/net-IFACE.conf (klibc's ipconfig's): the interface the boot configured, and what
 * DHCP named (root-path, next server). */
static int read_lease(struct plan_inputs *in, const char *path)
{
	char text[4096];
	ssize_t n = read_file_at(AT_FDCWD, path, text, sizeof(text));

	if (n < 0 || net_lease_parse(text, (size_t)n, &in->machine.net) < 0)
		return -EINVAL;
	in->machine.has_net = true;
	return 0;
}

static int set_lease(void *ctx, const char *value)
{
	struct plan_inputs *in = ctx;

	return read_lease(in, value) < 0
		       ? usage_error(in, "--lease names no readable lease with an IPV4ADDR (a /run/net-IFACE.conf):", value)
		       : 0;
}

/* The running system's lease, which its initramfs left (an NFS root's). */
static void host_lease(struct plan_inputs *in)
{
	char path[300];
	struct dirent *e;
	DIR *d = opendir("/run");

	while (d && !in->machine.has_net && (e = readdir(d))) {
		if (strncmp(e->d_name, "net-", 4) != 0 || !strstr(e->d_name, ".conf"))
			continue;
		snprintf(path, sizeof(path), "/run/%s", e->d_name);
		(void)read_lease(in, path);
	}
	if (d)
		closedir(d);
}

const struct host_opt plan_input_opts[] = {
	{ "image", 'i', "FILE", HOST_SETTER(set_image),
	  .help = "a disk image (or block device); repeat for several disks" },
	{ "cmdline", 'c', "STRING", HOST_STRING(struct plan_inputs, cmdline),
	  .help = "the kernel command line" },
	{ "machine-id", 'm', "HEX", HOST_SETTER(set_machine_id),
	  .help = "the machine ID (as in /etc/machine-id), for the /var rule" },
	{ "arch", 'a', "ARCH", HOST_SETTER(set_arch),
	  .help = "the machine's architecture (default: this binary's)" },
	{ "loader-partuuid", 'l', "UUID", HOST_SETTER(set_loader_partuuid),
	  .help = "LoaderDevicePartUUID, as systemd-boot sets it" },
	{ "fstab", 'f', "FILE", HOST_SETTER(set_fstab),
	  .help = "the root's /etc/fstab: its /usr and x-initrd.mount entries" },
	{ "crypttab", 't', "FILE", HOST_SETTER(set_crypttab),
	  .help = "the initramfs's /etc/crypttab: the LUKS volumes the boot opens" },
	{ "lease", 0, "FILE", HOST_SETTER(set_lease),
	  .help = "what the network got at boot (a /run/net-IFACE.conf): the\n"
		  "client's address, DHCP's root-path, for an NFS root" },
	{ 0 },
};

static int probe_images(struct plan_inputs *in)
{
	int r = 0;

	for (size_t i = 0; i < in->n_images && r == 0; i++) {
		struct disk *disk = disk_set_add(&in->disks);
		int p = disk ? probe_disk(in->images[i], disk) : -ENOMEM;

		if (p < 0) {
			fprintf(stderr, "earlymount: cannot read %s: %s\n", in->images[i], strerror(-p));
			r = EXIT_SYSTEM;
		}
	}
	return r;
}

/* What was not given by hand, from the running host: its command line, machine ID, fstab,
 * boot loader's partition and block devices. */
int plan_inputs_host(struct plan_inputs *in)
{
	static char cmdline[4096];
	char id[64];
	struct machine *m = &in->machine;
	int r = 0;

	if (!in->cmdline) {
		if (read_file_at(AT_FDCWD, "/proc/cmdline", cmdline, sizeof(cmdline)) < 0) {
			fprintf(stderr, "earlymount: cannot read /proc/cmdline: %s (give --cmdline)\n",
				strerror(errno));
			return EXIT_SYSTEM;
		}
		cmdline[strcspn(cmdline, "\n")] = '\0';
		in->cmdline = cmdline;
	}
	if (!m->has_machine_id && read_file_at(AT_FDCWD, "/etc/machine-id", id, sizeof(id)) > 0) {
		id[strcspn(id, "\n")] = '\0';
		m->has_machine_id = id128_parse(id, m->machine_id) == 0;
	}
	if (!m->has_fstab && access("/etc/fstab", R_OK) == 0)
		r = plan_inputs_fstab(in, "/etc/fstab");
	if (r == 0 && !m->loader_partuuid[0])
		(void)efivars_boot_partuuid(EFIVARS_DIR, m->loader_partuuid);
	if (r == 0 && !m->has_net)
		host_lease(in);
	if (r == 0 && (r = block_probe_all(&in->disks)) < 0) {
		fprintf(stderr, "earlymount: cannot list the block devices in /sys/class/block: %s\n",
			strerror(-r));
		r = EXIT_SYSTEM;
	}
	return r;
}

int plan_inputs_load(struct plan_inputs *in)
{
	char err[256] = "";
	const struct fstab *fstab = in->machine.has_fstab ? &in->machine.fstab : NULL;
	int r = cmdline_parse(in->cmdline ? in->cmdline : "", in->opts, err, sizeof(err));

	/* a malformed --cmdline is the caller's mistake: the parser's sentence says which word */
	if (r < 0)
		return usage_error(in, err[0] ? err : "--cmdline is malformed", NULL);
	r = probe_images(in);
	if (r == 0 && stack_predict(in->opts, fstab, &in->disks) < 0) {
		fprintf(stderr, "earlymount: out of memory\n");
		r = EXIT_SYSTEM;
	}
	return r;
}

int plan_inputs_build(struct plan_inputs *in, struct plan *plan)
{
	struct plan_input input = { .opts = in->opts, .disks = &in->disks, .machine = &in->machine };
	int r = 0;

	if (plan_build(&input, plan) < 0) {
		if (!plan->error[0])
			COPY_STR(plan->error, "no plan could be made");
		r = EXIT_REFUSED;
	}
	return r;
}

void plan_inputs_free(struct plan_inputs *in)
{
	disk_set_free(&in->disks);
	free(in->opts);
	in->opts = NULL;
}
