/* LVM2 at boot: each physical volume a probe finds is handed to lvm2's tool, which records it
 * under /run/lvm and activates its volume group once every PV of it is there (what lvm2's udev
 * rule does on a running system). Without udev, libdevmapper makes /dev/mapper/VG-LV and lvm2
 * the /dev/VG/LV links itself (DM_DISABLE_UDEV); the logical volumes' own uevents then bring
 * them to the probes, and root=/dev/mapper/VG-LV, /dev/VG/LV or UUID= finds them there. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "lvm_names.h"
#include "lvm_activate.h"
#include "paths.h"
#include "util.h"

/* No udev to wait for or to ask for devices; no lvmlockd, no dmeventd (monitoring) in an
 * initramfs; a devices file, when the host has one, is not in the image. */
#define LVM_CONFIG_FIXED                                                                       \
	"global { locking_dir = \"/run/lock/lvm\" use_lvmlockd = 0 event_activation = 1 } "    \
	"devices { obtain_device_list_from_udev = 0 external_device_info_source = \"none\" "   \
	"use_devicesfile = 0 } "                                                               \
	"activation { udev_sync = 0 udev_rules = 0 monitoring = 0 "

/* dm_mod (a module in most distributions' kernels) and the --config text, once. */
static void lvm_prepare(struct lvm_boot *l)
{
	char list[sizeof(l->config) / 2], err[256] = "";
	int r = modules_load_alias(l->modules, "dm_mod");

	/* built in, or a module already loaded: /dev/mapper/control says so */
	if (r < 0 && access(DM_MAPPER_DIR "/control", F_OK) < 0)
		log_warn("lvm: unable to load dm_mod: %s", strerror(-r));
	r = lvm_activation_list(&l->opts->lvm, list, sizeof(list), err, sizeof(err));
	if (r == -EINVAL)
		log_warn("%s; activating every volume group instead", err);
	if (r < 0)
		list[0] = '\0';
	snprintf(l->config, sizeof(l->config), LVM_CONFIG_FIXED "%s%s }",
		 list[0] ? "auto_activation_volume_list = " : "", list);
	l->prepared = true;
}

/* Runs lvm with argv, its output (both streams) logged. Its exit code, or -errno. */
static int lvm_run(const char *const *argv, struct child_log *out)
{
	static const char *const env[] = { "DM_DISABLE_UDEV=1", "LVM_SUPPRESS_FD_WARNINGS=1", NULL };

	return child_run_lines(&(struct child_spec){ .argv = argv, .exec_failed = 127, .env = env },
			       child_log_line, out);
}

static const struct stack_kind lvm_kind = {
	.member = "LVM2_member", .what = "an LVM physical volume", .off_by = "rd.lvm=0",
	.tool = EARLYMOUNT_LVM, .tool_name = "lvm", .tool_job = "activate its volume group",
	.tool_option = "--lvm",
};

void lvm_probed(const struct part *part, void *data)
{
	struct lvm_boot *l = data;
	const char *argv[] = { EARLYMOUNT_LVM, "pvscan", "--cache", "--activate", "ay", "--config",
			       l->config, part->devpath, NULL };
	struct child_log out = { .prefix = "lvm: " };
	int r;

	if (!stack_gate_pass(&l->gate, &lvm_kind, l->opts->lvm.enabled, part))
		return;
	if (!l->prepared)
		lvm_prepare(l);
	log_debug("lvm: scanning %s", part->devpath);
	r = lvm_run(argv, &out);
	if (r != 0)
		child_log_failure(&out, "lvm pvscan", part->devpath, r,
				  "its volume group may stay inactive");
}
