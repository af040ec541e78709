/* lib/utf8.c: which byte sequences are well-formed UTF-8, and what sanitizing leaves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "utf8.h"
#include "util.h"

static void test_sequence_lengths(void **state)
{
	static const struct {
		const char *bytes;
		size_t avail, len;
	} cases[] = {
		{ "a", 1, 1 },
		{ "\xc3\xa9", 2, 2 },
		{ "\xc3\xa9", 1, 0 },             /* cut short by avail */
		{ "\xe2\x82\xac", 3, 3 },
		{ "\xf0\x9f\x98\x80", 4, 4 },
		{ "\xf0\x9f\x98\x80", 3, 0 },
		{ "\xc1\xbf", 2, 0 },             /* overlong */
		{ "\xe0\x9f\xbf", 3, 0 },         /* overlong */
		{ "\xed\xa0\x80", 3, 0 },         /* surrogate */
		{ "\xf4\x90\x80\x80", 4, 0 },     /* above U+10FFFF */
		{ "\x80", 1, 0 },                 /* a continuation byte alone */
		{ "\xe2\x28\xa1", 3, 0 },         /* a broken continuation */
		{ "a", 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_int_equal(utf8_sequence_length((const unsigned char *)cases[i].bytes,
						      cases[i].avail),
				 cases[i].len);
	(void)state;
}

static void test_utf8_sanitize(void **state)
{
	static const struct {
		const char *in, *out;
		size_t replaced;
	} cases[] = {
		{ "root-1.10", "root-1.10", 0 },
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbf", 0 },
		{ "a\xed\xa0\x80" "b", "a???b", 3 },               /* lone high surrogate, as libblkid writes it */
		{ "\xed\xbf\xbf", "???", 3 },                       /* lone low surrogate */
		{ "\xc0\x80\xe0\x80\x80", "?????", 5 },             /* overlong NUL */
		{ "\xf4\x90\x80\x80", "????", 4 },                  /* above U+10FFFF */
		{ "\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", 0 },      /* U+10FFFF */
		{ "\x80x\xff\xf8\x88\x80\x80\x80", "?x??????", 7 }, /* stray and 5-byte forms */
		{ "ok\xe2\x82", "ok??", 2 },                          /* cut short by the end */
		{ "\xe2\x82" "a", "??a", 2 },
	};
	char buf[32];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(buf, sizeof(buf), "%s", cases[i].in);
		assert_int_equal(utf8_sanitize(buf), cases[i].replaced);
		assert_string_equal(buf, cases[i].out);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence_lengths),
		cmocka_unit_test(test_utf8_sanitize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
