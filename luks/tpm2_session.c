/* KDFa is HMAC in counter mode, KDFe a hash in counter mode (SP 800-108, SP 800-56A), as part 1
 * of the TPM 2.0 Library defines them; labels are taken with their terminating NUL. For one
 * 256-bit output both are a single round. */
#include <errno.h>
#include <gmp.h>
#include <nettle/aes.h>
#include <nettle/cfb.h>
#include <nettle/ecc-curve.h>
#include <nettle/ecc.h>
#include <nettle/hmac.h>
#include <nettle/pbkdf2.h>
#include <nettle/sha2.h>
#include <string.h>
#include <sys/random.h>

#include "base64.h"
#include "tpm2_session.h"

static void be32(uint8_t out[4], uint32_t v)
{
	out[0] = (uint8_t)(v >> 24);
	out[1] = (uint8_t)(v >> 16);
	out[2] = (uint8_t)(v >> 8);
	out[3] = (uint8_t)v;
}

int tpm2_session_nonce(uint8_t out[TPM2_SESSION_DIGEST])
{
	return getrandom(out, TPM2_SESSION_DIGEST, 0) == TPM2_SESSION_DIGEST ? 0 : -EIO;
}

static void random_bytes(void *ctx, size_t len, uint8_t *out)
{
	(void)ctx;
	while (len > 0) {
		ssize_t n = getrandom(out, len, 0);

		if (n > 0) {
			out += n;
			len -= (size_t)n;
		}
	}
}

/* A coordinate as 32 big-endian bytes, zero-padded at the front. */
static void coord_bytes(const mpz_t v, uint8_t out[TPM2_ECC_COORD])
{
	size_t n = 0;

	memset(out, 0, TPM2_ECC_COORD);
	if ((mpz_sizeinbase(v, 2) + 7) / 8 <= TPM2_ECC_COORD) {
		uint8_t tmp[TPM2_ECC_COORD];

		mpz_export(tmp, &n, 1, 1, 1, 0, v);
		memcpy(out + TPM2_ECC_COORD - n, tmp, n);
	}
}

/* KDFe(SHA-256, Z, "SECRET", PartyUInfo = the ephemeral x, PartyVInfo = the parent's x). */
static void kdfe_secret(const uint8_t z[TPM2_ECC_COORD], const uint8_t eph_x[TPM2_ECC_COORD],
			const uint8_t tpm_x[TPM2_ECC_COORD], uint8_t out[TPM2_SESSION_DIGEST])
{
	struct sha256_ctx h;
	uint8_t counter[4];

	be32(counter, 1);
	sha256_init(&h);
	sha256_update(&h, sizeof(counter), counter);
	sha256_update(&h, TPM2_ECC_COORD, z);
	sha256_update(&h, sizeof("SECRET"), (const uint8_t *)"SECRET");
	sha256_update(&h, TPM2_ECC_COORD, eph_x);
	sha256_update(&h, TPM2_ECC_COORD, tpm_x);
	sha256_digest(&h, TPM2_SESSION_DIGEST, out);
}

int tpm2_session_ecc_salt(const uint8_t *x, size_t x_len, const uint8_t *y, size_t y_len,
			  uint8_t point[4 + 2 * TPM2_ECC_COORD], struct tpm2_session *s)
{
	const struct ecc_curve *curve = nettle_get_secp_256r1();
	struct ecc_point tpm, eph, shared;
	struct ecc_scalar d;
	uint8_t tpm_x[TPM2_ECC_COORD], eph_x[TPM2_ECC_COORD], eph_y[TPM2_ECC_COORD];
	uint8_t z[TPM2_ECC_COORD];
	mpz_t mx, my;
	int r = -EINVAL;

	mpz_inits(mx, my, NULL);
	ecc_point_init(&tpm, curve);
	ecc_point_init(&eph, curve);
	ecc_point_init(&shared, curve);
	ecc_scalar_init(&d, curve);
	if (x_len == 0 || x_len > TPM2_ECC_COORD || y_len == 0 || y_len > TPM2_ECC_COORD)
		goto out;
	mpz_import(mx, x_len, 1, 1, 1, 0, x);
	mpz_import(my, y_len, 1, 1, 1, 0, y);
	/* a point off the curve would leak the ephemeral key: refused */
	if (!ecc_point_set(&tpm, mx, my))
		goto out;
	coord_bytes(mx, tpm_x);
	ecc_scalar_random(&d, NULL, random_bytes);
	ecc_point_mul_g(&eph, &d);
	ecc_point_mul(&shared, &d, &tpm);
	ecc_point_get(&eph, mx, my);
	coord_bytes(mx, eph_x);
	coord_bytes(my, eph_y);
	ecc_point_get(&shared, mx, NULL);
	coord_bytes(mx, z);
	kdfe_secret(z, eph_x, tpm_x, s->salt);
	point[0] = 0;
	point[1] = TPM2_ECC_COORD;
	memcpy(point + 2, eph_x, TPM2_ECC_COORD);
	point[2 + TPM2_ECC_COORD] = 0;
	point[3 + TPM2_ECC_COORD] = TPM2_ECC_COORD;
	memcpy(point + 4 + TPM2_ECC_COORD, eph_y, TPM2_ECC_COORD);
	r = 0;
out:
	memset(z, 0, sizeof(z));
	ecc_scalar_clear(&d);
	ecc_point_clear(&tpm);
	ecc_point_clear(&eph);
	ecc_point_clear(&shared);
	mpz_clears(mx, my, NULL);
	return r;
}

/* KDFa(SHA-256, key, label, u, v, bits) for bits up to 256: one HMAC. */
static void kdfa(const uint8_t *key, size_t key_len, const char *label, const uint8_t *u,
		 const uint8_t *v, unsigned bits, uint8_t out[TPM2_SESSION_DIGEST])
{
	struct hmac_sha256_ctx h;
	uint8_t counter[4], size[4];

	be32(counter, 1);
	be32(size, bits);
	hmac_sha256_set_key(&h, key_len, key);
	hmac_sha256_update(&h, sizeof(counter), counter);
	hmac_sha256_update(&h, strlen(label) + 1, (const uint8_t *)label);
	hmac_sha256_update(&h, TPM2_SESSION_DIGEST, u);
	hmac_sha256_update(&h, TPM2_SESSION_DIGEST, v);
	hmac_sha256_update(&h, sizeof(size), size);
	hmac_sha256_digest(&h, TPM2_SESSION_DIGEST, out);
}

void tpm2_session_derive(struct tpm2_session *s)
{
	kdfa(s->salt, sizeof(s->salt), "ATH", s->nonce_tpm, s->nonce_caller, 256, s->key);
}

/* HMAC(sessionKey || authValue, pHash || nonceNewer || nonceOlder || attributes). */
static void session_hmac(const struct tpm2_session *s, const uint8_t p_hash[TPM2_SESSION_DIGEST],
			 const uint8_t *newer, const uint8_t *older, uint8_t attrs,
			 uint8_t out[TPM2_SESSION_DIGEST])
{
	uint8_t key[2 * TPM2_SESSION_DIGEST];
	struct hmac_sha256_ctx h;

	memcpy(key, s->key, TPM2_SESSION_DIGEST);
	memcpy(key + TPM2_SESSION_DIGEST, s->auth, s->auth_len);
	hmac_sha256_set_key(&h, TPM2_SESSION_DIGEST + s->auth_len, key);
	hmac_sha256_update(&h, TPM2_SESSION_DIGEST, p_hash);
	hmac_sha256_update(&h, TPM2_SESSION_DIGEST, newer);
	hmac_sha256_update(&h, TPM2_SESSION_DIGEST, older);
	hmac_sha256_update(&h, 1, &attrs);
	hmac_sha256_digest(&h, TPM2_SESSION_DIGEST, out);
	memset(key, 0, sizeof(key));
}

void tpm2_session_command_hmac(const struct tpm2_session *s, uint32_t code,
			       const uint8_t *names, size_t names_len, const uint8_t *params,
			       size_t params_len, uint8_t attrs, uint8_t out[TPM2_SESSION_DIGEST])
{
	struct sha256_ctx h;
	uint8_t cc[4], cp_hash[TPM2_SESSION_DIGEST];

	be32(cc, code);
	sha256_init(&h);
	sha256_update(&h, sizeof(cc), cc);
	sha256_update(&h, names_len, names);
	sha256_update(&h, params_len, params);
	sha256_digest(&h, sizeof(cp_hash), cp_hash);
	session_hmac(s, cp_hash, s->nonce_caller, s->nonce_tpm, attrs, out);
}

bool tpm2_session_response_ok(const struct tpm2_session *s, uint32_t code, const uint8_t *params,
			      size_t params_len, uint8_t attrs, const uint8_t *hmac, size_t hmac_len)
{
	struct sha256_ctx h;
	uint8_t rc_cc[8] = { 0 }, rp_hash[TPM2_SESSION_DIGEST], want[TPM2_SESSION_DIGEST];
	uint8_t diff = 0;

	be32(rc_cc + 4, code);
	sha256_init(&h);
	sha256_update(&h, sizeof(rc_cc), rc_cc);
	sha256_update(&h, params_len, params);
	sha256_digest(&h, sizeof(rp_hash), rp_hash);
	session_hmac(s, rp_hash, s->nonce_tpm, s->nonce_caller, attrs, want);
	if (hmac_len != sizeof(want))
		return false;
	for (size_t i = 0; i < sizeof(want); i++)
		diff |= (uint8_t)(want[i] ^ hmac[i]);
	return diff == 0;
}

void tpm2_session_decrypt_response(const struct tpm2_session *s, uint8_t *data, size_t len)
{
	uint8_t key[2 * TPM2_SESSION_DIGEST], stream[TPM2_SESSION_DIGEST];
	struct aes128_ctx aes;

	memcpy(key, s->key, TPM2_SESSION_DIGEST);
	memcpy(key + TPM2_SESSION_DIGEST, s->auth, s->auth_len);
	/* the response's nonce first: KDFa(sessionValue, "CFB", nonceTPM, nonceCaller): the key,
	 * then the IV */
	kdfa(key, TPM2_SESSION_DIGEST + s->auth_len, "CFB", s->nonce_tpm, s->nonce_caller, 256,
	     stream);
	aes128_set_encrypt_key(&aes, stream);
	cfb_decrypt(&aes, (nettle_cipher_func *)aes128_encrypt, AES_BLOCK_SIZE, stream + 16, len,
		    data, data);
	memset(key, 0, sizeof(key));
	memset(stream, 0, sizeof(stream));
	memset(&aes, 0, sizeof(aes));
}

void tpm2_session_wipe(struct tpm2_session *s)
{
	explicit_bzero(s, sizeof(*s));
}

size_t tpm2_pin_auth(const char *pin, size_t len, const uint8_t *salt, size_t salt_len,
		     uint8_t out[TPM2_SESSION_DIGEST])
{
	uint8_t derived[TPM2_SESSION_DIGEST];
	char text[TPM2_SESSION_DIGEST * 2];
	struct sha256_ctx h;
	size_t n = TPM2_SESSION_DIGEST;

	sha256_init(&h);
	if (salt_len) {
		pbkdf2_hmac_sha256(len, (const uint8_t *)pin, 10000, salt_len, salt, sizeof(derived),
				   derived);
		sha256_update(&h, base64_encode(derived, sizeof(derived), text, sizeof(text)),
			      (const uint8_t *)text);
	} else
		sha256_update(&h, len, (const uint8_t *)pin);
	sha256_digest(&h, TPM2_SESSION_DIGEST, out);
	while (n && out[n - 1] == 0)
		n--;
	explicit_bzero(derived, sizeof(derived));
	explicit_bzero(text, sizeof(text));
	return n;
}
