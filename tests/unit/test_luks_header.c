/* core/luks_header.c: LUKS binary headers and LUKS2 metadata, what a passphrase can open and
 * what the boot would refuse, the second copy standing in for a damaged first. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "luks_header.h"
#include "util.h"

/* As cryptsetup 2.6 writes it (luksFormat --type luks2 --pbkdf pbkdf2), salts shortened. */
#define KEYSLOT0 "\"0\":{\"type\":\"luks2\",\"key_size\":64,\"af\":{\"type\":\"luks1\",\"stripes\":4000," \
	"\"hash\":\"sha256\"},\"area\":{\"type\":\"raw\",\"offset\":\"32768\",\"size\":\"258048\"," \
	"\"encryption\":\"aes-xts-plain64\",\"key_size\":64},\"kdf\":{\"type\":\"pbkdf2\"," \
	"\"hash\":\"sha256\",\"iterations\":1000,\"salt\":\"TXJt\"}}"
#define SEGMENT0 "\"0\":{\"type\":\"crypt\",\"offset\":\"16777216\",\"size\":\"dynamic\",\"iv_tweak\":\"0\"," \
	"\"encryption\":\"aes-xts-plain64\",\"sector_size\":4096}"
#define DIGEST0 "\"0\":{\"type\":\"pbkdf2\",\"keyslots\":[\"0\"],\"segments\":[\"0\"],\"hash\":\"sha256\"," \
	"\"iterations\":1000,\"salt\":\"Tk9G\",\"digest\":\"enNW\"}"
#define CONFIG "\"config\":{\"json_size\":\"12288\",\"keyslots_size\":\"16744448\"}"
#define META(keyslots, tokens, segments, digests, config)                                   \
	"{\"keyslots\":{" keyslots "},\"tokens\":{" tokens "},\"segments\":{" segments "}," \
	"\"digests\":{" digests "}," config "}"

static int check(const char *json, char *why)
{
	struct luks2_summary s;

	return luks2_json_check(json, strlen(json), &s, why, 200);
}

static void test_usable(void **state)
{
	static const char json[] = META(KEYSLOT0, "", SEGMENT0, DIGEST0, CONFIG);
	struct luks2_summary s;
	char why[200];

	assert_int_equal(luks2_json_check(json, sizeof(json), &s, why, sizeof(why)), 0);
	assert_int_equal(s.keyslots, 1);
	assert_int_equal(s.usable, 1);
	assert_string_equal(s.tokens, "");
	(void)state;
}

/* dm-integrity under LUKS2 (cryptsetup luksFormat --integrity): every segment has an
 * "integrity" object whose type is not "none", as systemd 260 reads it for its
 * "encryptedwithintegrity"; anything else is no integrity, and no reason to refuse the header. */
static void test_integrity(void **state)
{
#define SEGMENT(id, integrity)                                                             	"\"" id "\":{\"type\":\"crypt\",\"offset\":\"16777216\",\"size\":\"dynamic\","           \
	"\"iv_tweak\":\"0\",\"encryption\":\"aes-xts-plain64\",\"sector_size\":4096" integrity "}"
#define HMAC ",\"integrity\":{\"type\":\"hmac(sha256)\",\"journal_encryption\":\"none\"," \
	"\"journal_integrity\":\"none\"}"
	static const struct {
		const char *segments;
		bool integrity;
	} cases[] = {
		{ SEGMENT("0", ""), false },
		{ SEGMENT("0", HMAC), true },
		{ SEGMENT("0", HMAC) "," SEGMENT("1", HMAC), true },
		{ SEGMENT("0", HMAC) "," SEGMENT("1", ""), false },
		{ SEGMENT("0", ",\"integrity\":{\"type\":\"none\"}"), false },
		{ SEGMENT("0", ",\"integrity\":{\"journal_encryption\":\"none\"}"), false },
		{ SEGMENT("0", ",\"integrity\":\"hmac(sha256)\""), false },
		{ SEGMENT("0", ",\"integrity\":{\"type\":\"hmac(sha256)-and-a-name-longer-than-that\"}"),
		  true },
	};
	struct luks2_summary s;
	char json[2048], why[200] = "";

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(json, sizeof(json), META(KEYSLOT0, "", "%s", DIGEST0, CONFIG), cases[i].segments);
		if (luks2_json_check(json, strlen(json), &s, why, sizeof(why)) != 0 ||
		    s.integrity != cases[i].integrity)
			fail_msg("%s: %s; want integrity %d", cases[i].segments, why, cases[i].integrity);
	}
	(void)state;
#undef HMAC
#undef SEGMENT
}

/* A systemd-tpm2 token is read whole (lib/tpm2_token.c) and counted, its PIN noted; one it
 * cannot use is said why; other token types are named as not used. */
static void test_tokens_named(void **state)
{
#define TPM2_TOKEN(extra)                                                                  \
	"\"0\":{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-pcrs\":[7]," \
	"\"tpm2-blob\":\"AAIAAQACAAE=\"" extra "}"
	static const char good[] = META(KEYSLOT0 ",\"1\":{\"type\":\"luks2\",\"kdf\":{\"type\":\"pbkdf2\"}}",
					TPM2_TOKEN(",\"tpm2-pin\":true") ",\"1\":{\"type\":\"systemd-fido2\",\"keyslots\":[\"1\"]}",
					SEGMENT0,
					"\"0\":{\"type\":\"pbkdf2\",\"keyslots\":[\"0\",\"1\"],\"segments\":[\"0\"]}",
					CONFIG);
	static const char bad[] = META(KEYSLOT0 ",\"1\":{\"type\":\"luks2\",\"kdf\":{\"type\":\"pbkdf2\"}}",
				       TPM2_TOKEN(",\"tpm2-pcr-bank\":\"md5\""),
				       SEGMENT0,
				       "\"0\":{\"type\":\"pbkdf2\",\"keyslots\":[\"0\",\"1\"],\"segments\":[\"0\"]}",
				       CONFIG);
	struct luks2_summary s;
	char why[200];

	assert_int_equal(luks2_json_check(good, sizeof(good), &s, why, sizeof(why)), 0);
	assert_int_equal(s.usable, 2);
	assert_string_equal(s.tokens, "systemd-fido2 (keyslot 1)");
	assert_int_equal(s.tpm2_tokens, 1);
	assert_true(s.tpm2_pin);
	assert_string_equal(s.tpm2_error, "");
	assert_int_equal(luks2_json_check(bad, sizeof(bad), &s, why, sizeof(why)), 0);
	assert_int_equal(s.tpm2_tokens, 0);
	assert_non_null(strstr(s.tpm2_error, "not a PCR bank"));
	(void)state;
#undef TPM2_TOKEN
}

static void test_refused(void **state)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{ "garbage", "its metadata is not JSON the format allows: an object expected (at byte 0)" },
		{ META(KEYSLOT0, "", SEGMENT0, DIGEST0, CONFIG) "x",
		  "its metadata is not JSON the format allows: text after the value" },
		{ "{\"keyslots\":{},\"segments\":{},\"digests\":{}}", "its metadata has no \"config\"" },
		{ META(KEYSLOT0, "", SEGMENT0, DIGEST0,
		       "\"config\":{\"requirements\":{\"mandatory\":[\"online-reencrypt-v2\"]}}"),
		  "it requires \"online-reencrypt-v2\" (an interrupted reencryption?), which the boot "
		  "will not do: finish it with cryptsetup" },
		{ META(KEYSLOT0, "", "\"0\":{\"type\":\"linear\"}", DIGEST0, CONFIG),
		  "it has no encrypted segment" },
		/* the digest ties keyslot 0 to no segment */
		{ META(KEYSLOT0, "", SEGMENT0, "\"0\":{\"type\":\"pbkdf2\",\"keyslots\":[\"0\"],\"segments\":[]}", CONFIG),
		  "none of its 1 keyslots can be opened with a passphrase or key file" },
		/* priority 0: cryptsetup never tries it */
		{ META("\"0\":{\"type\":\"luks2\",\"priority\":0,\"kdf\":{\"type\":\"argon2id\"}}", "",
		       SEGMENT0, DIGEST0, CONFIG),
		  "none of its 1 keyslots can be opened with a passphrase or key file" },
		{ META("\"0\":{\"type\":\"luks2\",\"kdf\":{\"type\":\"scrypt\"}}", "", SEGMENT0, DIGEST0, CONFIG),
		  "none of its 1 keyslots can be opened with a passphrase or key file" },
		{ META("\"32\":{\"type\":\"luks2\"}", "", SEGMENT0, DIGEST0, CONFIG),
		  "its metadata is not JSON the format allows: an id that is not a number from 0 to 31" },
		{ META("\"01\":{\"type\":\"luks2\"}", "", SEGMENT0, DIGEST0, CONFIG),
		  "its metadata is not JSON the format allows: an id that is not a number from 0 to 31" },
		{ "{\"keyslots\":{},\"keyslots\":{}}",
		  "its metadata is not JSON the format allows: a part of the metadata given twice" },
	};
	char why[200];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(check(cases[i].json, why), -EINVAL);
		/* the byte offset varies with the case: compare up to it */
		assert_memory_equal(why, cases[i].why, strlen(cases[i].why));
	}
	(void)state;
}

/* A device of two copies: the first's binary header at 0, the second's at 16 KiB. */
static uint8_t device[64 * 1024];

static long read_device(void *ctx, uint64_t offset, void *buf, size_t len)
{
	size_t n = offset >= sizeof(device) ? 0 : sizeof(device) - offset < len ? sizeof(device) - offset : len;

	if (n > 0)
		memcpy(buf, device + offset, n);
	(void)ctx;
	return (long)n;
}

static void put_copy(uint64_t at, int copy, const char *json)
{
	static const uint8_t magic[2][6] = { { 'L', 'U', 'K', 'S', 0xba, 0xbe },
					     { 'S', 'K', 'U', 'L', 0xba, 0xbe } };

	memset(device + at, 0, 16384);
	memcpy(device + at, magic[copy - 1], 6);
	device[at + 7] = 2;
	device[at + 8 + 6] = 0x40; /* hdr_size 16384, big-endian */
	memcpy(device + at + 4096, json, strlen(json));
}

static void test_two_copies(void **state)
{
	static const char json[] = META(KEYSLOT0, "", SEGMENT0, DIGEST0, CONFIG);
	struct luks2_summary s;
	char why[400];

	put_copy(0, 1, json);
	put_copy(16384, 2, json);
	assert_int_equal(luks_header_check(read_device, NULL, &s, why, sizeof(why)), 0);
	/* the first copy's JSON damaged: the second serves */
	memcpy(device + 4096, "garbage", 7);
	assert_int_equal(luks_header_check(read_device, NULL, &s, why, sizeof(why)), 0);
	/* and its binary header too: the second is looked for where it may be */
	memset(device, 0, 4096);
	assert_int_equal(luks_header_check(read_device, NULL, &s, why, sizeof(why)), 0);
	memcpy(device + 16384 + 4096, "garbage", 7);
	assert_int_equal(luks_header_check(read_device, NULL, &s, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "the first copy: no LUKS header (magic); the second: its metadata is "
				 "not JSON the format allows: an object expected (at byte 0)");
	/* LUKS1: a binary header alone */
	memset(device, 0, sizeof(device));
	memcpy(device, "LUKS\xba\xbe\x00\x01", 8);
	assert_int_equal(luks_header_check(read_device, NULL, &s, why, sizeof(why)), 0);
	device[7] = 3;
	assert_int_equal(luks_header_check(read_device, NULL, &s, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "the first copy: LUKS version 3, not 1 or 2; the second: no LUKS header (magic)");
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usable),
		cmocka_unit_test(test_tokens_named),
		cmocka_unit_test(test_integrity),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_two_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
