/* systemd's userspace PCR measurements, done where systemd does them and recorded where
 * systemd-pcrlock reads them back (/run/log/systemd/tpm2-measure.log). Effect layer. */
#pragma once

#include <stdbool.h>

#include "tpm2_command.h"

/* Whether systemd-stub measured the kernel into PCR 11 (its StubPcrKernelImage variable says
 * 11): systemd's userspace measures only then. A variable with another value is said once,
 * naming what is not measured. */
bool tpm2_stub_measured(const char *what);

/* The digests the TPM keeps banks for (all 24 PCRs allocated, a hash known here), by name
 * and size: 0, -errno (-ENOENT: no TPM device), or a TPM response code (> 0). device: the
 * TPM's path, NULL for the kernel's (/dev/tpmrm0, else /dev/tpm0). */
int tpm2_measure_banks(const char *device, struct tpm2_digests *banks);

/* PCR pcr extended with data, which the TPM hashes in each active bank (PCR_Event): 0 with
 * the digests it extended in d, -errno, or a TPM response code. */
int tpm2_measure_event(unsigned pcr, const char *data, struct tpm2_digests *d);

/* PCR pcr extended with the digests d (PCR_Extend). 0, -errno, or a TPM response code. */
int tpm2_measure_extend(const char *device, unsigned pcr, const struct tpm2_digests *d);

/* The event in systemd's JSON-SEQ record: pcr, d's digests, string and event_type
 * ("phase", "volume-key"). A failure to write is said. */
void tpm2_measure_record(unsigned pcr, const struct tpm2_digests *d, const char *string,
			 const char *event_type);

/* "sha1, sha256" of d, into out. */
void tpm2_measure_bank_names(const struct tpm2_digests *d, char *out, size_t size);
