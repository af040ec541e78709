/* The disk model: growth and lookups by device spec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "disk.h"
#include "util.h"

static struct part *add(struct disk *d, unsigned nr, const char *partuuid, const char *label,
			const char *fsuuid, const char *fslabel, const char *devpath)
{
	struct part *p = disk_add_part(d);

	p->number = nr;
	COPY_STR(p->partuuid, partuuid);
	COPY_STR(p->label, label);
	COPY_STR(p->fsuuid, fsuuid);
	COPY_STR(p->fslabel, fslabel);
	COPY_STR(p->devpath, devpath);
	return p;
}

static void test_find_every_form(void **state)
{
	struct disk_set set = { 0 };
	struct disk *a = disk_set_add(&set), *b;
	const struct part *p;
	const struct disk *d;

	add(a, 1, "11111111-1111-4111-8111-111111111111", "esp", "AAAA-BBBB", "EFI", "/dev/vda1");
	b = disk_set_add(&set); /* may move a: look it up again below */
	add(b, 2, "22222222-2222-4222-8222-222222222222", "root-1.2", "0b1c4f2e-0000-4000-8000-000000000002",
	    "rootfs", "/dev/vdb2");

	assert_int_equal(disk_set_find(&set, "PARTUUID=22222222-2222-4222-8222-222222222222", &p, &d), 0);
	assert_int_equal(p->number, 2);
	assert_ptr_equal(d, &set.disks[1]);
	assert_int_equal(disk_set_find(&set, "PARTUUID=11111111-1111-4111-8111-111111111111", &p, NULL), 0);
	assert_int_equal(disk_set_find(&set, "PARTUUID=22222222-2222-4222-8222-22222222222A", NULL, NULL),
			 -ENOENT);
	assert_int_equal(disk_set_find(&set, "PARTUUID=22222222-2222-4222-8222-222222222222", NULL, NULL), 0);
	assert_int_equal(disk_set_find(&set, "partuuid=22222222-2222-4222-8222-222222222222", NULL, NULL),
			 -ENOENT);
	assert_int_equal(disk_set_find(&set, "PARTLABEL=root-1.2", &p, NULL), 0);
	assert_int_equal(disk_set_find(&set, "UUID=aaaa-bbbb", &p, NULL), 0);
	assert_int_equal(p->number, 1);
	assert_int_equal(disk_set_find(&set, "LABEL=rootfs", &p, NULL), 0);
	assert_int_equal(disk_set_find(&set, "LABEL=ROOTFS", &p, NULL), -ENOENT);
	assert_int_equal(disk_set_find(&set, "/dev/vdb2", &p, &d), 0);
	assert_int_equal(disk_set_find(&set, "/dev/vdb3", &p, &d), -ENOENT);
	assert_null(p);
	assert_null(d);
	assert_int_equal(disk_set_find(&set, "", &p, NULL), -ENOENT);
	assert_int_equal(disk_set_find(&set, "LABEL=", &p, NULL), -ENOENT);
	disk_set_free(&set);
}

static void test_duplicates_are_refused(void **state)
{
	struct disk_set set = { 0 };
	struct disk *a = disk_set_add(&set);
	const struct part *p = (const struct part *)1;

	add(a, 1, "33333333-3333-4333-8333-333333333333", "x", "", "", "");
	add(a, 2, "33333333-3333-4333-8333-333333333333", "x", "", "", "");
	assert_int_equal(disk_set_find(&set, "PARTUUID=33333333-3333-4333-8333-333333333333", &p, NULL),
			 -ENOTUNIQ);
	assert_null(p);
	assert_int_equal(disk_set_find(&set, "PARTLABEL=x", NULL, NULL), -ENOTUNIQ);
	disk_set_free(&set);
	assert_int_equal(set.n, 0);
}

static void test_many_partitions(void **state)
{
	struct disk_set set = { 0 };
	struct disk *a = disk_set_add(&set);
	char label[16];

	for (unsigned i = 1; i <= 300; i++) {
		snprintf(label, sizeof(label), "p%u", i);
		add(a, i, "", label, "", "", "");
	}
	const struct part *p;
	assert_int_equal(disk_set_find(&set, "PARTLABEL=p300", &p, NULL), 0);
	assert_int_equal(p->number, 300);
	disk_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_every_form),
		cmocka_unit_test(test_duplicates_are_refused),
		cmocka_unit_test(test_many_partitions),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
