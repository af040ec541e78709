/* Numbered lines and blank-separated fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "text_lines.h"

struct seen {
	char lines[8][16];
	unsigned numbers[8];
	size_t n;
};

static void keep(char *line, unsigned number, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->lines[s->n], sizeof(s->lines[0]), "%s", line ? line : "(long)");
		s->numbers[s->n++] = number;
	}
}

static void test_lines(void **state)
{
	struct seen s = { 0 };
	char buf[8];

	/* an empty line counts; a line that does not fit the buffer comes as NULL; the text
	 * ends at len or a NUL, with or without a newline */
	text_lines("one\n\nseventeen chars..\nlast\nafter", 28, buf, sizeof(buf), keep, &s);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.lines[0], "one");
	assert_string_equal(s.lines[1], "");
	assert_string_equal(s.lines[2], "(long)");
	assert_string_equal(s.lines[3], "last");
	assert_int_equal(s.numbers[3], 4);
	memset(&s, 0, sizeof(s));
	text_lines("a\nb\0c\n", 6, buf, sizeof(buf), keep, &s);
	assert_int_equal(s.n, 2);
	/* seven bytes fit a buffer of eight */
	memset(&s, 0, sizeof(s));
	text_lines("1234567", 7, buf, sizeof(buf), keep, &s);
	assert_string_equal(s.lines[0], "1234567");
	(void)state;
}

static void test_fields(void **state)
{
	char line[] = " \tone  two\tthree four ";
	char *f[3];

	assert_int_equal(text_fields(line, f, 3), 3);
	assert_string_equal(f[0], "one");
	assert_string_equal(f[2], "three");
	strcpy(line, " \t ");
	assert_int_equal(text_fields(line, f, 3), 0);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
