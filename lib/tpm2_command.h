/* TPM 2.0 commands as bytes (TCG TPM 2.0 Library, part 3), built and their responses read
 * without a TPM: data in, data out. What earlymount asks of a TPM is small; what the TPM
 * computes (its hashes) stays in the TPM. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "tpm2_marshal.h"

#define TPM2_COMMAND_MAX 4096
#define TPM2_BANKS_MAX 8
#define TPM2_DIGEST_MAX 64
#define TPM2_EVENT_MAX 1024

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

/* The authorization area of a command with one password session (TPM_RS_PW): its size, the
 * session, the password (empty: the object's empty authorization). */
void tpm2_put_password_session(struct tpm2_writer *w, const void *password, size_t len);
