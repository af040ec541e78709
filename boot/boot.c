/* PID 1: the boot from the kernel to the real init, one stage after another. Each stage
 * returns 0 or -errno with b->why set; every failure ends in emergency_fail(). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "apifs.h"
#include "ask_password.h"
#include "boot.h"
#include "cmdline.h"
#include "devices.h"
#include "dps.h"
#include "efivars.h"
#include "emergency.h"
#include "execute.h"
#include "fallback.h"
#include "fileio.h"
#include "fsck.h"
#include "hooks.h"
#include "log.h"
#include "luks_open.h"
#include "modules.h"
#include "plan.h"
#include "share.h"
#include "switchroot.h"
#include "systemd_handoff.h"
#include "timing.h"
#include "util.h"

#define DEFAULT_TIMEOUT_SEC 30
/* How long the handoff waits for module loads still running (see finish_module_loads()). */
#define HANDOFF_MODULES_WAIT_MS 5000
#define WHY_MAX 1024

struct boot {
	int argc;
	char **argv;
	struct options opts;
	struct modules modules;
	struct devices devices;
	struct machine machine;
	struct plan plan;
	int plan_result;
	bool wait_announced;
	double plan_counted_sec;  /* when the plan was taken: discovery's tail after settling */
	struct timings timings;
	struct fallback fallback; /* partitions that failed at this boot, passed over since */
	char init[PLAN_PATH];
	char why[WHY_MAX];
	struct dual_clock started; /* the initrd's start, for systemd-analyze */
};

/* Too big for a stack frame, and there is only one boot. */
static struct boot boot_state;

static int fail_with(struct boot *b, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail_with(struct boot *b, int r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->why, sizeof(b->why), fmt, ap);
	va_end(ap);
	return r;
}

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
	int fd = open("/proc/cmdline", O_RDONLY | O_CLOEXEC);
	size_t used = 0;
	int r = 0;

	if (fd < 0)
		return -errno;
	while (used < size - 1) {
		ssize_t n = read(fd, line + used, size - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			break;
		}
		if (n == 0)
			break;
		used += (size_t)n;
	}
	close(fd);
	line[used] = '\0';
	line[strcspn(line, "\n")] = '\0';
	return r;
}

static int stage_command_line(struct boot *b)
{
	char line[CMDLINE_MAX + 2];
	char err[256] = "";
	int r = read_proc_cmdline(line, sizeof(line));

	if (r < 0)
		return fail_with(b, r, "unable to read /proc/cmdline: %s", strerror(-r));
	r = cmdline_parse(line, &b->opts, err, sizeof(err));
	if (r == -E2BIG)
		return fail_with(b, r, "the kernel command line is longer than %d bytes",
				 CMDLINE_MAX);
	/* The kernel booted with this line already: use what could be read. */
	if (r == -EINVAL)
		log_warn("kernel command line: %s; ignoring that part", err);
	if (b->opts.quiet)
		log_set_max_level(LOG_WARNING);
	if (b->opts.debug)
		log_set_max_level(LOG_DEBUG);
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
	const struct options *o = data;
	const struct dps_type *type = dps_type_from_uuid(part->type);

	return o->root_kind == ROOT_DEVICE || o->usr || o->disk || o->luks.n_volumes ||
	       (type && dps_role_mounted(type->role));
}

/* A root named on the command line or a disk named by the boot loader: no disk still to
 * come changes the choice (only a clone could, and the duplicate check covers the disks
 * that are there when the root appears). */
static bool plan_pinned(const struct boot *b)
{
	return b->opts.root_kind == ROOT_DEVICE || b->opts.root_kind == ROOT_SHARE ||
	       b->machine.loader_partuuid[0];
}

static bool has_pre_discover_hooks(void)
{
	static struct hooks_list list;

	return hooks_list_dir(HOOKS_DIR "/pre-discover.d", &list) == 0 && list.n > 0;
}

/* A pinned plan needs no controller to finish scanning: some drivers may probe their
 * devices after the insert returns (see modules.c), and the handoff then waits for no insert
 * (ahci scans q35's six empty ports for 0.35 s). Their loads then settle before their disks
 * appear: not when a pre-discover hook is promised settled devices. */
static bool probe_async_ok(const struct boot *b)
{
	return plan_pinned(b) && !has_pre_discover_hooks();
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
	filter.data = &b->opts;
	r = devices_open(&b->devices, &b->modules, &filter);
	if (r < 0)
		return fail_with(b, r, "unable to listen to kernel uevents: %s", strerror(-r));
	/* Drivers load side by side until the plan is made: the disk's need not wait behind
	 * a controller's that probes empty ports. Those of devices that hold no disk wait for
	 * the plan: with one CPU they would slow the disks' (see modalias.c). */
	modules_set_parallel(&b->modules, true);
	modules_hold(&b->modules);
	modules_probe_async(&b->modules, probe_async_ok(b));
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

static int stage_machine_facts(struct boot *b)
{
	struct stat st;
	int r;

	b->machine.arch = arch_native();
	if (stat("/sys/firmware/efi", &st) < 0)
		goto out;
	efivarfs_mount(b);
	r = efivars_boot_partuuid(EFIVARS_DIR, b->machine.loader_partuuid);
	if (r == 0) {
		log_info("the boot loader came from the partition %s", b->machine.loader_partuuid);
		modules_probe_async(&b->modules, probe_async_ok(b));
	} else if (r == -ENOENT) {
		log_info("no LoaderDevicePartUUID: the boot loader did not say which disk it came from");
	} else {
		log_warn("ignoring LoaderDevicePartUUID: %s", strerror(-r));
	}
out:
	return 0;
}

/* While other drivers still load, the filesystems a plan would mount load beside them. */
static void prefetch_filesystems(struct boot *b)
{
	char alias[sizeof("fs-") + sizeof(b->plan.steps[0].fstype)];

	for (size_t i = 0; i < b->plan.n_steps; i++) {
		const char *fstype = b->plan.steps[i].fstype;

		if (!fstype[0] || filesystem_registered(fstype))
			continue;
		snprintf(alias, sizeof(alias), "fs-%s", fstype);
		modules_request_alias(&b->modules, alias, true);
	}
}

/* What the boot waits for, in its messages. */
static const char *awaited(const struct boot *b)
{
	return b->opts.root_kind == ROOT_SHARE ? "the root share" : "the root partition";
}

/* A share can be mounted once its virtio device is bound to its driver, which the uevents
 * load: until then the plan waits, as for a disk, and its error says what is there. */
static void wait_for_shares(struct boot *b)
{
	char found[PLAN_TEXT];

	for (size_t i = 0; i < b->plan.n_steps; i++) {
		const struct plan_step *s = &b->plan.steps[i];

		if (s->op != OP_SHARE || share_present("/sys", s->fstype, s->source))
			continue;
		share_describe("/sys", s->fstype, found, sizeof(found));
		/* a long list of tags is cut: the message still says which one is missing */
		if (snprintf(b->plan.error, sizeof(b->plan.error), "no %s share tagged '%s': %s",
			     s->fstype, s->source, found) >= (int)sizeof(b->plan.error))
			log_debug("the shares there: %s", found);
		b->plan_result = -ENOENT;
		break;
	}
}

/* The real system loads the drivers of its devices at its own coldplug only when it has a
 * udev; a busybox or custom init would be left without its network or input drivers. */
static bool new_root_has_udev(void)
{
	static const char *const udevd[] = {
		SYSROOT "/usr/lib/systemd/systemd-udevd", SYSROOT "/lib/systemd/systemd-udevd",
		SYSROOT "/usr/sbin/udevd", SYSROOT "/sbin/udevd",
	};
	bool found = false;

	for (size_t i = 0; i < ARRAY_SIZE(udevd) && !found; i++)
		found = access(udevd[i], X_OK) == 0;
	return found;
}

/* Ends the hold on the drivers of devices that hold no disk (modules_hold()): loaded now
 * when something could need them (no root yet, a prompt, a shell), else left to the real
 * system, which loads them at its own coldplug. true when any were held. */
static bool release_held(struct boot *b, enum held_release what)
{
	size_t n = modules_release_held(&b->modules, what);

	if (n > 0 && what == HELD_LOAD)
		log_info("loading the drivers of %zu device%s that hold no disk, held back until now", n,
			 n == 1 ? "" : "s");
	else if (n > 0 && what == HELD_LOAD_DEVICES)
		log_info("no udev in the new root: loading the drivers held back until now (%zu device%s "
			 "that hold no disk; CPU features' left out)", n, n == 1 ? "" : "s");
	else if (n > 0)
		log_info("leaving the drivers of %zu device%s that hold no disk (CPU features, input…) "
			 "to the real system's udev", n, n == 1 ? "" : "s");
	return n > 0;
}

/* A plan counts once the devices settled, when a disk still to come could make it
 * ambiguous; a pinned one counts as soon as it is made. */
static bool plan_ready(struct devices *d, bool settled, void *data)
{
	struct boot *b = data;

	b->plan_result = plan_build(&(struct plan_input){ &b->opts, &d->disks, &b->machine,
							  b->fallback.failed, b->fallback.n },
				    &b->plan);
	if (b->plan_result == 0)
		wait_for_shares(b);
	if (b->plan_result == 0 && !settled)
		prefetch_filesystems(b);
	/* not one of them should bring a disk; but no root yet is reason enough to try */
	if (b->plan_result == -ENOENT && settled && release_held(b, HELD_LOAD))
		return false;
	if (b->plan_result == -ENOENT && settled && !b->wait_announced) {
		b->wait_announced = true;
		if (b->opts.rootwait || b->opts.timeout_sec == 0)
			log_info("waiting for %s: %s", awaited(b), b->plan.error);
		else
			log_info("waiting up to %d s for %s: %s",
				 b->opts.timeout_sec > 0 ? b->opts.timeout_sec : DEFAULT_TIMEOUT_SEC,
				 awaited(b), b->plan.error);
	}
	if (b->plan_result == 0 && !settled && plan_pinned(b)) {
		modules_yield(&b->modules);
		return true;
	}
	return settled && b->plan_result != -ENOENT;
}

static bool when_settled(struct devices *d, bool settled, void *data)
{
	return settled;
}

static bool never_ready(struct devices *d, bool settled, void *data)
{
	return false;
}

/* Milliseconds to wait for the plan; -1 is forever. */
static int plan_timeout_ms(const struct options *o)
{
	if (o->rootwait || o->timeout_sec == 0)
		return -1;
	return (o->timeout_sec > 0 ? o->timeout_sec : DEFAULT_TIMEOUT_SEC) * 1000;
}

static int stage_wait_for_plan(struct boot *b)
{
	int timeout_ms = plan_timeout_ms(&b->opts);
	int r;

	/* rootdelay=: devices keep arriving and get their modules meanwhile, without polling. */
	if (b->opts.rootdelay_sec > 0) {
		log_info("rootdelay=%d: waiting %d s before looking for the root",
			 b->opts.rootdelay_sec, b->opts.rootdelay_sec);
		devices_wait(&b->devices, b->opts.rootdelay_sec * 1000, never_ready, b);
		if (timeout_ms > 0)
			timeout_ms = timeout_ms > b->opts.rootdelay_sec * 1000
					     ? timeout_ms - b->opts.rootdelay_sec * 1000
					     : 0;
	}
	r = devices_wait(&b->devices, timeout_ms, plan_ready, b);
	if (r == -ETIMEDOUT && b->plan_result == 0) {
		/* a driver stuck in its init must not hold a boot whose root is there */
		if (modules_loading(&b->modules) > 0)
			log_warn("gave up waiting for %zu module loads; going on with the disks present",
				 modules_loading(&b->modules));
		else
			log_warn("gave up waiting for the devices to settle (%s): a disk still to come "
				 "cannot be known; going on with the disks present", b->devices.unsettled);
		r = 0;
	}
	b->plan_counted_sec = timing_now();
	modules_set_parallel(&b->modules, false);
	log_info("discovery: %u disk probes, %.1f ms", b->devices.probes, b->devices.probe_ms);
	if (r == -ETIMEDOUT) {
		devices_report(&b->devices);
		return fail_with(b, r, "gave up waiting for %s: %s — %s", awaited(b), b->plan.error,
				 b->opts.root_kind == ROOT_SHARE
					 ? "check the tag QEMU was given (vhost-user-fs tag=, virtio-9p "
					   "mount_tag=) and that the share's modules are in the initramfs, or "
					   "give rd.timeout="
					 : "check that the disk's driver is in the initramfs, or give root= "
					   "or rd.timeout=");
	}
	if (r < 0)
		return fail_with(b, r, "unable to wait for block devices: %s", strerror(-r));
	if (b->plan_result < 0)
		return fail_with(b, b->plan_result, "%s", b->plan.error);
	/* A plan that waits for the machine ID is made again: its notes are logged then. */
	for (size_t i = 0; i < b->plan.n_notes && !b->plan.wants_machine_id; i++)
		log_info("%s", b->plan.notes[i]);
	return 0;
}

/* Without udev nothing runs modprobe for a filesystem: load it before mount(2) needs it. */
static int ensure_filesystem(const char *fstype, void *data)
{
	struct boot *b = data;
	char alias[64];

	if (filesystem_registered(fstype))
		return 0;
	snprintf(alias, sizeof(alias), "fs-%s", fstype);
	return modules_load_alias(&b->modules, alias);
}

static int load_module(const char *modalias, void *data)
{
	struct boot *b = data;

	return modules_load_alias(&b->modules, modalias);
}

/* While a passphrase prompt waits, devices still arrive: a USB keyboard is enumerated after
 * its controller's driver loaded, in the background, often after the disk was found. */
static void load_modules_while_asking(void *data)
{
	struct boot *b = data;

	devices_load_modules(&b->devices);
}

static int read_machine_id(const char *path, uint8_t id[16], const char **why)
{
	char text[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int r = 0;

	if (fd < 0) {
		*why = errno == ENOENT ? "the file does not exist" : strerror(errno);
		return -errno;
	}
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	text[strcspn(text, "\n")] = '\0';
	if (!text[0] || streq(text, "uninitialized")) {
		*why = "the machine ID is not set yet (first boot)";
		r = -ENOMEDIUM;
	} else if (id128_parse(text, id) < 0) {
		*why = "it holds no valid machine ID";
		r = -EINVAL;
	}
	return r;
}

/* The /var rule needs the root's machine ID: mount the root, read it, plan the rest with it. */
static int replan_with_machine_id(struct boot *b)
{
	struct plan_input in = { &b->opts, &b->devices.disks, &b->machine, b->fallback.failed,
				 b->fallback.n };
	const char *why = NULL;
	int r = 0;

	if (read_machine_id(b->plan.machine_id_path, b->machine.machine_id, &why) < 0) {
		log_info("not looking for a /var partition: %s: %s", b->plan.machine_id_path, why);
	} else {
		b->machine.has_machine_id = true;
		r = plan_build(&in, &b->plan);
	}
	for (size_t i = 0; i < b->plan.n_notes; i++)
		log_info("%s", b->plan.notes[i]);
	if (r < 0)
		return fail_with(b, r, "%s", b->plan.error);
	return 0;
}

/* A LUKS volume may prompt: a USB keyboard's drivers are among those held back. */
static bool plan_asks(const struct plan *plan)
{
	bool asks = false;

	for (size_t i = 0; i < plan->n_steps && !asks; i++)
		asks = plan->steps[i].op == OP_UNLOCK;
	return asks;
}

/* Runs the plan's steps (reading the machine ID in between when the /var rule needs it).
 * On failure *failed_step is the step that failed. */
static int mount_plan(struct boot *b, struct execute_ctx *ctx, const struct plan_step **failed_step)
{
	static struct ask_watch watch;
	size_t done = 0;
	int r;

	*failed_step = NULL;
	if (plan_asks(&b->plan))
		release_held(b, HELD_LOAD);
	watch = (struct ask_watch){ b->devices.uevent_fd, load_modules_while_asking, b };
	*ctx = (struct execute_ctx){ .disks = &b->devices.disks, .ensure_fs = ensure_filesystem,
				     .load_module = load_module, .data = b, .watch = &watch };
	if (b->plan.wants_machine_id) {
		done = b->plan.root_steps;
		r = execute_steps(b->plan.steps, 0, done, ctx);
		if (r < 0)
			goto failed;
		r = replan_with_machine_id(b);
		if (r < 0)
			goto out;
	}
	r = execute_steps(b->plan.steps, done, b->plan.n_steps, ctx);
failed:
	/* fsck repaired what was mounted next and wants a clean start (as mkinitcpio does) */
	if (r == FSCK_REBOOT)
		emergency_reboot(ctx->why);
	if (r < 0) {
		*failed_step = &b->plan.steps[ctx->failed];
		fail_with(b, r, "%s", ctx->why);
	}
out:
	return r;
}

/* The A/B fallback: the failed root or /usr gives way to the next newest version, if
 * discovery picked it among versions and the command line allows. 0 with a new plan, or
 * the boot's -errno unchanged. */
static int fall_back(struct boot *b, int err, struct execute_ctx *ctx,
		     const struct plan_step *failed_step, bool no_init)
{
	/* too big for the stack; the next plan, made before anything is taken back */
	static struct plan next;
	struct machine machine = b->machine;
	const char *role = NULL;
	const struct part *part = failed_step || no_init
					  ? fallback_culprit(&b->plan, failed_step, &role)
					  : NULL;
	const struct part *instead;
	int r = err;

	if (!part)
		goto out;
	if (!b->opts.fallback) {
		log_info("earlymount.fallback=no: not trying an older %s version", role);
		goto out;
	}
	if (fallback_add(&b->fallback, part, role, b->why) < 0)
		goto out;
	/* the machine ID was read from the root that failed: the next one has its own */
	machine.has_machine_id = false;
	if (plan_build(&(struct plan_input){ &b->opts, &b->devices.disks, &machine,
					     b->fallback.failed, b->fallback.n },
		       &next) < 0) {
		log_info("no older %s version to fall back to: %s", role, next.error);
		b->fallback.n--;
		goto out;
	}
	instead = streq(role, "root") ? next.root : next.usr;
	log_warn("%s partition %u (label '%s') failed: %s; falling back to partition %u (label "
		 "'%s')", role, part->number, part->label, b->why, instead ? instead->number : 0,
		 instead ? instead->label : "");
	execute_undo(b->plan.steps, 0, failed_step ? (size_t)(failed_step - b->plan.steps)
						   : b->plan.n_steps, ctx);
	b->plan = next;
	b->machine = machine;
	for (size_t i = 0; i < b->plan.n_notes && !b->plan.wants_machine_id; i++)
		log_info("%s", b->plan.notes[i]);
	b->why[0] = '\0';
	r = 0;
out:
	return r;
}

/* A root without an init fails here, while an older version can still be tried; the
 * handoff checks again after the pre-switch hooks. */
static int check_init(struct boot *b)
{
	return switchroot_check(SYSROOT, b->plan.init, b->init, sizeof(b->init), b->why,
				sizeof(b->why));
}

static int stage_mount(struct boot *b)
{
	static struct execute_ctx ctx;
	const struct plan_step *failed_step;
	bool no_init;
	int r;

	do {
		r = mount_plan(b, &ctx, &failed_step);
		no_init = false;
		if (r == 0) {
			r = check_init(b);
			no_init = r < 0;
		}
	} while (r < 0 && fall_back(b, r, &ctx, failed_step, no_init) == 0);
	if (r == 0 && b->fallback.n) {
		r = make_directories(EARLYMOUNT_RUN, 0755);
		if (r == 0)
			r = fallback_write(&b->fallback, &b->plan, FALLBACK_PATH);
		if (r < 0)
			log_warn("unable to write %s: %s", FALLBACK_PATH, strerror(-r));
		r = 0;
	}
	return r;
}

static int stage_rd_break(struct boot *b)
{
	if (b->opts.rd_break) {
		release_held(b, HELD_LOAD);
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
static int stage_hooks_pre_discover(struct boot *b)
{
	if (has_pre_discover_hooks())
		devices_wait(&b->devices, plan_timeout_ms(&b->opts), when_settled, b);
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

/* A module load still running at the switch would go on as a child of the real init, in a
 * process of the emptied initramfs: it gets a bounded while to end first. */
static void finish_module_loads(struct boot *b)
{
	double start = timing_now(), waited_ms = 0;
	size_t running = modules_loading(&b->modules);

	modules_finish(&b->modules, HANDOFF_MODULES_WAIT_MS, &waited_ms);
	if (running > 0)
		timing_add(&b->timings, "module-wait", start, waited_ms);
}

/* Checks first; from switchroot_enter() on there is no way back. */
static int handoff(struct boot *b)
{
	int r = check_init(b);

	if (r < 0)
		goto out;
	/* after the stages: timing_end() ends the entry added last */
	timing_add(&b->timings, "probes", b->devices.first_probe_sec, b->devices.probe_ms);
	/* how long the plan came after the last driver was in (none when it was pinned) */
	if (b->devices.settled_sec > 0 && b->plan_counted_sec >= b->devices.settled_sec)
		timing_add(&b->timings, "settled", b->devices.settled_sec,
			   (b->plan_counted_sec - b->devices.settled_sec) * 1e3);
	/* people's time at the prompts, and the boot's from the last answer to the handoff */
	if (luks_answered_at() > 0) {
		timing_add(&b->timings, "passphrase", luks_answered_at(), luks_prompt_seconds() * 1e3);
		timing_add(&b->timings, "after-passphrase", luks_answered_at(),
			   (timing_now() - luks_answered_at()) * 1e3);
	}
	luks_forget();
	release_held(b, new_root_has_udev() ? HELD_FORGET : HELD_LOAD_DEVICES);
	finish_module_loads(b);
	devices_close(&b->devices);
	modules_close(&b->modules);
	r = switchroot_enter(SYSROOT, b->why, sizeof(b->why));
	if (r < 0)
		goto out;
	r = timing_write(&b->timings, TIMINGS_PATH);
	if (r < 0)
		log_warn("unable to write %s: %s", TIMINGS_PATH, strerror(-r));
	log_info("starting %s", b->init);
	r = systemd_handoff_exec(b->init, b->argc, b->argv, &b->started);
	fail_with(b, r, "unable to run %s in the new root: %s", b->init, strerror(-r));
out:
	return r;
}

static const struct stage {
	const char *name;
	int (*run)(struct boot *b);
	bool timed; /* the shells wait for people */
} boot_stages[] = {
	{ "apifs", stage_api_filesystems, true },
	{ "cmdline", stage_command_line, true },
	{ "rd.emergency", stage_rd_emergency, false },
	{ "modules", stage_modules, true },
	/* before the coldplug: a plan pinned by the boot loader lets ahci probe asynchronously */
	{ "machine", stage_machine_facts, true },
	{ "devices", stage_devices, true },
	{ "pre-discover", stage_hooks_pre_discover, true },
	{ "plan", stage_wait_for_plan, true },
	{ "pre-mount", stage_hooks_pre_mount, true },
	{ "mount", stage_mount, true },
	{ "rd.break", stage_rd_break, false },
	{ "pre-switch", stage_hooks_pre_switch, true },
};

static int run_stage(struct boot *b, const struct stage *s)
{
	int r;

	if (s->timed)
		timing_begin(&b->timings, s->name);
	r = s->run(b);
	if (s->timed)
		timing_end(&b->timings);
	return r;
}

int boot_main(int argc, char **argv)
{
	struct boot *b = &boot_state;
	int r = 0;

	dual_clock_now(&b->started);
	b->argc = argc;
	b->argv = argv;
	log_setup(LOG_TARGET_CONSOLE);
	for (size_t i = 0; i < ARRAY_SIZE(boot_stages) && r == 0; i++)
		r = run_stage(b, &boot_stages[i]);
	if (r == 0)
		r = handoff(b);
	luks_forget();
	/* a shell may follow: its keyboard's drivers too */
	release_held(b, HELD_LOAD);
	emergency_fail(&b->opts, "%s", b->why[0] ? b->why : "the boot stopped for an unknown reason");
}
