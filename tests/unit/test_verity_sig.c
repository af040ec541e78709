/* The signature partition's JSON. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "verity_sig.h"

#define HASH "af54517930451686cd0895fa43cb80483c19d6d2aab1d00b44b0eccb1adc0da6"

static struct verity_sig sig;
static char why[128];

static int parse(const char *json)
{
	why[0] = '\0';
	return verity_sig_parse(json, strlen(json) + 1, &sig, why, sizeof(why));
}

/* What systemd-repart writes, NUL padding included. */
static void test_repart_form(void **state)
{
	char buf[512] = "{\"rootHash\":\"" HASH "\",\"certificateFingerprint\":\"eaa7b399\","
			"\"signature\":\"TUlJRQ==\"}";

	assert_int_equal(verity_sig_parse(buf, sizeof(buf), &sig, why, sizeof(why)), 0);
	assert_string_equal(sig.root_hash, HASH);
	assert_int_equal(sig.signature_len, 4);
	assert_memory_equal(sig.signature, "MIIE", 4);
}

static void test_layout_and_other_members(void **state)
{
	assert_int_equal(parse("{\"x\": [0, -0, 0.5, 1E+9, 2e-3, \"caf\xc3\xa9 \\ud83d\\ude00\"],"
			       "\"signature\":\"YWJj\",\"rootHash\":\"" HASH "\"}"), 0);
	assert_int_equal(parse(" \n{ \"x\" : [1, -2.5e3, {\"a\": [true, false, null]}, \"\\u00e9\\\"\"],"
			       "\t\"signature\" : \"YWJj\" , \"rootHash\": \"" HASH "\" }\r\n"), 0);
	assert_int_equal(sig.signature_len, 3);
	assert_memory_equal(sig.signature, "abc", 3);
	/* escapes are read in the fields too */
	assert_int_equal(parse("{\"rootHash\":\"\\u0061f54517930451686cd0895fa43cb80483c19d6d2aab1d00b"
			       "44b0eccb1adc0da6\",\"signature\":\"YQ\\u003d\\u003d\"}"), 0);
	assert_string_equal(sig.root_hash, HASH);
	assert_int_equal(sig.signature_len, 1);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *json;
		const char *why;
	} bad[] = {
		{ "", "not a JSON object" },
		{ "[]", "not a JSON object" },
		{ "{}", "no rootHash" },
		{ "{\"rootHash\":\"" HASH "\"}", "no signature" },
		{ "{\"signature\":\"YWJj\"}", "no rootHash" },
		{ "{\"rootHash\":\"" HASH "\",\"rootHash\":\"" HASH "\",\"signature\":\"YWJj\"}", "twice" },
		{ "{\"rootHash\":\"xyz\",\"signature\":\"YWJj\"}", "not a root hash" },
		{ "{\"rootHash\":1,\"signature\":\"YWJj\"}", "a string expected" },
		{ "{\"rootHash\":\"" HASH "\",\"signature\":\"YWJ\"}", "not base64" },
		{ "{\"rootHash\":\"" HASH "\",\"signature\":\"Y=Jj\"}", "not base64" },
		{ "{\"rootHash\":\"" HASH "\",\"signature\":\"YW=j\"}", "not base64" },
		{ "{\"rootHash\":\"" HASH "\",\"signature\":\"====\"}", "not base64" },
		{ "{\"rootHash\":\"" HASH "\",\"signature\":\"\"}", "not base64" },
		{ "{\"rootHash\":\"" HASH "\",\"signature\":\"YWJj\"} x", "text after" },
		{ "{\"rootHash\":\"" HASH "\",\"signature\":\"YWJj\"", "'}' expected" },
		{ "{\"rootHash\":\"" HASH, "not terminated" },
		{ "{\"a\":\"\\x\"}", "malformed escape" },
		{ "{\"a\":\"\\u12\"}", "malformed escape" },
		{ "{\"rootHash\\u0000x\":\"" HASH "\",\"signature\":\"YWJj\"}", "malformed escape" },
		{ "{\"a\":\"\x01\"}", "control character" },
		{ "{\"a\" 1}", "':' expected" },
		{ "{\"a\":}", "a value expected" },
		{ "{\"a\":[1 2]}", "closing bracket" },
		{ "{\"a\":tru}", "a value expected" },
		/* the RFC's number grammar and UTF-8, skipped values included */
		{ "{\"x\":+}", "a value expected" },
		{ "{\"x\":+1}", "a value expected" },
		{ "{\"x\":-e.E+}", "a value expected" },
		{ "{\"x\":01}", "a value expected" },
		{ "{\"x\":1.}", "a value expected" },
		{ "{\"x\":.5}", "a value expected" },
		{ "{\"x\":1e}", "a value expected" },
		{ "{\"x\":-}", "a value expected" },
		{ "{\"x\":\"\xff\"}", "not UTF-8" },
		{ "{\"x\":\"\xc3\"}", "not UTF-8" },
		{ "{\"x\":\"\xed\xa0\x80\"}", "not UTF-8" },
		{ "{\"\xc0\xaf\":1}", "not UTF-8" },
		{ "{\"x\":\"\\ud800\"}", "malformed escape" },
		{ "{\"x\":\"\\udc00\\ud800\"}", "malformed escape" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i].json);

		if (r != -EINVAL || !strstr(why, bad[i].why))
			fail_msg("'%s': %d '%s', want '%s'", bad[i].json, r, why, bad[i].why);
		assert_int_equal(sig.signature_len, 0);
	}
}

static void test_bounds(void **state)
{
	size_t n = VERITY_SIG_MAX / 3 * 4 + 64, deep = 2 * VERITY_SIG_DEPTH_MAX;
	char *json = malloc(n + 128);
	size_t used;

	assert_non_null(json);
	/* nested past the limit */
	used = (size_t)sprintf(json, "{\"a\":");
	for (size_t i = 0; i < deep; i++)
		json[used++] = '[';
	for (size_t i = 0; i < deep; i++)
		json[used++] = ']';
	strcpy(json + used, "}");
	assert_int_equal(parse(json), -EINVAL);
	assert_non_null(strstr(why, "nested too deeply"));
	/* a signature just larger than VERITY_SIG_MAX */
	used = (size_t)sprintf(json, "{\"rootHash\":\"" HASH "\",\"signature\":\"");
	memset(json + used, 'A', VERITY_SIG_MAX / 3 * 4 + 4);
	strcpy(json + used + VERITY_SIG_MAX / 3 * 4 + 4, "\"}");
	assert_int_equal(parse(json), -EINVAL);
	/* and one that fits */
	strcpy(json + used + VERITY_SIG_MAX / 3 * 4, "\"}");
	assert_int_equal(parse(json), 0);
	assert_int_equal(sig.signature_len, VERITY_SIG_MAX / 3 * 3);
	/* the length given bounds the read: no terminator needed */
	memcpy(json, "{\"a\":1}", 7);
	assert_int_equal(verity_sig_parse(json, 7, &sig, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "no rootHash"));
	assert_int_equal(verity_sig_parse(json, 6, &sig, why, sizeof(why)), -EINVAL);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repart_form),
		cmocka_unit_test(test_layout_and_other_members),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
