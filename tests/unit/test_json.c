/* lib/json.c: the strict reader. What RFC 8259 accepts and what it refuses, strings (escapes,
 * surrogates, UTF-8, copies cut to fit), numbers, the depth limit, objects and arrays through
 * their callbacks, and the first error kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"
#include "util.h"

static void read_text(struct json_reader *r, const char *text)
{
	json_reader_init(r, text, strlen(text));
}

/* text is one whole JSON value: skipped, and nothing but space after it. */
static bool whole_value(const char *text, const char **error)
{
	struct json_reader r;
	bool ok;

	read_text(&r, text);
	ok = json_skip(&r) && json_end(&r);
	if (error)
		*error = r.error;
	return ok;
}

static void test_accepted(void **state)
{
	static const char *const good[] = {
		"null", "true", "false", "0", "-0", "7", "-12", "1.5", "-0.25", "1e5", "1E+5", "2e-3",
		"0.0e0", "123456789012345678901234567890", "\"\"", "\"a b\"", "[]", "{}", "[[]]",
		" \t\r\n[ 1 , \"a\" , { \"k\" : [ ] , \"n\" : null } , true ] \t\r\n",
		"{\"a\":{\"b\":{\"c\":[false]}}}", "{\"a\":1,\"a\":2}",
		"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "\"\\u0041\\u00e9\\u20AC\"", "\"\\ud83d\\ude00\"",
		"\"\\uDBFF\\uDFFF\"", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf\"",
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		const char *error = "unset";

		if (!whole_value(good[i], &error))
			fail_msg("refused %s: %s", good[i], error);
		assert_null(error);
	}
	(void)state;
}

static void test_refused(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "", "a value expected" },
		{ " \n ", "a value expected" },
		{ "nul", "a value expected" },
		{ "True", "a value expected" },
		{ "NaN", "a value expected" },
		{ "Infinity", "a value expected" },
		{ "'a'", "a value expected" },
		{ "\xc3\xa9", "a value expected" },
		{ "\f1", "a value expected" }, /* form feed is no JSON space */
		{ "\v1", "a value expected" },
		{ "1 2", "text after the value" },
		{ "[1] x", "text after the value" },
		{ "truex", "text after the value" },
		{ "[", "a value expected" },
		{ "]", "a value expected" },
		{ "[1", "',' or a closing bracket expected" },
		{ "[1,]", "a value expected" },
		{ "[,1]", "a value expected" },
		{ "[1 2]", "',' or a closing bracket expected" },
		{ "[1:2]", "',' or a closing bracket expected" },
		{ "{", "a string expected" },
		{ "{\"a\"}", "a member name and ':' expected" },
		{ "{\"a\":}", "a value expected" },
		{ "{\"a\" 1}", "a member name and ':' expected" },
		{ "{a:1}", "a string expected" },
		{ "{1:1}", "a string expected" },
		{ "{\"a\":1,}", "a string expected" },
		{ "{,}", "a string expected" },
		{ "{\"a\":1 \"b\":2}", "',' or a closing bracket expected" },
		{ "{\"a\":1]", "',' or a closing bracket expected" },
		{ "[1}", "',' or a closing bracket expected" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *error = NULL;

		if (whole_value(bad[i].text, &error))
			fail_msg("accepted %s", bad[i].text);
		if (!error || strcmp(error, bad[i].error) != 0)
			fail_msg("%s: \"%s\", not \"%s\"", bad[i].text, error ? error : "(none)", bad[i].error);
	}
	(void)state;
}

/* RFC 8259's grammar: -? (0 | [1-9][0-9]*) (.[0-9]+)? ([eE][+-]?[0-9]+)? */
static void test_numbers(void **state)
{
	static const char *const good[] = { "0", "-0", "10", "0.5", "-0.5e-0", "1E9", "1e+09" };
	static const char *const bad[] = {
		"-", "+1", ".5", "1.", "1.e5", "01", "-01", "00", "1e", "1e+", "1e-", "0x10", "--1",
		"1.5.5", "-.5",
	};
	struct json_reader r;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		read_text(&r, good[i]);
		if (!json_number(&r) || r.pos != r.len)
			fail_msg("refused %s", good[i]);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		read_text(&r, bad[i]);
		if (json_number(&r) && r.pos == r.len)
			fail_msg("accepted %s", bad[i]);
		if (whole_value(bad[i], NULL))
			fail_msg("skipped %s as a value", bad[i]);
	}
	/* no space before it */
	read_text(&r, " 1");
	assert_false(json_number(&r));
	/* a number ends where its grammar does */
	read_text(&r, "12,");
	assert_true(json_number(&r));
	assert_int_equal(r.pos, 2);
	(void)state;
}

static void test_u64(void **state)
{
	static const struct {
		const char *text;
		uint64_t value;
	} good[] = {
		{ "0", 0 },
		{ " \n42", 42 },
		{ "23", 23 },
		{ "9999999999999999999", 9999999999999999999ULL }, /* 19 digits, the most */
	};
	static const char *const bad[] = {
		"10000000000000000000", /* 10^19 */
		"18446744073709551615", /* UINT64_MAX: 20 digits */
		"18446744073709551616", "99999999999999999999", "-1", "-0", "1.0", "1e3", "01", "",
		"\"1\"", "true",
	};
	struct json_reader r;
	uint64_t v;

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		read_text(&r, good[i].text);
		assert_true(json_u64(&r, &v));
		assert_true(v == good[i].value);
		assert_true(json_end(&r));
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		read_text(&r, bad[i]);
		if (json_u64(&r, &v))
			fail_msg("accepted %s", bad[i]);
		assert_non_null(r.error);
	}
	read_text(&r, "1.5");
	assert_false(json_u64(&r, &v));
	assert_string_equal(r.error, "a whole number of at most 19 digits expected");
	read_text(&r, "x");
	assert_false(json_u64(&r, &v));
	assert_string_equal(r.error, "a number expected");
	(void)state;
}

static void test_bool(void **state)
{
	static const char *const bad[] = { "", "tru", "fals", "True", "1", "null", "\"true\"" };
	struct json_reader r;
	bool b = false;

	read_text(&r, " true");
	assert_true(json_bool(&r, &b));
	assert_true(b);
	read_text(&r, "\tfalse ");
	assert_true(json_bool(&r, &b));
	assert_false(b);
	assert_true(json_end(&r));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		read_text(&r, bad[i]);
		b = true;
		assert_false(json_bool(&r, &b));
		assert_true(b);
		assert_string_equal(r.error, "true or false expected");
	}
	(void)state;
}

/* Reads text as one string into out (size bytes): its length, or -1 when refused. */
static long read_string(const char *text, char *out, size_t size)
{
	struct json_reader r;
	size_t n = 0;

	read_text(&r, text);
	return json_string(&r, out, size, &n) ? (long)n : -1;
}

/* Escapes become their characters; everything past ASCII, escaped or not, one '?'. */
static void test_string_copies(void **state)
{
	static const struct {
		const char *text, *copy;
	} cases[] = {
		{ "\"\"", "" },
		{ " \"root\"", "root" },
		{ "\"a\\\"b\\\\c\\/d\"", "a\"b\\c/d" },
		{ "\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t" },
		{ "\"\\u0041\\u007a\\u0001\"", "Az\x01" },
		{ "\"\\u00e9\\u20ac\"", "??" },
		{ "\"\\ud83d\\ude00!\"", "?!" },
		{ "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"", "caf? ?" },
	};
	char out[32];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(read_string(cases[i].text, out, sizeof(out)), strlen(cases[i].copy));
		assert_string_equal(out, cases[i].copy);
	}
	(void)state;
}

/* The copy is cut at size - 1, the length counts on; no copy at all without out. */
static void test_string_cut(void **state)
{
	char out[8];
	struct json_reader r;
	size_t n = 0;

	assert_int_equal(read_string("\"abcdefghij\"", out, 4), 10);
	assert_string_equal(out, "abc");
	assert_int_equal(read_string("\"abc\"", out, 4), 3);
	assert_string_equal(out, "abc");
	assert_int_equal(read_string("\"abcd\"", out, 1), 4);
	assert_string_equal(out, "");
	memset(out, 'x', sizeof(out));
	assert_int_equal(read_string("\"abcd\"", out, 0), 4);
	assert_int_equal(out[0], 'x');
	read_text(&r, "\"abcd\" ");
	assert_true(json_string(&r, NULL, 0, NULL));
	assert_int_equal(r.pos, 6);
	read_text(&r, "\"ab\"");
	assert_true(json_string(&r, NULL, 0, &n));
	assert_int_equal(n, 2);
	(void)state;
}

static void test_string_refusals(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "abc", "a string expected" },
		{ "1", "a string expected" },
		{ "", "a string expected" },
		{ "\"abc", "a string is not terminated" },
		{ "\"abc\\\"", "a string is not terminated" },
		{ "\"a\tb\"", "a control character in a string" },
		{ "\"a\nb\"", "a control character in a string" },
		{ "\"\x1f\"", "a control character in a string" },
		{ "\"\\x\"", "a malformed escape in a string" },
		{ "\"\\'\"", "a malformed escape in a string" },
		{ "\"\\", "a malformed escape in a string" },
		{ "\"\\u12\"", "a malformed escape in a string" },
		{ "\"\\u00zz\"", "a malformed escape in a string" },
		{ "\"\\U0041\"", "a malformed escape in a string" },
		{ "\"\\u0000\"", "a malformed escape in a string" }, /* would cut the value short */
		{ "\"\\ud800\"", "a malformed escape in a string" },  /* a lone high surrogate */
		{ "\"\\ud800x\"", "a malformed escape in a string" },
		{ "\"\\ud800\\n\"", "a malformed escape in a string" },
		{ "\"\\ud800\\u0041\"", "a malformed escape in a string" },
		{ "\"\\ud800\\ud800\"", "a malformed escape in a string" },
		{ "\"\\udc00\"", "a malformed escape in a string" },   /* a low one first */
		{ "\"\\udfff\\ud800\"", "a malformed escape in a string" },
		{ "\"\xc3\"", "a string that is not UTF-8" },          /* cut short */
		{ "\"\xc3\xa9\xe2\x82\"", "a string that is not UTF-8" },
		{ "\"\xc0\x80\"", "a string that is not UTF-8" },      /* overlong */
		{ "\"\xe0\x9f\xbf\"", "a string that is not UTF-8" },
		{ "\"\xed\xa0\x80\"", "a string that is not UTF-8" },  /* a surrogate */
		{ "\"\xf4\x90\x80\x80\"", "a string that is not UTF-8" }, /* above U+10FFFF */
		{ "\"\x80\"", "a string that is not UTF-8" },
		{ "\"\xff\"", "a string that is not UTF-8" },
		{ "\"\xe2\x28\xa1\"", "a string that is not UTF-8" },
	};
	char out[16];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct json_reader r;
		const char *error = NULL;

		read_text(&r, bad[i].text);
		if (json_string(&r, out, sizeof(out), NULL))
			fail_msg("accepted %s", bad[i].text);
		if (!r.error || strcmp(r.error, bad[i].error) != 0)
			fail_msg("%s: \"%s\", not \"%s\"", bad[i].text, r.error ? r.error : "(none)",
				 bad[i].error);
		/* a string that is skipped is held to the same rules */
		if (bad[i].text[0] == '"' && whole_value(bad[i].text, &error))
			fail_msg("skipped %s", bad[i].text);
	}
	(void)state;
}

/* n brackets of kind open around inner, closed again. */
static const char *nested(char *buf, size_t size, size_t n, const char *open, const char *inner,
			  const char *close)
{
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s", open);
	len += (size_t)snprintf(buf + len, size - len, "%s", inner);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s", close);
	assert_true(len < size);
	return buf;
}

/* A value at most JSON_DEPTH_MAX deep, the outermost at depth 1: 16 arrays, or 15 around a
 * scalar (the 16th value); one more is refused, objects alike. */
static void test_depth(void **state)
{
	char buf[512];
	const char *error = NULL;

	assert_true(whole_value(nested(buf, sizeof(buf), JSON_DEPTH_MAX, "[", "", "]"), NULL));
	assert_false(whole_value(nested(buf, sizeof(buf), JSON_DEPTH_MAX + 1, "[", "", "]"), &error));
	assert_string_equal(error, "nested too deeply");
	assert_true(whole_value(nested(buf, sizeof(buf), JSON_DEPTH_MAX - 1, "[", "1", "]"), NULL));
	assert_false(whole_value(nested(buf, sizeof(buf), JSON_DEPTH_MAX, "[", "1", "]"), &error));
	assert_string_equal(error, "nested too deeply");
	assert_true(whole_value(nested(buf, sizeof(buf), JSON_DEPTH_MAX - 1, "{\"k\":", "{}", "}"), NULL));
	assert_false(whole_value(nested(buf, sizeof(buf), JSON_DEPTH_MAX, "{\"k\":", "{}", "}"), &error));
	assert_string_equal(error, "nested too deeply");
	/* far deeper: refused, not a stack overflow */
	assert_false(whole_value(nested(buf, sizeof(buf), 200, "[", "", "]"), NULL));
	(void)state;
}

/* The reader stops at len, or at the first NUL before it. */
static void test_reader_bounds(void **state)
{
	static const char with_nul[] = "[1]\0garbage";
	struct json_reader r;

	json_reader_init(&r, with_nul, sizeof(with_nul));
	assert_int_equal(r.len, 3);
	assert_true(json_skip(&r));
	assert_true(json_end(&r));
	json_reader_init(&r, "[1,2]", 3);
	assert_false(json_skip(&r));
	assert_string_equal(r.error, "a value expected");
	json_reader_init(&r, "\"abc\"", 4);
	assert_false(json_string(&r, NULL, 0, NULL));
	assert_string_equal(r.error, "a string is not terminated");
	read_text(&r, "\"\\u004");
	assert_false(json_string(&r, NULL, 0, NULL));
	json_reader_init(&r, "true", 3);
	assert_false(json_skip(&r));
	json_reader_init(&r, "true", 3);
	assert_false(json_bool(&r, &(bool){ false }));
	read_text(&r, "");
	assert_true(json_end(&r));
	assert_false(json_take(&r, '{'));
	(void)state;
}

static void test_take_and_fail(void **state)
{
	struct json_reader r;

	read_text(&r, " \t: x");
	assert_false(json_take(&r, ','));
	assert_true(json_take(&r, ':'));
	assert_false(json_take(&r, ':'));
	assert_true(json_take(&r, 'x'));
	assert_int_equal(r.pos, r.len);
	assert_null(r.error);
	assert_false(json_fail(&r, "first"));
	assert_false(json_fail(&r, "second"));
	assert_string_equal(r.error, "first");
	read_text(&r, "  \r\n");
	json_skip_space(&r);
	assert_int_equal(r.pos, 4);
	(void)state;
}

struct members {
	char keys[4][JSON_KEY_MAX];
	uint64_t values[4];
	size_t n;
	bool stop_at_b;
};

static bool member(struct json_reader *r, const char *key, void *data)
{
	struct members *m = data;

	if (m->stop_at_b && streq(key, "b"))
		return json_fail(r, "b refused");
	if (m->n == ARRAY_SIZE(m->keys))
		return false;
	snprintf(m->keys[m->n], sizeof(m->keys[m->n]), "%s", key);
	return json_u64(r, &m->values[m->n++]);
}

static void test_object(void **state)
{
	struct members m = { 0 };
	struct json_reader r;

	read_text(&r, " { \"a\" : 1 , \"b\":2,\"a\":3 } ");
	assert_true(json_object(&r, member, &m));
	assert_true(json_end(&r));
	assert_int_equal(m.n, 3);
	assert_string_equal(m.keys[0], "a");
	assert_string_equal(m.keys[1], "b");
	assert_string_equal(m.keys[2], "a");
	assert_true(m.values[0] == 1 && m.values[1] == 2 && m.values[2] == 3);

	memset(&m, 0, sizeof(m));
	read_text(&r, "{}");
	assert_true(json_object(&r, member, &m));
	assert_int_equal(m.n, 0);

	/* the callback's refusal ends the object; its error is the reader's */
	memset(&m, 0, sizeof(m));
	m.stop_at_b = true;
	read_text(&r, "{\"a\":1,\"b\":2,\"c\":3}");
	assert_false(json_object(&r, member, &m));
	assert_int_equal(m.n, 1);
	assert_string_equal(r.error, "b refused");

	/* a value the callback cannot take */
	memset(&m, 0, sizeof(m));
	read_text(&r, "{\"a\":\"1\"}");
	assert_false(json_object(&r, member, &m));
	assert_string_equal(r.error, "a number expected");
	(void)state;
}

static void test_object_refusals(void **state)
{
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "[]", "an object expected" },
		{ "", "an object expected" },
		{ "{\"a\"}", "a member name and ':' expected" },
		{ "{1:1}", "a string expected" },
		{ "{\"a\":1,}", "a string expected" },
		{ "{\"a\":1 \"b\":2}", "',' or '}' expected" },
		{ "{\"a\":1", "',' or '}' expected" },
	};
	struct members m;
	struct json_reader r;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&m, 0, sizeof(m));
		read_text(&r, bad[i].text);
		assert_false(json_object(&r, member, &m));
		assert_string_equal(r.error, bad[i].error);
	}
	(void)state;
}

/* A member name is cut to JSON_KEY_MAX - 1 bytes. */
static void test_object_long_name(void **state)
{
	struct members m = { 0 };
	struct json_reader r;
	char text[256], key[JSON_KEY_MAX];

	memset(key, 'k', sizeof(key));
	key[JSON_KEY_MAX - 1] = '\0';
	snprintf(text, sizeof(text), "{\"%s\":1,\"%sXY\":2}", key, key);
	read_text(&r, text);
	assert_true(json_object(&r, member, &m));
	assert_int_equal(m.n, 2);
	assert_string_equal(m.keys[0], key);
	assert_string_equal(m.keys[1], key);
	assert_true(m.values[1] == 2);
	(void)state;
}

struct elements {
	size_t indexes[8];
	size_t n;
};

static bool element(struct json_reader *r, size_t index, void *data)
{
	struct elements *e = data;

	if (e->n == ARRAY_SIZE(e->indexes))
		return json_fail(r, "too many");
	e->indexes[e->n++] = index;
	return json_skip(r);
}

static void test_array(void **state)
{
	struct elements e = { 0 };
	struct json_reader r;
	static const struct {
		const char *text, *error;
	} bad[] = {
		{ "{}", "an array expected" },
		{ "[1 2]", "',' or ']' expected" },
		{ "[1,]", "a value expected" },
		{ "[1", "',' or ']' expected" },
		{ "[1,2,3,4,5,6,7,8,9]", "too many" },
	};

	read_text(&r, "[ \"a\", [1, 2], {\"k\": null} ]");
	assert_true(json_array(&r, element, &e));
	assert_true(json_end(&r));
	assert_int_equal(e.n, 3);
	assert_true(e.indexes[0] == 0 && e.indexes[1] == 1 && e.indexes[2] == 2);
	memset(&e, 0, sizeof(e));
	read_text(&r, "[ ]");
	assert_true(json_array(&r, element, &e));
	assert_int_equal(e.n, 0);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(&e, 0, sizeof(e));
		read_text(&r, bad[i].text);
		assert_false(json_array(&r, element, &e));
		assert_string_equal(r.error, bad[i].error);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_string_copies),
		cmocka_unit_test(test_string_cut),
		cmocka_unit_test(test_string_refusals),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_reader_bounds),
		cmocka_unit_test(test_take_and_fail),
		cmocka_unit_test(test_object),
		cmocka_unit_test(test_object_refusals),
		cmocka_unit_test(test_object_long_name),
		cmocka_unit_test(test_array),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
