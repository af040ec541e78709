/* LVM2's names: valid ones, device-mapper names split back, rd.lvm.vg=/lv= as lvm's list. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lvm_names.h"

static void test_names(void **state)
{
	char long_name[LVM_NAME_MAX + 1];

	assert_true(lvm_name_valid("vg0"));
	assert_true(lvm_name_valid("my-vg_1.+x"));
	assert_false(lvm_name_valid(""));
	assert_false(lvm_name_valid("-vg"));
	assert_false(lvm_name_valid("."));
	assert_false(lvm_name_valid(".."));
	assert_false(lvm_name_valid("vg\""));
	assert_false(lvm_name_valid("vg }"));
	assert_false(lvm_name_valid("vg/lv"));
	memset(long_name, 'a', LVM_NAME_MAX);
	long_name[LVM_NAME_MAX] = '\0';
	assert_false(lvm_name_valid(long_name));
	long_name[LVM_NAME_MAX - 1] = '\0';
	assert_true(lvm_name_valid(long_name));
	(void)state;
}

static void test_split(void **state)
{
	static const struct {
		const char *dm, *vg, *lv;
	} cases[] = {
		{ "vg0-root", "vg0", "root" },
		{ "my--vg-root", "my-vg", "root" },
		{ "vg-my--lv", "vg", "my-lv" },
		{ "a--b--c-d--e", "a-b-c", "d-e" },
		{ "vg0-pool-tpool", NULL, NULL }, /* a layer: hidden */
		{ "vg0-root-real", NULL, NULL },
		{ "vg0", NULL, NULL },
		{ "vg0-", NULL, NULL },
		{ "-root", NULL, NULL },
		{ "vg--", NULL, NULL },
		{ "luks-1234", "luks", "1234" }, /* the caller checks the dm UUID first */
	};
	char vg[LVM_NAME_MAX], lv[LVM_NAME_MAX], tiny[4];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bool ok = lvm_split_dm_name(cases[i].dm, vg, sizeof(vg), lv, sizeof(lv));

		assert_int_equal(ok, cases[i].vg != NULL);
		if (ok) {
			assert_string_equal(vg, cases[i].vg);
			assert_string_equal(lv, cases[i].lv);
		}
	}
	assert_true(lvm_split_dm_name("vg0-root", tiny, sizeof(tiny), lv, sizeof(lv)));
	assert_false(lvm_split_dm_name("vgname-root", tiny, sizeof(tiny), lv, sizeof(lv)));
	(void)state;
}

static void test_activation_list(void **state)
{
	struct lvm_cmdline l = { .enabled = true };
	char out[256], err[128] = "";

	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "");
	l.vgs = "";
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "");
	l.vgs = "vg0,,data";
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "[ \"vg0\", \"data\" ]");
	l.lvs = "vg1/root";
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "[ \"vg0\", \"data\", \"vg1/root\" ]");
	l.vgs = NULL;
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(out, "[ \"vg1/root\" ]");
	/* what would change lvm's --config is refused, and named */
	l.lvs = "vg1/root\" ] } global { x = 1";
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), -EINVAL);
	assert_string_equal(out, "");
	assert_non_null(strstr(err, "rd.lvm.lv="));
	l.lvs = "vg1";
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), -EINVAL);
	l.lvs = "vg1/root/x";
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), -EINVAL);
	l.lvs = NULL;
	l.vgs = "vg/root";
	assert_int_equal(lvm_activation_list(&l, out, sizeof(out), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "rd.lvm.vg=vg/root"));
	l.vgs = "vg0,vg1,vg2";
	assert_int_equal(lvm_activation_list(&l, out, 12, err, sizeof(err)), -ENAMETOOLONG);
	assert_string_equal(out, "");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_activation_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
