/* Big-endian in and out, as the TPM speaks. */
#include <errno.h>
#include <string.h>

#include "tpm2_marshal.h"

void tpm2_writer_init(struct tpm2_writer *w, uint8_t *buf, size_t size)
{
	*w = (struct tpm2_writer){ .buf = buf, .size = size };
}

void tpm2_put_bytes(struct tpm2_writer *w, const void *p, size_t n)
{
	if (w->overflow || n > w->size - w->len) {
		w->overflow = true;
		return;
	}
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void tpm2_put8(struct tpm2_writer *w, uint8_t v)
{
	tpm2_put_bytes(w, &v, 1);
}

void tpm2_put16(struct tpm2_writer *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	tpm2_put_bytes(w, b, sizeof(b));
}

void tpm2_put32(struct tpm2_writer *w, uint32_t v)
{
	tpm2_put16(w, (uint16_t)(v >> 16));
	tpm2_put16(w, (uint16_t)v);
}

void tpm2_put_2b(struct tpm2_writer *w, const void *p, size_t n)
{
	if (n > UINT16_MAX) {
		w->overflow = true;
		return;
	}
	tpm2_put16(w, (uint16_t)n);
	tpm2_put_bytes(w, p, n);
}

size_t tpm2_begin_2b(struct tpm2_writer *w)
{
	size_t mark = w->len;

	tpm2_put16(w, 0);
	return mark;
}

void tpm2_end_2b(struct tpm2_writer *w, size_t mark)
{
	size_t n = w->len - mark - 2;

	if (w->overflow || n > UINT16_MAX) {
		w->overflow = true;
		return;
	}
	w->buf[mark] = (uint8_t)(n >> 8);
	w->buf[mark + 1] = (uint8_t)n;
}

size_t tpm2_begin_sized32(struct tpm2_writer *w)
{
	size_t mark = w->len;

	tpm2_put32(w, 0);
	return mark;
}

void tpm2_end_sized32(struct tpm2_writer *w, size_t mark)
{
	size_t end = w->len;

	if (w->overflow)
		return;
	w->len = mark;
	tpm2_put32(w, (uint32_t)(end - mark - 4));
	w->len = end;
}

void tpm2_command_begin(struct tpm2_writer *w, uint16_t tag, uint32_t code)
{
	w->len = 0;
	w->overflow = false;
	tpm2_put16(w, tag);
	tpm2_put32(w, 0);
	tpm2_put32(w, code);
}

int tpm2_command_end(struct tpm2_writer *w)
{
	size_t len = w->len;

	if (w->overflow || len < TPM2_HEADER_SIZE)
		return -EINVAL;
	w->len = 2;
	tpm2_put32(w, (uint32_t)len);
	w->len = len;
	return (int)len;
}

void tpm2_reader_init(struct tpm2_reader *r, const uint8_t *p, size_t len)
{
	*r = (struct tpm2_reader){ .p = p, .len = len };
}

const uint8_t *tpm2_get_bytes(struct tpm2_reader *r, size_t n)
{
	const uint8_t *p = NULL;

	if (r->bad || n > r->len - r->pos)
		r->bad = true;
	else {
		p = r->p + r->pos;
		r->pos += n;
	}
	return p;
}

uint8_t tpm2_get8(struct tpm2_reader *r)
{
	const uint8_t *p = tpm2_get_bytes(r, 1);

	return p ? p[0] : 0;
}

uint16_t tpm2_get16(struct tpm2_reader *r)
{
	const uint8_t *p = tpm2_get_bytes(r, 2);

	return p ? (uint16_t)(p[0] << 8 | p[1]) : 0;
}

uint32_t tpm2_get32(struct tpm2_reader *r)
{
	uint32_t high = tpm2_get16(r);

	return high << 16 | tpm2_get16(r);
}

const uint8_t *tpm2_get_2b(struct tpm2_reader *r, size_t *n)
{
	*n = tpm2_get16(r);
	return r->bad ? NULL : tpm2_get_bytes(r, *n);
}

int tpm2_response_begin(struct tpm2_reader *r, const uint8_t *resp, size_t len)
{
	uint16_t tag;
	uint32_t size, rc;

	tpm2_reader_init(r, resp, len);
	tag = tpm2_get16(r);
	size = tpm2_get32(r);
	rc = tpm2_get32(r);
	/* a TPM's response codes are 12 bits: one past INT32_MAX is malformed, never success */
	if (r->bad || size != len || (tag != TPM_ST_SESSIONS && tag != TPM_ST_NO_SESSIONS) ||
	    rc > INT32_MAX)
		return -EPROTO;
	return (int)rc;
}

int tpm2_response_parameters(struct tpm2_reader *r)
{
	uint32_t size = tpm2_get32(r);

	if (r->bad || size > r->len - r->pos)
		return -EPROTO;
	r->len = r->pos + size;
	return 0;
}
