/* A LUKS2 token of type "systemd-tpm2", as systemd-cryptenroll writes it: a key sealed by a
 * TPM, the PCRs and the policy it was sealed to. Data in, data out: the JSON is read with the
 * strict reader the rest of the LUKS2 metadata is read with. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm2_command.h"

#define TPM2_BLOB_MAX 2048   /* TPM2B_PRIVATE then TPM2B_PUBLIC, as sealed */
#define TPM2_POLICY_MAX 64   /* the policy digest, in the bank's hash */
#define TPM2_SALT_MAX 64
#define TPM2_SRK_MAX 1024    /* a serialized ESYS_TR of the storage root key */
#define TPM2_PUBKEY_MAX 4096 /* the PCR-signing public key, PEM */
#define TPM2_TOKEN_JSON_MAX 65536

/* TPM_ALG_* of the primary key and of the PCR bank. */
#define TPM2_ALG_RSA 0x0001
#define TPM2_ALG_ECC 0x0023

struct tpm2_token {
	int keyslot; /* the first of "keyslots" */
	uint8_t blob[TPM2_BLOB_MAX];
	size_t blob_len;
	uint32_t pcrs;        /* "tpm2-pcrs": a mask of PCRs 0 to 23 */
	uint16_t bank;        /* "tpm2-pcr-bank", sha256 when absent */
	uint16_t primary_alg; /* "tpm2-primary-alg", ECC when absent */
	uint8_t policy_hash[TPM2_POLICY_MAX];
	size_t policy_hash_len;
	bool pin; /* "tpm2-pin" */
	uint8_t salt[TPM2_SALT_MAX]; /* "tpm2_salt": the PIN goes through PBKDF2 */
	size_t salt_len;
	uint8_t srk[TPM2_SRK_MAX]; /* "tpm2_srk": sealed under the persistent SRK */
	size_t srk_len;
	uint8_t pubkey[TPM2_PUBKEY_MAX]; /* "tpm2_pubkey": PCR policies this key signs */
	size_t pubkey_len;
	uint32_t pubkey_pcrs; /* "tpm2_pubkey_pcrs" */
	bool pcrlock;         /* "tpm2_pcrlock": a pcrlock policy, which earlymount does not read */
};

/* The token's JSON (len bytes, or up to a NUL): 0, or -EINVAL with why when it is not a
 * systemd-tpm2 token earlymount can use (malformed, a field of the wrong kind or size, no
 * blob or keyslot, an unknown bank or algorithm). */
int tpm2_token_parse(const char *json, size_t len, struct tpm2_token *out, char *why,
		     size_t why_size);

struct json_reader;
/* A json_array() element that is a PCR index, 0 to 23, added to the uint32_t mask at data. */
bool tpm2_json_pcr(struct json_reader *r, size_t index, void *data);
