/* core/fsck_rules.c: which checker a filesystem gets, the options for fsck.repair=, what an
 * exit code means, and the checker's argv with its limits. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "fsck_rules.h"
#include "util.h"

static void test_checkers(void **state)
{
	static const char *const none[] = { "xfs", "btrfs", "erofs", "squashfs", "iso9660", "swap",
					    "", "EXT4", "ext4 ", "ext", "fat", "msdos" };
	const struct fsck_checker *c;

	for (size_t i = 0; i < ARRAY_SIZE(none); i++)
		assert_null(fsck_checker_for(none[i]));
	assert_null(fsck_checker_for(NULL));
	c = fsck_checker_for("ext4");
	assert_string_equal(c->fstype, "ext4");
	assert_string_equal(c->programs[0], "e2fsck");
	assert_string_equal(c->programs[3], "fsck.ext2");
	assert_null(c->programs[4]);
	assert_true(c->takes_force);
	assert_string_equal(fsck_checker_for("ext2")->programs[0], "e2fsck");
	assert_string_equal(fsck_checker_for("ext3")->fstype, "ext3");
	assert_true(fsck_checker_for("ext3")->takes_force);
	c = fsck_checker_for("vfat");
	assert_string_equal(c->programs[0], "fsck.vfat");
	assert_string_equal(c->programs[2], "fsck.msdos");
	assert_null(c->programs[3]);
	assert_false(c->takes_force);
	(void)state;
}

static void test_repair_options(void **state)
{
	assert_string_equal(fsck_repair_option(FSCK_PREEN), "-a");
	assert_string_equal(fsck_repair_option(FSCK_YES), "-y");
	assert_string_equal(fsck_repair_option(FSCK_NO), "-n");
	/* a value the parser never gives: preen, fsck(8)'s default */
	assert_string_equal(fsck_repair_option((enum fsck_repair)42), "-a");
	(void)state;
}

/* fsck(8): 0 clean, 1 corrected, 2 reboot, 4 uncorrected, 8 operational, 16 usage, 32
 * cancelled, 128 shared-library error; a killed checker is -1. */
static void test_verdicts(void **state)
{
	static const int failed[] = { 4, 5, 6, 7, 8, 12, 16, 32, 127, 128, 255, 256, 258, INT_MAX,
				      -1, -2, -4, INT_MIN };

	assert_int_equal(fsck_verdict(0), FSCK_VERDICT_CLEAN);
	assert_int_equal(fsck_verdict(1), FSCK_VERDICT_REPAIRED);
	assert_int_equal(fsck_verdict(2), FSCK_VERDICT_REBOOT);
	assert_int_equal(fsck_verdict(3), FSCK_VERDICT_REBOOT);
	for (size_t i = 0; i < ARRAY_SIZE(failed); i++)
		assert_int_equal(fsck_verdict(failed[i]), FSCK_VERDICT_FAILED);
	(void)state;
}

/* fsck_argv() for /dev/x with these options and room, its words after the program joined by
 * spaces into out: its return. */
static int argv_text(const char *fstype, const char *options, size_t words_size, size_t max,
		     char *out, size_t size)
{
	const char *argv[8];
	char words[32];
	size_t n = 0;
	int r;

	assert_true(words_size <= sizeof(words) && max <= ARRAY_SIZE(argv));
	r = fsck_argv(fsck_checker_for(fstype), "/usr/sbin/fsck", options, "/dev/x", words, words_size,
		      argv, max);
	out[0] = '\0';
	if (r == 0) {
		assert_string_equal(argv[0], "/usr/sbin/fsck");
		for (size_t i = 1; argv[i]; i++)
			n += (size_t)snprintf(out + n, size - n, "%s%s", i > 1 ? " " : "", argv[i]);
	}
	return r;
}

/* The program, the options (-f only where the checker takes it), the device, NULL: at most max
 * entries, the options' words copied into words_size bytes. */
static void test_argv(void **state)
{
	static const struct {
		const char *fstype, *options;
		size_t words_size, max;
		int r;
		const char *argv;
	} cases[] = {
		{ "ext4", "-a -f", 32, 8, 0, "-a -f /dev/x" },
		{ "ext3", "-y", 32, 8, 0, "-y /dev/x" },
		/* fsck.fat's -f salvages chains: never passed, and it takes no entry */
		{ "vfat", "-y -f", 32, 8, 0, "-y /dev/x" },
		{ "vfat", "-f", 32, 8, 0, "/dev/x" },
		{ "vfat", "-a -f", 32, 4, 0, "-a /dev/x" },
		/* blanks between the words, before and after them */
		{ "ext2", "  -n   -f ", 32, 8, 0, "-n -f /dev/x" },
		{ "ext4", "", 32, 3, 0, "/dev/x" },
		{ "ext4", "-a -f", 32, 5, 0, "-a -f /dev/x" },
		{ "ext4", "-a -f", 32, 4, -E2BIG, "" },
		{ "ext4", "-a -f -a -f -a -f", 32, 5, -E2BIG, "" },
		{ "ext4", "", 32, 2, -E2BIG, "" },
		{ "ext4", "", 32, 0, -E2BIG, "" },
		{ "ext4", "-a", 3, 8, 0, "-a /dev/x" },
		{ "ext4", "-a", 2, 8, -E2BIG, "" },
		{ "ext4", "-a", 0, 8, -E2BIG, "" },
	};
	char out[64];

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		int r = argv_text(cases[i].fstype, cases[i].options, cases[i].words_size, cases[i].max,
				  out, sizeof(out));

		if (r != cases[i].r || strcmp(out, cases[i].argv) != 0)
			fail_msg("%s '%s' (%zu bytes, %zu entries): %d '%s', not %d '%s'", cases[i].fstype,
				 cases[i].options, cases[i].words_size, cases[i].max, r, out, cases[i].r,
				 cases[i].argv);
	}
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checkers),
		cmocka_unit_test(test_repair_options),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_argv),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
