/* SHA-256 (FIPS 180-4) and HMAC-SHA256 (RFC 2104). Small rather than fast: it hashes a
 * few dozen bytes per boot. */
#include <string.h>

#include "sha256.h"

static const uint32_t round_constants[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n)
{
	return x >> n | x << (32 - n);
}

static void compress_block(uint32_t state[8], const uint8_t block[SHA256_BLOCK_SIZE])
{
	uint32_t w[64], v[8];

	for (unsigned i = 0; i < 16; i++)
		w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
		       (uint32_t)block[4 * i + 2] << 8 | block[4 * i + 3];
	for (unsigned i = 16; i < 64; i++) {
		uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, state, sizeof(v));
	for (unsigned i = 0; i < 64; i++) {
		uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + round_constants[i] + w[i];
		uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + s0 + maj;
	}
	for (unsigned i = 0; i < 8; i++)
		state[i] += v[i];
}

void sha256_init(struct sha256_ctx *ctx)
{
	static const uint32_t initial[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(ctx->state, initial, sizeof(initial));
	ctx->length = 0;
	ctx->used = 0;
}

void sha256_update(struct sha256_ctx *ctx, const void *data, size_t len)
{
	const uint8_t *p = data;

	ctx->length += len;
	while (len > 0) {
		size_t n = SHA256_BLOCK_SIZE - ctx->used;

		if (n > len)
			n = len;
		memcpy(ctx->block + ctx->used, p, n);
		ctx->used += n;
		p += n;
		len -= n;
		if (ctx->used == SHA256_BLOCK_SIZE) {
			compress_block(ctx->state, ctx->block);
			ctx->used = 0;
		}
	}
}

void sha256_final(struct sha256_ctx *ctx, uint8_t digest[SHA256_DIGEST_SIZE])
{
	uint64_t bits = ctx->length * 8;
	uint8_t pad = 0x80, zero = 0, length_be[8];

	sha256_update(ctx, &pad, 1);
	while (ctx->used != SHA256_BLOCK_SIZE - 8)
		sha256_update(ctx, &zero, 1);
	for (unsigned i = 0; i < 8; i++)
		length_be[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(ctx, length_be, 8);
	for (unsigned i = 0; i < 8; i++) {
		digest[4 * i] = (uint8_t)(ctx->state[i] >> 24);
		digest[4 * i + 1] = (uint8_t)(ctx->state[i] >> 16);
		digest[4 * i + 2] = (uint8_t)(ctx->state[i] >> 8);
		digest[4 * i + 3] = (uint8_t)ctx->state[i];
	}
}

void sha256(const void *data, size_t len, uint8_t digest[SHA256_DIGEST_SIZE])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, data, len);
	sha256_final(&ctx, digest);
}

void hmac_sha256(const void *key, size_t key_len, const void *msg, size_t msg_len,
		 uint8_t digest[SHA256_DIGEST_SIZE])
{
	uint8_t k[SHA256_BLOCK_SIZE] = { 0 }, pad[SHA256_BLOCK_SIZE], inner[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;

	/* RFC 2104: keys longer than a block are hashed first. */
	if (key_len > SHA256_BLOCK_SIZE)
		sha256(key, key_len, k);
	else
		memcpy(k, key, key_len);

	for (unsigned i = 0; i < SHA256_BLOCK_SIZE; i++)
		pad[i] = k[i] ^ 0x36;
	sha256_init(&ctx);
	sha256_update(&ctx, pad, sizeof(pad));
	sha256_update(&ctx, msg, msg_len);
	sha256_final(&ctx, inner);

	for (unsigned i = 0; i < SHA256_BLOCK_SIZE; i++)
		pad[i] = k[i] ^ 0x5c;
	sha256_init(&ctx);
	sha256_update(&ctx, pad, sizeof(pad));
	sha256_update(&ctx, inner, sizeof(inner));
	sha256_final(&ctx, digest);
}
