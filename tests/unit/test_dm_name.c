/* lib/dm_name.c: the names device-mapper takes, at the length limit and the reserved ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dm_name.h"
#include "util.h"

static void test_valid_names(void **state)
{
	static const char *const good[] = {
		"root", "a", "luks-6028e3a1-54ef-41be-90b1-c54f2e22254c", "vg0-root", "...", ".hidden",
		"control2", "Control", "a b", "caf\xc3\xa9",
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(dm_name_valid(good[i]));
	(void)state;
}

static void test_refused_names(void **state)
{
	static const char *const bad[] = { "", ".", "..", "control", "/", "a/b", "/root", "root/" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(dm_name_valid(bad[i]));
	(void)state;
}

/* DM_NAME_LEN is 128 with the terminator. */
static void test_length_limit(void **state)
{
	char name[130];

	memset(name, 'n', sizeof(name));
	name[127] = '\0';
	assert_true(dm_name_valid(name));
	name[127] = 'n';
	name[128] = '\0';
	assert_false(dm_name_valid(name));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_names),
		cmocka_unit_test(test_refused_names),
		cmocka_unit_test(test_length_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
