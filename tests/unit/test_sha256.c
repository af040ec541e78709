/* SHA-256 against FIPS 180-4 examples, HMAC-SHA256 against RFC 4231's test cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "sha256.h"

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void assert_digest(const uint8_t *d, size_t n, const char *expected)
{
	char text[2 * SHA256_DIGEST_SIZE + 1];

	hex(d, n, text);
	assert_string_equal(text, expected);
}

static void test_sha256_known(void **state)
{
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256("", 0, d);
	assert_digest(d, 32, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256("abc", 3, d);
	assert_digest(d, 32, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, d);
	assert_digest(d, 32, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256_million_a_in_pieces(void **state)
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE], chunk[997];

	memset(chunk, 'a', sizeof(chunk));
	sha256_init(&ctx);
	for (size_t left = 1000000; left > 0;) {
		size_t n = left < sizeof(chunk) ? left : sizeof(chunk);

		sha256_update(&ctx, chunk, n);
		left -= n;
	}
	sha256_final(&ctx, d);
	assert_digest(d, 32, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_hmac_rfc4231(void **state)
{
	uint8_t key[131], data[50], d[SHA256_DIGEST_SIZE];

	memset(key, 0x0b, 20);
	hmac_sha256(key, 20, "Hi There", 8, d);
	assert_digest(d, 32, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");

	hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, d);
	assert_digest(d, 32, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");

	memset(key, 0xaa, 20);
	memset(data, 0xdd, 50);
	hmac_sha256(key, 20, data, 50, d);
	assert_digest(d, 32, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");

	for (unsigned i = 0; i < 25; i++)
		key[i] = (uint8_t)(i + 1);
	memset(data, 0xcd, 50);
	hmac_sha256(key, 25, data, 50, d);
	assert_digest(d, 32, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");

	memset(key, 0x0c, 20);
	hmac_sha256(key, 20, "Test With Truncation", 20, d);
	assert_digest(d, 16, "a3b6167473100ee06e0c796c2955552b");

	memset(key, 0xaa, 131);
	hmac_sha256(key, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54, d);
	assert_digest(d, 32, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");

	static const char long_data[] = "This is a test using a larger than block-size key and a larger than "
					"block-size data. The key needs to be hashed before being used by "
					"the HMAC algorithm.";
	hmac_sha256(key, 131, long_data, strlen(long_data), d);
	assert_digest(d, 32, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_known),
		cmocka_unit_test(test_sha256_million_a_in_pieces),
		cmocka_unit_test(test_hmac_rfc4231),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
