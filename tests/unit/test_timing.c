/* timing: stages on CLOCK_BOOTTIME and the timings file's format. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "timing.h"

static void test_format(void **state)
{
	struct timings t = {
		.stages = { { "apifs", 0.5, 1.25 }, { "modules", 1.904123, 12.345 } },
		.n = 2,
	};
	char buf[256];
	int n;

	n = timing_format(&t, "9.9", buf, sizeof(buf));
	assert_string_equal(buf, "earlymount 9.9\n"
				 "apifs 0.500000 1.250\n"
				 "modules 1.904123 12.345\n");
	assert_int_equal(n, (int)strlen(buf));
	t.handoff_sec = 2.5;
	timing_format(&t, "9.9", buf, sizeof(buf));
	assert_non_null(strstr(buf, "modules 1.904123 12.345\nhandoff 2.500000 0\n"));
}

static void test_format_too_small(void **state)
{
	struct timings t = { .stages = { { "apifs", 0.5, 1.25 } }, .n = 1 };
	char buf[20];

	assert_int_equal(timing_format(&t, "9.9", buf, sizeof(buf)), -E2BIG);
	assert_int_equal(timing_format(&t, "9.9", buf, 0), -E2BIG);
}

static void test_stages_measured(void **state)
{
	struct timings t = { 0 };
	double before = timing_now();

	timing_begin(&t, "one");
	usleep(2000);
	timing_end(&t);
	timing_begin(&t, "two");
	timing_end(&t);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.stages[0].name, "one");
	assert_true(t.stages[0].start_sec >= before);
	assert_true(t.stages[0].duration_ms >= 2.0);
	assert_true(t.stages[1].start_sec >= t.stages[0].start_sec);
}

static void test_add(void **state)
{
	struct timings t = { .n = 0 };
	char buf[256];

	timing_add(&t, "probes", 1.5, 42.25);
	assert_int_equal(t.n, 1);
	timing_format(&t, "9.9", buf, sizeof(buf));
	assert_string_equal(buf, "earlymount 9.9\nprobes 1.500000 42.250\n");
	t.n = TIMING_MAX_STAGES;
	timing_add(&t, "lost", 2.0, 1.0); /* full: dropped, nothing overwritten */
	assert_int_equal(t.n, TIMING_MAX_STAGES);
	assert_string_equal(t.stages[0].name, "probes");
}

static void test_overflow_is_harmless(void **state)
{
	struct timings t = { 0 };

	for (int i = 0; i < TIMING_MAX_STAGES + 5; i++) {
		timing_begin(&t, "a-stage-name-longer-than-the-field-holds");
		timing_end(&t);
	}
	assert_int_equal(t.n, TIMING_MAX_STAGES);
	assert_int_equal(strlen(t.stages[0].name), TIMING_NAME_MAX - 1);
}

static void test_write(void **state)
{
	char dir[] = "/tmp/test_timing.XXXXXX";
	char path[128], sub[96];
	char text[512];
	struct timings t = { .stages = { { "apifs", 0.5, 1.25 } }, .n = 1 };
	FILE *f;
	size_t n;

	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/earlymount", dir);
	snprintf(path, sizeof(path), "%s/timings", sub);
	assert_int_equal(timing_write(&t, path), 0);
	assert_true(t.handoff_sec > 0);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	assert_true(strncmp(text, "earlymount ", 11) == 0);
	assert_non_null(strstr(text, "\napifs 0.500000 1.250\nhandoff "));
	unlink(path);
	rmdir(sub);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_too_small),
		cmocka_unit_test(test_stages_measured),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_overflow_is_harmless),
		cmocka_unit_test(test_write),
	};

	log_set_max_level(LOG_WARNING);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
