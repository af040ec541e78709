/* `earlymount check`: whether an initramfs image would boot this host (or the disks given as
 * images). The plan is the boot's own planner's, made from the host's command line, fstab and
 * block devices; the devices under / and /usr are walked as `initramfs --host-only` walks
 * them (a volume unlocked already is seen there, not in the plan); and what the plan's steps
 * need is looked for in the image. No peer says this before the reboot. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check_image.h"
#include "check_volumes.h"
#include "commands.h"
#include "host_args.h"
#include "hostonly.h"
#include "luks_helper.h"
#include "paths.h"
#include "plan.h"
#include "plan_format.h"
#include "plan_inputs.h"
#include "util.h"

struct check_args {
	struct plan_inputs in;
	const char *image;    /* --initramfs; NULL: this host's for its running kernel */
	bool quiet;
	bool help;
};

/* What a check found: the verdict is "would boot" while failures is 0. */
struct check {
	const struct check_args *args;
	const struct image_contents *contents;
	char release[65];     /* the running kernel's, in host mode; "" with --image */
	unsigned failures;
	unsigned warnings;
};

static const struct host_opt check_image_opts[] = {
	{ "initramfs", 'I', "FILE", HOST_STRING(struct check_args, image),
	  .help = "the image (default: /boot/initrd.img-RELEASE,\n"
		  "/boot/initramfs-RELEASE.img, /boot/initramfs-linux.img,\n"
		  "the first that exists, RELEASE the running kernel's)" },
	{ 0 },
};

static const struct host_opt check_opts[] = {
	{ "quiet", 'q', NULL, HOST_FLAG(struct check_args, quiet),
	  .help = "print only what is missing and the verdict" },
	{ "help", 'h', NULL, HOST_FLAG(struct check_args, help), .help = "print this help" },
	{ 0 },
};

static const struct host_command check_command = {
	.name = "check",
	.head = "usage: earlymount check [--initramfs FILE] [OPTIONS]\n"
		"\n"
		"Says whether the initramfs image would boot this host: what earlymount would do at boot\n"
		"(its plan, from /proc/cmdline, /etc/fstab and the block devices), what the devices under\n"
		"/ and /usr are made of, and whether the image holds every program and module for it.\n"
		"With --image, the disks are those images instead of this host's.\n"
		"\n",
	.groups = { { check_image_opts, 0 }, { plan_input_opts, offsetof(struct check_args, in) },
		    { check_opts, 0 } },
	.tail = "\n"
		"Exit status: 0 it would boot, 1 it would not (why on stdout), 2 usage error,\n"
		"3 unreadable image or disks, or an image whose /init is not earlymount.\n",
	.column = 31,
};

/* Where each helper program the plan can need is in an image, and the builder's option. */
static const struct program_path {
	const char *name;
	const char *path;
} program_paths[] = {
	{ "earlymount-luks", LUKS_HELPER_PATH },
	{ "lvm", EARLYMOUNT_LVM },
	{ "mdadm", EARLYMOUNT_MDADM },
	{ "ipconfig", EARLYMOUNT_IPCONFIG },
};

/* The images distributions' generators write for a kernel release, in the order looked for. */
static const char *const default_images[] = {
	"/boot/initrd.img-%s",      /* Debian, Ubuntu (initramfs-tools, dracut) */
	"/boot/initramfs-%s.img",   /* Fedora, openSUSE (dracut) */
	"/boot/initramfs-linux.img", /* Arch (mkinitcpio), which names no release */
};

static int parse_args(int argc, char **argv, struct check_args *args)
{
	int r = host_args_parse(&check_command, argc, argv, args);

	if (r == 0 && optind < argc)
		r = host_usage_error("check", "unexpected argument", argv[optind]);
	return r;
}

static void say(const struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct check *c, const char *fmt, ...)
{
	va_list ap;

	if (c->args->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

static void missing(struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void missing(struct check *c, const char *fmt, ...)
{
	va_list ap;

	printf("  missing  ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	c->failures++;
}

/* The image for the running kernel, into path: 0, or -ENOENT when none of the usual is there. */
static int find_default_image(const char *release, char *path, size_t size)
{
	int r = -ENOENT;

	for (size_t i = 0; i < ARRAY_SIZE(default_images) && r < 0; i++) {
		snprintf(path, size, default_images[i], release);
		if (access(path, F_OK) == 0)
			r = 0;
	}
	return r;
}

/* A need's name comes from a probed filesystem type, any bytes: printed as printable ASCII. */
static const char *shown(const struct plan_need *n)
{
	static char buf[sizeof(n->name)];
	size_t i;

	for (i = 0; n->name[i] && i + 1 < sizeof(buf); i++)
		buf[i] = n->name[i] > 0x20 && n->name[i] < 0x7f ? n->name[i] : '?';
	buf[i] = '\0';
	return buf;
}

static void check_program(struct check *c, const struct plan_need *n)
{
	const char *path = NULL;

	for (size_t i = 0; i < ARRAY_SIZE(program_paths) && !path; i++)
		if (streq(program_paths[i].name, n->name))
			path = program_paths[i].path;
	if (path && image_has_file(c->contents, path))
		say(c, "  ok       %s (%s)\n", n->name, path);
	else
		missing(c, "%s (%s): build the image with earlymount initramfs %s", n->name,
			path ? path : "?", n->option ? n->option : "");
}

static void check_module(struct check *c, const struct plan_need *n)
{
	bool builtin = false;

	if (image_has_module(c->contents, n->name, &builtin))
		say(c, "  ok       module %s%s\n", shown(n), builtin ? " (built into the kernel)" : "");
	else if (c->contents->releases.n == 0) {
		/* no module tree at all: a kernel with everything built in, or an image for none */
		say(c, "  warning  module %s: the image holds no kernel modules; the kernel must have "
		       "it built in\n", shown(n));
		c->warnings++;
	} else
		missing(c, "module %s: neither in the image nor built into its kernel (%s); add it "
			   "with earlymount initramfs --module %s", shown(n),
			c->contents->releases.names[0], shown(n));
}

static void check_checker(struct check *c, const struct plan_need *n)
{
	if (image_has_program(c->contents, n->name)) {
		say(c, "  ok       %s\n", shown(n));
		return;
	}
	/* the boot goes on without it: the filesystem is mounted unchecked, with a warning */
	printf("  warning  %s is not in the image: the boot mounts that filesystem unchecked "
	       "(install the checker, or fsck.mode=skip to say so)\n", shown(n));
	c->warnings++;
}

static void check_needs(struct check *c, const struct plan_needs *needs)
{
	say(c, "in the image:\n");
	for (size_t i = 0; i < needs->n; i++) {
		const struct plan_need *n = &needs->items[i];

		if (n->kind == NEED_PROGRAM)
			check_program(c, n);
		else if (n->kind == NEED_MODULE)
			check_module(c, n);
		else
			check_checker(c, n);
	}
}

/* What the boot mounts on the host: / and /usr, and the fstab's x-initrd.mount entries. */
static size_t boot_mount_points(const struct machine *machine, const char **where, size_t max)
{
	size_t n = 0;

	where[n++] = "/";
	where[n++] = "/usr";
	for (size_t i = 0; machine->has_fstab && i < machine->fstab.n && n < max; i++)
		if (!streq(machine->fstab.entries[i].where, "/usr") && !machine->fstab.entries[i].network)
			where[n++] = machine->fstab.entries[i].where;
	return n;
}

/* The host's mounts the boot makes: what their devices are made of, into needs, and whether
 * the boot opens the dm-crypt volumes among them; a stack earlymount cannot assemble is a
 * failure. */
static void walk_host_mounts(struct check *c, const struct plan_input *in, const struct plan *plan,
			     struct plan_needs *needs)
{
	const struct machine *machine = in->machine;
	struct check_volumes_result volumes = { .quiet = c->args->quiet };
	const char *where[2 + FSTAB_MAX_ENTRIES];
	size_t n = boot_mount_points(machine, where, ARRAY_SIZE(where));
	struct hostonly_choice *choice = calloc(1, sizeof(*choice));
	struct hostonly_mount *m = calloc(1, sizeof(*m));
	int r;

	for (size_t i = 0; choice && m && i < n; i++) {
		memset(m, 0, sizeof(*m));
		m->where = where[i];
		r = hostonly_read_mount("/sys", "/proc/self/mountinfo", m);
		if (r == 0)
			r = hostonly_choose(m, choice);
		if (r == -EOPNOTSUPP) {
			printf("  cannot   %s, which earlymount cannot assemble at boot: keep the "
			       "distribution's initramfs on this host\n", choice->unsupported);
			c->failures++;
			break;
		}
	}
	if (choice && choice->luks)
		plan_needs_add_op(OP_UNLOCK, "", needs);
	if (choice && choice->verity)
		plan_needs_add_op(OP_VERITY, "", needs);
	if (choice && choice->lvm)
		plan_needs_add_op(OP_ACTIVATE, "", needs);
	if (choice && choice->md)
		plan_needs_add_op(OP_ASSEMBLE, "", needs);
	if (choice && choice->n_crypt) {
		say(c, "encrypted volumes under the host's mounts:\n");
		check_volumes(in, plan, choice->crypt, choice->n_crypt, &volumes);
		c->failures += volumes.failures;
		c->warnings += volumes.warnings;
	}
	free(choice);
	free(m);
}

static void check_release(struct check *c)
{
	const struct name_list *rel = &c->contents->releases;

	if (!c->release[0] || rel->n == 0 || name_list_has(rel, c->release))
		return;
	printf("  warning  the image's modules are for kernel %s; this host runs %s\n",
	       rel->names[0], c->release);
	c->warnings++;
}

static int open_image(struct check *c, struct check_args *args, struct image_contents *contents,
		      char *path, size_t size)
{
	int r = 0;

	if (args->image)
		snprintf(path, size, "%s", args->image);
	else if (find_default_image(c->release, path, size) < 0) {
		fprintf(stderr, "earlymount check: no initramfs image for the running kernel %s in "
				"/boot: name one with --initramfs FILE\n", c->release);
		return EXIT_USAGE;
	}
	if (image_contents_read(path, contents) < 0)
		r = EXIT_SYSTEM;
	else if (!contents->has_init || !contents->init_is_earlymount) {
		fprintf(stderr, "earlymount check: %s: its /init is %s: this command checks the "
				"images earlymount builds\n", path,
			contents->has_init ? "not earlymount" : "missing");
		r = EXIT_SYSTEM;
	}
	return r;
}

static int run(struct check_args *args, struct plan *plan)
{
	struct image_contents contents = { 0 };
	struct check c = { .args = args, .contents = &contents };
	struct plan_needs needs;
	struct utsname u;
	char image[4096];
	bool host = args->in.n_images == 0;
	int r;

	if (host && uname(&u) == 0)
		COPY_STR(c.release, u.release);
	r = open_image(&c, args, &contents, image, sizeof(image));
	if (r == 0 && host)
		r = plan_inputs_host(&args->in);
	/* the boot opens the volumes the image's crypttab lists, unless --crypttab says otherwise */
	if (r == 0 && contents.crypttab && !args->in.machine.has_crypttab)
		plan_inputs_crypttab_text(&args->in, contents.crypttab, contents.crypttab_len);
	if (r == 0)
		r = plan_inputs_load(&args->in);
	if (r != 0)
		goto out;
	say(&c, "image: %s (earlymount %s)\n", image,
	    contents.init_version[0] ? contents.init_version : "of a version before 0.1.0");
	if (plan_inputs_build(&args->in, plan) != 0) {
		printf("would not boot: earlymount would stop: %s\n", plan->error);
		r = EXIT_REFUSED;
		goto out;
	}
	if (!args->quiet)
		plan_format_text(plan, stdout);
	plan_needs(plan, &needs);
	if (host)
		walk_host_mounts(&c, &(struct plan_input){ .opts = args->in.opts, .disks = &args->in.disks,
							   .machine = &args->in.machine }, plan, &needs);
	check_needs(&c, &needs);
	check_release(&c);
	if (c.failures)
		printf("would not boot: %u thing%s missing from %s\n", c.failures,
		       c.failures == 1 ? " is" : "s are", image);
	else
		printf("would boot%s\n", c.warnings ? " (see the warnings)" : "");
	r = c.failures ? EXIT_REFUSED : 0;
out:
	image_contents_free(&contents);
	return r;
}

int cmd_check(int argc, char **argv)
{
	struct check_args args = { 0 };
	struct plan *plan = calloc(1, sizeof(*plan));
	int r = plan ? plan_inputs_init(&args.in, "check") : EXIT_SYSTEM;

	if (r == 0)
		r = parse_args(argc, argv, &args);
	if (r == 0 && args.help)
		host_args_help(&check_command, stdout);
	else if (r == 0)
		r = run(&args, plan);
	if (fflush(stdout) != 0 && r == 0)
		r = EXIT_SYSTEM;
	plan_inputs_free(&args.in);
	free(plan);
	return r;
}
