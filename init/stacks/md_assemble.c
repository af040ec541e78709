/* md RAID at boot: each member a probe finds goes to mdadm's incremental mode (mdadm
 * --incremental), which records it in /run/mdadm/map and starts its array once every member
 * is there. Without udev, mdadm makes /dev/mdN and the /dev/md/NAME links itself; the array's
 * change uevent then brings it to the probes, and root=/dev/md/NAME, /dev/mdN or UUID= finds it.
 * The kernel asks for a RAID level's module through modprobe, which an initramfs has not: the
 * level is read from the member first (mdadm --examine) and its module loaded here. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "child.h"
#include "log.h"
#include "md_assemble.h"
#include "md_rules.h"
#include "paths.h"
#include "sysfs.h"
#include "timing.h"
#include "util.h"

#define SYS_BLOCK "/sys/class/block"
#define MD_LEVEL_MAX 32

/* md_mod, and a word on rd.md.uuid= entries that can match nothing, once. */
static void md_prepare(struct md_boot *m)
{
	char bad[64];
	int r = modules_load_alias(m->modules, "md_mod");

	/* built in, or loaded already: /proc/mdstat says so */
	if (r < 0 && access("/proc/mdstat", F_OK) < 0)
		log_warn("md: unable to load md_mod: %s", strerror(-r));
	if (md_uuid_list_invalid(&m->opts->md, bad, sizeof(bad)))
		log_warn("rd.md.uuid=%s is not an array UUID (8:8:8:8 or 8-4-4-4-12 hex digits): it "
			 "matches no array", bad);
	m->prepared = true;
}

static int mdadm_run(const char *const *argv, child_line_fn *fn, void *data)
{
	return child_run_lines(&(struct child_spec){ .argv = argv, .exec_failed = 127 }, fn, data);
}

/* MD_LEVEL= of mdadm --examine --export. */
static void level_line(const char *line, void *data)
{
	const char *v = startswith(line, "MD_LEVEL=");

	if (v)
		snprintf(data, MD_LEVEL_MAX, "%s", v);
}

/* The module of the member's RAID level ("md-raid1", the alias each personality has), once a
 * level. 0, or -errno when the level cannot be read or md cannot assemble it. */
static int load_personality(struct md_boot *m, const struct part *part)
{
	const char *argv[] = { EARLYMOUNT_MDADM, "--examine", "--export", part->devpath, NULL };
	char level[MD_LEVEL_MAX] = "", alias[MD_LEVEL_MAX + sizeof("md-")];
	int r = mdadm_run(argv, level_line, level);

	if (r >= 0 && !level[0])
		r = -ENODATA;
	if (r < 0 || r > 0) {
		log_warn("md: unable to read the RAID level of %s (mdadm --examine %s %d): its array "
			 "may not start", part->devpath, r < 0 ? "error" : "exit code", r < 0 ? -r : r);
		r = r < 0 ? r : -EIO;
		goto out;
	}
	/* external metadata (Intel IMSM, DDF) is run by mdmon, which this image does not hold */
	if (streq(level, "container")) {
		log_warn("md: %s belongs to a firmware RAID container (IMSM or DDF metadata): earlymount "
			 "assembles arrays with md's own metadata only; left alone", part->devpath);
		r = -EOPNOTSUPP;
		goto out;
	}
	if (name_list_has(&m->personalities, level))
		goto out;
	snprintf(alias, sizeof(alias), "md-%s", level);
	r = modules_load_alias(m->modules, alias);
	if (r < 0 && r != -EEXIST)
		log_warn("md: no module for RAID level %s (%s: %s); the array starts only if the "
			 "kernel has it built in", level, alias, strerror(-r));
	r = name_list_add(&m->personalities, level);
out:
	return r;
}

/* Whether the array /sys/class/block/NAME waits for members: inactive, with some. */
static bool array_waiting(const char *name)
{
	char path[PATH_MAX], state[32];
	bool members = false;
	DIR *dir;
	struct dirent *de;

	snprintf(path, sizeof(path), SYS_BLOCK "/%s/md/array_state", name);
	if (!sysfs_read_line_at(AT_FDCWD, path, state, sizeof(state)) || !streq(state, "inactive"))
		return false;
	snprintf(path, sizeof(path), SYS_BLOCK "/%s/md", name);
	dir = opendir(path);
	while (dir && !members && (de = readdir(dir)))
		members = startswith(de->d_name, "dev-") != NULL;
	if (dir)
		closedir(dir);
	return members;
}

/* Calls fn for each md array in sysfs, until it returns true: that answer. */
static bool for_each_array(bool (*fn)(const char *name, void *data), void *data)
{
	DIR *dir = opendir(SYS_BLOCK);
	struct dirent *de;
	bool stop = false;

	while (dir && !stop && (de = readdir(dir)))
		if (startswith(de->d_name, "md"))
			stop = fn(de->d_name, data);
	if (dir)
		closedir(dir);
	return stop;
}

static bool is_waiting(const char *name, void *data)
{
	return array_waiting(name);
}

static const struct stack_kind md_kind = {
	.member = "linux_raid_member", .what = "an md RAID member", .off_by = "rd.md=0",
	.tool = EARLYMOUNT_MDADM, .tool_name = "mdadm", .tool_job = "assemble its array",
	.tool_option = "--md",
};

void md_probed(const struct part *part, void *data)
{
	struct md_boot *m = data;
	const char *argv[] = { EARLYMOUNT_MDADM, "--incremental", part->devpath, NULL };
	struct child_log out = { .prefix = "mdadm: " };
	int r;

	/* a device probed again (a change event, a rescan) is handed over, or refused, once */
	if (!stack_gate_pass(&m->gate, &md_kind, m->opts->md.enabled, part))
		return;
	if (!m->prepared)
		md_prepare(m);
	if (!md_array_wanted(&m->opts->md, part->fsuuid)) {
		log_info("%s is a member of md array %s, which rd.md.uuid= does not list: left alone",
			 part->devpath, part->fsuuid);
		return;
	}
	if (load_personality(m, part) < 0)
		return;
	r = mdadm_run(argv, child_log_line, &out);
	m->last_added_sec = timing_now();
	m->degraded_tried = false;
	if (r != 0)
		child_log_failure(&out, "mdadm --incremental", part->devpath, r,
				  "its array may stay inactive");
}

int md_degraded_due_ms(const struct md_boot *m)
{
	int sec = md_degraded_sec(&m->opts->md, m->root_wait_sec);
	double due;
	int r = -1;

	if (m->gate.seen.n == 0 || m->degraded_tried || sec == 0 || !for_each_array(is_waiting, NULL))
		goto out;
	due = m->last_added_sec + sec - timing_now();
	r = due > 0 ? (int)(due * 1000) + 1 : 0;
out:
	return r;
}

/* The members an array runs with (their names) and the slots it has none in. */
static void describe_members(const char *name, char *have, size_t have_size, char *missing,
			     size_t missing_size)
{
	char path[PATH_MAX], value[32];
	unsigned long disks = 0;
	bool filled[256] = { false };
	size_t used = 0;
	DIR *dir;
	struct dirent *de;

	have[0] = missing[0] = '\0';
	snprintf(path, sizeof(path), SYS_BLOCK "/%s/md/raid_disks", name);
	if (sysfs_read_line_at(AT_FDCWD, path, value, sizeof(value)))
		disks = strtoul(value, NULL, 10);
	snprintf(path, sizeof(path), SYS_BLOCK "/%s/md", name);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		const char *member = startswith(de->d_name, "dev-");
		unsigned long slot;

		if (!member)
			continue;
		used += (size_t)snprintf(have + used, used < have_size ? have_size - used : 0, "%s%s",
					 used ? ", " : "", member);
		snprintf(path, sizeof(path), SYS_BLOCK "/%s/md/%s/slot", name, de->d_name);
		if (sysfs_read_line_at(AT_FDCWD, path, value, sizeof(value)) &&
		    (slot = strtoul(value, NULL, 10)) < ARRAY_SIZE(filled))
			filled[slot] = true;
	}
	if (dir)
		closedir(dir);
	used = 0;
	for (unsigned long s = 0; s < disks && s < ARRAY_SIZE(filled); s++)
		if (!filled[s])
			used += (size_t)snprintf(missing + used, used < missing_size ? missing_size - used : 0,
						 "%s%lu", used ? ", " : "", s);
}

/* An array now running degraded is reported once. */
static bool warn_degraded(const char *name, void *data)
{
	struct md_boot *m = data;
	char path[PATH_MAX], value[32], have[256], missing[128];

	snprintf(path, sizeof(path), SYS_BLOCK "/%s/md/degraded", name);
	if (!sysfs_read_line_at(AT_FDCWD, path, value, sizeof(value)) || streq(value, "0") ||
	    name_list_has(&m->warned, name))
		return false;
	describe_members(name, have, sizeof(have), missing, sizeof(missing));
	log_warn("md: /dev/%s started degraded, without the member%s in slot %s: it runs on %s. The "
		 "missing disk was not found within earlymount.md_degraded=; once it is replaced, "
		 "add it: mdadm /dev/%s --add DEVICE", name, strchr(missing, ',') ? "s" : "",
		 missing[0] ? missing : "?", have[0] ? have : "no member", name);
	(void)name_list_add(&m->warned, name);
	return false;
}

void md_start_degraded(struct md_boot *m)
{
	const char *argv[] = { EARLYMOUNT_MDADM, "--incremental", "--run", "--scan", NULL };
	struct child_log out = { .prefix = "mdadm: " };
	int r;

	log_warn("md: an array still misses members after %d s: starting it with those present",
		 md_degraded_sec(&m->opts->md, m->root_wait_sec));
	r = mdadm_run(argv, child_log_line, &out);
	if (r != 0)
		child_log_failure(&out, "mdadm --incremental --run --scan", "the arrays that wait", r,
				  "they stay inactive");
	for_each_array(warn_degraded, m);
	/* an array that still cannot run (too few members) is tried again once another comes */
	m->degraded_tried = true;
}
