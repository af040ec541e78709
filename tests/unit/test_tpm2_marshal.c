/* lib/tpm2_marshal.c: the TPM's big-endian wire format written and read back, sized buffers,
 * command frames, responses checked; writers that run out of room and readers that run past
 * the end say so and stay so. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tpm2_marshal.h"
#include "util.h"

static void test_integers_round_trip(void **state)
{
	static const uint8_t want[] = {
		0x00, 0xff, 0x12, 0x34, 0xff, 0xfe, 0xde, 0xad, 0xbe, 0xef, 0x00, 0x00, 0x00, 0x01, 'a', 'b',
	};
	uint8_t buf[32];
	struct tpm2_writer w;
	struct tpm2_reader r;

	tpm2_writer_init(&w, buf, sizeof(buf));
	tpm2_put8(&w, 0x00);
	tpm2_put8(&w, 0xff);
	tpm2_put16(&w, 0x1234);
	tpm2_put16(&w, 0xfffe);
	tpm2_put32(&w, 0xdeadbeef);
	tpm2_put32(&w, 1);
	tpm2_put_bytes(&w, "ab", 2);
	tpm2_put_bytes(&w, NULL, 0);
	assert_false(w.overflow);
	assert_int_equal(w.len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));

	tpm2_reader_init(&r, buf, w.len);
	assert_int_equal(tpm2_get8(&r), 0x00);
	assert_int_equal(tpm2_get8(&r), 0xff);
	assert_int_equal(tpm2_get16(&r), 0x1234);
	assert_int_equal(tpm2_get16(&r), 0xfffe);
	assert_true(tpm2_get32(&r) == 0xdeadbeef);
	assert_int_equal(tpm2_get32(&r), 1);
	assert_memory_equal(tpm2_get_bytes(&r, 2), "ab", 2);
	assert_non_null(tpm2_get_bytes(&r, 0));
	assert_false(r.bad);
	assert_int_equal(r.pos, r.len);
	(void)state;
}

static void test_sized_buffers(void **state)
{
	static const uint8_t want[] = {
		0x00, 0x03, 'x', 'y', 'z',             /* put_2b */
		0x00, 0x00,                            /* an empty one */
		0x00, 0x04, 0x00, 0x02, 'h', 'i',      /* begin_2b around another */
		0x00, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, /* sized32 */
	};
	uint8_t buf[64];
	struct tpm2_writer w;
	struct tpm2_reader r;
	size_t outer, inner, n = 99;
	const uint8_t *p;

	tpm2_writer_init(&w, buf, sizeof(buf));
	tpm2_put_2b(&w, "xyz", 3);
	tpm2_put_2b(&w, NULL, 0);
	outer = tpm2_begin_2b(&w);
	tpm2_put_2b(&w, "hi", 2);
	tpm2_end_2b(&w, outer);
	inner = tpm2_begin_sized32(&w);
	tpm2_put8(&w, 1);
	tpm2_put16(&w, 0x0203);
	tpm2_end_sized32(&w, inner);
	assert_false(w.overflow);
	assert_int_equal(w.len, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));

	tpm2_reader_init(&r, buf, w.len);
	p = tpm2_get_2b(&r, &n);
	assert_int_equal(n, 3);
	assert_memory_equal(p, "xyz", 3);
	assert_non_null(tpm2_get_2b(&r, &n));
	assert_int_equal(n, 0);
	p = tpm2_get_2b(&r, &n);
	assert_int_equal(n, 4);
	assert_memory_equal(p, "\x00\x02hi", 4);
	assert_int_equal(tpm2_get32(&r), 3);
	assert_memory_equal(tpm2_get_bytes(&r, 3), "\x01\x02\x03", 3);
	assert_false(r.bad);
	(void)state;
}

/* A TPM2B holds at most 65535 bytes. */
static void test_sized_buffer_limit(void **state)
{
	static uint8_t big[UINT16_MAX + 1], buf[UINT16_MAX + 16];
	struct tpm2_writer w;
	size_t mark;

	tpm2_writer_init(&w, buf, sizeof(buf));
	tpm2_put_2b(&w, big, UINT16_MAX);
	assert_false(w.overflow);
	assert_int_equal(w.len, 2 + UINT16_MAX);
	assert_int_equal(buf[0], 0xff);
	assert_int_equal(buf[1], 0xff);

	tpm2_writer_init(&w, buf, sizeof(buf));
	tpm2_put_2b(&w, big, UINT16_MAX + 1);
	assert_true(w.overflow);
	assert_int_equal(w.len, 0);

	tpm2_writer_init(&w, buf, sizeof(buf));
	mark = tpm2_begin_2b(&w);
	tpm2_put_bytes(&w, big, UINT16_MAX + 1);
	tpm2_end_2b(&w, mark);
	assert_true(w.overflow);
	(void)state;
}

/* Out of room: nothing more is written, even what would fit, and the sizes are left alone. */
static void test_writer_overflow(void **state)
{
	uint8_t buf[8];
	struct tpm2_writer w;
	size_t mark;

	memset(buf, 0xaa, sizeof(buf));
	tpm2_writer_init(&w, buf, 3);
	tpm2_put16(&w, 0x0102);
	tpm2_put16(&w, 0x0304);
	assert_true(w.overflow);
	assert_int_equal(w.len, 2);
	tpm2_put8(&w, 5);
	assert_int_equal(w.len, 2);
	assert_int_equal(buf[2], 0xaa);

	tpm2_writer_init(&w, buf, 4);
	mark = tpm2_begin_2b(&w);
	tpm2_put32(&w, 7);
	tpm2_end_2b(&w, mark);
	assert_true(w.overflow);
	assert_int_equal(buf[0], 0);
	assert_int_equal(buf[1], 0);

	/* a value may be half written: the frame is refused whole anyway */
	memset(buf, 0xaa, sizeof(buf));
	tpm2_writer_init(&w, buf, 6);
	mark = tpm2_begin_sized32(&w);
	tpm2_put32(&w, 0x01020304);
	tpm2_end_sized32(&w, mark);
	assert_true(w.overflow);
	assert_memory_equal(buf, "\0\0\0\0", 4);

	tpm2_writer_init(&w, buf, 0);
	tpm2_put8(&w, 1);
	assert_true(w.overflow);
	(void)state;
}

static void test_command_frame(void **state)
{
	static const uint8_t want[] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x0e, 0x00, 0x00, 0x01, 0x7b, 0x00, 0x00, 0x00, 0x20,
	};
	uint8_t buf[16];
	struct tpm2_writer w;

	/* TPM2_GetRandom(32) */
	tpm2_writer_init(&w, buf, sizeof(buf));
	tpm2_command_begin(&w, TPM_ST_NO_SESSIONS, 0x17b);
	tpm2_put32(&w, 0x20);
	assert_int_equal(tpm2_command_end(&w), sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
	assert_int_equal(w.len, sizeof(want));

	/* a header alone is a command */
	tpm2_command_begin(&w, TPM_ST_SESSIONS, 0x144);
	assert_int_equal(tpm2_command_end(&w), TPM2_HEADER_SIZE);
	assert_memory_equal(buf, "\x80\x02\x00\x00\x00\x0a\x00\x00\x01\x44", 10);

	/* too long for the buffer; the next command starts afresh */
	tpm2_command_begin(&w, TPM_ST_NO_SESSIONS, 0x17b);
	tpm2_put32(&w, 1);
	tpm2_put32(&w, 2);
	assert_int_equal(tpm2_command_end(&w), -EINVAL);
	tpm2_command_begin(&w, TPM_ST_NO_SESSIONS, 0x17b);
	assert_false(w.overflow);
	assert_int_equal(tpm2_command_end(&w), TPM2_HEADER_SIZE);

	/* no room for the header, or no header written */
	tpm2_writer_init(&w, buf, TPM2_HEADER_SIZE - 1);
	tpm2_command_begin(&w, TPM_ST_NO_SESSIONS, 0x17b);
	assert_int_equal(tpm2_command_end(&w), -EINVAL);
	tpm2_writer_init(&w, buf, sizeof(buf));
	tpm2_put32(&w, 1);
	assert_int_equal(tpm2_command_end(&w), -EINVAL);
	(void)state;
}

/* Past the end: zeros and NULL, bad, and bad stays even where bytes are left. */
static void test_reader_truncated(void **state)
{
	static const uint8_t three[] = { 0x01, 0x02, 0x03 };
	static const uint8_t claims_more[] = { 0x00, 0x05, 'a', 'b' };
	static const uint8_t half_size[] = { 0x00 };
	struct tpm2_reader r;
	size_t n = 99;

	tpm2_reader_init(&r, three, sizeof(three));
	assert_int_equal(tpm2_get16(&r), 0x0102);
	assert_int_equal(tpm2_get16(&r), 0);
	assert_true(r.bad);
	assert_int_equal(r.pos, 2);
	assert_int_equal(tpm2_get8(&r), 0);
	assert_null(tpm2_get_bytes(&r, 0));

	tpm2_reader_init(&r, three, sizeof(three));
	tpm2_get32(&r);
	assert_true(r.bad);
	tpm2_reader_init(&r, three, sizeof(three));
	assert_null(tpm2_get_bytes(&r, 4));
	assert_true(r.bad);
	assert_int_equal(r.pos, 0);
	tpm2_reader_init(&r, three, sizeof(three));
	assert_non_null(tpm2_get_bytes(&r, 3));
	assert_int_equal(tpm2_get8(&r), 0);
	assert_true(r.bad);
	tpm2_reader_init(&r, three, 0);
	assert_int_equal(tpm2_get8(&r), 0);
	assert_true(r.bad);

	tpm2_reader_init(&r, claims_more, sizeof(claims_more));
	assert_null(tpm2_get_2b(&r, &n));
	assert_int_equal(n, 5);
	assert_true(r.bad);
	tpm2_reader_init(&r, half_size, sizeof(half_size));
	assert_null(tpm2_get_2b(&r, &n));
	assert_true(r.bad);
	(void)state;
}

/* A response header: tag, size, code. */
static size_t response(uint8_t *buf, uint16_t tag, uint32_t size, uint32_t rc)
{
	struct tpm2_writer w;

	tpm2_writer_init(&w, buf, 64);
	tpm2_put16(&w, tag);
	tpm2_put32(&w, size);
	tpm2_put32(&w, rc);
	return w.len;
}

static void test_response_header(void **state)
{
	uint8_t buf[64];
	struct tpm2_reader r;
	size_t n;

	n = response(buf, TPM_ST_NO_SESSIONS, 12, 0);
	buf[n++] = 0xab;
	buf[n++] = 0xcd;
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0);
	assert_int_equal(tpm2_get16(&r), 0xabcd);
	assert_false(r.bad);
	n = response(buf, TPM_ST_SESSIONS, 10, 0);
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0);
	/* refusals: TPM_RC_LOCKOUT, TPM_RC_PCR_CHANGED, a warning */
	n = response(buf, TPM_ST_NO_SESSIONS, 10, 0x921);
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0x921);
	n = response(buf, TPM_ST_SESSIONS, 10, 0x128);
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0x128);
	(void)state;
}

static void test_response_malformed(void **state)
{
	uint8_t buf[64];
	struct tpm2_reader r;
	size_t n;

	n = response(buf, 0x00c4, 10, 0x101); /* TPM 1.2's tag */
	assert_int_equal(tpm2_response_begin(&r, buf, n), -EPROTO);
	n = response(buf, TPM_ST_NO_SESSIONS, 12, 0); /* says more than came */
	assert_int_equal(tpm2_response_begin(&r, buf, n), -EPROTO);
	n = response(buf, TPM_ST_NO_SESSIONS, 9, 0); /* says less */
	assert_int_equal(tpm2_response_begin(&r, buf, n), -EPROTO);
	n = response(buf, TPM_ST_NO_SESSIONS, 10, 0);
	assert_int_equal(tpm2_response_begin(&r, buf, n - 1), -EPROTO);
	assert_int_equal(tpm2_response_begin(&r, buf, 0), -EPROTO);
	/* a code no TPM sends must not read as success, nor as another code */
	n = response(buf, TPM_ST_NO_SESSIONS, 10, 0x80000000);
	assert_int_equal(tpm2_response_begin(&r, buf, n), -EPROTO);
	n = response(buf, TPM_ST_NO_SESSIONS, 10, 0x80000101);
	assert_int_equal(tpm2_response_begin(&r, buf, n), -EPROTO);
	(void)state;
}

/* With sessions: parameterSize, the parameters, then the sessions' answers, which the
 * reader limited to the parameters cannot reach. */
static void test_response_parameters(void **state)
{
	uint8_t buf[64];
	struct tpm2_reader r;
	size_t n = response(buf, TPM_ST_SESSIONS, 0, 0);

	memcpy(buf + n, "\x00\x00\x00\x02\x12\x34\x00\x00\x01\x00\x00", 11);
	n += 11;
	buf[5] = (uint8_t)n;
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0);
	assert_int_equal(tpm2_response_parameters(&r), 0);
	assert_int_equal(tpm2_get16(&r), 0x1234);
	assert_false(r.bad);
	assert_int_equal(tpm2_get8(&r), 0);
	assert_true(r.bad);

	/* a parameterSize past the end, or cut short */
	buf[13] = 10;
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0);
	assert_int_equal(tpm2_response_parameters(&r), -EPROTO);
	buf[13] = 7;
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0);
	assert_int_equal(tpm2_response_parameters(&r), 0);
	n = response(buf, TPM_ST_SESSIONS, 12, 0);
	buf[n++] = 0;
	buf[n++] = 0;
	assert_int_equal(tpm2_response_begin(&r, buf, n), 0);
	assert_int_equal(tpm2_response_parameters(&r), -EPROTO);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_round_trip),
		cmocka_unit_test(test_sized_buffers),
		cmocka_unit_test(test_sized_buffer_limit),
		cmocka_unit_test(test_writer_overflow),
		cmocka_unit_test(test_command_frame),
		cmocka_unit_test(test_reader_truncated),
		cmocka_unit_test(test_response_header),
		cmocka_unit_test(test_response_malformed),
		cmocka_unit_test(test_response_parameters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
