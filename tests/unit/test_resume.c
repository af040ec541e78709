/* Resume from hibernation (init/mounts/resume.c): what is written to /sys/power, in which order, and
 * what the boot is told when the kernel comes back. sysfs_write, the probe and the log are
 * mocked. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "resume.h"

static char logged[512];
static int logged_level;

int __wrap_sysfs_write(const char *path, const char *value)
{
	check_expected(path);
	check_expected(value);
	return mock_type(int);
}

int __wrap_probe_device_fstype(const char *path, char *fstype, size_t size)
{
	check_expected(path);
	snprintf(fstype, size, "%s", mock_ptr_type(const char *));
	return 0;
}

void __wrap_log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	/* The last warning, or the last message when there is none. */
	if (logged_level && logged_level < level)
		return;
	logged_level = level;
	va_start(ap, fmt);
	vsnprintf(logged, sizeof(logged), fmt, ap);
	va_end(ap);
}

static int reset(void **state)
{
	logged[0] = '\0';
	logged_level = 0;
	(void)state;
	return 0;
}

static void expect_write(const char *path, const char *value, int r)
{
	expect_string(__wrap_sysfs_write, path, path);
	expect_string(__wrap_sysfs_write, value, value);
	will_return(__wrap_sysfs_write, r);
}

static void assert_logged(const char *text)
{
	if (!strstr(logged, text))
		fail_msg("logged '%s', expected it to contain '%s'", logged, text);
}

/* The offset first: the kernel reads it when the device is written. */
static void test_devno_with_offset(void **state)
{
	char why[256] = "";

	expect_write(SYS_POWER_RESUME_OFFSET, "34816", 0);
	expect_write(SYS_POWER_RESUME, "254:2", 0);
	assert_int_equal(resume_attempt("254:2", "34816", why, sizeof(why)), 0);
	assert_string_equal(why, "");
	assert_logged("the kernel found no image it could load on 254:2 at page 34816; booting fresh");
	(void)state;
}

static void test_not_a_block_device(void **state)
{
	char why[256] = "";

	/* Refused before anything is probed or written. */
	assert_int_equal(resume_attempt("/dev/null", NULL, why, sizeof(why)), -ENOTBLK);
	assert_string_equal(why, "unable to resume from /dev/null: Block device required");
	(void)state;
}

static void test_no_such_device(void **state)
{
	char why[256] = "";

	assert_int_equal(resume_attempt("/dev/earlymount-no-such", NULL, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "unable to resume from /dev/earlymount-no-such: No such file or "
				 "directory");
	(void)state;
}

static void test_kernel_without_hibernation(void **state)
{
	char why[256] = "";

	expect_write(SYS_POWER_RESUME, "8:3", -ENOENT);
	assert_int_equal(resume_attempt("8:3", NULL, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "built without hibernation (no /sys/power/resume)"));
	(void)state;
}

/* A failed offset names the offset file, and the device is not written. */
static void test_offset_refused(void **state)
{
	char why[256] = "";

	expect_write(SYS_POWER_RESUME_OFFSET, "7", -EINVAL);
	assert_int_equal(resume_attempt("8:3", "7", why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "unable to resume from 8:3: writing 7 to /sys/power/resume_offset: "
				 "Invalid argument");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_devno_with_offset, reset),
		cmocka_unit_test_setup(test_not_a_block_device, reset),
		cmocka_unit_test_setup(test_no_such_device, reset),
		cmocka_unit_test_setup(test_kernel_without_hibernation, reset),
		cmocka_unit_test_setup(test_offset_refused, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
