/* Unlocking with the volume's systemd-tpm2 tokens, each in turn: the token read from the
 * header, its secret unsealed by the TPM, and that secret's base64 text given to the token's
 * keyslot as its passphrase, as systemd-cryptsetup does. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct crypt_device;
struct activation;

/* Which tokens, and where their TPM is. */
struct token_choice {
	const char *tpm;  /* the TPM device (NULL: the kernel's) */
	bool pcrs_given;  /* only the tokens sealed to exactly pcrs (crypttab's tpm2-pcrs=) */
	uint32_t pcrs;
};

/* Opens cd as a->name (NULL: only tests the key) with the first token that unlocks. pin: the
 * PIN typed (NULL: none yet). A luks_helper_exit
 * code, with why saying what failed: LUKS_EXIT_NO_TOKEN when no token could unseal its key
 * (the passphrase comes next), LUKS_EXIT_PIN when a token needs a PIN or the PIN was wrong. */
int token_unlock(struct crypt_device *cd, const struct activation *a,
		 const struct token_choice *choice, const char *pin, size_t pin_len, char *why,
		 size_t why_size);
