/* dm-verity's on-disk superblock, root hash and options, read and written as text for the
 * kernel. The layout is cryptsetup's (lib/verity/verity.c, struct verity_sb), little-endian;
 * veritysetup format and systemd-repart both write it. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util.h"
#include "verity.h"

#define SB_SIGNATURE "verity\0\0"
#define SB_VERSION 1
/* Offsets of the superblock's fields. */
#define SB_OFF_VERSION 8
#define SB_OFF_HASH_TYPE 12
#define SB_OFF_UUID 16
#define SB_OFF_ALGORITHM 32
#define SB_ALGORITHM_LEN 32
#define SB_OFF_DATA_BLOCK_SIZE 64
#define SB_OFF_HASH_BLOCK_SIZE 68
#define SB_OFF_DATA_BLOCKS 72
#define SB_OFF_SALT_SIZE 80
#define SB_OFF_SALT 88
/* Block sizes the kernel may take: a power of two from a sector to the largest page. */
#define BLOCK_SIZE_MIN 512
#define BLOCK_SIZE_MAX 65536

static const struct verity_flag_name {
	enum verity_flag flag;
	const char *option; /* systemd-veritysetup's word */
	const char *kernel; /* the table's word */
} flag_names[] = {
	{ VERITY_IGNORE_CORRUPTION, "ignore-corruption", "ignore_corruption" },
	{ VERITY_RESTART_ON_CORRUPTION, "restart-on-corruption", "restart_on_corruption" },
	{ VERITY_PANIC_ON_CORRUPTION, "panic-on-corruption", "panic_on_corruption" },
	{ VERITY_IGNORE_ZERO_BLOCKS, "ignore-zero-blocks", "ignore_zero_blocks" },
	{ VERITY_CHECK_AT_MOST_ONCE, "check-at-most-once", "check_at_most_once" },
};

#define CORRUPTION_MODES \
	(VERITY_IGNORE_CORRUPTION | VERITY_RESTART_ON_CORRUPTION | VERITY_PANIC_ON_CORRUPTION)

static uint64_t le_read(const uint8_t *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

static bool block_size_valid(uint64_t size)
{
	return size >= BLOCK_SIZE_MIN && size <= BLOCK_SIZE_MAX && (size & (size - 1)) == 0;
}

/* The crypto API's names: letters, digits and a few marks, e.g. "sha256", "hmac(sha256)". */
static bool algorithm_valid(const uint8_t *name, char out[SB_ALGORITHM_LEN])
{
	size_t n = 0;

	while (n < SB_ALGORITHM_LEN && name[n])
		n++;
	if (n == 0 || n == SB_ALGORITHM_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = (char)name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || strchr("-_()", c)))
			return false;
	}
	memcpy(out, name, n);
	out[n] = '\0';
	return true;
}

static void hex_format(const uint8_t *in, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 0xf];
	}
	out[2 * n] = '\0';
}

int verity_sb_parse(const uint8_t *buf, size_t len, uint64_t hash_offset,
		    struct verity_geometry *g, char *why, size_t why_size)
{
	uint64_t version, salt_size, start;
	int r = -EINVAL;

	memset(g, 0, sizeof(*g));
	if (len < VERITY_SB_SIZE || memcmp(buf, SB_SIGNATURE, 8) != 0) {
		set_why(why, why_size, "no verity superblock (it starts with \"verity\")");
		goto out;
	}
	version = le_read(buf + SB_OFF_VERSION, 4);
	g->hash_type = (unsigned)le_read(buf + SB_OFF_HASH_TYPE, 4);
	g->data_block_size = (uint32_t)le_read(buf + SB_OFF_DATA_BLOCK_SIZE, 4);
	g->hash_block_size = (uint32_t)le_read(buf + SB_OFF_HASH_BLOCK_SIZE, 4);
	g->data_blocks = le_read(buf + SB_OFF_DATA_BLOCKS, 8);
	salt_size = le_read(buf + SB_OFF_SALT_SIZE, 2);
	if (version != SB_VERSION) {
		set_why(why, why_size, "verity superblock version %" PRIu64 ", not %d", version,
			   SB_VERSION);
	} else if (g->hash_type > 1) {
		set_why(why, why_size, "unknown verity hash type %u", g->hash_type);
	} else if (!algorithm_valid(buf + SB_OFF_ALGORITHM, g->algorithm)) {
		set_why(why, why_size, "the verity superblock names no valid hash algorithm");
	} else if (!block_size_valid(g->data_block_size) || !block_size_valid(g->hash_block_size)) {
		set_why(why, why_size, "verity block sizes %" PRIu32 "/%" PRIu32 " (data/hash): "
			   "each must be a power of two from %d to %d", g->data_block_size,
			   g->hash_block_size, BLOCK_SIZE_MIN, BLOCK_SIZE_MAX);
	} else if (g->data_blocks == 0 || g->data_blocks > UINT64_MAX / g->data_block_size) {
		set_why(why, why_size, "verity data area of %" PRIu64 " blocks of %" PRIu32
			   " bytes", g->data_blocks, g->data_block_size);
	} else if (salt_size > VERITY_SALT_MAX) {
		set_why(why, why_size, "verity salt of %" PRIu64 " bytes (at most %d)", salt_size,
			   VERITY_SALT_MAX);
	} else if (hash_offset > UINT64_MAX - VERITY_SB_SIZE - g->hash_block_size) {
		set_why(why, why_size, "verity superblock offset %" PRIu64 " too large",
			   hash_offset);
	} else {
		r = 0;
	}
	if (r < 0)
		goto out;
	/* The tree starts at the first hash block after the superblock. */
	start = hash_offset + VERITY_SB_SIZE + g->hash_block_size - 1;
	g->hash_start_block = start / g->hash_block_size;
	if (salt_size)
		hex_format(buf + SB_OFF_SALT, (size_t)salt_size, g->salt);
	else
		strcpy(g->salt, "-");
	uuid_format(buf + SB_OFF_UUID, g->uuid);
out:
	return r;
}

uint64_t verity_data_bytes(const struct verity_geometry *g)
{
	return g->data_blocks * g->data_block_size;
}

static bool is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

int verity_hash_check(const char *hex)
{
	size_t n = 0;

	while (n <= VERITY_HASH_HEX_MAX && hex[n] && is_hex_digit(hex[n]))
		n++;
	if (hex[n] || n < VERITY_HASH_HEX_MIN || n > VERITY_HASH_HEX_MAX || n % 2)
		return -EINVAL;
	return 0;
}

/* 32 hex digits as a lower-case 8-4-4-4-12 UUID. */
static void uuid_from_hex(const char *hex, char out[UUID_STR_LEN])
{
	size_t o = 0;

	for (size_t i = 0; i < 32; i++) {
		if (i == 8 || i == 12 || i == 16 || i == 20)
			out[o++] = '-';
		out[o++] = (char)(hex[i] >= 'A' && hex[i] <= 'F' ? hex[i] - 'A' + 'a' : hex[i]);
	}
	out[o] = '\0';
}

int verity_hash_partuuids(const char *hex, char data[UUID_STR_LEN], char hash[UUID_STR_LEN])
{
	int r = verity_hash_check(hex);

	if (r == 0) {
		uuid_from_hex(hex, data);
		uuid_from_hex(hex + strlen(hex) - 32, hash);
	}
	return r;
}

static const struct verity_flag_name *flag_by_option(const char *word, size_t len)
{
	for (size_t i = 0; i < ARRAY_SIZE(flag_names); i++)
		if (strlen(flag_names[i].option) == len && memcmp(word, flag_names[i].option, len) == 0)
			return &flag_names[i];
	return NULL;
}

static void unknown_add(struct verity_options *o, const char *word, size_t len)
{
	size_t used = strlen(o->unknown);

	if (used + len + 2 > sizeof(o->unknown))
		return;
	if (used)
		o->unknown[used++] = ',';
	memcpy(o->unknown + used, word, len);
	o->unknown[used + len] = '\0';
}

int verity_options_parse(const char *text, struct verity_options *o, char *why, size_t why_size)
{
	static const char offset_key[] = "hash-offset=";
	int r = 0;

	memset(o, 0, sizeof(*o));
	for (const char *w = text ? text : ""; *w && r == 0;) {
		size_t len = strcspn(w, ",");
		const struct verity_flag_name *f = flag_by_option(w, len);

		if (f && (f->flag & CORRUPTION_MODES) && (o->flags & CORRUPTION_MODES & ~f->flag)) {
			set_why(why, why_size, "verity options name two corruption modes: %.*s "
				   "and an earlier one", (int)len, w);
			r = -EINVAL;
		} else if (f) {
			o->flags |= f->flag;
		} else if (len > sizeof(offset_key) - 1 &&
			   strncmp(w, offset_key, sizeof(offset_key) - 1) == 0) {
			r = parse_decimal(w + sizeof(offset_key) - 1, len - (sizeof(offset_key) - 1),
					  UINT64_MAX, &o->hash_offset);
			if (r < 0)
				set_why(why, why_size, "verity option %.*s: a byte count expected",
					   (int)len, w);
		} else if (len) {
			unknown_add(o, w, len);
		}
		w += len;
		w += *w == ',';
	}
	return r;
}

void verity_options_format(const struct verity_options *o, char *out, size_t size)
{
	size_t used = 0;

	if (size == 0)
		return;
	out[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(flag_names) && used < size; i++)
		if (o->flags & flag_names[i].flag)
			used += (size_t)snprintf(out + used, size - used, "%s%s", used ? "," : "",
						 flag_names[i].option);
	if (o->hash_offset && used < size)
		snprintf(out + used, size - used, "%shash-offset=%" PRIu64, used ? "," : "",
			 o->hash_offset);
}

int verity_table(const struct verity_geometry *g, const char *data_dev, const char *hash_dev,
		 const char *root_hash, const struct verity_options *o, const char *sig_key,
		 char *out, size_t size)
{
	char optional[256] = "";
	unsigned words = 0;
	size_t used = 0;
	int n;

	for (size_t i = 0; i < ARRAY_SIZE(flag_names); i++) {
		if (!(o->flags & flag_names[i].flag))
			continue;
		used += (size_t)snprintf(optional + used, sizeof(optional) - used, " %s",
					 flag_names[i].kernel);
		words++;
	}
	if (sig_key) {
		n = snprintf(optional + used, sizeof(optional) - used, " root_hash_sig_key_desc %s",
			     sig_key);
		if (n < 0 || (size_t)n >= sizeof(optional) - used)
			return -ENAMETOOLONG;
		words += 2;
	}
	n = snprintf(out, size, "%u %s %s %" PRIu32 " %" PRIu32 " %" PRIu64 " %" PRIu64 " %s %s %s",
		     g->hash_type, data_dev, hash_dev, g->data_block_size, g->hash_block_size,
		     g->data_blocks, g->hash_start_block, g->algorithm, root_hash, g->salt);
	if (n >= 0 && (size_t)n < size && words)
		n += snprintf(out + n, size - (size_t)n, " %u%s", words, optional);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
