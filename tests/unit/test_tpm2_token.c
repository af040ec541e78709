/* lib/tpm2_token.c: systemd-tpm2 tokens as systemd-cryptenroll 252 wrote them, read; hostile
 * ones refused with their reason. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "tpm2_token.h"

/* Enrolled with --tpm2-pcrs=16 --tpm2-with-pin=yes against swtpm. */
static const char enrolled[] = "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"2\"],\"tpm2-blob\":\"AJ4AINzP6Y5HHrlCZYqiH2iTm/LtY/uawobnZ86GnBJ1qOgVABDWj9Mhliy0rn9eiJmq2Ppw7Hh8QOzEFci7TURTsViO1ZsM+W5XBvfJVb+Y0z+NQmsNeCCtkprXY0RNuDDqmNb41MDm7XIbcfo0OJLBNBH6BFR9l+1RqQb2sdEZTctXIPzJJXKpp/DW2OdK2LzK633ygRl25ITLPassJABOAAgACwAAABIAIBlRRiU4hpdrqXhNy7QscAlcOvl3uQLu4jJU9czFujpWABAAIFuAYqB4uufi2aJ3+bOcoJsZIdKI01SK+X2HF0QHNjgX\",\"tpm2-pcrs\":[16],\"tpm2-pcr-bank\":\"sha256\",\"tpm2-primary-alg\":\"ecc\",\"tpm2-policy-hash\":\"195146253886976ba9784dcbb42c70095c3af977b902eee23254f5ccc5ba3a56\",\"tpm2-pin\":true}";

static struct tpm2_token t;

static void test_enrolled(void **state)
{
	char why[200] = "";

	assert_int_equal(tpm2_token_parse(enrolled, sizeof(enrolled), &t, why, sizeof(why)), 0);
	assert_int_equal(t.keyslot, 2);
	assert_int_equal(t.pcrs, 1u << 16);
	assert_int_equal(t.bank, TPM2_ALG_SHA256);
	assert_int_equal(t.primary_alg, TPM2_ALG_ECC);
	assert_true(t.pin);
	assert_int_equal(t.policy_hash_len, 32);
	assert_int_equal(t.policy_hash[0], 0x19);
	/* TPM2B_PRIVATE of 0x9e bytes, then TPM2B_PUBLIC of 0x4e */
	assert_int_equal(t.blob_len, 2 + 0x9e + 2 + 0x4e);
	assert_int_equal(t.blob[0], 0x00);
	assert_int_equal(t.blob[1], 0x9e);
	assert_int_equal(t.salt_len + t.srk_len + t.pubkey_len, 0);
	(void)state;
}

static void test_defaults_and_later_fields(void **state)
{
	static const char json[] =
		"{\"type\":\"systemd-tpm2\",\"keyslots\":[\"31\"],\"tpm2-blob\":\"AAEA\","
		"\"tpm2-pcrs\":[0,7,23],\"tpm2-primary-alg\":\"rsa\",\"tpm2_salt\":\"c2FsdA==\","
		"\"tpm2_pubkey_pcrs\":[11],\"tpm2_pcrlock\":false,\"unknown\":{\"a\":[1,2]}}";
	char why[200] = "";

	assert_int_equal(tpm2_token_parse(json, sizeof(json), &t, why, sizeof(why)), 0);
	assert_int_equal(t.keyslot, 31);
	assert_int_equal(t.pcrs, 1u << 0 | 1u << 7 | 1u << 23);
	assert_int_equal(t.bank, TPM2_ALG_SHA256);
	assert_int_equal(t.primary_alg, TPM2_ALG_RSA);
	assert_int_equal(t.salt_len, 4);
	assert_int_equal(t.pubkey_pcrs, 1u << 11);
	assert_false(t.pin);
	assert_false(t.pcrlock);
	(void)state;
}

static void test_hostile(void **state)
{
	static const struct {
		const char *json, *why;
	} cases[] = {
		{ "garbage", "an object expected" },
		{ "{\"type\":\"systemd-fido2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\"}",
		  "not a systemd-tpm2 token" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"]}", "it has no tpm2-blob" },
		{ "{\"type\":\"systemd-tpm2\",\"tpm2-blob\":\"AAEA\"}", "it has no keyslot" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"32\"],\"tpm2-blob\":\"AAEA\"}",
		  "a keyslot is a number" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"-1\"],\"tpm2-blob\":\"AAEA\"}",
		  "a keyslot is a number" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[1],\"tpm2-blob\":\"AAEA\"}",
		  "a string expected" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAE\"}",
		  "not base64" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\",\"tpm2-pcrs\":[24]}",
		  "a PCR index from 0 to 23" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\",\"tpm2-pcrs\":[-1]}",
		  "a whole number" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\",\"tpm2-pcr-bank\":\"md5\"}",
		  "not a PCR bank" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\",\"tpm2-primary-alg\":\"dsa\"}",
		  "neither ecc nor rsa" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\",\"tpm2-policy-hash\":\"zz\"}",
		  "not hex" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\",\"tpm2-policy-hash\":\"0011\"}",
		  "not a SHA-256 digest" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\",\"tpm2-pin\":1}",
		  "true or false expected" },
		{ "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"AAEA\"", "',' or" },
	};
	char why[200];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		why[0] = '\0';
		assert_int_equal(tpm2_token_parse(cases[i].json, strlen(cases[i].json), &t, why,
						  sizeof(why)), -EINVAL);
		if (!strstr(why, cases[i].why))
			fail_msg("case %zu: '%s' lacks '%s'", i, why, cases[i].why);
	}
	(void)state;
}

/* A blob larger than the token may hold: refused, not cut. */
static void test_blob_too_large(void **state)
{
	static char json[TPM2_BLOB_MAX * 2];
	size_t n = (size_t)snprintf(json, sizeof(json), "{\"type\":\"systemd-tpm2\",\"keyslots\":[\"1\"],\"tpm2-blob\":\"");
	char why[200] = "";

	for (size_t i = 0; i < (TPM2_BLOB_MAX / 3 + 4) * 4; i++)
		json[n++] = 'A';
	memcpy(json + n, "\"}", 3);
	assert_int_equal(tpm2_token_parse(json, sizeof(json), &t, why, sizeof(why)), -EINVAL);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enrolled),
		cmocka_unit_test(test_defaults_and_later_fields),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_blob_too_large),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
