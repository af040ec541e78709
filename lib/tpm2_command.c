/* The few TPM2 commands of PCR measurements, big-endian as the TPM speaks. */
#include <errno.h>
#include <string.h>

#include "tpm2_command.h"
#include "tpm2_marshal.h"
#include "util.h"

#define TPM_CC_PCR_EXTEND 0x00000182
#define TPM_CC_PCR_EVENT 0x0000013c
#define TPM_CC_GET_CAPABILITY 0x0000017a
#define TPM_CAP_PCRS 0x00000005
#define TPM_RS_PW 0x40000009

/* The hashes of PCR banks: a TPM's answer may carry any of them; systemd's tokens and its
 * tpm2-measure-bank= name the first four. */
static const struct {
	uint16_t alg;
	const char *name;
	size_t size;
	bool systemd_names; /* a token or crypttab may name it */
} hash_algs[] = {
	{ TPM2_ALG_SHA1, "sha1", 20, true },
	{ TPM2_ALG_SHA256, "sha256", 32, true },
	{ TPM2_ALG_SHA384, "sha384", 48, true },
	{ TPM2_ALG_SHA512, "sha512", 64, true },
	{ TPM2_ALG_SM3_256, "sm3_256", 32, false },
};

static size_t hash_index(uint16_t alg)
{
	size_t i = 0;

	while (i < ARRAY_SIZE(hash_algs) && hash_algs[i].alg != alg)
		i++;
	return i;
}

const char *tpm2_bank_name(uint16_t alg)
{
	size_t i = hash_index(alg);

	return i < ARRAY_SIZE(hash_algs) ? hash_algs[i].name : NULL;
}

size_t tpm2_bank_digest_size(uint16_t alg)
{
	size_t i = hash_index(alg);

	return i < ARRAY_SIZE(hash_algs) ? hash_algs[i].size : 0;
}

uint16_t tpm2_bank_by_name(const char *name, size_t len)
{
	uint16_t alg = 0;

	for (size_t i = 0; i < ARRAY_SIZE(hash_algs) && !alg; i++)
		if (hash_algs[i].systemd_names && strlen(hash_algs[i].name) == len &&
		    memcmp(hash_algs[i].name, name, len) == 0)
			alg = hash_algs[i].alg;
	return alg;
}

void tpm2_put_password_session(struct tpm2_writer *w, const void *password, size_t len)
{
	size_t mark = tpm2_begin_sized32(w);

	tpm2_put32(w, TPM_RS_PW);
	tpm2_put_2b(w, NULL, 0); /* nonce */
	tpm2_put8(w, 0);         /* attributes */
	tpm2_put_2b(w, password, len);
	tpm2_end_sized32(w, mark);
}

int tpm2_build_pcr_event(unsigned pcr, const void *data, size_t len, uint8_t *out, size_t size)
{
	struct tpm2_writer w;

	if (pcr >= TPM2_PCRS || len > TPM2_EVENT_MAX)
		return -EINVAL;
	tpm2_writer_init(&w, out, size);
	tpm2_command_begin(&w, TPM_ST_SESSIONS, TPM_CC_PCR_EVENT);
	tpm2_put32(&w, pcr);
	tpm2_put_password_session(&w, NULL, 0);
	tpm2_put_2b(&w, data, len);
	return tpm2_command_end(&w);
}

/* The response: parameterSize, TPML_DIGEST_VALUES (count, then alg and digest each), then
 * the session's answer, which a password session leaves without meaning. */
int tpm2_parse_pcr_event(const uint8_t *resp, size_t len, struct tpm2_digests *out)
{
	struct tpm2_reader r;
	uint32_t count;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = tpm2_response_begin(&r, resp, len);
	if (ret != 0)
		goto out;
	ret = -EPROTO;
	if ((resp[0] << 8 | resp[1]) != TPM_ST_SESSIONS || tpm2_response_parameters(&r) < 0)
		goto out;
	count = tpm2_get32(&r);
	if (count > TPM2_BANKS_MAX)
		goto out;
	for (uint32_t i = 0; i < count; i++) {
		struct tpm2_digest *d = &out->d[i];
		const uint8_t *p;

		d->alg = tpm2_get16(&r);
		d->size = tpm2_bank_digest_size(d->alg);
		d->name = tpm2_bank_name(d->alg);
		/* an algorithm not known here: its digest's size is unknown, the rest unreadable */
		p = d->size ? tpm2_get_bytes(&r, d->size) : NULL;
		if (!p)
			goto out;
		memcpy(d->bytes, p, d->size);
	}
	out->n = count;
	ret = r.pos == r.len ? 0 : -EPROTO;
out:
	return ret;
}

int tpm2_build_get_pcr_banks(uint8_t *out, size_t size)
{
	struct tpm2_writer w;

	tpm2_writer_init(&w, out, size);
	tpm2_command_begin(&w, TPM_ST_NO_SESSIONS, TPM_CC_GET_CAPABILITY);
	tpm2_put32(&w, TPM_CAP_PCRS);
	tpm2_put32(&w, 0); /* property */
	tpm2_put32(&w, 1); /* propertyCount */
	return tpm2_command_end(&w);
}

/* Whether a bank's selection has every one of the 24 PCRs (systemd uses no other bank). */
static bool all_pcrs(const uint8_t *select, uint8_t n)
{
	bool all = n >= TPM2_PCRS / 8;

	for (unsigned i = 0; i < TPM2_PCRS / 8 && all; i++)
		all = select[i] == 0xff;
	return all;
}

/* moreData, then TPMS_CAPABILITY_DATA: the capability, TPML_PCR_SELECTION (count, then each
 * bank's hash, sizeofSelect and its bitmap of PCRs). */
int tpm2_parse_get_pcr_banks(const uint8_t *resp, size_t len, struct tpm2_digests *out)
{
	struct tpm2_reader r;
	uint32_t count;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = tpm2_response_begin(&r, resp, len);
	if (ret != 0)
		goto out;
	ret = -EPROTO;
	(void)tpm2_get8(&r);
	if (tpm2_get32(&r) != TPM_CAP_PCRS)
		goto out;
	count = tpm2_get32(&r);
	for (uint32_t i = 0; i < count && !r.bad; i++) {
		uint16_t alg = tpm2_get16(&r);
		uint8_t n = tpm2_get8(&r);
		const uint8_t *select = tpm2_get_bytes(&r, n);

		if (select && all_pcrs(select, n) && tpm2_bank_digest_size(alg) &&
		    out->n < TPM2_BANKS_MAX) {
			out->d[out->n].alg = alg;
			out->d[out->n].name = tpm2_bank_name(alg);
			out->d[out->n].size = tpm2_bank_digest_size(alg);
			out->n++;
		}
	}
	ret = r.bad ? -EPROTO : 0;
out:
	return ret;
}

int tpm2_build_pcr_extend(unsigned pcr, const struct tpm2_digests *d, uint8_t *out, size_t size)
{
	struct tpm2_writer w;

	if (pcr >= TPM2_PCRS || d->n == 0 || d->n > TPM2_BANKS_MAX)
		return -EINVAL;
	tpm2_writer_init(&w, out, size);
	tpm2_command_begin(&w, TPM_ST_SESSIONS, TPM_CC_PCR_EXTEND);
	tpm2_put32(&w, pcr);
	tpm2_put_password_session(&w, NULL, 0);
	tpm2_put32(&w, (uint32_t)d->n);
	for (size_t i = 0; i < d->n; i++) {
		if (d->d[i].size != tpm2_bank_digest_size(d->d[i].alg) || d->d[i].size == 0)
			return -EINVAL;
		tpm2_put16(&w, d->d[i].alg);
		tpm2_put_bytes(&w, d->d[i].bytes, d->d[i].size);
	}
	return tpm2_command_end(&w);
}

int tpm2_parse_pcr_extend(const uint8_t *resp, size_t len)
{
	struct tpm2_reader r;
	int ret = tpm2_response_begin(&r, resp, len);

	if (ret == 0 && (resp[0] << 8 | resp[1]) != TPM_ST_SESSIONS)
		ret = -EPROTO;
	return ret;
}
