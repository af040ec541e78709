/* TPM2_PCR_Event's command and response, big-endian as the TPM speaks. */
#include <errno.h>
#include <string.h>

#include "tpm2_command.h"
#include "tpm2_marshal.h"
#include "util.h"

#define TPM_CC_PCR_EVENT 0x0000013c
#define TPM_RS_PW 0x40000009

static const struct {
	uint16_t alg;
	const char *name;
	size_t size;
} hash_algs[] = {
	{ 0x0004, "sha1", 20 }, { 0x000b, "sha256", 32 }, { 0x000c, "sha384", 48 },
	{ 0x000d, "sha512", 64 }, { 0x0012, "sm3_256", 32 },
};

void tpm2_put_password_session(struct tpm2_writer *w, const void *password, size_t len)
{
	size_t mark = w->len;

	tpm2_put32(w, 0);
	tpm2_put32(w, TPM_RS_PW);
	tpm2_put_2b(w, NULL, 0); /* nonce */
	tpm2_put8(w, 0);         /* attributes */
	tpm2_put_2b(w, password, len);
	if (!w->overflow) {
		size_t end = w->len;

		w->len = mark;
		tpm2_put32(w, (uint32_t)(end - mark - 4));
		w->len = end;
	}
}

int tpm2_build_pcr_event(unsigned pcr, const void *data, size_t len, uint8_t *out, size_t size)
{
	struct tpm2_writer w;

	if (pcr > 23 || len > TPM2_EVENT_MAX)
		return -EINVAL;
	tpm2_writer_init(&w, out, size);
	tpm2_command_begin(&w, TPM_ST_SESSIONS, TPM_CC_PCR_EVENT);
	tpm2_put32(&w, pcr);
	tpm2_put_password_session(&w, NULL, 0);
	tpm2_put_2b(&w, data, len);
	return tpm2_command_end(&w);
}

static size_t digest_size(uint16_t alg, const char **name)
{
	size_t size = 0;

	*name = NULL;
	for (size_t i = 0; i < ARRAY_SIZE(hash_algs) && !size; i++)
		if (hash_algs[i].alg == alg) {
			size = hash_algs[i].size;
			*name = hash_algs[i].name;
		}
	return size;
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
		d->size = digest_size(d->alg, &d->name);
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
