/* The phase words go to the TPM with TPM2_PCR_Event, which hashes them in every active bank
 * itself: the same values as systemd's per-bank extend of the word's digests (no NUL, no
 * newline), with no hash code here. */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "pcr_phase.h"
#include "tpm2_measure.h"

#define PHASE_PCR 11

/* Says why word was not measured (r from tpm2_measure_event()). */
static void report_failure(const char *word, int r)
{
	if (r == -ENOENT)
		log_warn("systemd-stub measured the kernel into PCR %d, but this kernel drives no TPM "
			 "(no /dev/tpmrm0): %s is not measured, and a key sealed to that phase will not "
			 "unseal", PHASE_PCR, word);
	else if (r < 0)
		log_warn("unable to measure %s into PCR %d: %s", word, PHASE_PCR, strerror(-r));
	else
		log_warn("the TPM refused to measure %s into PCR %d: response code 0x%x", word,
			 PHASE_PCR, (unsigned)r);
}

void pcr_phase_measure(const char *word)
{
	struct tpm2_digests d;
	char banks[64];
	int r;

	if (!tpm2_stub_measured(word))
		goto out;
	r = tpm2_measure_event(PHASE_PCR, word, &d);
	if (r != 0) {
		report_failure(word, r);
		goto out;
	}
	tpm2_measure_bank_names(&d, banks, sizeof(banks));
	log_info("measured %s into PCR %d (%s)", word, PHASE_PCR, banks);
	tpm2_measure_record(PHASE_PCR, &d, word, "phase");
out:
	return;
}
