/* When the slow controllers' drivers, held under a pinned plan, go in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <cmocka.h>

#include "storage_hold.h"

struct row {
	const char *what;
	struct storage_hold_facts facts;
	int due;
};

static const struct row rows[] = {
	{ "nothing held: nothing to time", { false, true, true, 1000 }, -1 },
	{ "the likely controllers still insert", { true, true, false, 0 }, -1 },
	{ "they just settled", { true, true, true, 0 }, 250 },
	{ "part of the wait gone", { true, true, true, 100.5 }, 150 },
	{ "the wait is over", { true, true, true, 250 }, 0 },
	{ "long over", { true, true, true, 5000 }, 0 },
	/* a SATA-only machine: its root can be behind nothing else */
	{ "no likely controller", { true, false, true, 0 }, 0 },
	{ "no likely controller, inserts running", { true, false, false, 0 }, -1 },
	/* the settle's time read after the clock of the caller */
	{ "a settle in the future", { true, true, true, -3 }, 250 },
};

static void test_rows(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		print_message("%s\n", rows[i].what);
		assert_int_equal(storage_hold_due_ms(&rows[i].facts, STORAGE_HOLD_MS), rows[i].due);
	}
}

/* The wait never exceeds the stated time, and ends once it passed. */
static void test_bounded(void **state)
{
	for (int ms = -10; ms <= 600; ms += 7) {
		struct storage_hold_facts f = { true, true, true, ms };
		int due = storage_hold_due_ms(&f, STORAGE_HOLD_MS);

		assert_true(due >= 0 && due <= STORAGE_HOLD_MS);
		assert_true((due == 0) == (ms >= STORAGE_HOLD_MS));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
