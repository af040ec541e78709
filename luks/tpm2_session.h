/* The cryptography of a salted TPM 2.0 session (TPM 2.0 Library, part 1: "Session-based
 * authorizations", "Session-based encryption", Annex C's ECDH secret sharing) over nettle and
 * hogweed: the salt agreed with the TPM's ECC parent key, the session key, the command's and
 * response's HMACs, and the response's parameter decryption. No primitive of our own. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TPM2_SESSION_DIGEST 32 /* SHA-256, the session's hash */
#define TPM2_ECC_COORD 32      /* NIST P-256 */

struct tpm2_session {
	uint8_t nonce_caller[TPM2_SESSION_DIGEST];
	uint8_t nonce_tpm[TPM2_SESSION_DIGEST];
	uint8_t salt[TPM2_SESSION_DIGEST];
	uint8_t key[TPM2_SESSION_DIGEST]; /* sessionKey */
	uint8_t auth[TPM2_SESSION_DIGEST]; /* the authorized object's authValue, when it counts */
	size_t auth_len;
};

/* A fresh nonce: 0, or -errno when the kernel gives no randomness. */
int tpm2_session_nonce(uint8_t out[TPM2_SESSION_DIGEST]);

/* The salt for a parent whose public point is (x, y) on P-256: an ephemeral key's public
 * point written into point (TPMS_ECC_POINT, 68 bytes with its two sizes) and the shared salt
 * (KDFe over the ECDH secret) into s->salt. 0, or -EINVAL when (x, y) is not on the curve. */
int tpm2_session_ecc_salt(const uint8_t *x, size_t x_len, const uint8_t *y, size_t y_len,
			  uint8_t point[4 + 2 * TPM2_ECC_COORD], struct tpm2_session *s);

/* sessionKey from the salt and both nonces (an unbound session: KDFa(salt, "ATH", …)). */
void tpm2_session_derive(struct tpm2_session *s);

/* The HMAC of a command whose cpHash is SHA-256(code || names || parameters), for nonces
 * (s->nonce_caller being the new one) and attributes: into out. */
void tpm2_session_command_hmac(const struct tpm2_session *s, uint32_t code,
			       const uint8_t *names, size_t names_len, const uint8_t *params,
			       size_t params_len, uint8_t attrs, uint8_t out[TPM2_SESSION_DIGEST]);

/* Whether a response's HMAC is the one the session expects (s->nonce_tpm the response's). */
bool tpm2_session_response_ok(const struct tpm2_session *s, uint32_t code, const uint8_t *params,
			      size_t params_len, uint8_t attrs, const uint8_t *hmac, size_t hmac_len);

/* Decrypts, in place, the first parameter of a response sent with the encrypt attribute. */
void tpm2_session_decrypt_response(const struct tpm2_session *s, uint8_t *data, size_t len);

void tpm2_session_wipe(struct tpm2_session *s);

/* The authorization value systemd seals a PIN into: SHA-256 of the PIN, or, with a salt
 * (tpm2_salt, systemd 253+), SHA-256 of the base64 text of PBKDF2-HMAC-SHA256(PIN, salt,
 * 10000 rounds, 32 bytes); trailing zero bytes dropped, as the TPM keeps an authValue. Its
 * length. */
size_t tpm2_pin_auth(const char *pin, size_t len, const uint8_t *salt, size_t salt_len,
		     uint8_t out[TPM2_SESSION_DIGEST]);
