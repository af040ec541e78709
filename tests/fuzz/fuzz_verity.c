/* The hash partition's superblock and the verity options come from the disk and the command
 * line: any bytes must give a refusal with a reason, or a geometry the kernel's table can be
 * written from. The first bytes choose an offset and options; the rest is the superblock. */
#include "fuzz.h"
#include "verity.h"

#define HEAD 9

static bool power_of_two(uint64_t v)
{
	return v && !(v & (v - 1));
}

static void check_geometry(const struct verity_geometry *g, uint64_t offset)
{
	FUZZ_CHECK(g->hash_type <= 1, "hash type %u", g->hash_type);
	FUZZ_CHECK(power_of_two(g->data_block_size) && power_of_two(g->hash_block_size),
		   "block sizes %u/%u", g->data_block_size, g->hash_block_size);
	FUZZ_CHECK(g->data_blocks && verity_data_bytes(g) / g->data_block_size == g->data_blocks,
		   "data area overflows");
	FUZZ_CHECK(g->hash_start_block * g->hash_block_size >= offset + VERITY_SB_SIZE,
		   "the tree starts inside the superblock");
	FUZZ_CHECK(g->algorithm[0] && strlen(g->algorithm) < sizeof(g->algorithm), "algorithm");
	FUZZ_CHECK(strcmp(g->salt, "-") == 0 || strlen(g->salt) % 2 == 0, "salt %s", g->salt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const words[] = { "ignore-corruption", "restart-on-corruption",
					     "panic-on-corruption", "ignore-zero-blocks",
					     "check-at-most-once", "hash-offset=4096", "x=y" };
	char options[256] = "", why[256] = "", table[VERITY_TABLE_MAX], text[256];
	struct verity_geometry g;
	struct verity_options o;
	uint64_t offset = 0;

	if (size < HEAD)
		return 0;
	for (int i = 0; i < 8; i++)
		offset = offset << 8 | data[i];
	for (size_t i = 0; i < 7; i++)
		if (data[8] & (1u << i)) {
			strcat(options, options[0] ? "," : "");
			strcat(options, words[i]);
		}
	if (verity_options_parse(options, &o, why, sizeof(why)) < 0) {
		FUZZ_CHECK(why[0], "refused options without a reason");
		return 0;
	}
	verity_options_format(&o, text, sizeof(text));
	if (verity_sb_parse(data + HEAD, size - HEAD, offset, &g, why, sizeof(why)) < 0) {
		FUZZ_CHECK(why[0] && memchr(why, '\0', sizeof(why)), "refused without a reason");
		return 0;
	}
	check_geometry(&g, offset);
	FUZZ_CHECK(verity_table(&g, "254:0", "254:1", "00", &o, "k", table, sizeof(table)) == 0,
		   "a parsed superblock's table does not fit");
	return 0;
}
