/* The disk model: growth, lookups by device spec, byte ranges, text from the disk. */
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

/* Every partition a spec names, for the refusal that names them: as many as match, the first
 * max of them given back with their disks. */
static void test_find_all(void **state)
{
	struct disk_set set = { 0 };
	const struct part *parts[2] = { 0 };
	const struct disk *disks[2] = { 0 };

	add(disk_set_add(&set), 1, "44444444-4444-4444-8444-444444444444", "x", "", "", "");
	add(disk_set_add(&set), 3, "44444444-4444-4444-8444-444444444444", "x", "", "", "");
	add(&set.disks[1], 4, "55555555-5555-4555-8555-555555555555", "x", "", "", "");
	assert_int_equal(disk_set_find_all(&set, "PARTLABEL=x", parts, disks, 2), 3);
	assert_int_equal(parts[0]->number, 1);
	assert_ptr_equal(disks[0], &set.disks[0]);
	assert_int_equal(parts[1]->number, 3);
	assert_ptr_equal(disks[1], &set.disks[1]);
	assert_int_equal(disk_set_find_all(&set, "PARTUUID=44444444-4444-4444-8444-444444444444", NULL,
					   NULL, 0), 2);
	assert_int_equal(disk_set_find_all(&set, "PARTLABEL=y", parts, disks, 2), 0);
	disk_set_free(&set);
	(void)state;
}

/* A partition is named by its disk; a device without a partition table is no partition 0. */
static void test_part_names(void **state)
{
	struct disk_set set = { 0 };
	struct disk *gpt = disk_set_add(&set), *whole;
	char name[64];

	COPY_STR(gpt->path, "/dev/vda");
	COPY_STR(gpt->pttype, "gpt");
	add(gpt, 2, "", "", "", "", "");
	add(gpt, 0, "", "", "", "", ""); /* a hostile entry 0: still a table's */
	whole = disk_set_add(&set);
	COPY_STR(whole->path, "lv.img");
	add(whole, PART_WHOLE_DEVICE, "", "", "", "", "");
	gpt = &set.disks[0];
	assert_string_equal(disk_part_name(gpt, &gpt->parts[0], name, sizeof(name)),
			    "partition 2 of /dev/vda");
	assert_string_equal(disk_part_name(gpt, &gpt->parts[1], name, sizeof(name)),
			    "partition 0 of /dev/vda");
	assert_string_equal(disk_part_name(whole, &whole->parts[0], name, sizeof(name)),
			    "the whole of lv.img");
	disk_set_free(&set);
	(void)state;
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

static struct part *ranged(struct disk *d, unsigned nr, uint64_t start, uint64_t size)
{
	struct part *p = add(d, nr, "", "", "", "", "");

	p->start = start;
	p->size = size;
	return p;
}

/* Ranges from a hostile table: no sum may wrap, an empty range meets nothing. */
static void test_ranges_and_overlaps(void **state)
{
	struct disk_set set = { 0 };
	struct disk *d = disk_set_add(&set);

	ranged(d, 1, 1024, 1024);                  /* [1024, 2048) */
	ranged(d, 2, 2048, 4096);                  /* touches 1, shares nothing */
	ranged(d, 3, 8192, 0);                     /* empty */
	ranged(d, 4, UINT64_MAX - 512, 4096);      /* would wrap */
	assert_true(part_end(&d->parts[0]) == 2048);
	assert_true(part_end(&d->parts[3]) == UINT64_MAX);
	for (size_t i = 0; i < d->n_parts; i++)
		assert_null(disk_find_overlap(d, &d->parts[i]));

	ranged(d, 5, 2047, 1);                     /* the last byte of 1 */
	assert_ptr_equal(disk_find_overlap(d, &d->parts[0]), &d->parts[4]);
	assert_ptr_equal(disk_find_overlap(d, &d->parts[4]), &d->parts[0]);
	assert_null(disk_find_overlap(d, &d->parts[1]));
	ranged(d, 6, 4096, UINT64_MAX);            /* saturates: reaches 4 */
	assert_ptr_equal(disk_find_overlap(d, &d->parts[3]), &d->parts[5]);
	assert_ptr_equal(disk_find_overlap(d, &d->parts[1]), &d->parts[5]);
	assert_null(disk_find_overlap(d, &d->parts[2])); /* empty, though inside 6 */
	disk_set_free(&set);
	(void)state;
}

/* A whole device-mapper device by /dev/mapper/NAME, a logical volume by /dev/VG/LV too. */
static void test_find_device_mapper_names(void **state)
{
	struct disk_set set = { 0 };
	struct disk *a = disk_set_add(&set);
	struct part *lv = add(a, PART_WHOLE_DEVICE, "", "", "", "", "/dev/dm-0");
	struct part *crypt;
	const struct part *p;

	COPY_STR(lv->dm_name, "my--vg-root--fs");
	COPY_STR(lv->dm_uuid, "LVM-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
	crypt = add(disk_set_add(&set), PART_WHOLE_DEVICE, "", "", "", "", "/dev/dm-1");
	COPY_STR(crypt->dm_name, "cr-root");
	COPY_STR(crypt->dm_uuid, "CRYPT-LUKS2-5A5A5A5A111142228333444455556666-cr-root");
	/* an unlocked LUKS volume, by its header's UUID in either case */
	assert_ptr_equal(disk_set_find_unlocked(&set, "5a5a5a5a-1111-4222-8333-444455556666"), crypt);
	assert_null(disk_set_find_unlocked(&set, "5a5a5a5a-1111-4222-8333-444455556667"));
	assert_null(disk_set_find_unlocked(&set, "5a5a5a5a-1111-4222-8333-44445555666"));
	COPY_STR(crypt->dm_uuid, "CRYPT-PLAIN-5A5A5A5A111142228333444455556666-cr-root");
	assert_null(disk_set_find_unlocked(&set, "5a5a5a5a-1111-4222-8333-444455556666"));
	COPY_STR(crypt->dm_uuid, "CRYPT-LUKS1-5a5a5a5a111142228333444455556666-cr-root");
	assert_ptr_equal(disk_set_find_unlocked(&set, "5A5A5A5A-1111-4222-8333-444455556666"), crypt);
	assert_int_equal(disk_set_find(&set, "/dev/mapper/my--vg-root--fs", &p, NULL), 0);
	assert_string_equal(p->devpath, "/dev/dm-0");
	assert_int_equal(disk_set_find(&set, "/dev/my-vg/root-fs", &p, NULL), 0);
	assert_string_equal(p->devpath, "/dev/dm-0");
	assert_int_equal(disk_set_find(&set, "/dev/dm-0", &p, NULL), 0);
	assert_int_equal(disk_set_find(&set, "/dev/mapper/cr-root", &p, NULL), 0);
	assert_string_equal(p->devpath, "/dev/dm-1");
	/* not an LV: no /dev/VG/LV name */
	assert_int_equal(disk_set_find(&set, "/dev/cr/root", NULL, NULL), -ENOENT);
	assert_int_equal(disk_set_find(&set, "/dev/my/vg-root-fs", NULL, NULL), -ENOENT);
	assert_int_equal(disk_set_find(&set, "/dev/my-vg/root", NULL, NULL), -ENOENT);
	assert_int_equal(disk_set_find(&set, "/dev/mapper/my-vg-root-fs", NULL, NULL), -ENOENT);
	assert_int_equal(disk_set_find(&set, "/dev/mapper/", NULL, NULL), -ENOENT);
	disk_set_free(&set);
	(void)state;
}

/* A whole md array by /dev/md/NAME (mdadm's link), /dev/mdN, or its filesystem's UUID; its
 * members, which carry the array's UUID as theirs, are never the match. */
static void test_find_md_names(void **state)
{
	struct disk_set set = { 0 };
	struct part *array = add(disk_set_add(&set), PART_WHOLE_DEVICE, "", "", "", "", "/dev/md127");
	struct part *member = add(disk_set_add(&set), 1, "", "raid-a", "", "", "/dev/vda1");
	const struct part *p;

	COPY_STR(array->md_name, "server:root");
	COPY_STR(array->fstype, "ext4");
	COPY_STR(array->fsuuid, "5d1e6f2a-8c3b-4a7e-9f10-2b4c6d8e0a13");
	COPY_STR(member->type, "a19d880f-05fc-4d3b-a006-743f0f84911e");
	COPY_STR(member->fstype, "linux_raid_member");
	COPY_STR(member->fsuuid, "3c7a2f10-9b4e-5d61-0a8c-7e2f45d1b6c3");
	assert_int_equal(disk_set_find(&set, "/dev/md/server:root", &p, NULL), 0);
	assert_ptr_equal(p, array);
	assert_int_equal(disk_set_find(&set, "/dev/md127", &p, NULL), 0);
	assert_ptr_equal(p, array);
	assert_int_equal(disk_set_find(&set, "UUID=5d1e6f2a-8c3b-4a7e-9f10-2b4c6d8e0a13", &p, NULL), 0);
	assert_ptr_equal(p, array);
	assert_int_equal(disk_set_find(&set, "/dev/md/root", NULL, NULL), -ENOENT);
	assert_int_equal(disk_set_find(&set, "/dev/md/", NULL, NULL), -ENOENT);
	disk_set_free(&set);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_every_form),
		cmocka_unit_test(test_duplicates_are_refused),
		cmocka_unit_test(test_find_all),
		cmocka_unit_test(test_part_names),
		cmocka_unit_test(test_many_partitions),
		cmocka_unit_test(test_ranges_and_overlaps),
		cmocka_unit_test(test_find_device_mapper_names),
		cmocka_unit_test(test_find_md_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
