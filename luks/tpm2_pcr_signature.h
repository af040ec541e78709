/* A signed PCR policy (systemd's tpm2_pubkey, tpm2_pubkey_pcrs), satisfied in a policy session
 * with the signature a unified kernel image carries: see tpm2_pcr_signature.c. */
#pragma once

#include <stdint.h>

#include "tpm2_client.h"

/* PolicyPCR over the token's signed PCRs, then PolicyAuthorize with the signature of that
 * digest by the token's key, read from signature (NULL: /run/systemd/, /.extra/ or
 * /etc/systemd/tpm2-pcr-signature.json). 0; -EKEYREJECTED when no signature is for these PCR
 * values or none is there; -EOPNOTSUPP a key that is not RSA; else -errno; why set. */
int tpm2_policy_signed_pcrs(struct tpm *tpm, uint32_t session, const struct tpm2_token *t,
			    const char *signature);
