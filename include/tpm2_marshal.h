/* The TPM 2.0 wire format (TCG TPM 2.0 Library, part 1 §18, part 2): big-endian integers,
 * sized buffers (TPM2B: a 16-bit size, then the bytes), and the command and response frames.
 * Data in, data out; a writer that ran out of room, or a reader that ran past its end, says
 * so once at the end instead of at every call. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TPM_ST_NO_SESSIONS 0x8001
#define TPM_ST_SESSIONS 0x8002
#define TPM2_HEADER_SIZE 10 /* tag, size, command or response code */

struct tpm2_writer {
	uint8_t *buf;
	size_t size;
	size_t len;
	bool overflow;
};

void tpm2_writer_init(struct tpm2_writer *w, uint8_t *buf, size_t size);
void tpm2_put8(struct tpm2_writer *w, uint8_t v);
void tpm2_put16(struct tpm2_writer *w, uint16_t v);
void tpm2_put32(struct tpm2_writer *w, uint32_t v);
void tpm2_put_bytes(struct tpm2_writer *w, const void *p, size_t n);
/* A TPM2B: the size, then the n bytes (n over 65535 overflows the writer). */
void tpm2_put_2b(struct tpm2_writer *w, const void *p, size_t n);
/* A TPM2B whose contents are written next: tpm2_begin_2b() keeps the place of its size,
 * tpm2_end_2b() fills it in. */
size_t tpm2_begin_2b(struct tpm2_writer *w);
void tpm2_end_2b(struct tpm2_writer *w, size_t mark);
/* The same with a 32-bit size: the authorization area of a command. */
size_t tpm2_begin_sized32(struct tpm2_writer *w);
void tpm2_end_sized32(struct tpm2_writer *w, size_t mark);

/* A command: tag (TPM_ST_*), its size filled in by tpm2_command_end(), its code. */
void tpm2_command_begin(struct tpm2_writer *w, uint16_t tag, uint32_t code);
/* The command's length, or -EINVAL when it did not fit. */
int tpm2_command_end(struct tpm2_writer *w);

struct tpm2_reader {
	const uint8_t *p;
	size_t len;
	size_t pos;
	bool bad; /* read past the end */
};

void tpm2_reader_init(struct tpm2_reader *r, const uint8_t *p, size_t len);
uint8_t tpm2_get8(struct tpm2_reader *r);
uint16_t tpm2_get16(struct tpm2_reader *r);
uint32_t tpm2_get32(struct tpm2_reader *r);
/* The next n bytes, or NULL (and bad) when fewer are left. */
const uint8_t *tpm2_get_bytes(struct tpm2_reader *r, size_t n);
/* A TPM2B: its bytes and their number, or NULL (and bad). */
const uint8_t *tpm2_get_2b(struct tpm2_reader *r, size_t *n);

/* A response: its header read and checked against len. 0 on success, with r past the header;
 * a positive TPM response code (TPM_RC) when the TPM refused; -EPROTO when it is malformed. */
int tpm2_response_begin(struct tpm2_reader *r, const uint8_t *resp, size_t len);
/* Of a response with sessions: r at its parameters (past the parameterSize), the reader
 * limited to them. 0, or -EPROTO. */
int tpm2_response_parameters(struct tpm2_reader *r);
