/* The planner for btrfs: a filesystem over several devices is one match of
 * root=UUID= and waits until the boot saw all its devices (degraded mounts it without);
 * subvolumes of one btrfs may be the root and /usr. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"

#define FSUUID "8d2f6c1e-3b4a-4c5d-9e6f-7a8b9c0d1e2f"

static void want_mount(const struct fixture *f, size_t i, const char *source, const char *target,
		       const char *options)
{
	const struct plan_step *s = &f->plan.steps[i];

	if (i >= f->plan.n_steps || s->op != OP_MOUNT || strcmp(s->source, source) != 0 ||
	    strcmp(s->target, target) != 0 || strcmp(s->fstype, "btrfs") != 0 ||
	    strcmp(s->options, options) != 0) {
		fx_dump(f);
		fail_msg("step %zu: want mount %s %s btrfs [%s]", i, source, target, options);
	}
}

/* The scan step: every device of the filesystem shown to the kernel, before its mounts. */
static void want_scan(const struct fixture *f, size_t i, const char *members)
{
	const struct plan_step *s = &f->plan.steps[i];

	if (i >= f->plan.n_steps || s->op != OP_SCAN || strcmp(s->source, members) != 0 ||
	    strcmp(s->target, "UUID=" FSUUID) != 0) {
		fx_dump(f);
		fail_msg("step %zu: want scan %s UUID=%s", i, members, FSUUID);
	}
}

/* A btrfs device: partition 1 of disk d, devpath /dev/vdX1, device UUID sub. */
static struct part *member(struct fixture *f, size_t d, const char *devpath, const char *fsuuid,
			   const char *sub)
{
	struct part *p = fx_part(f, d, 1, T_LINUX, NULL, "", 0, "btrfs");

	snprintf(p->fsuuid, sizeof(p->fsuuid), "%s", fsuuid);
	snprintf(p->fsuuid_sub, sizeof(p->fsuuid_sub), "%s", sub);
	snprintf(p->devpath, sizeof(p->devpath), "%s", devpath);
	return p;
}

/* Two disks, one btrfs RAID1 over a partition of each. */
static struct fixture *two_devices(bool incomplete)
{
	struct fixture *f = fx_new();
	size_t a = fx_disk(f, "/dev/vda", "gpt", "", false);
	size_t b = fx_disk(f, "/dev/vdb", "gpt", "", false);

	member(f, a, "/dev/vda1", FSUUID, "00000000-0000-4000-8000-00000000000a")->fs_incomplete = incomplete;
	member(f, b, "/dev/vdb1", FSUUID, "00000000-0000-4000-8000-00000000000b")->fs_incomplete = incomplete;
	return f;
}

static void test_devices_of_one_filesystem_are_one_match(void **state)
{
	struct fixture *f = two_devices(false);
	const struct part *p;

	assert_int_equal(disk_set_find(&f->set, "UUID=" FSUUID, &p, NULL), 0);
	assert_string_equal(p->devpath, "/dev/vda1");
	want_ok(f, plan_with(f, "root=UUID=" FSUUID), 2);
	want_scan(f, 0, "/dev/vda1, /dev/vdb1");
	want_mount(f, 1, "UUID=" FSUUID, "/sysroot", "ro");
	fx_free(f);
	(void)state;
}

/* A copied disk has the same device UUID too: which one is meant cannot be known. */
static void test_copied_device_stays_ambiguous(void **state)
{
	struct fixture *f = fx_new();
	size_t a = fx_disk(f, "/dev/vda", "gpt", "", false);
	size_t b = fx_disk(f, "/dev/vdb", "gpt", "", false);

	member(f, a, "/dev/vda1", FSUUID, "00000000-0000-4000-8000-00000000000a");
	member(f, b, "/dev/vdb1", FSUUID, "00000000-0000-4000-8000-00000000000a");
	want_error(f, plan_with(f, "root=UUID=" FSUUID), -ENOTUNIQ, "matches several partitions");
	fx_free(f);
	(void)state;
}

/* Only btrfs spans devices: two ext4 with one UUID stay ambiguous. */
static void test_other_types_stay_ambiguous(void **state)
{
	struct fixture *f = two_devices(false);

	snprintf(f->set.disks[0].parts[0].fstype, sizeof(f->set.disks[0].parts[0].fstype), "ext4");
	snprintf(f->set.disks[1].parts[0].fstype, sizeof(f->set.disks[1].parts[0].fstype), "ext4");
	want_error(f, plan_with(f, "root=UUID=" FSUUID), -ENOTUNIQ, "matches several partitions");
	fx_free(f);
	(void)state;
}

static void test_missing_device_waits(void **state)
{
	struct fixture *f = fx_new();
	size_t a = fx_disk(f, "/dev/vda", "gpt", "", false);

	member(f, a, "/dev/vda1", FSUUID, "00000000-0000-4000-8000-00000000000a")->fs_incomplete = true;
	want_error(f, plan_with(f, "root=UUID=" FSUUID), -ENOENT,
		   "root: the btrfs filesystem UUID=" FSUUID " spans several devices, and only "
		   "/dev/vda1 of them is there (rootflags=degraded mounts it without the others)");
	fx_free(f);
	(void)state;
}

static void test_degraded_mounts_what_is_there(void **state)
{
	struct fixture *f = fx_new();
	size_t a = fx_disk(f, "/dev/vda", "gpt", "", false);

	member(f, a, "/dev/vda1", FSUUID, "00000000-0000-4000-8000-00000000000a")->fs_incomplete = true;
	want_ok(f, plan_with(f, "root=UUID=" FSUUID " rootflags=degraded"), 2);
	want_scan(f, 0, "/dev/vda1");
	want_mount(f, 1, "UUID=" FSUUID, "/sysroot", "ro,degraded");
	fx_free(f);
	(void)state;
}

/* /usr on the same filesystem waits as the root does, by its own flags. */
static void test_usr_waits_by_its_own_flags(void **state)
{
	struct fixture *f = two_devices(true);

	want_error(f, plan_with(f, "root=UUID=" FSUUID " rootflags=subvol=@,degraded mount.usr=UUID="
			      FSUUID " mount.usrflags=subvol=@usr"),
		   -ENOENT, "usr: the btrfs filesystem UUID=" FSUUID " spans several devices, and only "
			    "/dev/vda1, /dev/vdb1 of them are there (mount.usrflags=degraded");
	fx_free(f);
	(void)state;
}

/* Fedora's and Ubuntu's layouts: root and /usr in subvolumes of one btrfs. */
static void test_subvolumes_for_root_and_usr(void **state)
{
	struct fixture *f = two_devices(false);

	want_ok(f, plan_with(f, "root=UUID=" FSUUID " rootflags=subvol=@ mount.usr=UUID=" FSUUID
			   " mount.usrflags=subvolid=257"), 3);
	/* one scan for both: the filesystem is the same */
	want_scan(f, 0, "/dev/vda1, /dev/vdb1");
	want_mount(f, 1, "UUID=" FSUUID, "/sysroot", "ro,subvol=@");
	want_mount(f, 2, "UUID=" FSUUID, "/sysroot/usr", "ro,subvolid=257");
	fx_free(f);
	(void)state;
}

/* The same subvolume twice is the same tree twice: refused as before. */
static void test_same_subvolume_refused(void **state)
{
	struct fixture *f = two_devices(false);

	want_error(f, plan_with(f, "root=UUID=" FSUUID " rootflags=subvol=@ mount.usr=UUID=" FSUUID
			      " mount.usrflags=subvolid=5,subvol=@"),
		   -EINVAL, "and the same subvolume of its btrfs: give mount.usrflags=subvol=");
	fx_free(f);
	/* without mount.usrflags=, /usr takes rootflags= */
	f = two_devices(false);
	want_error(f, plan_with(f, "root=UUID=" FSUUID " rootflags=subvol=@ mount.usr=UUID=" FSUUID),
		   -EINVAL, "name the same device (/dev/vda1) and the same subvolume");
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices_of_one_filesystem_are_one_match),
		cmocka_unit_test(test_copied_device_stays_ambiguous),
		cmocka_unit_test(test_other_types_stay_ambiguous),
		cmocka_unit_test(test_missing_device_waits),
		cmocka_unit_test(test_degraded_mounts_what_is_there),
		cmocka_unit_test(test_usr_waits_by_its_own_flags),
		cmocka_unit_test(test_subvolumes_for_root_and_usr),
		cmocka_unit_test(test_same_subvolume_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
