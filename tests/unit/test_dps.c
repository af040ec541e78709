/* The partition-type table, arch names, and the /var PARTUUID rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dps.h"
#include "uuid.h"

static void test_every_arch_has_all_six_types_and_round_trips(void **state)
{
	static const enum dps_role per_arch[] = { DPS_ROOT, DPS_USR, DPS_ROOT_VERITY, DPS_USR_VERITY,
						  DPS_ROOT_VERITY_SIG, DPS_USR_VERITY_SIG };

	for (int a = 0; a < ARCH_MAX; a++)
		for (size_t r = 0; r < sizeof(per_arch) / sizeof(per_arch[0]); r++) {
			const char *uuid = dps_type_uuid(per_arch[r], (enum arch)a);
			const struct dps_type *t;

			assert_non_null(uuid);
			t = dps_type_from_uuid(uuid);
			assert_non_null(t);
			assert_int_equal(t->role, per_arch[r]);
			assert_int_equal(t->arch, a);
		}
}

static void test_spec_values(void **state)
{
	assert_string_equal(dps_type_uuid(DPS_ROOT, ARCH_X86_64), "4f68bce3-e8cd-4db1-96e7-fbcaf984b709");
	assert_string_equal(dps_type_uuid(DPS_USR, ARCH_AARCH64), "b0e01050-ee5f-4390-949a-9101b17104e9");
	assert_string_equal(dps_type_uuid(DPS_ROOT, ARCH_LOONGARCH64), "77055800-792c-4f94-b39a-98c91b762bb6");
	assert_string_equal(dps_type_uuid(DPS_USR_VERITY_SIG, ARCH_S390X), "3f324816-667b-46ae-86ee-9b0c0c6c11b4");
	assert_string_equal(dps_type_uuid(DPS_ESP, ARCH_X86), "c12a7328-f81f-11d2-ba4b-00a0c93ec93b");
	assert_string_equal(dps_type_uuid(DPS_TMP, ARCH_ARM), "7ec6f557-3bc5-4aca-b293-16ef5df639d1");
	/* Upper case, as some tools print them, still matches. */
	assert_int_equal(dps_type_from_uuid("933AC7E1-2EB4-4F13-B844-0E14E2AEF915")->role, DPS_HOME);
	assert_null(dps_type_from_uuid("00000000-0000-0000-0000-000000000000"));
	assert_null(dps_type_from_uuid(""));
}

static void test_arch_names_and_secondary(void **state)
{
	assert_int_equal(arch_from_name("x86_64"), ARCH_X86_64);
	assert_int_equal(arch_from_name("amd64"), ARCH_X86_64);
	assert_int_equal(arch_from_name("x86-64"), ARCH_X86_64);
	assert_int_equal(arch_from_name("aarch64"), ARCH_AARCH64);
	assert_int_equal(arch_from_name("arm64"), ARCH_AARCH64);
	assert_int_equal(arch_from_name("i686"), ARCH_X86);
	assert_int_equal(arch_from_name("sparc"), ARCH_INVALID);
	assert_int_equal(arch_secondary(ARCH_X86_64), ARCH_X86);
	assert_int_equal(arch_secondary(ARCH_AARCH64), ARCH_ARM);
	assert_int_equal(arch_secondary(ARCH_RISCV64), ARCH_INVALID);
	assert_int_equal(arch_secondary(ARCH_INVALID), ARCH_INVALID);
	assert_string_equal(arch_name(ARCH_AARCH64), "arm64");
	assert_string_equal(arch_name(ARCH_INVALID), "unknown");
#if defined(__x86_64__)
	assert_int_equal(arch_native(), ARCH_X86_64);
#elif defined(__aarch64__)
	assert_int_equal(arch_native(), ARCH_AARCH64);
#endif
}

static void test_flags_honoured_per_role(void **state)
{
	assert_true(dps_role_honours_no_auto(DPS_ROOT));
	assert_true(dps_role_honours_no_auto(DPS_SWAP));
	assert_false(dps_role_honours_read_only(DPS_SWAP));
	assert_false(dps_role_honours_no_auto(DPS_ESP));
	assert_false(dps_role_honours_read_only(DPS_ESP));
	assert_true(dps_role_honours_read_only(DPS_XBOOTLDR));
	assert_false(dps_role_honours_no_auto(DPS_UNKNOWN));
}

/* What discovery mounts is what earlymount probes filesystems on at boot. */
static void test_roles_mounted(void **state)
{
	static const enum dps_role mounted[] = { DPS_ROOT, DPS_USR, DPS_ESP, DPS_XBOOTLDR, DPS_SWAP,
						 DPS_HOME, DPS_SRV, DPS_VAR, DPS_TMP };
	static const enum dps_role not_mounted[] = { DPS_ROOT_VERITY, DPS_USR_VERITY,
						     DPS_ROOT_VERITY_SIG, DPS_USR_VERITY_SIG,
						     DPS_USER_HOME, DPS_LINUX_GENERIC, DPS_UNKNOWN,
						     DPS_ROLE_MAX };

	for (size_t i = 0; i < sizeof(mounted) / sizeof(mounted[0]); i++)
		assert_true(dps_role_mounted(mounted[i]));
	for (size_t i = 0; i < sizeof(not_mounted) / sizeof(not_mounted[0]); i++)
		assert_false(dps_role_mounted(not_mounted[i]));
}

static void test_fstypes(void **state)
{
	assert_true(dps_fstype_allowed("ext4"));
	assert_true(dps_fstype_allowed("erofs"));
	assert_false(dps_fstype_allowed("ext3"));
	assert_false(dps_fstype_allowed("crypto_LUKS"));
	assert_false(dps_fstype_allowed(""));
}

static void test_var_partuuid_spec_example(void **state)
{
	uint8_t id[16], out[16];
	char text[UUID_STR_LEN];

	assert_int_equal(id128_parse("cc1fed1f50ba43cda39577333c5d0504", id), 0);
	dps_var_partuuid(id, out);
	uuid_format(out, text);
	assert_string_equal(text, "6028e3a1-54ef-41be-90b1-c54f2e22254c");
	assert_int_equal(out[6] >> 4, 4);
	assert_int_equal(out[8] >> 6, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_arch_has_all_six_types_and_round_trips),
		cmocka_unit_test(test_spec_values),
		cmocka_unit_test(test_arch_names_and_secondary),
		cmocka_unit_test(test_flags_honoured_per_role),
		cmocka_unit_test(test_roles_mounted),
		cmocka_unit_test(test_fstypes),
		cmocka_unit_test(test_var_partuuid_spec_example),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
