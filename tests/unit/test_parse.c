/* The value parsers of lib/parse.c: booleans, time spans, seconds, device numbers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "parse.h"

static void test_boolean_words(void **state)
{
	static const char *const yes[] = { "1", "yes", "y", "true", "t", "on", "YES", "True", "On" };
	static const char *const no[] = { "0", "no", "n", "false", "f", "off", "NO", "False", "OFF" };
	static const char *const bad[] = { "", "2", "yess", "-1", "01", "of", "enable", " yes", "yes " };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_int_equal(parse_boolean(yes[i]), 1);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(parse_boolean(no[i]), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_boolean(bad[i]), -EINVAL);
	assert_int_equal(parse_boolean(NULL), -EINVAL);
}

/* The spans rd.timeout= takes are in test_cmdline.c; here the errors it folds into one. */
static void test_time_span(void **state)
{
	static const char *const too_long[] = { "2147483648", "35791395min", "99999999999999999999999" };
	static const char *const bad[] = { "", "-1", "1h", "1.5s", "s", "infinityx", "30 s x", "+5", "min" };
	int sec = -1;

	assert_int_equal(parse_time_span("1min 30s", &sec), 0);
	assert_int_equal(sec, 90);
	assert_int_equal(parse_time_span("1ms", &sec), 0);
	assert_int_equal(sec, 1);
	assert_int_equal(parse_time_span("infinity", &sec), 0);
	assert_int_equal(sec, 0);
	assert_int_equal(parse_time_span("2147483647", &sec), 0);
	assert_int_equal(sec, 2147483647);
	sec = 9;
	for (size_t i = 0; i < sizeof(too_long) / sizeof(too_long[0]); i++)
		assert_int_equal(parse_time_span(too_long[i], &sec), -ERANGE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_time_span(bad[i], &sec), -EINVAL);
	assert_int_equal(sec, 9);
}

static void test_seconds(void **state)
{
	static const char *const bad[] = { "", "-1", "+5", "3s", " 5", "5 ", "1.5" };
	int sec = -1;

	assert_int_equal(parse_seconds("0", &sec), 0);
	assert_int_equal(sec, 0);
	assert_int_equal(parse_seconds("007", &sec), 0);
	assert_int_equal(sec, 7);
	assert_int_equal(parse_seconds("2147483647", &sec), 0);
	assert_int_equal(sec, 2147483647);
	sec = 9;
	assert_int_equal(parse_seconds("2147483648", &sec), -ERANGE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_seconds(bad[i], &sec), -EINVAL);
	assert_int_equal(sec, 9);
}

static void test_devno(void **state)
{
	static const char *const yes[] = { "254:2", "8:0", "0:0", "259:12" };
	static const char *const no[] = { "", "254", "254:", ":2", "254:2:1", "0x0802", "254:2 ", "/dev/vda2",
					  "UUID=254:2", "-1:2" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		assert_true(is_devno(yes[i]));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_false(is_devno(no[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boolean_words),
		cmocka_unit_test(test_time_span),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_devno),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
