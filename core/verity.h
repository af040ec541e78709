/* dm-verity as data: the superblock veritysetup and systemd-repart write at the start of a
 * hash partition, the root hash's halves that name the DPS partitions, the options of
 * systemd-veritysetup, and the kernel's table line. Pure: the kernel does the hashing. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uuid.h"

#define VERITY_SB_SIZE 512
/* sha512 is the longest digest dm-verity is given in practice: 64 bytes, 128 hex digits. */
#define VERITY_HASH_HEX_MAX 128
/* The root hash's first and last 128 bits name the data and hash partitions: it has to be
 * at least 256 bits long (sha256) for the halves not to overlap. */
#define VERITY_HASH_HEX_MIN 64
#define VERITY_SALT_MAX 256
#define VERITY_TABLE_MAX 1024

/* What the superblock says of the hash tree. */
struct verity_geometry {
	unsigned hash_type;        /* 1: the normal format; 0: Chrome OS's */
	char algorithm[32];        /* the kernel's name: "sha256" */
	uint32_t data_block_size;  /* bytes */
	uint32_t hash_block_size;
	uint64_t data_blocks;
	uint64_t hash_start_block; /* where the tree starts on the hash device, in hash blocks */
	char salt[2 * VERITY_SALT_MAX + 1]; /* hex; "-" when there is none, as the kernel takes it */
	char uuid[UUID_STR_LEN];
};

/* The corruption modes and switches of systemd-veritysetup's options, as the kernel's
 * table takes them. */
enum verity_flag {
	VERITY_IGNORE_CORRUPTION = 1 << 0,
	VERITY_RESTART_ON_CORRUPTION = 1 << 1,
	VERITY_PANIC_ON_CORRUPTION = 1 << 2,
	VERITY_IGNORE_ZERO_BLOCKS = 1 << 3,
	VERITY_CHECK_AT_MOST_ONCE = 1 << 4,
};

struct verity_options {
	unsigned flags;            /* enum verity_flag */
	uint64_t hash_offset;      /* hash-offset=: bytes before the superblock on the hash device */
	char unknown[256];         /* the words not understood, comma-separated, for a warning */
};

/* Reads the superblock found hash_offset bytes into the hash device (buf holds its
 * VERITY_SB_SIZE bytes). 0, or -EINVAL with why saying what is wrong: no superblock, a
 * version, size or name the kernel would not take, a data area past 2^64 bytes. */
int verity_sb_parse(const uint8_t *buf, size_t len, uint64_t hash_offset,
		    struct verity_geometry *g, char *why, size_t why_size);

/* The bytes of the data device the tree covers. */
uint64_t verity_data_bytes(const struct verity_geometry *g);

/* Whether hex is a root hash: VERITY_HASH_HEX_MIN to VERITY_HASH_HEX_MAX hex digits, an even
 * number of them. 0 or -EINVAL. */
int verity_hash_check(const char *hex);

/* The PARTUUIDs the Discoverable Partitions Specification derives from a root hash: the data
 * partition's from its first 128 bits, the hash partition's from its last 128. 0 or -EINVAL. */
int verity_hash_partuuids(const char *hex, char data[UUID_STR_LEN], char hash[UUID_STR_LEN]);

/* Parses systemd-veritysetup's comma-separated options (systemd.verity_root_options=).
 * Unknown words are collected in o->unknown; -EINVAL for two corruption modes at once or a
 * malformed hash-offset=, with why set. */
int verity_options_parse(const char *text, struct verity_options *o, char *why, size_t why_size);

/* The options in their canonical words, for the plan ("" when none). */
void verity_options_format(const struct verity_options *o, char *out, size_t size);

/* The kernel's "verity" target line for the devices given as "MAJOR:MINOR" or paths. sig_key
 * is the description of a key holding the root hash's signature, or NULL. 0, or
 * -ENAMETOOLONG when it does not fit. */
int verity_table(const struct verity_geometry *g, const char *data_dev, const char *hash_dev,
		 const char *root_hash, const struct verity_options *o, const char *sig_key,
		 char *out, size_t size);
