/* The storage stacks in the plan: the steps that stand for what the boot makes as
 * members appear (activate, assemble, scan), and on the host, the devices a command line
 * names that the boot would make from members on disk images, as the planner takes them
 * (core/stack_predict.c alone: test_stack_predict.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "plan_fixtures.h"
#include "plan_checks.h"
#include "stack_predict.h"

#define T_LVM "e6d6d379-f507-44c2-a23c-238f2a3df928"
#define T_RAID "a19d880f-05fc-4d3b-a006-743f0f84911e"
#define ARRAY "5a0e9d2c-7b31-f468-9c2d-4e1f0a6b8c3d"
#define LUKS "7b1d8a0e-4c2f-4e51-9d3a-2f6c1e8b5a90"

/* Parses line, predicts as `earlymount plan` does, plans. */
static int plan_predicted(struct fixture *f, const char *line, int predicted)
{
	assert_int_equal(cmdline_parse(line, &f->opts, NULL, 0), 0);
	f->opts.fsck_mode = FSCK_SKIP;
	assert_int_equal(stack_predict(&f->opts, NULL, &f->set), predicted);
	return fx_plan(f);
}

/* An image with an LVM physical volume: root=/dev/mapper/VG-LV is planned behind its
 * activation, its filesystem probed at boot. */
static void test_lvm_root_on_an_image(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "disk.raw", "gpt", "", false);
	const struct plan_step *s;

	fx_part(f, d, 1, T_LVM, NULL, "lvm", 0, "LVM2_member");
	want_ok(f, plan_predicted(f, "root=/dev/mapper/vg0-root ro", 1), 2);
	s = want_step(f, 0, OP_ACTIVATE, "partition 1 of disk.raw", "/dev/mapper/vg0-root", "");
	assert_non_null(strstr(s->reason, "logical volume root of volume group vg0, which lvm activates "
					  "at boot as its physical volumes appear"));
	s = want_step(f, 1, OP_MOUNT, "/dev/mapper/vg0-root", "/sysroot", "");
	assert_string_equal(s->reason, "root=/dev/mapper/vg0-root (made at boot: what it holds is probed then)");
	/* lvm2's other name for the same device: predicted already */
	want_ok(f, plan_predicted(f, "root=/dev/vg0/root ro", 0), 2);
	want_step(f, 0, OP_ACTIVATE, "partition 1 of disk.raw", "/dev/mapper/vg0-root", "");
	fx_free(f);
	(void)state;
}

/* Nothing is predicted without a member, or when the command line keeps the stack off; then
 * the message says why. */
static void test_no_prediction(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "disk.raw", "gpt", "", false);

	fx_part(f, d, 1, T_LINUX, NULL, "", 0, "ext4");
	want_error(f, plan_predicted(f, "root=/dev/mapper/vg0-root", 0), -ENOENT,
		   "root=/dev/mapper/vg0-root matches no partition (at boot the device may not have "
		   "appeared yet)");
	fx_part(f, d, 2, T_LVM, NULL, "", 0, "LVM2_member");
	want_error(f, plan_predicted(f, "root=/dev/mapper/vg0-root rd.lvm=0", 0), -ENOENT,
		   "yet; rd.lvm=0: no volume group is activated)");
	want_error(f, plan_predicted(f, "root=LABEL=lvroot", 0), -ENOENT,
		   "; a filesystem on a logical volume is seen once lvm activated it");
	fx_part(f, d, 3, T_RAID, NULL, "", 0, "linux_raid_member");
	snprintf(fx_get(f, d, 3)->fsuuid, 64, ARRAY);
	want_error(f, plan_predicted(f, "root=/dev/md0 rd.md=0", 0), -ENOENT,
		   "; rd.md=0: no md array is assembled");
	want_error(f, plan_predicted(f, "root=/dev/md0 rd.md.uuid=11111111-2222-3333-4444-555555555555", 0),
		   -ENOENT, "the md members on the disks belong to no array rd.md.uuid= lists");
	want_error(f, plan_predicted(f, "root=UUID=" LUKS, 0), -ENOENT,
		   "a filesystem on an md array is seen once mdadm assembled it");
	fx_free(f);
	(void)state;
}

/* Debian's encrypted layout seen from the host: the volume rd.luks.uuid= lists is unlocked,
 * then the volume group inside it activated. */
static void test_lvm_on_luks_on_an_image(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "disk.raw", "gpt", "", false);
	struct part *p = fx_part(f, d, 1, T_LINUX, NULL, "crypt", 0, "crypto_LUKS");

	snprintf(p->fsuuid, sizeof(p->fsuuid), LUKS);
	want_ok(f, plan_predicted(f, "rd.luks.uuid=" LUKS " root=/dev/mapper/vg0-root", 1), 3);
	want_step(f, 0, OP_UNLOCK, "UUID=" LUKS, "/dev/mapper/luks-" LUKS, "");
	want_step(f, 1, OP_ACTIVATE, "partition 1 of disk.raw", "/dev/mapper/vg0-root", "");
	want_step(f, 2, OP_MOUNT, "/dev/mapper/vg0-root", "/sysroot", "");
	fx_free(f);
	(void)state;
}

/* md: the array a name gives, its members those the command line lets the boot assemble. */
static void test_md_on_images(void **state)
{
	struct fixture *f = fx_new();
	size_t a = fx_disk(f, "a.raw", "gpt", "", false);
	size_t b = fx_disk(f, "b.raw", "gpt", "", false);

	snprintf(fx_part(f, a, 1, T_RAID, NULL, "", 0, "linux_raid_member")->fsuuid, 64, ARRAY);
	snprintf(fx_part(f, b, 1, T_RAID, NULL, "", 0, "linux_raid_member")->fsuuid, 64, ARRAY);
	want_ok(f, plan_predicted(f, "root=/dev/md/server:root ro", 1), 2);
	want_step(f, 0, OP_ASSEMBLE, "partition 1 of a.raw, partition 1 of b.raw", "/dev/md/server:root",
		  "");
	want_step(f, 1, OP_MOUNT, "/dev/md/server:root", "/sysroot", "");
	fx_free(f);
	(void)state;
}

/* At boot the array is there (mdadm made it as its members appeared): the plan shows the
 * assembly where it stands, and the executor has nothing left to do. */
static void test_md_at_boot(void **state)
{
	struct fixture *f = fx_new();
	size_t a = fx_disk(f, "/dev/vda", "gpt", "", false);
	size_t md = fx_disk(f, "/dev/md127", "", "", false);
	struct part *p = fx_part(f, a, 1, T_RAID, NULL, "", 0, "linux_raid_member");

	snprintf(p->fsuuid, sizeof(p->fsuuid), ARRAY);
	snprintf(p->devpath, sizeof(p->devpath), "/dev/vda1");
	p = fx_part(f, md, PART_WHOLE_DEVICE, "", NULL, "", 0, "ext4");
	snprintf(p->fsuuid, sizeof(p->fsuuid), LUKS);
	snprintf(p->devpath, sizeof(p->devpath), "/dev/md127");
	p->start = 0;
	want_ok(f, plan_with(f, "root=UUID=" LUKS), 2);
	want_step(f, 0, OP_ASSEMBLE, "/dev/vda1", "/dev/md127", "");
	want_step(f, 1, OP_MOUNT, "UUID=" LUKS, "/sysroot", "ext4");
	fx_free(f);
	(void)state;
}

/* A /usr on another logical volume, and resume= from a third: one activation each, before
 * the step that takes it. */
static void test_usr_and_resume(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "disk.raw", "gpt", "", false);

	fx_part(f, d, 1, T_LVM, NULL, "", 0, "LVM2_member");
	want_ok(f, plan_predicted(f, "root=/dev/vg0/root mount.usr=/dev/vg0/usr resume=/dev/vg0/swap", 3), 6);
	want_step(f, 0, OP_ACTIVATE, "partition 1 of disk.raw", "/dev/mapper/vg0-swap", "");
	want_step(f, 1, OP_RESUME, "/dev/vg0/swap", "", "");
	want_step(f, 2, OP_ACTIVATE, "partition 1 of disk.raw", "/dev/mapper/vg0-root", "");
	want_step(f, 3, OP_MOUNT, "/dev/vg0/root", "/sysroot", "");
	want_step(f, 4, OP_ACTIVATE, "partition 1 of disk.raw", "/dev/mapper/vg0-usr", "");
	want_step(f, 5, OP_MOUNT, "/dev/vg0/usr", "/sysroot/usr", "");
	fx_free(f);
	(void)state;
}

/* resume= by the logical volume's device-mapper name: on images predicted and activated,
 * at boot the volume lvm made (not encrypted, even when its volume group is inside LUKS);
 * a device dm-crypt made is still not resumed from. */
static void test_resume_by_mapper_name(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "disk.raw", "gpt", "", false);
	size_t lv, crypt;
	struct part *p;

	fx_part(f, d, 1, T_LVM, NULL, "", 0, "LVM2_member");
	want_ok(f, plan_predicted(f, "root=/dev/vg0/root resume=/dev/mapper/vg0-swap", 2), 4);
	want_step(f, 0, OP_ACTIVATE, "partition 1 of disk.raw", "/dev/mapper/vg0-swap", "");
	want_step(f, 1, OP_RESUME, "/dev/mapper/vg0-swap", "", "");
	fx_free(f);

	f = fx_new();
	d = fx_disk(f, "/dev/vda", "gpt", "", false);
	lv = fx_disk(f, "/dev/dm-1", "", "", false);
	crypt = fx_disk(f, "/dev/dm-2", "", "", false);
	p = fx_part(f, d, 1, T_LVM, NULL, "", 0, "LVM2_member");
	snprintf(p->devpath, sizeof(p->devpath), "/dev/vda1");
	p = fx_part(f, lv, PART_WHOLE_DEVICE, "", NULL, "", 0, "swap");
	snprintf(p->dm_name, sizeof(p->dm_name), "vg0-swap");
	snprintf(p->dm_uuid, sizeof(p->dm_uuid), "LVM-abcdef");
	snprintf(p->devpath, sizeof(p->devpath), "/dev/dm-1");
	p = fx_part(f, crypt, PART_WHOLE_DEVICE, "", NULL, "", 0, "swap");
	snprintf(p->dm_name, sizeof(p->dm_name), "cryptswap");
	snprintf(p->dm_uuid, sizeof(p->dm_uuid), "CRYPT-LUKS2-0123-cryptswap");
	snprintf(p->devpath, sizeof(p->devpath), "/dev/dm-2");
	p = fx_part(f, d, 2, "0fc63daf-8483-4772-8e79-3d69d8477de4", NULL, "", 0, "ext4");
	snprintf(p->devpath, sizeof(p->devpath), "/dev/vda2");
	want_ok(f, plan_with(f, "root=/dev/vda2 resume=/dev/mapper/vg0-swap"), 3);
	want_step(f, 0, OP_ACTIVATE, "/dev/vda1", "/dev/mapper/vg0-swap", "");
	want_step(f, 1, OP_RESUME, "/dev/mapper/vg0-swap", "", "");
	want_ok(f, plan_with(f, "root=/dev/vda2 resume=/dev/mapper/cryptswap"), 1);
	want_step(f, 0, OP_MOUNT, "/dev/vda2", "/sysroot", "ext4");
	want_note(f, "resume=/dev/mapper/cryptswap not attempted");
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resume_by_mapper_name),
		cmocka_unit_test(test_lvm_root_on_an_image),
		cmocka_unit_test(test_no_prediction),
		cmocka_unit_test(test_lvm_on_luks_on_an_image),
		cmocka_unit_test(test_md_on_images),
		cmocka_unit_test(test_md_at_boot),
		cmocka_unit_test(test_usr_and_resume),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
