/* efivars: UTF-16LE strings behind a 4-byte attribute word, read from a temporary directory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "efivars.h"

#define LOADER "LoaderDevicePartUUID"
#define STUB "StubDevicePartUUID"

static char dir[64];

static int dir_setup(void **state)
{
	strcpy(dir, "/tmp/test_efivars.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static void remove_var(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s-%s", dir, name, EFI_LOADER_VENDOR);
	unlink(path);
}

/* As efivarfs makes a variable it does not know: false where the filesystem has no such flag,
 * or it may not be set here (not root). */
static bool make_immutable(const char *name)
{
	char path[256];
	unsigned int flags;
	bool done = false;
	int fd;

	snprintf(path, sizeof(path), "%s/%s-%s", dir, name, EFI_LOADER_VENDOR);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		flags |= FS_IMMUTABLE_FL;
		done = ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
	}
	close(fd);
	return done;
}

static int dir_teardown(void **state)
{
	remove_var(LOADER);
	remove_var(STUB);
	return rmdir(dir);
}

static void write_raw(const char *name, const void *bytes, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s-%s", dir, name, EFI_LOADER_VENDOR);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, len, f), len);
	fclose(f);
}

/* attributes 0x06 (boot service + runtime access), the text as UTF-16LE, and a NUL if asked */
static void write_utf16(const char *name, const char *text, int terminate)
{
	uint8_t buf[512] = { 0x06, 0, 0, 0 };
	size_t n = 4;

	for (const char *p = text; *p; p++) {
		buf[n++] = (uint8_t)*p;
		buf[n++] = 0;
	}
	if (terminate) {
		buf[n++] = 0;
		buf[n++] = 0;
	}
	write_raw(name, buf, n);
}

static void test_loader_upper_case_normalised(void **state)
{
	char out[UUID_STR_LEN];

	write_utf16(LOADER, "C12A7328-F81F-11D2-BA4B-00A0C93EC93B", 1);
	assert_int_equal(efivars_boot_partuuid(dir, out), 0);
	assert_string_equal(out, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
	remove_var(LOADER);
}

static void test_unterminated_string(void **state)
{
	char out[UUID_STR_LEN];

	write_utf16(LOADER, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b", 0);
	assert_int_equal(efivars_boot_partuuid(dir, out), 0);
	assert_string_equal(out, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
	remove_var(LOADER);
}

static void test_stub_is_the_fallback(void **state)
{
	char out[UUID_STR_LEN];

	write_utf16(STUB, "0FC63DAF-8483-4772-8E79-3D69D8477DE4", 1);
	assert_int_equal(efivars_boot_partuuid(dir, out), 0);
	assert_string_equal(out, "0fc63daf-8483-4772-8e79-3d69d8477de4");
	write_utf16(LOADER, "C12A7328-F81F-11D2-BA4B-00A0C93EC93B", 1);
	assert_int_equal(efivars_boot_partuuid(dir, out), 0);
	assert_string_equal(out, "c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
	remove_var(LOADER);
	remove_var(STUB);
}

static void test_absent(void **state)
{
	char out[UUID_STR_LEN] = "x";

	assert_int_equal(efivars_boot_partuuid(dir, out), -ENOENT);
	assert_string_equal(out, "");
	assert_int_equal(efivars_boot_partuuid("/nonexistent/efivars", out), -ENOENT);
}

static void test_malformed(void **state)
{
	static const uint8_t odd[] = { 6, 0, 0, 0, 'a', 0, 'b' };
	static const uint8_t short_attr[] = { 6, 0 };
	static const uint8_t non_ascii[] = { 6, 0, 0, 0, 'a', 0, 0xe9, 0x00, 0, 0 };
	static const uint8_t high_plane[] = { 6, 0, 0, 0, 0x3d, 0xd8, 0x00, 0xde };
	char out[UUID_STR_LEN];
	char big[8];

	write_raw(LOADER, odd, sizeof(odd));
	assert_int_equal(efivar_read_string(dir, LOADER, EFI_LOADER_VENDOR, out, sizeof(out)), -EINVAL);
	write_raw(LOADER, short_attr, sizeof(short_attr));
	assert_int_equal(efivar_read_string(dir, LOADER, EFI_LOADER_VENDOR, out, sizeof(out)), -EINVAL);
	write_raw(LOADER, non_ascii, sizeof(non_ascii));
	assert_int_equal(efivar_read_string(dir, LOADER, EFI_LOADER_VENDOR, out, sizeof(out)), -EINVAL);
	write_raw(LOADER, high_plane, sizeof(high_plane));
	assert_int_equal(efivar_read_string(dir, LOADER, EFI_LOADER_VENDOR, out, sizeof(out)), -EINVAL);
	write_utf16(LOADER, "not-a-uuid", 1);
	assert_int_equal(efivar_read_string(dir, LOADER, EFI_LOADER_VENDOR, out, sizeof(out)), 0);
	assert_string_equal(out, "not-a-uuid");
	assert_int_equal(efivars_boot_partuuid(dir, out), -EINVAL);
	assert_int_equal(efivar_read_string(dir, LOADER, EFI_LOADER_VENDOR, big, sizeof(big)), -E2BIG);
	write_utf16(LOADER, "C12A7328-F81F-11D2-BA4B-00A0C93EC93B-and-more", 1);
	assert_int_equal(efivars_boot_partuuid(dir, out), -EINVAL);
	remove_var(LOADER);
}

static void test_empty_value(void **state)
{
	static const uint8_t empty[] = { 6, 0, 0, 0 };
	char out[UUID_STR_LEN];

	write_raw(LOADER, empty, sizeof(empty));
	assert_int_equal(efivar_read_string(dir, LOADER, EFI_LOADER_VENDOR, out, sizeof(out)), 0);
	assert_string_equal(out, "");
	assert_int_equal(efivars_boot_partuuid(dir, out), -EINVAL);
	remove_var(LOADER);
}

static void test_write_read_delete(void **state)
{
	static const char data[] = "earlymount-failure 1\n";
	char back[64];
	uint32_t attributes = 0;
	bool immutable;

	assert_int_equal(efivar_write(dir, "Record", EFI_LOADER_VENDOR, 7, data, sizeof(data) - 1), 0);
	assert_int_equal(efivar_read(dir, "Record", EFI_LOADER_VENDOR, &attributes, back, sizeof(back)),
			 sizeof(data) - 1);
	assert_int_equal(attributes, 7);
	assert_memory_equal(back, data, sizeof(data) - 1);
	/* written again over an immutable file, as efivarfs leaves one: the flag goes first */
	immutable = make_immutable("Record");
	assert_int_equal(efivar_write(dir, "Record", EFI_LOADER_VENDOR, 7, "earlymount-failure 2\nx\n", 23), 0);
	assert_int_equal(efivar_read(dir, "Record", EFI_LOADER_VENDOR, &attributes, back, sizeof(back)), 23);
	assert_memory_equal(back, "earlymount-failure 2\nx\n", 23);
	assert_int_equal(efivar_read(dir, "Record", EFI_LOADER_VENDOR, &attributes, back, 0), -E2BIG);
	if (immutable)
		assert_true(make_immutable("Record"));
	assert_int_equal(efivar_delete(dir, "Record", EFI_LOADER_VENDOR), 0);
	assert_int_equal(efivar_read(dir, "Record", EFI_LOADER_VENDOR, &attributes, back, sizeof(back)),
			 -ENOENT);
	assert_int_equal(efivar_delete(dir, "Record", EFI_LOADER_VENDOR), -ENOENT);
	assert_int_equal(efivar_write("/nonexistent/efivars", "Record", EFI_LOADER_VENDOR, 7, "x", 1),
			 -ENOENT);
	{
		static char too_big[EFIVAR_DATA_MAX + 1];

		assert_int_equal(efivar_write(dir, "Record", EFI_LOADER_VENDOR, 7, too_big,
					      sizeof(too_big)),
				 -E2BIG);
	}
	write_raw("Record", "\x07\0", 2);
	assert_int_equal(efivar_read(dir, "Record", EFI_LOADER_VENDOR, &attributes, back, sizeof(back)),
			 -EINVAL);
	remove_var("Record");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loader_upper_case_normalised),
		cmocka_unit_test(test_unterminated_string),
		cmocka_unit_test(test_stub_is_the_fallback),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_empty_value),
		cmocka_unit_test(test_write_read_delete),
	};

	return cmocka_run_group_tests(tests, dir_setup, dir_teardown);
}
