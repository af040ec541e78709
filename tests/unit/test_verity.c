/* dm-verity's superblock, root hash halves, options and table line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "verity.h"

#define HASH "6fd5c1a7a7ae4f2b9d0e0f8f3e7b2c1a0aaf6ee3d3d3b8b1c2e2f9a8b7c6d5e4"

static void le_put(uint8_t *p, uint64_t v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* What veritysetup format writes for 4 KiB blocks, sha256 and a 32-byte salt. */
static void make_sb(uint8_t sb[VERITY_SB_SIZE])
{
	memset(sb, 0, VERITY_SB_SIZE);
	memcpy(sb, "verity\0\0", 8);
	le_put(sb + 8, 1, 4);
	le_put(sb + 12, 1, 4);
	for (int i = 0; i < 16; i++)
		sb[16 + i] = (uint8_t)(0x10 + i);
	memcpy(sb + 32, "sha256", 6);
	le_put(sb + 64, 4096, 4);
	le_put(sb + 68, 4096, 4);
	le_put(sb + 72, 6144, 8);
	le_put(sb + 80, 32, 2);
	for (int i = 0; i < 32; i++)
		sb[88 + i] = (uint8_t)i;
}

static void test_superblock_read(void **state)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geometry g;
	char why[128];

	make_sb(sb);
	assert_int_equal(verity_sb_parse(sb, sizeof(sb), 0, &g, why, sizeof(why)), 0);
	assert_int_equal(g.hash_type, 1);
	assert_string_equal(g.algorithm, "sha256");
	assert_int_equal(g.data_block_size, 4096);
	assert_int_equal(g.hash_block_size, 4096);
	assert_int_equal(g.data_blocks, 6144);
	assert_int_equal(g.hash_start_block, 1);
	assert_int_equal(verity_data_bytes(&g), 6144ull * 4096);
	assert_string_equal(g.salt, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
	assert_string_equal(g.uuid, "10111213-1415-1617-1819-1a1b1c1d1e1f");
}

/* The tree starts at the first hash block past the superblock, wherever that sits. */
static void test_superblock_offset_and_small_blocks(void **state)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geometry g;

	make_sb(sb);
	le_put(sb + 68, 512, 4);
	le_put(sb + 80, 0, 2);
	assert_int_equal(verity_sb_parse(sb, sizeof(sb), 1048576, &g, NULL, 0), 0);
	assert_int_equal(g.hash_start_block, 1048576 / 512 + 1);
	assert_string_equal(g.salt, "-");
}

static void test_superblock_refusals(void **state)
{
	static const struct {
		unsigned offset, bytes;
		uint64_t value;
		const char *why;
	} bad[] = {
		{ 0, 1, 'V', "no verity superblock" },
		{ 8, 4, 2, "version 2" },
		{ 12, 4, 7, "hash type 7" },
		{ 32, 1, 0, "no valid hash algorithm" },
		{ 32, 1, 'S', "no valid hash algorithm" },
		{ 64, 4, 4095, "block sizes" },
		{ 68, 4, 256, "block sizes" },
		{ 68, 4, 1 << 20, "block sizes" },
		{ 72, 8, 0, "data area" },
		{ 72, 8, UINT64_MAX / 4096 + 1, "data area" },
		{ 80, 2, 257, "salt of 257" },
	};
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geometry g;
	char why[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		make_sb(sb);
		le_put(sb + bad[i].offset, bad[i].value, bad[i].bytes);
		assert_int_equal(verity_sb_parse(sb, sizeof(sb), 0, &g, why, sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, why, bad[i].why);
	}
	make_sb(sb);
	memset(sb + 32, 'a', 32); /* no terminator inside the field */
	assert_int_equal(verity_sb_parse(sb, sizeof(sb), 0, &g, why, sizeof(why)), -EINVAL);
	make_sb(sb);
	assert_int_equal(verity_sb_parse(sb, VERITY_SB_SIZE - 1, 0, &g, why, sizeof(why)), -EINVAL);
	assert_int_equal(verity_sb_parse(sb, sizeof(sb), UINT64_MAX - 600, &g, why, sizeof(why)),
			 -EINVAL);
}

static void test_hash_halves_name_the_partitions(void **state)
{
	char data[UUID_STR_LEN], hash[UUID_STR_LEN];

	assert_int_equal(verity_hash_partuuids(HASH, data, hash), 0);
	assert_string_equal(data, "6fd5c1a7-a7ae-4f2b-9d0e-0f8f3e7b2c1a");
	assert_string_equal(hash, "0aaf6ee3-d3d3-b8b1-c2e2-f9a8b7c6d5e4");
	/* upper case is taken, the UUIDs come out lower case */
	assert_int_equal(verity_hash_partuuids("6FD5C1A7A7AE4F2B9D0E0F8F3E7B2C1A0AAF6EE3D3D3B8B1C2E2F9A8B7C6D5E4",
					       data, hash), 0);
	assert_string_equal(data, "6fd5c1a7-a7ae-4f2b-9d0e-0f8f3e7b2c1a");
}

static void test_hash_check(void **state)
{
	char longest[VERITY_HASH_HEX_MAX + 3];

	assert_int_equal(verity_hash_check(HASH), 0);
	assert_int_equal(verity_hash_check(HASH "00"), 0);
	assert_int_equal(verity_hash_check(""), -EINVAL);
	assert_int_equal(verity_hash_check("6fd5c1a7"), -EINVAL);          /* too short */
	assert_int_equal(verity_hash_check(HASH "0"), -EINVAL);            /* odd */
	assert_int_equal(verity_hash_check("g" HASH "0"), -EINVAL);        /* not hex */
	assert_int_equal(verity_hash_check("6fd5c1a7-a7ae-4f2b-9d0e-0f8f3e7b2c1a"), -EINVAL);
	memset(longest, 'a', VERITY_HASH_HEX_MAX);
	longest[VERITY_HASH_HEX_MAX] = '\0';
	assert_int_equal(verity_hash_check(longest), 0);
	strcat(longest, "aa");
	assert_int_equal(verity_hash_check(longest), -EINVAL);
}

static void test_options(void **state)
{
	struct verity_options o;
	char text[128], why[128];

	assert_int_equal(verity_options_parse("panic-on-corruption,,check-at-most-once,"
					      "fec-device=/dev/x,hash-offset=4096",
					      &o, why, sizeof(why)), 0);
	assert_int_equal(o.flags, VERITY_PANIC_ON_CORRUPTION | VERITY_CHECK_AT_MOST_ONCE);
	assert_int_equal(o.hash_offset, 4096);
	assert_string_equal(o.unknown, "fec-device=/dev/x");
	verity_options_format(&o, text, sizeof(text));
	assert_string_equal(text, "panic-on-corruption,check-at-most-once,hash-offset=4096");

	assert_int_equal(verity_options_parse(NULL, &o, why, sizeof(why)), 0);
	assert_int_equal(o.flags, 0);
	verity_options_format(&o, text, sizeof(text));
	assert_string_equal(text, "");

	/* a mode given twice is the same mode; two modes contradict each other */
	assert_int_equal(verity_options_parse("ignore-corruption,ignore-corruption", &o, why,
					      sizeof(why)), 0);
	assert_int_equal(verity_options_parse("ignore-corruption,restart-on-corruption", &o, why,
					      sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "two corruption modes"));
	assert_int_equal(verity_options_parse("hash-offset=12x", &o, why, sizeof(why)), -EINVAL);
	assert_int_equal(verity_options_parse("hash-offset=99999999999999999999", &o, why,
					      sizeof(why)), -EINVAL);
}

static void test_table_line(void **state)
{
	uint8_t sb[VERITY_SB_SIZE];
	struct verity_geometry g;
	struct verity_options o;
	char table[VERITY_TABLE_MAX], small[64];

	make_sb(sb);
	assert_int_equal(verity_sb_parse(sb, sizeof(sb), 0, &g, NULL, 0), 0);
	assert_int_equal(verity_options_parse("", &o, NULL, 0), 0);
	assert_int_equal(verity_table(&g, "254:2", "254:3", HASH, &o, NULL, table, sizeof(table)), 0);
	assert_string_equal(table, "1 254:2 254:3 4096 4096 6144 1 sha256 " HASH
			    " 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
	assert_int_equal(verity_options_parse("restart-on-corruption,ignore-zero-blocks", &o, NULL, 0), 0);
	assert_int_equal(verity_table(&g, "8:1", "8:2", HASH, &o, "earlymount:root", table,
				      sizeof(table)), 0);
	assert_non_null(strstr(table, " 4 restart_on_corruption ignore_zero_blocks "
			       "root_hash_sig_key_desc earlymount:root"));
	assert_int_equal(verity_table(&g, "8:1", "8:2", HASH, &o, NULL, small, sizeof(small)),
			 -ENAMETOOLONG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_superblock_read),
		cmocka_unit_test(test_superblock_offset_and_small_blocks),
		cmocka_unit_test(test_superblock_refusals),
		cmocka_unit_test(test_hash_halves_name_the_partitions),
		cmocka_unit_test(test_hash_check),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_table_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
