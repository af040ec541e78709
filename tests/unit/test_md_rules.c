/* core/md_rules.c: which md arrays the command line lets the boot assemble, and when an
 * incomplete one starts degraded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "md_rules.h"

/* One array, in mdadm's form and in libblkid's (what a member's UUID reads as). */
#define MD_FORM "3c7a2f10:9b4e5d61:0a8c7e2f:45d1b6c3"
#define BLKID_FORM "3c7a2f10-9b4e-5d61-0a8c-7e2f45d1b6c3"

static void test_uuid_forms(void **state)
{
	assert_true(md_uuid_valid(MD_FORM));
	assert_true(md_uuid_valid(BLKID_FORM));
	assert_true(md_uuid_valid("3C7A2F10:9B4E5D61:0A8C7E2F:45D1B6C3"));
	assert_false(md_uuid_valid(""));
	assert_false(md_uuid_valid("3c7a2f109b4e5d610a8c7e2f45d1b6c3"));
	assert_false(md_uuid_valid("3c7a2f10:9b4e5d61:0a8c7e2f:45d1b6c"));
	assert_false(md_uuid_valid("3c7a2f10:9b4e5d61:0a8c7e2f:45d1b6c3:"));
	assert_false(md_uuid_valid("3c7a2f10-9b4e5d61-0a8c7e2f-45d1b6c3"));
	assert_false(md_uuid_valid("gc7a2f10:9b4e5d61:0a8c7e2f:45d1b6c3"));
	(void)state;
}

static void test_wanted(void **state)
{
	struct md_cmdline md = { .enabled = true, .degraded_sec = -1 };
	char bad[64];

	assert_true(md_array_wanted(&md, BLKID_FORM));
	md.uuids = "11111111:22222222:33333333:44444444," MD_FORM;
	assert_true(md_array_wanted(&md, BLKID_FORM));
	assert_false(md_array_wanted(&md, "3c7a2f10-9b4e-5d61-0a8c-7e2f45d1b6c4"));
	assert_false(md_array_wanted(&md, ""));
	assert_false(md_uuid_list_invalid(&md, bad, sizeof(bad)));
	md.uuids = "3C7A2F10-9B4E-5D61-0A8C-7E2F45D1B6C3";
	assert_true(md_array_wanted(&md, BLKID_FORM));
	/* an entry that is no UUID matches nothing, and is named */
	md.uuids = "md0,3c7a2f109b4e5d610a8c7e2f45d1b6c3";
	assert_false(md_array_wanted(&md, BLKID_FORM));
	assert_true(md_uuid_list_invalid(&md, bad, sizeof(bad)));
	assert_string_equal(bad, "md0");
	md.uuids = NULL;
	md.enabled = false;
	assert_false(md_array_wanted(&md, BLKID_FORM));
	(void)state;
}

static void test_degraded_timer(void **state)
{
	struct md_cmdline md = { .enabled = true, .degraded_sec = -1 };

	assert_int_equal(md_degraded_sec(&md, 30), MD_DEGRADED_DEFAULT_SEC);
	assert_int_equal(md_degraded_sec(&md, 0), MD_DEGRADED_DEFAULT_SEC);
	/* at most half the root's wait, and never 0 (which would mean never) */
	assert_int_equal(md_degraded_sec(&md, 12), 6);
	assert_int_equal(md_degraded_sec(&md, 1), 1);
	/* what the command line says is taken as it is */
	md.degraded_sec = 40;
	assert_int_equal(md_degraded_sec(&md, 30), 40);
	md.degraded_sec = 0;
	assert_int_equal(md_degraded_sec(&md, 30), 0);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uuid_forms),
		cmocka_unit_test(test_wanted),
		cmocka_unit_test(test_degraded_timer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
