/* lib/format_size.c: sizes for people, in binary units. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "format_size.h"
#include "util.h"

static void test_units(void **state)
{
	static const struct {
		uint64_t bytes;
		const char *text;
	} cases[] = {
		{ 0, "0 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.0 KiB" },
		{ 1536, "1.5 KiB" },
		{ 5 * 1024 * 1024, "5.0 MiB" },
		{ UINT64_C(3) << 30, "3.0 GiB" },
		{ UINT64_C(1) << 50, "1.0 PiB" },
		{ UINT64_MAX, "16384.0 PiB" }, /* no unit past PiB */
	};
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		format_size(cases[i].bytes, buf, sizeof(buf));
		assert_string_equal(buf, cases[i].text);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
