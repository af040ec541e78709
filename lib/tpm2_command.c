/* TPM2_PCR_Event's command and response, big-endian as the TPM speaks. */
#include <errno.h>
#include <string.h>

#include "tpm2_command.h"
#include "util.h"

#define TPM_ST_SESSIONS 0x8002
#define TPM_CC_PCR_EVENT 0x0000013c
#define TPM_RS_PW 0x40000009
#define HEADER_SIZE 10 /* tag, size, command or response code */
#define PW_SESSION_SIZE 9 /* handle, empty nonce, attributes, empty password */

static const struct {
	uint16_t alg;
	const char *name;
	size_t size;
} hash_algs[] = {
	{ 0x0004, "sha1", 20 }, { 0x000b, "sha256", 32 }, { 0x000c, "sha384", 48 },
	{ 0x000d, "sha512", 64 }, { 0x0012, "sm3_256", 32 },
};

static size_t put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
	return 2;
}

static size_t put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
	return 4;
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

int tpm2_build_pcr_event(unsigned pcr, const void *data, size_t len, uint8_t *out, size_t size)
{
	size_t total = HEADER_SIZE + 4 + 4 + PW_SESSION_SIZE + 2 + len, n = 0;

	if (pcr > 23 || len > TPM2_EVENT_MAX || total > size)
		return -EINVAL;
	n += put16(out + n, TPM_ST_SESSIONS);
	n += put32(out + n, (uint32_t)total);
	n += put32(out + n, TPM_CC_PCR_EVENT);
	n += put32(out + n, pcr);
	n += put32(out + n, PW_SESSION_SIZE);
	n += put32(out + n, TPM_RS_PW);
	n += put16(out + n, 0);
	out[n++] = 0;
	n += put16(out + n, 0);
	n += put16(out + n, (uint16_t)len);
	memcpy(out + n, data, len);
	return (int)(n + len);
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

/* The response: header, parameterSize, TPML_DIGEST_VALUES (count, then alg and digest each),
 * then the session's answer, which a password session leaves without meaning. */
int tpm2_parse_pcr_event(const uint8_t *resp, size_t len, struct tpm2_digests *out)
{
	size_t pos = HEADER_SIZE + 4, end;
	uint32_t count, rc;
	int r = -EPROTO;

	memset(out, 0, sizeof(*out));
	if (len < HEADER_SIZE || get32(resp + 2) != len)
		goto out;
	rc = get32(resp + 6);
	if (rc != 0) {
		r = (int)(rc & 0x7fffffff);
		goto out;
	}
	if (get16(resp) != TPM_ST_SESSIONS || len < pos + 4)
		goto out;
	end = pos + get32(resp + HEADER_SIZE);
	count = get32(resp + pos);
	pos += 4;
	if (end > len || count > TPM2_BANKS_MAX)
		goto out;
	for (uint32_t i = 0; i < count; i++) {
		struct tpm2_digest *d = &out->d[i];

		if (pos + 2 > end)
			goto out;
		d->alg = get16(resp + pos);
		d->size = digest_size(d->alg, &d->name);
		pos += 2;
		/* an algorithm not known here: its digest's size is unknown, the rest unreadable */
		if (d->size == 0 || pos + d->size > end)
			goto out;
		memcpy(d->bytes, resp + pos, d->size);
		pos += d->size;
	}
	out->n = count;
	r = pos == end ? 0 : -EPROTO;
out:
	return r;
}
