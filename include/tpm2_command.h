/* TPM 2.0 commands as bytes (TCG TPM 2.0 Library, part 3), built and their responses read
 * without a TPM: data in, data out. What earlymount asks of a TPM is small; what the TPM
 * computes (its hashes) stays in the TPM. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm2_marshal.h"

#define TPM2_COMMAND_MAX 4096
#define TPM2_BANKS_MAX 8
#define TPM2_DIGEST_MAX 64
#define TPM2_EVENT_MAX 1024
#define TPM2_PCRS 24

/* TPM_ALG_* of the PCR banks' hashes. */
#define TPM2_ALG_SHA1 0x0004
#define TPM2_ALG_SHA256 0x000b
#define TPM2_ALG_SHA384 0x000c
#define TPM2_ALG_SHA512 0x000d
#define TPM2_ALG_SM3_256 0x0012

/* The banks a systemd-tpm2 token or tpm2-measure-bank= may name, as they name them. */
#define TPM2_BANK_NAMES "sha1, sha256, sha384, sha512"

/* "sha256" for TPM2_ALG_SHA256, …; NULL for an algorithm not known here. */
const char *tpm2_bank_name(uint16_t alg);
/* The size of a bank's digests, 0 for one not known. */
size_t tpm2_bank_digest_size(uint16_t alg);
/* The algorithm of a bank systemd names (TPM2_BANK_NAMES), name being len bytes; 0 for
 * another. */
uint16_t tpm2_bank_by_name(const char *name, size_t len);

struct tpm2_digest {
	uint16_t alg;    /* TPM_ALG_SHA1, _SHA256, … */
	const char *name; /* "sha1", "sha256", …, or NULL for an algorithm not known here */
	size_t size;
	uint8_t bytes[TPM2_DIGEST_MAX];
};

struct tpm2_digests {
	size_t n;
	struct tpm2_digest d[TPM2_BANKS_MAX];
};

/* TPM2_PCR_Event(pcr, data): the TPM hashes data with the algorithm of each active bank and
 * extends the PCR with each digest, authorized by the PCR's empty password. Writes the
 * command to out: its length, or -EINVAL (pcr over 23, data over 1024 bytes). */
int tpm2_build_pcr_event(unsigned pcr, const void *data, size_t len, uint8_t *out, size_t size);

/* The response to it: 0 with the digests extended; -EPROTO for a malformed response; or a
 * positive TPM response code (TPM_RC) when the TPM refused. */
int tpm2_parse_pcr_event(const uint8_t *resp, size_t len, struct tpm2_digests *out);

/* TPM2_GetCapability(TPM_CAP_PCRS): which banks the TPM keeps. */
int tpm2_build_get_pcr_banks(uint8_t *out, size_t size);
/* Its response: 0 with out->d[].alg (and name, size) of each bank that has all 24 PCRs
 * allocated and a hash known here (the banks systemd extends); -EPROTO; or a TPM_RC. */
int tpm2_parse_get_pcr_banks(const uint8_t *resp, size_t len, struct tpm2_digests *out);

/* TPM2_PCR_Extend(pcr, digests): the PCR of each digest's bank extended with it, authorized
 * by the PCR's empty password. Its length, or -EINVAL. */
int tpm2_build_pcr_extend(unsigned pcr, const struct tpm2_digests *d, uint8_t *out, size_t size);
/* Its response: 0, -EPROTO, or a TPM_RC. */
int tpm2_parse_pcr_extend(const uint8_t *resp, size_t len);

/* The authorization area of a command with one password session (TPM_RS_PW): its size, the
 * session, the password (empty: the object's empty authorization). */
void tpm2_put_password_session(struct tpm2_writer *w, const void *password, size_t len);
