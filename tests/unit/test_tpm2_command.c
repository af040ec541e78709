/* lib/tpm2_command.c: TPM2_PCR_Event's bytes, and its responses read, refused or malformed. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tpm2_command.h"
#include "util.h"

static void test_build(void **state)
{
	static const uint8_t want[] = {
		0x80, 0x02, 0x00, 0x00, 0x00, 0x29, 0x00, 0x00, 0x01, 0x3c, /* header, PCR_Event */
		0x00, 0x00, 0x00, 0x0b,                                     /* PCR 11 */
		0x00, 0x00, 0x00, 0x09, 0x40, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x0c, 'e', 'n', 't', 'e', 'r', '-', 'i', 'n', 'i', 't', 'r', 'd',
	};
	uint8_t out[128];
	static uint8_t big[TPM2_EVENT_MAX + 1];

	assert_int_equal(tpm2_build_pcr_event(11, "enter-initrd", 12, out, sizeof(out)), sizeof(want));
	assert_memory_equal(out, want, sizeof(want));
	assert_int_equal(tpm2_build_pcr_event(24, "x", 1, out, sizeof(out)), -EINVAL);
	assert_int_equal(tpm2_build_pcr_event(11, big, sizeof(big), out, sizeof(out)), -EINVAL);
	assert_int_equal(tpm2_build_pcr_event(11, "enter-initrd", 12, out, 20), -EINVAL);
	(void)state;
}

/* A response of two banks: sha1 (20 bytes of 0x11) and sha256 (32 bytes of 0x22). */
static size_t response(uint8_t *r)
{
	size_t n = 0, params;

	memcpy(r, "\x80\x02\x00\x00\x00\x00\x00\x00\x00\x00", 10);
	n = 14;
	memcpy(r + n, "\x00\x00\x00\x02", 4);
	n += 4;
	memcpy(r + n, "\x00\x04", 2);
	memset(r + n + 2, 0x11, 20);
	n += 22;
	memcpy(r + n, "\x00\x0b", 2);
	memset(r + n + 2, 0x22, 32);
	n += 34;
	params = n - 14;
	r[10] = 0, r[11] = 0, r[12] = 0, r[13] = (uint8_t)params;
	memcpy(r + n, "\x00\x00\x01\x00\x00", 5); /* the password session's answer */
	n += 5;
	r[5] = (uint8_t)n;
	return n;
}

static void test_parse(void **state)
{
	uint8_t r[256];
	struct tpm2_digests d;
	size_t n = response(r);

	assert_int_equal(tpm2_parse_pcr_event(r, n, &d), 0);
	assert_int_equal(d.n, 2);
	assert_string_equal(d.d[0].name, "sha1");
	assert_int_equal(d.d[0].size, 20);
	assert_int_equal(d.d[0].bytes[19], 0x11);
	assert_string_equal(d.d[1].name, "sha256");
	assert_int_equal(d.d[1].bytes[31], 0x22);
	(void)state;
}

static void test_refused_and_malformed(void **state)
{
	uint8_t r[256];
	struct tpm2_digests d;
	size_t n = response(r);

	/* a refusal: TPM_RC_LOCALITY, say */
	memcpy(r, "\x80\x01\x00\x00\x00\x0a\x00\x00\x09\x07", 10);
	assert_int_equal(tpm2_parse_pcr_event(r, 10, &d), 0x907);
	n = response(r);
	assert_int_equal(tpm2_parse_pcr_event(r, n - 1, &d), -EPROTO); /* size says more */
	r[19] = 0x99;                                                   /* an unknown algorithm */
	assert_int_equal(tpm2_parse_pcr_event(r, n, &d), -EPROTO);
	n = response(r);
	r[17] = 9; /* more banks than the response holds */
	assert_int_equal(tpm2_parse_pcr_event(r, n, &d), -EPROTO);
	n = response(r);
	r[13] = 0xff; /* parameters past the end */
	assert_int_equal(tpm2_parse_pcr_event(r, n, &d), -EPROTO);
	assert_int_equal(tpm2_parse_pcr_event(r, 3, &d), -EPROTO);
	(void)state;
}

/* GetCapability(TPM_CAP_PCRS) answered with sha1 and sha256 whole, sha384 with PCRs 0-7
 * only, and sm3_256 whole (kept: the answer of a TPM is read in full). */
static void test_banks(void **state)
{
	static const uint8_t resp[] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x2b, 0x00, 0x00, 0x00, 0x00, /* header, success */
		0x00,                                                       /* moreData */
		0x00, 0x00, 0x00, 0x05,                                     /* TPM_CAP_PCRS */
		0x00, 0x00, 0x00, 0x04,                                     /* four banks */
		0x00, 0x04, 0x03, 0xff, 0xff, 0xff,                         /* sha1: all 24 */
		0x00, 0x0b, 0x03, 0xff, 0xff, 0xff,                         /* sha256: all 24 */
		0x00, 0x0c, 0x03, 0xff, 0x00, 0x00,                         /* sha384: 0-7 */
		0x00, 0x12, 0x03, 0xff, 0xff, 0xff,                         /* sm3_256: all 24 */
	};
	uint8_t cmd[64];
	struct tpm2_digests d;

	assert_int_equal(tpm2_build_get_pcr_banks(cmd, sizeof(cmd)), 22);
	assert_memory_equal(cmd, "\x80\x01\x00\x00\x00\x16\x00\x00\x01\x7a\x00\x00\x00\x05", 14);
	assert_int_equal(tpm2_parse_get_pcr_banks(resp, sizeof(resp), &d), 0);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.d[0].name, "sha1");
	assert_string_equal(d.d[1].name, "sha256");
	assert_int_equal(d.d[1].size, 32);
	assert_string_equal(d.d[2].name, "sm3_256");
	/* cut short: a bank's bitmap missing */
	assert_int_equal(tpm2_parse_get_pcr_banks(resp, sizeof(resp) - 2, &d), -EPROTO);
	(void)state;
}

static void test_extend(void **state)
{
	struct tpm2_digests d = { 2, { { TPM2_ALG_SHA1, "sha1", 20, { 0 } },
				     { TPM2_ALG_SHA256, "sha256", 32, { 0 } } } };
	uint8_t out[256];
	int n;

	memset(d.d[0].bytes, 0xaa, 20);
	memset(d.d[1].bytes, 0xbb, 32);
	n = tpm2_build_pcr_extend(15, &d, out, sizeof(out));
	/* header 10, PCR 4, password session 13, count 4, (2 + 20) + (2 + 32) */
	assert_int_equal(n, 10 + 4 + 13 + 4 + 22 + 34);
	assert_memory_equal(out + 6, "\x00\x00\x01\x82\x00\x00\x00\x0f", 8);
	assert_memory_equal(out + 27, "\x00\x00\x00\x02\x00\x04\xaa", 7);
	assert_memory_equal(out + 53, "\x00\x0b\xbb", 3);
	d.d[1].size = 20; /* a digest of the wrong size for its bank */
	assert_int_equal(tpm2_build_pcr_extend(15, &d, out, sizeof(out)), -EINVAL);
	d.d[1].size = 32;
	assert_int_equal(tpm2_build_pcr_extend(24, &d, out, sizeof(out)), -EINVAL);
	d.n = 0;
	assert_int_equal(tpm2_build_pcr_extend(15, &d, out, sizeof(out)), -EINVAL);
	assert_int_equal(tpm2_parse_pcr_extend((const uint8_t *)"\x80\x02\x00\x00\x00\x13\x00\x00"
							     "\x00\x00\x00\x00\x00\x00\x00\x00\x01"
							     "\x00\x00", 19), 0);
	assert_int_equal(tpm2_parse_pcr_extend((const uint8_t *)"\x80\x01\x00\x00\x00\x0a\x00\x00"
							     "\x09\x07", 10), 0x907);
	(void)state;
}

static void test_bank_names(void **state)
{
	assert_int_equal(tpm2_bank_by_name("sha256", 6), TPM2_ALG_SHA256);
	assert_int_equal(tpm2_bank_by_name("sha1:sha256", 4), TPM2_ALG_SHA1);
	assert_int_equal(tpm2_bank_by_name("sm3_256", 7), 0); /* no token names it */
	assert_int_equal(tpm2_bank_by_name("sha", 3), 0);
	assert_string_equal(tpm2_bank_name(TPM2_ALG_SM3_256), "sm3_256");
	assert_null(tpm2_bank_name(0x99));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused_and_malformed),
		cmocka_unit_test(test_banks),
		cmocka_unit_test(test_extend),
		cmocka_unit_test(test_bank_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
