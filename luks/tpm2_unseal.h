/* The secret a systemd-tpm2 token sealed, unsealed by the TPM: the parent key made again
 * from the TPM's seed (or the persistent SRK), the sealed object loaded under it, a policy
 * session that states the PCRs and the PIN as at sealing, and TPM2_Unseal. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tpm2_token.h"

#define TPM2_SECRET_MAX 128

/* Unseals t's secret through the TPM at device (NULL: /dev/tpmrm0, else /dev/tpm0; a Unix
 * socket is taken as a TPM simulator's, for tests), with pin (NULL: none) and, for a signed
 * PCR policy, the signatures in signature (NULL: where the stub leaves them). 0 with the
 * secret in out (*len bytes); else, with why:
 *   -ENODEV  no TPM;
 *   -EKEYREJECTED  the PCRs are not those the key was sealed to (the policy differs);
 *   -EACCES  the PIN was wrong (the TPM counts it toward its lockout);
 *   -ENOLCK  the TPM is in lockout after too many wrong PINs;
 *   -EOPNOTSUPP  a token form earlymount cannot unseal;
 *   -EIO or -EPROTO  the TPM refused or answered what could not be read. */
int tpm2_unseal(const char *device, const struct tpm2_token *t, const char *pin, size_t pin_len,
		const char *signature, uint8_t *out, size_t size, size_t *len, char *why,
		size_t why_size);

/* Whether the last secret unsealed came over a salted, encrypted session (an ECC parent),
 * not in clear (an RSA parent: nettle has no RSA-OAEP to salt with). */
bool tpm2_unseal_encrypted(void);
