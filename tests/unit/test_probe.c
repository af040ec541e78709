/* The prober on real images: made at test time with tests/fixtures/mkdisk (skipped when it or
 * its tools are missing), and hostile ones written here byte by byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "disk.h"
#include "probe.h"
#include "util.h"

#define MKDISK "tests/fixtures/mkdisk"
#define MIB (1024ULL * 1024ULL)

struct fixture {
	char dir[64];
	char image[128];
	struct disk_set set;
	struct disk *disk;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/test_probe.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->image, sizeof(f->image), "%s/disk.img", f->dir);
	f->disk = disk_set_add(&f->set);
	assert_non_null(f->disk);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	disk_set_free(&f->set);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* Runs mkdisk with the arguments after the image; skips the test when it cannot. */
static void mkdisk(const struct fixture *f, const char *args)
{
	char cmd[1024];

	if (access(MKDISK, R_OK) != 0) {
		fprintf(stderr, "skipping: %s not found (run from the source tree)\n", MKDISK);
		skip();
	}
	snprintf(cmd, sizeof(cmd), "sh %s '%s' %s >/dev/null", MKDISK, f->image, args);
	if (system(cmd) != 0) {
		fprintf(stderr, "skipping: '%s' failed (sfdisk, mkfs.ext4, mkfs.vfat, mkswap needed)\n", cmd);
		skip();
	}
}

static const struct part *part_number(const struct disk *d, unsigned number)
{
	for (size_t i = 0; i < d->n_parts; i++)
		if (d->parts[i].number == number)
			return &d->parts[i];
	return NULL;
}

static void test_gpt_image(void **state)
{
	struct fixture *f = *state;
	const struct part *p;

	mkdisk(f, "--id 0E6D1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B "
		  "'type=root size=4 uuid=AAAAAAAA-1111-4111-8111-111111111111 name=root-1.10 attrs=60,63 "
		  "fs=ext4 fsuuid=bbbbbbbb-2222-4222-8222-222222222222 fslabel=rootfs' "
		  "'type=esp size=2 uuid=cccccccc-3333-4333-8333-333333333333 fs=vfat fsuuid=1234-abcd fslabel=ESP' "
		  "'type=swap size=1 fs=swap fsuuid=dddddddd-4444-4444-8444-444444444444' "
		  "'type=var size=1 uuid=6028e3a1-54ef-41be-90b1-c54f2e22254c'");
	assert_int_equal(probe_disk(f->image, f->disk), 0);
	assert_string_equal(f->disk->path, f->image);
	assert_string_equal(f->disk->pttype, "gpt");
	assert_string_equal(f->disk->ptuuid, "0e6d1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b");
	assert_int_equal(f->disk->sector_size, 512);
	assert_int_equal(f->disk->n_parts, 4);

	p = part_number(f->disk, 1);
	assert_non_null(p);
	assert_string_equal(p->type, "4f68bce3-e8cd-4db1-96e7-fbcaf984b709");
	assert_string_equal(p->partuuid, "aaaaaaaa-1111-4111-8111-111111111111");
	assert_string_equal(p->label, "root-1.10");
	assert_true(p->flags == ((UINT64_C(1) << 60) | (UINT64_C(1) << 63)));
	assert_true(p->start == 1 * MIB);
	assert_true(p->size == 4 * MIB);
	assert_string_equal(p->fstype, "ext4");
	assert_string_equal(p->fsuuid, "bbbbbbbb-2222-4222-8222-222222222222");
	assert_string_equal(p->fslabel, "rootfs");
	assert_string_equal(p->devpath, ""); /* an image file has no device nodes */

	p = part_number(f->disk, 2);
	assert_non_null(p);
	assert_string_equal(p->type, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
	assert_true(p->start == 5 * MIB);
	assert_string_equal(p->fstype, "vfat");
	assert_string_equal(p->fsuuid, "1234-ABCD");
	assert_string_equal(p->fslabel, "ESP");

	p = part_number(f->disk, 3);
	assert_non_null(p);
	assert_string_equal(p->fstype, "swap");
	assert_string_equal(p->fsuuid, "dddddddd-4444-4444-8444-444444444444");

	p = part_number(f->disk, 4);
	assert_non_null(p);
	assert_string_equal(p->partuuid, "6028e3a1-54ef-41be-90b1-c54f2e22254c");
	assert_string_equal(p->fstype, ""); /* nothing recognised */
	assert_true(p->flags == 0);
}

static bool only_esp(const struct part *part, void *data)
{
	unsigned *asked = data;

	(*asked)++;
	return streq(part->type, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
}

/* A filter leaves the table fields whole and the unwanted filesystems unread. */
static void test_filtered(void **state)
{
	struct fixture *f = *state;
	unsigned asked = 0;
	struct probe_filter filter = { only_esp, &asked };
	const struct part *p;

	mkdisk(f, "'type=root size=4 uuid=AAAAAAAA-1111-4111-8111-111111111111 fs=ext4 fslabel=rootfs' "
		  "'type=esp size=2 fs=vfat fslabel=ESP'");
	assert_int_equal(probe_disk_filtered(f->image, f->disk, &filter), 0);
	assert_int_equal(f->disk->n_parts, 2);
	assert_int_equal(asked, 2);
	p = part_number(f->disk, 1);
	assert_non_null(p);
	assert_string_equal(p->partuuid, "aaaaaaaa-1111-4111-8111-111111111111");
	assert_string_equal(p->fstype, "");
	assert_string_equal(p->fslabel, "");
	p = part_number(f->disk, 2);
	assert_non_null(p);
	assert_string_equal(p->fstype, "vfat");
	assert_string_equal(p->fslabel, "ESP");
}

static void test_dos_image(void **state)
{
	struct fixture *f = *state;
	const struct part *p;

	mkdisk(f, "--table dos --id 0xDEADBEEF 'type=83 size=4 fs=ext4'");
	assert_int_equal(probe_disk(f->image, f->disk), 0);
	assert_string_equal(f->disk->pttype, "dos");
	assert_string_equal(f->disk->ptuuid, "deadbeef");
	assert_int_equal(f->disk->n_parts, 1);
	p = &f->disk->parts[0];
	assert_int_equal(p->number, 1);
	assert_string_equal(p->type, "0x83");
	assert_string_equal(p->partuuid, "deadbeef-01");
	assert_string_equal(p->fstype, "ext4");
}

static void write_file(const char *path, const void *data, size_t len, off_t total)
{
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	assert_int_equal(fwrite(data, 1, len, out), len);
	assert_int_equal(fclose(out), 0);
	assert_int_equal(truncate(path, total), 0);
}

static void mbr_entry(uint8_t *mbr, int slot, uint8_t type, uint32_t start, uint32_t sectors)
{
	uint8_t *e = mbr + 446 + 16 * slot;

	e[4] = type;
	for (int i = 0; i < 4; i++) {
		e[8 + i] = (uint8_t)(start >> (8 * i));
		e[12 + i] = (uint8_t)(sectors >> (8 * i));
	}
}

/* No CRC protects an MBR: any value can be there. Nothing beyond the end may be reported. */
static void test_hostile_mbr(void **state)
{
	struct fixture *f = *state;
	uint8_t mbr[512] = { 0 };

	mbr[440] = 0x78, mbr[441] = 0x56, mbr[442] = 0x34, mbr[443] = 0x12;
	mbr_entry(mbr, 0, 0x83, 2048, UINT32_MAX);        /* runs far past the end */
	mbr_entry(mbr, 1, 0x83, UINT32_MAX - 16, 8);      /* starts past the end */
	mbr_entry(mbr, 2, 0x83, 4096, 0);                 /* empty */
	mbr_entry(mbr, 3, 0x83, 2048, 1024);              /* fine */
	mbr[510] = 0x55, mbr[511] = 0xaa;
	write_file(f->image, mbr, sizeof(mbr), 4 * MIB);

	assert_int_equal(probe_disk(f->image, f->disk), 0);
	assert_string_equal(f->disk->pttype, "dos");
	for (size_t i = 0; i < f->disk->n_parts; i++) {
		const struct part *p = &f->disk->parts[i];

		assert_true(p->start <= 4 * MIB && p->size <= 4 * MIB - p->start);
	}
	assert_non_null(part_number(f->disk, 4));
	assert_null(part_number(f->disk, 1));
	assert_null(part_number(f->disk, 2));
}

/* Copies len bytes at from of path to to: a stale signature left where another was made. */
static void copy_bytes(const char *path, off_t from, off_t to, size_t len)
{
	char buf[512];
	FILE *io = fopen(path, "r+");

	assert_non_null(io);
	assert_true(len <= sizeof(buf));
	assert_int_equal(fseeko(io, from, SEEK_SET), 0);
	assert_int_equal(fread(buf, 1, len, io), len);
	assert_int_equal(fseeko(io, to, SEEK_SET), 0);
	assert_int_equal(fwrite(buf, 1, len, io), len);
	assert_int_equal(fclose(io), 0);
}

/* An ext4 whose first sector still holds a FAT boot sector: libblkid finds both and trusts
 * neither. The partition is there, without a type, and the probe says it holds data. */
static void test_several_signatures(void **state)
{
	struct fixture *f = *state;
	const struct part *p;

	mkdisk(f, "'type=root size=8 fs=ext4' 'type=linux size=8 fs=vfat'");
	copy_bytes(f->image, 9 * MIB, 1 * MIB, 512);
	assert_int_equal(probe_disk(f->image, f->disk), 0);
	p = part_number(f->disk, 1);
	assert_non_null(p);
	assert_string_equal(p->fstype, "");
	assert_true(p->fs_ambiguous);
	p = part_number(f->disk, 2);
	assert_non_null(p);
	assert_string_equal(p->fstype, "vfat");
	assert_false(p->fs_ambiguous);
}

static void test_no_table(void **state)
{
	struct fixture *f = *state;
	uint8_t noise[4096];

	for (size_t i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)(i * 131 + 7);
	write_file(f->image, noise, sizeof(noise), 1 * MIB);
	assert_int_equal(probe_disk(f->image, f->disk), 0);
	assert_string_equal(f->disk->pttype, "");
	assert_int_equal(f->disk->n_parts, 0);
}

static void test_empty_file(void **state)
{
	struct fixture *f = *state;

	write_file(f->image, "", 0, 0);
	assert_int_equal(probe_disk(f->image, f->disk), 0);
	assert_string_equal(f->disk->pttype, "");
	assert_int_equal(f->disk->n_parts, 0);
}

static void test_unreadable(void **state)
{
	struct fixture *f = *state;
	struct disk_set set = { 0 };

	assert_int_equal(probe_disk(f->image, f->disk), -ENOENT); /* not created */
	assert_int_equal(probe_disk(f->dir, disk_set_add(&set)), -EISDIR);
	assert_int_equal(probe_disk("/dev/null", disk_set_add(&set)), -ENOTBLK);
	disk_set_free(&set);
}

static void test_path_too_long(void **state)
{
	struct fixture *f = *state;
	static char path[PATH_MAX + 16];

	memset(path, 'a', sizeof(path) - 1);
	assert_int_equal(probe_disk(path, f->disk), -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gpt_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filtered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dos_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_mbr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_several_signatures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_too_long, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
