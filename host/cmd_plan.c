/* `earlymount plan`: what earlymount would mount at boot, computed on the host from disk
 * images, a command line and machine facts, with the same planner the boot uses. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "commands.h"
#include "disk.h"
#include "dps.h"
#include "emergency.h"
#include "failure.h"
#include "fileio.h"
#include "host_args.h"
#include "plan.h"
#include "plan_format.h"
#include "probe.h"
#include "util.h"
#include "uuid.h"

/* Enough for every image anyone passes by hand; keeps the argument list bounded. */
#define PLAN_MAX_IMAGES 64

struct plan_args {
	const char *images[PLAN_MAX_IMAGES];
	size_t n_images;
	const char *cmdline;
	bool json;
	bool help;
	struct machine machine;
};

static const char usage_text[] =
	"usage: earlymount plan --image FILE [--image FILE2 ...] [OPTIONS]\n"
	"\n"
	"Prints what earlymount would mount, from disk images, as at boot.\n"
	"\n"
	"  -i, --image FILE             a disk image (or block device); repeat for several disks\n"
	"  -c, --cmdline STRING         the kernel command line (default: empty)\n"
	"  -m, --machine-id HEX         the machine ID (as in /etc/machine-id), for the /var rule\n"
	"  -a, --arch ARCH              the machine's architecture (default: this binary's)\n"
	"  -l, --loader-partuuid UUID   LoaderDevicePartUUID, as systemd-boot sets it\n"
	"  -f, --fstab FILE             the root's /etc/fstab: its /usr and x-initrd.mount entries\n"
	"  -j, --json                   print JSON instead of text\n"
	"  -h, --help                   print this help\n"
	"\n"
	"Exit status: 0 planned, 1 refused (the reason on stderr), 2 usage error, 3 unreadable image.\n";

static const struct option long_options[] = {
	{ "image", required_argument, NULL, 'i' },
	{ "cmdline", required_argument, NULL, 'c' },
	{ "machine-id", required_argument, NULL, 'm' },
	{ "arch", required_argument, NULL, 'a' },
	{ "loader-partuuid", required_argument, NULL, 'l' },
	{ "fstab", required_argument, NULL, 'f' },
	{ "json", no_argument, NULL, 'j' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int usage_error(const char *what, const char *value)
{
	return host_usage_error("plan", what, value);
}

/* What the boot reads from the root once it is mounted, given here. */
static int read_fstab(const char *path, struct machine *machine)
{
	static char text[FSTAB_TEXT_MAX + 1];
	ssize_t n = read_file_at(AT_FDCWD, path, text, sizeof(text));

	if (n < 0)
		return usage_error("--fstab names no readable file:", path);
	fstab_parse_initrd(text, (size_t)n, &machine->fstab);
	machine->has_fstab = true;
	return 0;
}

static int parse_option(int c, const char *word, void *ctx)
{
	struct plan_args *args = ctx;
	int r = 0;

	switch (c) {
	case 'i':
		if (args->n_images == PLAN_MAX_IMAGES)
			r = usage_error("too many --image options; the limit is 64", NULL);
		else
			args->images[args->n_images++] = optarg;
		break;
	case 'c':
		args->cmdline = optarg;
		break;
	case 'm':
		if (id128_parse(optarg, args->machine.machine_id) < 0)
			r = usage_error("--machine-id needs 32 hex digits (or a UUID), not", optarg);
		args->machine.has_machine_id = true;
		break;
	case 'a':
		args->machine.arch = arch_from_name(optarg);
		if (args->machine.arch == ARCH_INVALID)
			r = usage_error("--arch names no architecture earlymount knows (x86-64, arm64, x86, arm, "
					"riscv64, ppc64le, s390x, loongarch64):", optarg);
		break;
	case 'l':
		if (COPY_STR(args->machine.loader_partuuid, optarg) < 0 ||
		    uuid_normalize(args->machine.loader_partuuid) < 0)
			r = usage_error("--loader-partuuid needs a UUID, not", optarg);
		break;
	case 'f':
		r = read_fstab(optarg, &args->machine);
		break;
	case 'j':
		args->json = true;
		break;
	case 'h':
		args->help = true;
		break;
	}
	return r;
}

static int parse_args(int argc, char **argv, struct plan_args *args)
{
	int r;

	args->machine.arch = arch_native();
	r = host_getopt("plan", argc, argv, "+:i:c:m:a:l:f:jh", long_options, parse_option, args);
	if (r == 0 && optind < argc)
		r = usage_error("unexpected argument", argv[optind]);
	/* a root on a host share needs no disk: a --cmdline alone can plan it */
	if (r == 0 && !args->help && args->n_images == 0 && !args->cmdline)
		r = usage_error("at least one --image FILE is needed", NULL);
	return r;
}

static int probe_images(const struct plan_args *args, struct disk_set *disks)
{
	int r = 0;

	for (size_t i = 0; i < args->n_images && r == 0; i++) {
		struct disk *disk = disk_set_add(disks);
		int p = disk ? probe_disk(args->images[i], disk) : -ENOMEM;

		if (p < 0) {
			fprintf(stderr, "earlymount: cannot read %s: %s\n", args->images[i], strerror(-p));
			r = EXIT_SYSTEM;
		}
	}
	return r;
}

/* A malformed --cmdline is the caller's mistake: the parser's sentence says which word. */
static int parse_cmdline(const char *line, struct options *opts)
{
	char err[256] = "";
	int r = cmdline_parse(line ? line : "", opts, err, sizeof(err));

	return r < 0 ? usage_error(err[0] ? err : "--cmdline is malformed", NULL) : 0;
}

/* The plan, then what a boot that stops would do (the keys rd.emergency=, rd.shell=, panic=). */
static void print_failure_path(const struct options *opts)
{
	char line[512];

	failure_describe(opts, EMERGENCY_SHELL, line, sizeof(line));
	printf("%s\n", line);
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args args = { 0 };
	struct disk_set disks = { 0 };
	struct options *opts = calloc(1, sizeof(*opts));
	struct plan *plan = calloc(1, sizeof(*plan));
	struct plan_input in;
	int r;

	if (!opts || !plan) {
		fprintf(stderr, "earlymount: out of memory\n");
		r = EXIT_SYSTEM;
		goto out;
	}
	r = parse_args(argc, argv, &args);
	if (r != 0 || args.help) {
		if (args.help)
			fputs(usage_text, stdout);
		goto out;
	}
	r = parse_cmdline(args.cmdline, opts);
	if (r != 0)
		goto out;
	r = probe_images(&args, &disks);
	if (r != 0)
		goto out;

	in = (struct plan_input){ .opts = opts, .disks = &disks, .machine = &args.machine };
	if (plan_build(&in, plan) < 0) {
		fprintf(stderr, "earlymount: %s\n", plan->error[0] ? plan->error : "no plan could be made");
		r = EXIT_REFUSED;
		goto out;
	}
	if (args.json)
		plan_format_json(plan, stdout);
	else {
		plan_format_text(plan, stdout);
		print_failure_path(opts);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "earlymount: cannot write the plan: %s\n", strerror(errno));
		r = EXIT_SYSTEM;
	}
out:
	disk_set_free(&disks);
	free(plan);
	free(opts);
	return r;
}
