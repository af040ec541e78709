/* systemd_handoff: recognising systemd, the serialization systemd reads, its argv. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "systemd_handoff.h"
#include "util.h"

static void test_is_systemd(void **state)
{
	assert_true(systemd_handoff_is_systemd("/lib/systemd/systemd"));
	assert_true(systemd_handoff_is_systemd("/usr/lib/systemd/systemd"));
	assert_true(systemd_handoff_is_systemd("systemd"));
	assert_false(systemd_handoff_is_systemd("/sbin/init"));
	assert_false(systemd_handoff_is_systemd("/bin/busybox"));
	assert_false(systemd_handoff_is_systemd("/usr/lib/systemd/systemd-shutdown"));
	assert_false(systemd_handoff_is_systemd("/opt/systemd/"));
	assert_false(systemd_handoff_is_systemd(""));
}

static void test_format(void **state)
{
	struct dual_clock t = { .realtime_us = 1764800000123456u, .monotonic_us = 1904123 };
	char buf[128];
	int n = systemd_handoff_format(&t, buf, sizeof(buf));

	/* one manager key, then the empty line that ends systemd's manager section */
	assert_string_equal(buf, "initrd-timestamp=1764800000123456 1904123\n\n");
	assert_int_equal(n, (int)strlen(buf));
}

static void test_format_extremes(void **state)
{
	struct dual_clock t = { .realtime_us = UINT64_MAX, .monotonic_us = 0 };
	char buf[128];

	systemd_handoff_format(&t, buf, sizeof(buf));
	assert_string_equal(buf, "initrd-timestamp=18446744073709551615 0\n\n");
}

static void test_format_too_small(void **state)
{
	struct dual_clock t = { .realtime_us = 1, .monotonic_us = 2 };
	char buf[8];

	assert_int_equal(systemd_handoff_format(&t, buf, sizeof(buf)), -E2BIG);
	assert_int_equal(systemd_handoff_format(&t, buf, 0), -E2BIG);
	/* exactly the text and its NUL fits */
	char exact[sizeof("initrd-timestamp=1 2\n\n")];
	assert_int_equal(systemd_handoff_format(&t, exact, sizeof(exact)), (int)sizeof(exact) - 1);
}

static void test_argv(void **state)
{
	char *kernel[] = { "/init", "single", "quiet", NULL };
	char *args[8];

	systemd_handoff_argv("/sbin/init", "3", 3, kernel, args, ARRAY_SIZE(args));
	assert_string_equal(args[0], "/sbin/init");
	assert_string_equal(args[1], "--switched-root");
	assert_string_equal(args[2], "--system");
	assert_string_equal(args[3], "--deserialize");
	assert_string_equal(args[4], "3");
	assert_string_equal(args[5], "single");
	assert_string_equal(args[6], "quiet");
	assert_null(args[7]);
}

static void test_argv_cut_to_fit(void **state)
{
	char *kernel[] = { "/init", "a", "b", "c", NULL };
	char *args[7];

	systemd_handoff_argv("/lib/systemd/systemd", "9", 4, kernel, args, ARRAY_SIZE(args));
	assert_string_equal(args[4], "9");
	assert_string_equal(args[5], "a");
	assert_null(args[6]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_systemd),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_extremes),
		cmocka_unit_test(test_format_too_small),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_argv_cut_to_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
