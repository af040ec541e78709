/* core/stack_predict.c: which device a spec names by its path (an LVM logical volume, an md
 * array), whether a disk set holds members, and the devices predicted on images: each spec
 * once, only with members and with the stack on, and -ENOMEM. realloc is wrapped to fail on
 * demand. What the planner makes of a predicted device is test_plan_stacks.c's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fstab.h"
#include "lvm_names.h"
#include "plan_fixtures.h"
#include "stack_predict.h"
#include "util.h"

#define ARRAY "5a0e9d2c-7b31-f468-9c2d-4e1f0a6b8c3d"
#define OTHER_ARRAY "11111111-2222-3333-4444-555555555555"

static int reallocs_left = -1; /* how many more succeed; -1: all */

void *__real_realloc(void *p, size_t n);

void *__wrap_realloc(void *p, size_t n)
{
	if (reallocs_left == 0)
		return NULL;
	if (reallocs_left > 0)
		reallocs_left--;
	return __real_realloc(p, n);
}

static void test_kinds(void **state)
{
	char dm[128];

	assert_int_equal(stack_kind_of("/dev/mapper/vg0-root", dm, sizeof(dm)), STACK_LVM);
	assert_string_equal(dm, "vg0-root");
	assert_int_equal(stack_kind_of("/dev/mapper/my--vg-my--lv", dm, sizeof(dm)), STACK_LVM);
	assert_string_equal(dm, "my--vg-my--lv");
	assert_int_equal(stack_kind_of("/dev/my-vg/my-lv", dm, sizeof(dm)), STACK_LVM);
	assert_string_equal(dm, "my--vg-my--lv");
	assert_int_equal(stack_kind_of("/dev/vg_0/lv.1+x", dm, sizeof(dm)), STACK_LVM);
	assert_string_equal(dm, "vg_0-lv.1+x");
	assert_int_equal(stack_kind_of("/dev/md0", dm, sizeof(dm)), STACK_MD);
	assert_int_equal(stack_kind_of("/dev/md127", dm, sizeof(dm)), STACK_MD);
	assert_int_equal(stack_kind_of("/dev/md/server:root", dm, sizeof(dm)), STACK_MD);
	assert_int_equal(stack_kind_of("/dev/md/0", dm, sizeof(dm)), STACK_MD);
	(void)state;
}

static void test_not_stacks(void **state)
{
	static const char *const none[] = {
		/* a LUKS name without '-', a hidden layer, device-mapper's own node */
		"/dev/mapper/cryptroot", "/dev/mapper/vg0-pool-tpool", "/dev/mapper/control",
		"/dev/mapper/-root", "/dev/mapper/vg0-",
		/* /dev's own directories, and what is no VG/LV pair */
		"/dev/disk/root", "/dev/pts/0", "/dev/shm/x", "/dev/bus/usb", "/dev/mapper/x",
		"/dev/disk/by-uuid/x", "/dev/vg0/root/x", "/dev/vg0/", "/dev//root", "/dev/vg0/-lv",
		"/dev/vg 0/root", "/dev/vg0/..", "/dev/./root", "/dev/vg0/r\"t",
		/* md: a number, or a name after /dev/md/ */
		"/dev/md", "/dev/mdx", "/dev/md12a", "/dev/md/", "/dev/md-0",
		"/dev/vda2", "/dev/vda", "UUID=" ARRAY, "LABEL=root", "", "vg0/root", "dev/vg0/root",
	};
	char dm[128];

	for (size_t i = 0; i < ARRAY_SIZE(none); i++)
		if (stack_kind_of(none[i], dm, sizeof(dm)) != STACK_NONE)
			fail_msg("%s is taken for a stacked device", none[i]);
	assert_int_equal(stack_kind_of(NULL, dm, sizeof(dm)), STACK_NONE);
	(void)state;
}

/* Names at lvm2's limit, and device-mapper names that do not fit the caller's buffer. */
static void test_kind_limits(void **state)
{
	char dm[128], path[300], name[LVM_NAME_MAX + 1];

	memset(name, 'v', sizeof(name));
	name[LVM_NAME_MAX - 1] = '\0';
	snprintf(path, sizeof(path), "/dev/%s/lv", name);
	assert_int_equal(stack_kind_of(path, dm, sizeof(dm)), STACK_NONE); /* 130 bytes: too long */
	snprintf(path, sizeof(path), "/dev/%.100s/lv", name);
	assert_int_equal(stack_kind_of(path, dm, sizeof(dm)), STACK_LVM);
	assert_int_equal(strlen(dm), 103);
	name[LVM_NAME_MAX - 1] = 'v';
	name[LVM_NAME_MAX] = '\0';
	snprintf(path, sizeof(path), "/dev/vg/%s", name);
	assert_int_equal(stack_kind_of(path, dm, sizeof(dm)), STACK_NONE);

	assert_int_equal(stack_kind_of("/dev/vg0/root", dm, 64), STACK_LVM);
	assert_string_equal(dm, "vg0-root");
	assert_int_equal(stack_kind_of("/dev/vg0/root", dm, 8), STACK_NONE);
	assert_string_equal(dm, "");
	assert_int_equal(stack_kind_of("/dev/a-b/c-d", dm, 8), STACK_NONE);
	dm[0] = 'x';
	assert_int_equal(stack_kind_of("/dev/vg0/root", dm, 0), STACK_NONE);
	assert_int_equal(dm[0], 'x');
	assert_int_equal(stack_kind_of("/dev/mapper/vg0-root", dm, 8), STACK_NONE);
	(void)state;
}

static void test_members_on(void **state)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "disk.raw", "gpt", "", false);
	struct part *p;

	assert_false(stack_members_on(&f->set, "LVM2_member", NULL));
	fx_part(f, d, 1, T_LINUX, NULL, "", 0, "ext4");
	assert_false(stack_members_on(&f->set, "LVM2_member", NULL));
	d = fx_disk(f, "other.raw", "gpt", "", false);
	fx_part(f, d, 1, T_LINUX, NULL, "", 0, "ext4");
	fx_part(f, d, 2, T_LINUX, NULL, "", 0, "LVM2_member");
	assert_true(stack_members_on(&f->set, "LVM2_member", NULL));
	assert_false(stack_members_on(&f->set, "lvm2_member", NULL));
	assert_false(stack_members_on(&f->set, "linux_raid_member", NULL));

	/* md: only members of an array the command line lets the boot assemble */
	p = fx_part(f, d, 3, T_LINUX, NULL, "", 0, "linux_raid_member");
	snprintf(p->fsuuid, sizeof(p->fsuuid), ARRAY);
	assert_true(stack_members_on(&f->set, "linux_raid_member", &f->opts.md));
	assert_int_equal(cmdline_parse("rd.md.uuid=" OTHER_ARRAY, &f->opts, NULL, 0), 0);
	assert_false(stack_members_on(&f->set, "linux_raid_member", &f->opts.md));
	assert_true(stack_members_on(&f->set, "linux_raid_member", NULL));
	assert_int_equal(cmdline_parse("rd.md.uuid=" ARRAY, &f->opts, NULL, 0), 0);
	assert_true(stack_members_on(&f->set, "linux_raid_member", &f->opts.md));
	assert_int_equal(cmdline_parse("rd.md=0", &f->opts, NULL, 0), 0);
	assert_false(stack_members_on(&f->set, "linux_raid_member", &f->opts.md));
	fx_free(f);
	(void)state;
}

/* A set of one disk with a member of each stack. */
static struct fixture *members(void)
{
	struct fixture *f = fx_new();
	size_t d = fx_disk(f, "disk.raw", "gpt", "", false);

	fx_part(f, d, 1, T_LINUX, NULL, "", 0, "LVM2_member");
	snprintf(fx_part(f, d, 2, T_LINUX, NULL, "", 0, "linux_raid_member")->fsuuid, 64, ARRAY);
	return f;
}

static int predict(struct fixture *f, const char *line, const struct fstab *fstab)
{
	options_init(&f->opts);
	assert_int_equal(cmdline_parse(line, &f->opts, NULL, 0), 0);
	return stack_predict(&f->opts, fstab, &f->set);
}

/* The predicted device: a disk of its own, named as the spec, one whole-device part. */
static const struct part *predicted(const struct fixture *f, const char *spec)
{
	for (size_t d = 0; d < f->set.n; d++)
		if (streq(f->set.disks[d].path, spec)) {
			assert_int_equal(f->set.disks[d].n_parts, 1);
			assert_true(f->set.disks[d].parts[0].predicted);
			assert_int_equal(f->set.disks[d].parts[0].number, PART_WHOLE_DEVICE);
			return &f->set.disks[d].parts[0];
		}
	fail_msg("%s is not predicted", spec);
	return NULL;
}

static void test_predicts(void **state)
{
	static struct fstab fstab;
	struct fixture *f = members();
	const struct part *p;

	assert_int_equal(predict(f, "root=/dev/vg0/root", NULL), 1);
	p = predicted(f, "/dev/vg0/root");
	assert_string_equal(p->dm_name, "vg0-root");
	assert_string_equal(p->dm_uuid, "LVM-");
	assert_string_equal(p->devpath, "");
	assert_int_equal(predict(f, "root=/dev/md/server:root", NULL), 1);
	p = predicted(f, "/dev/md/server:root");
	assert_string_equal(p->md_name, "server:root");
	assert_string_equal(p->dm_name, "");
	assert_int_equal(predict(f, "root=/dev/md127", NULL), 1);
	p = predicted(f, "/dev/md127");
	assert_string_equal(p->devpath, "/dev/md127");
	assert_string_equal(p->md_name, "");
	assert_int_equal(f->set.n, 4);
	/* once: a device already in the set, by any of its names, is not predicted again */
	assert_int_equal(predict(f, "root=/dev/vg0/root", NULL), 0);
	assert_int_equal(predict(f, "root=/dev/mapper/vg0-root", NULL), 0);
	assert_int_equal(predict(f, "root=/dev/md/server:root", NULL), 0);
	assert_int_equal(predict(f, "root=/dev/md127", NULL), 0);
	assert_int_equal(f->set.n, 4);
	fx_free(f);

	/* every source of specs: root=, mount.usr=, resume= and the root's fstab */
	f = members();
	fstab.n = 2;
	assert_int_equal(fstab_entry_make("/dev/vg0/home", "/home", "ext4", "", &fstab.entries[0]), 0);
	assert_int_equal(fstab_entry_make("/dev/md/data", "/srv", "", "", &fstab.entries[1]), 0);
	assert_int_equal(predict(f, "root=/dev/mapper/vg0-root mount.usr=/dev/vg0/usr "
				    "resume=/dev/vg0/swap", &fstab), 5);
	predicted(f, "/dev/mapper/vg0-root");
	predicted(f, "/dev/vg0/usr");
	predicted(f, "/dev/vg0/swap");
	predicted(f, "/dev/vg0/home");
	predicted(f, "/dev/md/data");
	fx_free(f);

	/* two specs of one device: predicted once */
	f = members();
	assert_int_equal(predict(f, "root=/dev/mapper/vg0-root mount.usr=/dev/vg0/root", NULL), 1);
	fx_free(f);
	(void)state;
}

/* Nothing predicted: no spec of a stack, the stack off, no member, or a spec that is no
 * device (a share, noresume, discovery). */
static void test_predicts_nothing(void **state)
{
	static const char *const lines[] = {
		"", "root=/dev/vda2", "root=UUID=" ARRAY, "root=LABEL=x",
		"root=/dev/vg0/root rd.lvm=0", "root=/dev/md0 rd.md=0",
		"root=/dev/md/x rd.md.uuid=" OTHER_ARRAY,
		"root=virtiofs:root", "mount.usrfstype=virtiofs mount.usr=/dev/vg0/usr",
		"mount.usr=virtiofs:/dev/vg0/usr", "resume=/dev/vg0/swap noresume",
	};
	struct fixture *f = members();
	struct fixture *empty = fx_new();

	for (size_t i = 0; i < ARRAY_SIZE(lines); i++)
		if (predict(f, lines[i], NULL) != 0)
			fail_msg("%s predicted a device", lines[i]);
	assert_int_equal(f->set.n, 1);
	/* no members at all */
	fx_disk(empty, "disk.raw", "gpt", "", false);
	fx_part(empty, 0, 1, T_LINUX, NULL, "", 0, "ext4");
	assert_int_equal(predict(empty, "root=/dev/vg0/root resume=/dev/md0", NULL), 0);
	fx_free(empty);
	fx_free(f);
	(void)state;
}

/* A LUKS volume may hold a physical volume (seen at boot only): it counts for LVM while the
 * boot may unlock it, never for md. */
static void test_lvm_on_luks(void **state)
{
	struct fixture *f = fx_new();

	fx_disk(f, "disk.raw", "gpt", "", false);
	fx_part(f, 0, 1, T_LINUX, NULL, "", 0, "crypto_LUKS");
	assert_int_equal(predict(f, "root=/dev/vg0/root rd.luks=0", NULL), 0);
	assert_int_equal(predict(f, "root=/dev/md0", NULL), 0);
	assert_int_equal(predict(f, "root=/dev/vg0/root", NULL), 1);
	predicted(f, "/dev/vg0/root");
	fx_free(f);
	(void)state;
}

/* -ENOMEM when the set cannot grow, or the device's disk cannot take its part; the walk
 * stops there. */
static void test_out_of_memory(void **state)
{
	struct fixture *f = members();

	options_init(&f->opts);
	assert_int_equal(cmdline_parse("root=/dev/vg0/root mount.usr=/dev/vg0/usr", &f->opts, NULL, 0), 0);
	reallocs_left = 0;
	assert_int_equal(stack_predict(&f->opts, NULL, &f->set), -ENOMEM);
	assert_int_equal(f->set.n, 1);
	reallocs_left = 1;
	assert_int_equal(stack_predict(&f->opts, NULL, &f->set), -ENOMEM);
	/* root= predicted, mount.usr='s disk added without its part */
	reallocs_left = 2;
	assert_int_equal(stack_predict(&f->opts, NULL, &f->set), -ENOMEM);
	predicted(f, "/dev/vg0/root");
	reallocs_left = -1;
	fx_free(f);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_not_stacks),
		cmocka_unit_test(test_kind_limits),
		cmocka_unit_test(test_members_on),
		cmocka_unit_test(test_predicts),
		cmocka_unit_test(test_predicts_nothing),
		cmocka_unit_test(test_lvm_on_luks),
		cmocka_unit_test(test_out_of_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
