/* lib/base64.c: RFC 4648's vectors both ways, the padding rules, what is refused, and buffers
 * one byte short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base64.h"
#include "util.h"

/* RFC 4648, section 10 */
static const struct {
	const char *bytes, *text;
} vectors[] = {
	{ "", "" },
	{ "f", "Zg==" },
	{ "fo", "Zm8=" },
	{ "foo", "Zm9v" },
	{ "foob", "Zm9vYg==" },
	{ "fooba", "Zm9vYmE=" },
	{ "foobar", "Zm9vYmFy" },
};

static void test_encode_vectors(void **state)
{
	char out[16];

	for (size_t i = 0; i < ARRAY_SIZE(vectors); i++) {
		size_t n = strlen(vectors[i].bytes);

		memset(out, 'x', sizeof(out));
		assert_int_equal(base64_encode((const uint8_t *)vectors[i].bytes, n, out, sizeof(out)),
				 strlen(vectors[i].text));
		assert_string_equal(out, vectors[i].text);
	}
	(void)state;
}

/* The empty text is refused: every caller decodes a value that has bytes (a signature, a
 * token's blob, a binary credential). */
static void test_decode_vectors(void **state)
{
	uint8_t out[16];
	size_t len;

	for (size_t i = 1; i < ARRAY_SIZE(vectors); i++) {
		len = 99;
		assert_true(base64_decode(vectors[i].text, strlen(vectors[i].text), out, sizeof(out), &len));
		assert_int_equal(len, strlen(vectors[i].bytes));
		assert_memory_equal(out, vectors[i].bytes, len);
	}
	len = 99;
	assert_false(base64_decode("", 0, out, sizeof(out), &len));
	assert_int_equal(len, 99);
	(void)state;
}

/* Every byte value, through both alphabets' ends ('+' and '/'), and back. */
static void test_round_trip(void **state)
{
	uint8_t bytes[256], back[256];
	char text[4 * 86 + 1];
	size_t len;

	for (size_t i = 0; i < sizeof(bytes); i++)
		bytes[i] = (uint8_t)(255 - i);
	for (size_t n = 1; n <= sizeof(bytes); n++) {
		size_t t = base64_encode(bytes, n, text, sizeof(text));

		assert_int_equal(t, (n + 2) / 3 * 4);
		assert_true(base64_decode(text, t, back, sizeof(back), &len));
		assert_int_equal(len, n);
		assert_memory_equal(back, bytes, n);
	}
	assert_int_equal(base64_encode((const uint8_t *)"\xfb\xff", 2, text, sizeof(text)), 4);
	assert_string_equal(text, "+/8=");
	(void)state;
}

static void test_decode_refuses(void **state)
{
	static const char *const bad[] = {
		"Zg=",      /* not a multiple of four */
		"Zm9vY",    /* the same */
		"Zg==Zg==", /* padding before the last group */
		"Z===",     /* three pads */
		"====",
		"Zm=v",     /* a pad inside the group */
		"Zm9\nZg==", /* a line break */
		"Zm9 ",     /* a space */
		"Zm9-",     /* base64url's alphabet */
		"Zm9_",
		"Zm9\xc3",  /* a byte past ASCII */
	};
	uint8_t out[16];
	size_t len = 99;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(base64_decode(bad[i], strlen(bad[i]), out, sizeof(out), &len));
	/* a NUL inside the n characters is no base64 character */
	assert_false(base64_decode("Zm\0v", 4, out, sizeof(out), &len));
	assert_int_equal(len, 99);
	/* n counts the characters, not the terminator: "Zm9vYg" of "Zm9vYg==" is refused */
	assert_false(base64_decode("Zm9vYg==", 6, out, sizeof(out), &len));
	assert_true(base64_decode("Zm9vYg==", 4, out, sizeof(out), &len));
	assert_int_equal(len, 3);
	(void)state;
}

/* The output must hold the decoded bytes exactly; the encoder's, the text and its NUL. */
static void test_sizes(void **state)
{
	uint8_t out[6];
	char text[9];
	size_t len = 99;

	assert_true(base64_decode("Zm9vYmFy", 8, out, 6, &len));
	assert_int_equal(len, 6);
	assert_false(base64_decode("Zm9vYmFy", 8, out, 5, &len));
	assert_true(base64_decode("Zm9vYmE=", 8, out, 5, &len));
	assert_int_equal(len, 5);
	assert_false(base64_decode("Zm9vYmE=", 8, out, 4, &len));
	assert_true(base64_decode("Zm9vYg==", 8, out, 4, &len));
	assert_int_equal(len, 4);
	assert_false(base64_decode("Zm9vYg==", 8, out, 3, &len));
	assert_false(base64_decode("Zg==", 4, out, 0, &len));
	assert_int_equal(len, 4);

	assert_int_equal(base64_encode((const uint8_t *)"foobar", 6, text, 9), 8);
	assert_string_equal(text, "Zm9vYmFy");
	memset(text, 'x', sizeof(text));
	assert_int_equal(base64_encode((const uint8_t *)"foobar", 6, text, 8), 0);
	assert_int_equal(text[0], 'x');
	assert_int_equal(base64_encode((const uint8_t *)"f", 1, text, 4), 0);
	assert_int_equal(base64_encode((const uint8_t *)"", 0, text, 1), 0);
	assert_string_equal(text, "");
	assert_int_equal(base64_encode((const uint8_t *)"", 0, text, 0), 0);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_vectors),
		cmocka_unit_test(test_decode_vectors),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_decode_refuses),
		cmocka_unit_test(test_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
