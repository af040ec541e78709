/* The helper prints one HMAC per bank it can compute; which of them go to the TPM is decided
 * here, where the TPM is asked for its banks. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "luks.h"
#include "luks_helper.h"
#include "luks_measure.h"
#include "tpm2_measure.h"
#include "util.h"

int luks_measure_pcr(const struct luks_options *o, bool identity, const char *what)
{
	int pcr = o->tpm2_measure_pcr >= 0			       ? o->tpm2_measure_pcr
		  : o->tpm2_measure_pcr == LUKS_MEASURE_DEFAULT && identity ? LUKS_MEASURE_PCR
									     : -1;

	return pcr >= 0 && tpm2_stub_measured(what) ? pcr : -1;
}

static int hex_value(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The digest of d's bank in line (" sha256:HEX"): true when found whole. */
static bool digest_from_line(const char *line, struct tpm2_digest *d)
{
	char key[16];
	const char *p;
	bool ok = true;

	snprintf(key, sizeof(key), " %s:", d->name);
	p = strstr(line, key);
	if (!p)
		return false;
	p += strlen(key);
	for (size_t i = 0; i < d->size && ok; i++) {
		int hi = hex_value(p[2 * i]), lo = hi < 0 ? -1 : hex_value(p[2 * i + 1]);

		ok = hi >= 0 && lo >= 0;
		if (ok)
			d->bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	return ok && p[2 * d->size] == ' ';
}

/* The banks tpm2-measure-bank= names ("sha256:sha1"). */
static void banks_named(const char *list, struct tpm2_digests *banks)
{
	memset(banks, 0, sizeof(*banks));
	for (const char *at = list; *at && banks->n < TPM2_BANKS_MAX;) {
		size_t n = strcspn(at, ":");
		uint16_t alg = tpm2_bank_by_name(at, n);

		banks->d[banks->n].alg = alg;
		banks->d[banks->n].name = tpm2_bank_name(alg);
		banks->d[banks->n].size = tpm2_bank_digest_size(alg);
		banks->n += alg != 0;
		at += n + (at[n] == ':');
	}
}

void luks_measure_volume_key(const char *what, const struct luks_options *o, int pcr,
			     const char *line)
{
	struct tpm2_digests d;
	/* the string is last, and may hold spaces (a device-mapper name's) */
	const char *string = strstr(line, " cryptsetup:");
	const char *device = o->tpm2_device[0] && !streq(o->tpm2_device, "auto") ? o->tpm2_device
										  : NULL;
	const char *step = "ask the TPM for its PCR banks";
	char names[64];
	int r = 0;

	if (o->tpm2_measure_banks[0])
		banks_named(o->tpm2_measure_banks, &d);
	else
		r = tpm2_measure_banks(device, &d);
	if (r == 0 && d.n == 0) {
		step = "find a bank of all 24 PCRs in a hash systemd measures with";
		r = -ENODATA;
	}
	for (size_t i = 0; r == 0 && i < d.n; i++)
		r = digest_from_line(line, &d.d[i]) ? 0 : -EPROTO;
	if (r == 0 && !string)
		r = -EPROTO;
	if (r == 0) {
		step = "extend the PCR";
		r = tpm2_measure_extend(device, (unsigned)pcr, &d);
	}
	if (r == 0) {
		tpm2_measure_bank_names(&d, names, sizeof(names));
		log_info("%s: measured its volume key into PCR %d as '%s' (%s)", what, pcr,
			 string + 1, names);
		tpm2_measure_record((unsigned)pcr, &d, string + 1, "volume-key");
	} else if (r == -EPROTO)
		log_warn("%s: unable to measure its volume key into PCR %d: earlymount-luks gave no "
			 "HMAC of the TPM's banks", what, pcr);
	else if (r < 0)
		log_warn("%s: its volume key is not measured into PCR %d: unable to %s: %s", what,
			 pcr, step, r == -ENODATA	       ? "the TPM has none"
				    : r == -ENOENT && device ? "no such TPM at tpm2-device="
				    : r == -ENOENT	     ? "this kernel drives no TPM"
							     : strerror(-r));
	else
		log_warn("%s: its volume key is not measured into PCR %d: the TPM refused to %s: "
			 "response code 0x%x%s", what, pcr, step, (unsigned)r,
			 o->tpm2_measure_banks[0] ? " (does it keep the banks of tpm2-measure-bank=?)"
						  : "");
}
