/* SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104), for the /var PARTUUID rule. Pure. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_SIZE 32
#define SHA256_BLOCK_SIZE 64

struct sha256_ctx {
	uint32_t state[8];
	uint64_t length; /* bytes hashed so far */
	uint8_t block[SHA256_BLOCK_SIZE];
	size_t used; /* bytes waiting in block */
};

void sha256_init(struct sha256_ctx *ctx);
void sha256_update(struct sha256_ctx *ctx, const void *data, size_t len);
void sha256_final(struct sha256_ctx *ctx, uint8_t digest[SHA256_DIGEST_SIZE]);
void sha256(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_SIZE]);
void hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
		 uint8_t digest[SHA256_DIGEST_SIZE]);
