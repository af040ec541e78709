/* lib/bkeymap.c: kbd's binary keymaps, walked whole or refused whole. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bkeymap.h"
#include "util.h"

static uint8_t map[8 + BKEYMAP_MAPS + 2 * BKEYMAP_KEYS * 2];

/* Keymaps 0 (plain) and 1 (shift), key k holding k + 100 * table. */
static size_t make_map(void)
{
	size_t pos = 7 + BKEYMAP_MAPS;

	memset(map, 0, sizeof(map));
	memcpy(map, "bkeymap", 7);
	map[7] = map[8] = 1;
	for (unsigned t = 0; t < 2; t++)
		for (unsigned k = 0; k < BKEYMAP_KEYS; k++, pos += 2) {
			uint16_t v = (uint16_t)(k + 100 * t);

			memcpy(map + pos, &v, 2);
		}
	return pos;
}

static int seen;

static int entry(unsigned table, unsigned index, uint16_t value, void *data)
{
	assert_int_equal(value, index + 100 * table);
	seen++;
	return seen == *(int *)data ? -EIO : 0;
}

static void test_walk(void **state)
{
	size_t len = make_map();
	int stop = -1;

	assert_int_equal(bkeymap_check(map, len), 2 * BKEYMAP_KEYS);
	seen = 0;
	assert_int_equal(bkeymap_walk(map, len, entry, &stop), 2 * BKEYMAP_KEYS);
	assert_int_equal(seen, 2 * BKEYMAP_KEYS);
	/* what the callback says stops the walk */
	seen = 0;
	stop = 3;
	assert_int_equal(bkeymap_walk(map, len, entry, &stop), -EIO);
	assert_int_equal(seen, 3);
	(void)state;
}

static void test_refused(void **state)
{
	size_t len = make_map();
	int stop = -1;

	seen = 0;
	assert_int_equal(bkeymap_walk(map, len - 1, entry, &stop), -EINVAL); /* cut short */
	assert_int_equal(bkeymap_check(map, len + 1), -EINVAL);              /* bytes past its end */
	map[9] = 1;                                                          /* a third map missing */
	assert_int_equal(bkeymap_check(map, len), -EINVAL);
	map[0] = 'B';
	assert_int_equal(bkeymap_check(map, len), -EINVAL);
	assert_int_equal(bkeymap_check(map, 3), -EINVAL);
	assert_int_equal(seen, 0); /* nothing handed on from a map refused */
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
