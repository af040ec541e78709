/* UUID and machine-ID text forms. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "uuid.h"

static void test_parse_format_round_trip_lowercases(void **state)
{
	uint8_t b[16];
	char s[UUID_STR_LEN];

	assert_int_equal(uuid_parse("4F68BCE3-E8CD-4DB1-96E7-FBCAF984B709", b), 0);
	assert_int_equal(b[0], 0x4f);
	assert_int_equal(b[15], 0x09);
	uuid_format(b, s);
	assert_string_equal(s, "4f68bce3-e8cd-4db1-96e7-fbcaf984b709");
}

static void test_parse_rejects_malformed(void **state)
{
	static const char *const bad[] = {
		"", "4f68bce3", "4f68bce3-e8cd-4db1-96e7-fbcaf984b70", "4f68bce3-e8cd-4db1-96e7-fbcaf984b7090",
		"4f68bce3e8cd-4db1-96e7-fbcaf984b709-", "4f68bce3-e8cd-4db1-96e7-fbcaf984b70g",
		"4f68bce3+e8cd-4db1-96e7-fbcaf984b709", "4f68bce3e8cd4db196e7fbcaf984b709",
	};
	uint8_t b[16];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(uuid_parse(bad[i], b), -EINVAL);
}

static void test_id128_both_forms(void **state)
{
	uint8_t a[16], b[16];

	assert_int_equal(id128_parse("cc1fed1f50ba43cda39577333c5d0504", a), 0);
	assert_int_equal(id128_parse("CC1FED1F-50BA-43CD-A395-77333C5D0504", b), 0);
	assert_memory_equal(a, b, 16);
	assert_int_equal(id128_parse("cc1fed1f50ba43cda39577333c5d050", a), -EINVAL);
	assert_int_equal(id128_parse("cc1fed1f50ba43cda39577333c5d0504\n", a), -EINVAL);
	assert_int_equal(id128_parse("uninitialized", a), -EINVAL);
}

static void test_equal_and_normalize(void **state)
{
	char s[UUID_STR_LEN] = "6028E3A1-54EF-41BE-90B1-C54F2E22254C";

	assert_true(uuid_str_equal("6028e3a1-54ef-41be-90b1-c54f2e22254c", s));
	assert_false(uuid_str_equal("6028e3a1-54ef-41be-90b1-c54f2e22254d", s));
	assert_false(uuid_str_equal("", ""));
	assert_int_equal(uuid_normalize(s), 0);
	assert_string_equal(s, "6028e3a1-54ef-41be-90b1-c54f2e22254c");
	char bad[UUID_STR_LEN] = "nope";
	assert_int_equal(uuid_normalize(bad), -EINVAL);
	assert_string_equal(bad, "nope");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_format_round_trip_lowercases),
		cmocka_unit_test(test_parse_rejects_malformed),
		cmocka_unit_test(test_id128_both_forms),
		cmocka_unit_test(test_equal_and_normalize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
