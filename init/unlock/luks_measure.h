/* The volume key's measurement of crypttab's tpm2-measure-pcr=: PCR 15 (or the one named)
 * extended with the HMACs earlymount-luks computed, and the event recorded, as
 * systemd-cryptsetup does. Effect layer. */
#pragma once

#include <stdbool.h>

struct luks_options;

/* The PCR the volume key of a volume with options o goes to, or -1: tpm2-measure-pcr= when
 * given, else PCR 15 for a discovered root or /var (identity), as systemd-gpt-auto-generator
 * asks; and only when systemd-stub measured the kernel. what names the volume. */
int luks_measure_pcr(const struct luks_options *o, bool identity, const char *what);

/* line: the helper's LUKS_MEASURE_PREFIX line. Extends pcr in the TPM's banks (or those of
 * tpm2-measure-bank=) and records it; a failure is said, never fatal (the volume is open). */
void luks_measure_volume_key(const char *what, const struct luks_options *o, int pcr,
			     const char *line);
