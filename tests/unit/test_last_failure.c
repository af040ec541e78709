/* The last failure kept and read back, on a scratch directory standing for efivarfs, a file
 * for /dev/pmsg0 and one for pstore's mount (mount(2) is wrapped: pstore "mounts" there): the
 * pstore path, which no test kernel has (Debian's lack CONFIG_PSTORE_PMSG), is tested here
 * alone; the EFI variable also in qemu/scenarios/uefi-last-failure. */
#include <errno.h>
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

#include "efivars.h"
#include "last_failure.h"

static char top[64];
static char efivars[128], pmsg[128], pstore[128], passed_on[160], var[256];
static struct last_failure_places places;

int __wrap_mount(const char *source, const char *target, const char *fstype, unsigned long flags,
		 const void *data)
{
	int r;

	check_expected(target);
	r = mock_type(int);
	if (r < 0)
		errno = ENODEV;
	return r;
}

static void rm(const char *path)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **state)
{
	strcpy(top, "/tmp/test_last_failure.XXXXXX");
	assert_non_null(mkdtemp(top));
	snprintf(efivars, sizeof(efivars), "%s/efivars", top);
	snprintf(pmsg, sizeof(pmsg), "%s/pmsg0", top);
	snprintf(pstore, sizeof(pstore), "%s/pstore", top);
	snprintf(passed_on, sizeof(passed_on), "%s/run/earlymount/last-failure", top);
	snprintf(var, sizeof(var), "%s/%s-%s", efivars, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR);
	places = (struct last_failure_places){ efivars, pmsg, pstore, passed_on };
	return 0;
}

static int teardown(void **state)
{
	rm(top);
	return 0;
}

/* Each test starts with an efivarfs and a pstore, both empty, and no pmsg device. */
static int fresh(void **state)
{
	rm(efivars);
	rm(pstore);
	rm(pmsg);
	rm(passed_on);
	assert_int_equal(mkdir(efivars, 0755), 0);
	assert_int_equal(mkdir(pstore, 0755), 0);
	return 0;
}

static struct failure_record sample(const char *message)
{
	struct failure_record rec = { 0 };

	strcpy(rec.version, "0.1.0");
	strcpy(rec.stage, "plan");
	strcpy(rec.action, "reboot");
	strcpy(rec.device, "PARTUUID=6a3e2c3b-0000-4000-8000-000000000001");
	strcpy(rec.cmdline, "0123456789abcdef");
	strcpy(rec.message, message);
	return rec;
}

static size_t read_all(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	return n;
}

static void write_all_to(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void expect_pstore_mounted(void)
{
	write_all_to(pmsg, "", 0); /* the kernel has pmsg */
	expect_string(__wrap_mount, target, pstore);
	will_return(__wrap_mount, 0);
}

static void test_kept_in_the_efi_variable(void **state)
{
	struct failure_record rec = sample("gave up waiting for the root partition");
	char text[FAILURE_RECORD_MAX + 1], kept[2048];
	int len = failure_record_encode(&rec, text, sizeof(text));
	size_t n;

	assert_int_equal(last_failure_keep(&places, &rec), 0);
	n = read_all(var, kept, sizeof(kept));
	assert_int_equal(n, 4 + (size_t)len);
	assert_int_equal(kept[0], 7); /* non-volatile, boot service and runtime access */
	assert_int_equal(kept[1] | kept[2] | kept[3], 0);
	assert_memory_equal(kept + 4, text, (size_t)len);
	assert_int_equal(access(pmsg, F_OK), -1);
}

/* A boot loop that fails the same way each time writes NVRAM once. */
static void test_the_same_failure_is_not_written_again(void **state)
{
	struct failure_record rec = sample("gave up waiting for the root partition");
	struct stat before, after;

	assert_int_equal(last_failure_keep(&places, &rec), 0);
	assert_int_equal(stat(var, &before), 0);
	usleep(30 * 1000); /* past the coarse clock's tick */
	assert_int_equal(last_failure_keep(&places, &rec), 0);
	assert_int_equal(stat(var, &after), 0);
	assert_int_equal(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
	assert_int_equal(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

static void test_pmsg_without_efi_variables(void **state)
{
	struct failure_record rec = sample("no init in the new root");
	char text[FAILURE_RECORD_MAX + 1], kept[2048];
	int len = failure_record_encode(&rec, text, sizeof(text));

	rm(efivars);
	write_all_to(pmsg, "", 0);
	assert_int_equal(last_failure_keep(&places, &rec), 0);
	assert_int_equal(read_all(pmsg, kept, sizeof(kept)), (size_t)len);
	assert_memory_equal(kept, text, (size_t)len);
}

static void test_nowhere_to_keep_it(void **state)
{
	struct failure_record rec = sample("m");

	rm(efivars);
	assert_int_equal(last_failure_keep(&places, &rec), -ENOENT);
	rec.stage[0] = '\0';
	assert_int_equal(last_failure_keep(&places, &rec), -EINVAL);
}

static void test_read_passed_on_and_deleted(void **state)
{
	struct failure_record rec = sample("gave up waiting for the root partition");
	char text[FAILURE_RECORD_MAX + 1], got[2048];
	int len = failure_record_encode(&rec, text, sizeof(text));
	struct last_failure lf;

	assert_int_equal(last_failure_keep(&places, &rec), 0);
	assert_int_equal(last_failure_load(&places, &lf), 0);
	assert_int_equal(lf.from, LAST_FAILURE_EFIVAR);
	assert_int_equal(read_all(passed_on, got, sizeof(got)), (size_t)len);
	assert_memory_equal(got, text, (size_t)len);
	/* kept until the handoff: a boot that fails before it leaves it there */
	assert_int_equal(access(var, F_OK), 0);
	last_failure_forget(&places, &lf);
	assert_int_equal(access(var, F_OK), -1);
	assert_int_equal(lf.from, LAST_FAILURE_NONE);
	last_failure_forget(&places, &lf);
}

static void test_nothing_there(void **state)
{
	struct last_failure lf;

	expect_pstore_mounted();
	assert_int_equal(last_failure_load(&places, &lf), -ENOENT);
	assert_int_equal(lf.from, LAST_FAILURE_NONE);
	assert_int_equal(access(passed_on, F_OK), -1);
	/* no pstore in the kernel */
	expect_string(__wrap_mount, target, pstore);
	will_return(__wrap_mount, -1);
	assert_int_equal(last_failure_load(&places, &lf), -ENOENT);
	/* no pmsg device: pstore is not even mounted (a mount would fail the test) */
	rm(pmsg);
	assert_int_equal(last_failure_load(&places, &lf), -ENOENT);
}

static void test_damaged_variable_is_deleted_not_passed_on(void **state)
{
	struct failure_record rec = sample("m");
	char text[FAILURE_RECORD_MAX + 1];
	int len = failure_record_encode(&rec, text, sizeof(text));
	struct last_failure lf;

	text[len - 3] ^= 1;
	assert_int_equal(efivar_write(efivars, FAILURE_RECORD_EFI_NAME, EARLYMOUNT_EFI_VENDOR, 7, text,
				      (size_t)len),
			 0);
	assert_int_equal(last_failure_load(&places, &lf), -EBADMSG);
	assert_int_equal(lf.from, LAST_FAILURE_EFIVAR);
	assert_int_equal(access(passed_on, F_OK), -1);
	last_failure_forget(&places, &lf);
	assert_int_equal(access(var, F_OK), -1);
}

/* The last boot's pmsg file holds other writers' messages too. */
static void test_read_from_pstore(void **state)
{
	struct failure_record rec = sample("the root partition's filesystem is damaged");
	char text[FAILURE_RECORD_MAX + 1], file[4096], got[2048], path[256];
	int len = failure_record_encode(&rec, text, sizeof(text));
	size_t used = 0;
	struct last_failure lf;

	memcpy(file, "a hook's line\n\0\0", 16);
	used = 16;
	memcpy(file + used, text, (size_t)len);
	used += (size_t)len;
	memcpy(file + used, "after\n", 6);
	used += 6;
	snprintf(path, sizeof(path), "%s/pmsg-ramoops-0", pstore);
	write_all_to(path, file, used);
	snprintf(got, sizeof(got), "%s/dmesg-ramoops-0", pstore);
	write_all_to(got, "earlymount-failure 1\n", 21);
	expect_pstore_mounted();
	assert_int_equal(last_failure_load(&places, &lf), 0);
	assert_int_equal(lf.from, LAST_FAILURE_PSTORE);
	assert_string_equal(lf.pstore_file, path);
	assert_int_equal(read_all(passed_on, got, sizeof(got)), (size_t)len);
	assert_memory_equal(got, text, (size_t)len);
	last_failure_forget(&places, &lf);
	assert_int_equal(access(path, F_OK), -1);
}

/* A pmsg file without earlymount's record is another program's: left alone. */
static void test_others_pmsg_is_left_alone(void **state)
{
	char path[256];
	struct last_failure lf;

	snprintf(path, sizeof(path), "%s/pmsg-ramoops-0", pstore);
	write_all_to(path, "logd: hello\n", 12);
	expect_pstore_mounted();
	assert_int_equal(last_failure_load(&places, &lf), -ENOENT);
	assert_int_equal(lf.from, LAST_FAILURE_NONE);
	last_failure_forget(&places, &lf);
	assert_int_equal(access(path, F_OK), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_kept_in_the_efi_variable, fresh),
		cmocka_unit_test_setup(test_the_same_failure_is_not_written_again, fresh),
		cmocka_unit_test_setup(test_pmsg_without_efi_variables, fresh),
		cmocka_unit_test_setup(test_nowhere_to_keep_it, fresh),
		cmocka_unit_test_setup(test_read_passed_on_and_deleted, fresh),
		cmocka_unit_test_setup(test_nothing_there, fresh),
		cmocka_unit_test_setup(test_damaged_variable_is_deleted_not_passed_on, fresh),
		cmocka_unit_test_setup(test_read_from_pstore, fresh),
		cmocka_unit_test_setup(test_others_pmsg_is_left_alone, fresh),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
