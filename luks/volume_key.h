/* Activating an opened header as systemd-cryptsetup does, and, when the volume's key is to be
 * measured (crypttab's tpm2-measure-pcr=), the HMACs PID 1 extends the PCR with: the key
 * itself never leaves the helper. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct crypt_device;

struct activation {
	const char *name; /* the device-mapper name; NULL: only test the passphrase */
	uint32_t flags;   /* CRYPT_ACTIVATE_* */
	bool measure;     /* --measure: print the volume key's HMACs (luks_helper.h) */
};

/* Opens keyslot (CRYPT_ANY_SLOT: any) with the passphrase and activates a->name. With
 * a->measure, the volume key is taken out first (one key derivation, as without), the device
 * activated with it, and its measurement line written to stdout. libcryptsetup's result: the
 * keyslot, or -errno (-EPERM: the passphrase opens no keyslot). */
int activate(struct crypt_device *cd, const struct activation *a, int keyslot,
	     const char *passphrase, size_t len);

/* The measured string, systemd's "cryptsetup:NAME:UUID" with ':' and bytes outside printable
 * ASCII in NAME written as \xNN. Exposed for the tests. */
void measured_string(const char *name, const char *uuid, char *out, size_t size);
