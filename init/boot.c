/* PID 1: the boot from the kernel to the real init, one stage after another. Each stage
 * returns 0 or -errno with b->why set; every failure ends in emergency_fail(). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "apifs.h"
#include "boot.h"
#include "boot_state.h"
#include "cmdline.h"
#include "devices.h"
#include "dps.h"
#include "efivars.h"
#include "emergency.h"
#include "failure_record.h"
#include "fileio.h"
#include "hooks.h"
#include "keymap_load.h"
#include "last_failure.h"
#include "log.h"
#include "luks_open.h"
#include "modules.h"
#include "paths.h"
#include "pcr_phase.h"
#include "sha256.h"
#include "systemd_handoff.h"
#include "timing.h"
#include "util.h"
#include "watchdog.h"

/* Too big for a stack frame, and there is only one boot. */
static struct boot boot_state;

/* Stage 1: /proc, /sys, /dev, /run…, then a console on fds 0-2 and /dev/kmsg. */
static int stage_api_filesystems(struct boot *b)
{
	int r;

	log_info("earlymount %s", EARLYMOUNT_VERSION);
	r = apifs_mount_table(apifs_table, apifs_table_size, b->why, sizeof(b->why));
	apifs_ensure_console();
	log_open_kmsg();
	if (r < 0) {
		strncat(b->why, " — the kernel needs proc, sysfs, devtmpfs, tmpfs and cgroup2 built in",
			sizeof(b->why) - strlen(b->why) - 1);
		goto out;
	}
	apifs_make_links();
out:
	return r;
}

static int read_proc_cmdline(char *line, size_t size)
{
	ssize_t r = read_file_at(AT_FDCWD, "/proc/cmdline", line, size);

	line[strcspn(line, "\n")] = '\0';
	return r < 0 ? (int)r : 0;
}

static int stage_command_line(struct boot *b)
{
	char line[CMDLINE_MAX + 2];
	char err[256] = "";
	int r = read_proc_cmdline(line, sizeof(line));

	if (r < 0)
		return boot_fail(b, r, "unable to read /proc/cmdline: %s", strerror(-r));
	r = cmdline_parse(line, &b->opts, err, sizeof(err));
	if (r == -E2BIG)
		return boot_fail(b, r, "the kernel command line is longer than %d bytes",
				 CMDLINE_MAX);
	/* The kernel booted with this line already: use what could be read. */
	if (r == -EINVAL)
		log_warn("kernel command line: %s; ignoring that part", err);
	if (b->opts.quiet)
		log_set_max_level(LOG_WARNING);
	if (b->opts.debug)
		log_set_max_level(LOG_DEBUG);
	/* armed once its driver (rd.driver.pre=, or its modalias) made the device */
	watchdog_init(b->opts.watchdog_device, b->opts.watchdog_sec);
	return 0;
}

/* Before any prompt: the emergency shell's, a passphrase's. */
static int stage_keymap(struct boot *b)
{
	keymap_load(&b->opts);
	return 0;
}

static int stage_rd_emergency(struct boot *b)
{
	if (b->opts.emergency)
		emergency_pause("rd.emergency");
	return 0;
}

/* Discovery needs the filesystems of the partitions it mounts only; root=, mount.usr=,
 * earlymount.disk= and rd.luks.uuid= may name any partition, by its filesystem's (or LUKS
 * header's) UUID or label too. */
static bool wants_filesystem(const struct part *part, void *data)
{
	const struct boot *b = data;
	const struct options *o = &b->opts;
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return o->root_kind == ROOT_DEVICE || o->usr || o->disk || o->luks.n_volumes ||
	       o->mount_extra.n || o->swap_extra.n || b->probe_every_filesystem ||
	       (type && dps_role_mounted(type->role));
}

static bool has_pre_discover_hooks(void)
{
	static struct hooks_list list;

	return hooks_list_dir(HOOKS_DIR "/pre-discover.d", &list) == 0 && list.n > 0;
}

/* A pinned plan needs no controller to finish scanning: some drivers may probe their
 * devices after the insert returns (see module_loaders.c), and the handoff then waits for no
 * insert (ahci scans every empty port of its controller); the slow-scanning controllers wait
 * while the likely ones bring the root (see boot_wait.c). Their loads then settle before their
 * disks appear: not when a pre-discover hook is promised settled devices. */
static bool probe_async_ok(const struct boot *b)
{
	return boot_plan_pinned(b) && !has_pre_discover_hooks();
}

/* What a probe recognised goes to each storage stack: an md member to mdadm, an LVM physical
 * volume to lvm, a btrfs device to the kernel's list of them. */
static void stacks_probed(const struct part *part, void *data)
{
	struct boot *b = data;

	md_probed(part, &b->md);
	lvm_probed(part, &b->lvm);
	btrfs_probed(part, &b->btrfs);
}

static int stage_modules(struct boot *b)
{
	static struct probe_filter filter = { wants_filesystem, NULL };

	struct utsname u;
	int r = modules_open(&b->modules);

	if (r < 0) {
		uname(&u);
		log_warn("unable to read the module index /lib/modules/%s: %s; only built-in "
			 "drivers are available",
			 u.release, strerror(-r));
	}
	/* Listen before coldplug, so no uevent of a device the coldplug brings up is missed. */
	filter.data = b;
	r = devices_open(&b->devices, &b->modules, &filter);
	if (r < 0)
		return boot_fail(b, r, "unable to listen to kernel uevents: %s", strerror(-r));
	/* the storage stacks assemble as their members appear */
	b->lvm = (struct lvm_boot){ .opts = &b->opts, .modules = &b->modules };
	b->md = (struct md_boot){ .opts = &b->opts, .modules = &b->modules,
				  .root_wait_sec = boot_plan_timeout_ms(&b->opts) / 1000 };
	b->btrfs = (struct btrfs_boot){ .modules = &b->modules, .control = -1 };
	devices_on_probed(&b->devices, stacks_probed, b);
	/* Drivers load side by side until the plan is made: the disk's need not wait behind
	 * a controller's that probes empty ports. Those of devices that hold no disk wait for
	 * the plan: with one CPU they would slow the disks' (see modalias.c). */
	modules_set_parallel(&b->modules, true);
	modules_hold(&b->modules);
	modules_probe_async(&b->modules, probe_async_ok(b));
	modules_hold_slow(&b->modules, probe_async_ok(b));
	if (b->opts.modules_load) {
		r = modules_load_names(&b->modules, b->opts.modules_load);
		if (r < 0)
			log_warn("unable to load every module of rd.modules-load=%s: %s",
				 b->opts.modules_load, strerror(-r));
	}
	return 0;
}

static int stage_devices(struct boot *b)
{
	devices_coldplug(&b->devices);
	return 0;
}

/* efivarfs is a module in many kernels: its mount in stage 1 fails until it is loaded. */
static void efivarfs_mount(struct boot *b)
{
	int r = apifs_mount_one(EFIVARS_DIR);

	if (r == -ENODEV) {
		modules_load_alias(&b->modules, "fs-efivarfs");
		r = apifs_mount_one(EFIVARS_DIR);
	}
	if (r < 0)
		log_warn("unable to mount efivarfs on %s: %s; the boot loader's disk is unknown",
			 EFIVARS_DIR, strerror(-r));
}

/* The image's crypttab: the volumes the boot opens, and their names. An image without one
 * has none; one that cannot be read is said, and the command line's volumes still open. */
static void read_crypttab(struct boot *b)
{
	static char text[CRYPTTAB_TEXT_MAX + 1];
	struct crypttab *t = &b->machine.crypttab;
	ssize_t n = read_file_at(AT_FDCWD, INITRAMFS_CRYPTTAB, text, sizeof(text));

	if (n < 0) {
		if (n != -ENOENT)
			log_warn("unable to read %s: %s; only the command line's LUKS volumes are opened",
				 INITRAMFS_CRYPTTAB, strerror((int)-n));
		return;
	}
	crypttab_parse(text, (size_t)n, t);
	b->machine.has_crypttab = true;
	if (!b->opts.luks.crypttab || !b->opts.luks.enabled)
		log_info("%s: not read (%s)", INITRAMFS_CRYPTTAB,
			 b->opts.luks.enabled ? "rd.luks.crypttab=no" : "rd.luks=no");
	else
		log_info("%s: %zu %s", INITRAMFS_CRYPTTAB, t->n, t->n == 1 ? "entry" : "entries");
	if (t->bad_line)
		log_warn("%s, line %u: %s: the line is left out", INITRAMFS_CRYPTTAB, t->bad_line,
			 t->bad_why);
	if (t->dropped)
		log_warn("%s: %u entries past the first %d are left out", INITRAMFS_CRYPTTAB,
			 t->dropped, CRYPTTAB_MAX_ENTRIES);
}

static int stage_machine_facts(struct boot *b)
{
	struct stat st;
	int r;

	b->machine.arch = arch_native();
	read_crypttab(b);
	if (stat(EFI_FIRMWARE_DIR, &st) < 0)
		goto out;
	efivarfs_mount(b);
	r = efivars_boot_partuuid(EFIVARS_DIR, b->machine.loader_partuuid);
	if (r == 0) {
		log_info("the boot loader came from the partition %s", b->machine.loader_partuuid);
		modules_probe_async(&b->modules, probe_async_ok(b));
		modules_hold_slow(&b->modules, probe_async_ok(b));
	} else if (r == -ENOENT) {
		log_info("no LoaderDevicePartUUID: the boot loader did not say which disk it came from");
	} else {
		log_warn("ignoring LoaderDevicePartUUID: %s", strerror(-r));
	}
out:
	return 0;
}

/* Said once and passed on; deleted at the handoff (last_failure.h). After the machine stage:
 * efivarfs is mounted, and a pstore backend that is a module went in with rd.modules-load=. */
static int stage_last_failure(struct boot *b)
{
	last_failure_load(&last_failure_system, &b->last_failure);
	return 0;
}

static bool when_settled(struct devices *d, bool settled, void *data)
{
	return settled;
}

static int stage_rd_break(struct boot *b)
{
	if (b->opts.rd_break) {
		boot_release_held(b, HELD_LOAD);
		emergency_pause("rd.break");
	}
	return 0;
}

/* Runtime hooks (HOOKS_DIR/<point>.d/), for images made without a generator. */
static int run_hooks(struct boot *b, enum hook_point point, const struct plan *plan)
{
	struct hooks_facts facts = { point, &b->opts, &b->machine, plan };

	return hooks_run(HOOKS_DIR, &facts, b->why, sizeof(b->why));
}

/* The pre-discover hooks are promised settled devices (see hooks.h). */
/* Before any unlock: a key sealed to the signed policy of this phase unseals only after it. */
static int stage_enter_initrd(struct boot *b)
{
	pcr_phase_measure("enter-initrd");
	return 0;
}

static int stage_hooks_pre_discover(struct boot *b)
{
	if (has_pre_discover_hooks())
		devices_wait(&b->devices, boot_plan_timeout_ms(&b->opts), when_settled, b);
	return run_hooks(b, HOOK_PRE_DISCOVER, NULL);
}

static int stage_hooks_pre_mount(struct boot *b)
{
	return run_hooks(b, HOOK_PRE_MOUNT, &b->plan);
}

static int stage_hooks_pre_switch(struct boot *b)
{
	return run_hooks(b, HOOK_PRE_SWITCH, &b->plan);
}

static const struct stage {
	const char *name;
	int (*run)(struct boot *b);
	bool timed; /* the shells wait for people */
} boot_stages[] = {
	{ "apifs", stage_api_filesystems, true },
	{ "cmdline", stage_command_line, true },
	{ "keymap", stage_keymap, true },
	{ "rd.emergency", stage_rd_emergency, false },
	{ "modules", stage_modules, true },
	/* before the coldplug: a plan pinned by the boot loader lets ahci probe asynchronously */
	{ "machine", stage_machine_facts, true },
	{ "last-failure", stage_last_failure, true },
	{ "devices", stage_devices, true },
	{ "network", boot_stage_network, true },
	{ "enter-initrd", stage_enter_initrd, true },
	{ "pre-discover", stage_hooks_pre_discover, true },
	{ "plan", boot_stage_wait_for_plan, true },
	{ "pre-mount", stage_hooks_pre_mount, true },
	{ "mount", boot_stage_mount, true },
	{ "rd.break", stage_rd_break, false },
	{ "pre-switch", stage_hooks_pre_switch, true },
};

static int run_stage(struct boot *b, const struct stage *s)
{
	int r;

	/* a stage begun is progress; within one, only its waits feed the watchdog */
	watchdog_feed();
	if (s->timed)
		timing_begin(&b->timings, s->name);
	r = s->run(b);
	if (s->timed)
		timing_end(&b->timings);
	return r;
}

/* The device a failure was about: the failed step's, else the root the plan or the command
 * line names; "" when none is known (discovery that found no root). */
static void failed_device(const struct boot *b, char *out, size_t size)
{
	const char *device = "";

	if (b->failed_device[0])
		device = b->failed_device;
	for (size_t i = 0; !device[0] && b->plan_result == 0 && i < b->plan.n_steps; i++)
		if ((b->plan.steps[i].op == OP_MOUNT || b->plan.steps[i].op == OP_SHARE) &&
		    streq(b->plan.steps[i].target, SYSROOT))
			device = b->plan.steps[i].source;
	if (!device[0] && (b->opts.root_kind == ROOT_DEVICE || b->opts.root_kind == ROOT_SHARE) &&
	    b->opts.root)
		device = b->opts.root;
	copy_str(out, size, device);
}

/* What the record of this failure says, should the machine go down by itself after it
 * (emergency_fail() decides, and sets its action). */
static void describe_failure(struct boot *b, const char *stage, struct failure_record *rec)
{
	char line[CMDLINE_MAX + 2];
	uint8_t digest[SHA256_DIGEST_SIZE];

	*rec = (struct failure_record){ 0 };
	COPY_STR(rec->version, EARLYMOUNT_VERSION);
	COPY_STR(rec->stage, stage);
	failed_device(b, rec->device, sizeof(rec->device));
	COPY_STR(rec->message, b->why[0] ? b->why : "the boot stopped for an unknown reason");
	if (read_proc_cmdline(line, sizeof(line)) == 0) {
		sha256(line, strlen(line), digest);
		failure_record_hex(digest, rec->cmdline);
	}
	if (b->plan_result == 0 && b->plan.n_steps > 0) {
		plan_digest(&b->plan, digest);
		failure_record_hex(digest, rec->plan);
	}
}

int boot_main(int argc, char **argv)
{
	/* too big for PID 1's first frame, like the boot's state */
	static struct failure_record record;
	struct boot *b = &boot_state;
	const char *stage = "handoff";
	int r = 0;

	dual_clock_now(&b->started);
	b->argc = argc;
	b->argv = argv;
	log_setup(LOG_TARGET_CONSOLE);
	for (size_t i = 0; i < ARRAY_SIZE(boot_stages) && r == 0; i++) {
		r = run_stage(b, &boot_stages[i]);
		if (r < 0)
			stage = boot_stages[i].name;
	}
	if (r == 0)
		r = boot_handoff(b);
	luks_forget();
	/* a shell may follow: its keyboard's drivers too */
	boot_release_held(b, HELD_LOAD);
	describe_failure(b, stage, &record);
	emergency_fail(&b->opts, &record, "%s", record.message);
}
