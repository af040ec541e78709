/* What a stopped boot does: the order of rd.emergency=, rd.shell=0, panic= and a present
 * shell. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cmdline.h"
#include "failure.h"

static struct options opts;

static void decide(const char *line, bool shell_present, struct failure_plan *plan)
{
	char err[256];

	if (cmdline_parse(line, &opts, err, sizeof(err)) != 0)
		fail_msg("\"%s\": %s", line, err);
	failure_decide(&opts, shell_present, plan);
}

static void expect(const char *line, bool shell_present, bool shell_first,
		   enum failure_action then, int delay_sec, const char *because)
{
	struct failure_plan plan;

	decide(line, shell_present, &plan);
	if (plan.shell_first != shell_first || plan.then != then || plan.delay_sec != delay_sec ||
	    strcmp(plan.because, because) != 0)
		fail_msg("\"%s\" (shell %s): got shell_first %d then %d delay %d because '%s', expected "
			 "%d %d %d '%s'",
			 line, shell_present ? "present" : "absent", plan.shell_first, plan.then,
			 plan.delay_sec, plan.because, shell_first, then, delay_sec, because);
}

static void test_defaults(void **state)
{
	/* today's behaviour: a shell again and again, else a wait */
	expect("", true, true, FAILURE_SHELL, 0, "");
	expect("", false, false, FAILURE_WAIT, 0, "");
	expect("panic=0", false, false, FAILURE_WAIT, 0, "");
}

static void test_zeroed_options_are_the_defaults(void **state)
{
	/* a failure before the command line was read decides on a zeroed struct */
	static const struct options zeroed;
	struct failure_plan plan;

	failure_decide(&zeroed, false, &plan);
	assert_int_equal(plan.then, FAILURE_WAIT);
	failure_decide(&zeroed, true, &plan);
	assert_true(plan.shell_first);
	assert_int_equal(plan.then, FAILURE_SHELL);
}

static void test_panic_reboots_without_a_shell(void **state)
{
	expect("panic=3", false, false, FAILURE_REBOOT, 3, "panic=3");
	expect("panic=-1", false, false, FAILURE_REBOOT, 0, "panic=-1");
	/* with a shell someone may be at it: panic= waits for them */
	expect("panic=3", true, true, FAILURE_SHELL, 0, "");
	expect("panic=3 rd.shell=0", true, false, FAILURE_REBOOT, 3, "panic=3");
}

static void test_rd_emergency_wins(void **state)
{
	expect("rd.emergency=reboot", false, false, FAILURE_REBOOT, 0, "rd.emergency=reboot");
	expect("rd.emergency=poweroff", false, false, FAILURE_POWEROFF, 0, "rd.emergency=poweroff");
	expect("rd.emergency=halt panic=-1", false, false, FAILURE_HALT, 0, "rd.emergency=halt");
	/* panic=N, N > 0, is the countdown before any action */
	expect("rd.emergency=poweroff panic=5", false, false, FAILURE_POWEROFF, 5,
	       "rd.emergency=poweroff");
	/* as dracut: the shell first when allowed, the action once it exits */
	expect("rd.emergency=reboot", true, true, FAILURE_REBOOT, 0, "rd.emergency=reboot");
	expect("rd.emergency=reboot rd.shell=0", true, false, FAILURE_REBOOT, 0,
	       "rd.emergency=reboot");
	/* the bare word is the shell before the boot, not an action */
	expect("rd.emergency", false, false, FAILURE_WAIT, 0, "");
}

static void test_rd_shell_0(void **state)
{
	expect("rd.shell=0", true, false, FAILURE_WAIT, 0, "rd.shell=0");
	expect("rd.shell=0", false, false, FAILURE_WAIT, 0, "");
	expect("rd.shell=0 rd.shell=1", true, true, FAILURE_SHELL, 0, "");
}

static void test_countdown(void **state)
{
	static const int said[] = { 30, 20, 10, 5, 4, 3, 2, 1 };
	size_t n = 0;

	for (int left = 30; left >= 0; left--)
		if (failure_countdown_says(left)) {
			assert_true(n < sizeof(said) / sizeof(said[0]));
			assert_int_equal(left, said[n++]);
		}
	assert_int_equal(n, sizeof(said) / sizeof(said[0]));
	assert_string_equal(failure_action_doing(FAILURE_REBOOT), "rebooting");
	assert_string_equal(failure_action_doing(FAILURE_POWEROFF), "powering off");
	assert_string_equal(failure_action_doing(FAILURE_HALT), "halting");
}

static void describe(const char *line, const char *want)
{
	char err[256], got[512];

	if (cmdline_parse(line, &opts, err, sizeof(err)) != 0)
		fail_msg("\"%s\": %s", line, err);
	failure_describe(&opts, "/bin/sh", got, sizeof(got));
	assert_string_equal(got, want);
}

static void test_describe(void **state)
{
	describe("", "if the boot stops: with /bin/sh in the image, a shell, again each time it "
		     "exits; without, waiting forever");
	describe("panic=3", "if the boot stops: with /bin/sh in the image, a shell, again each time "
			    "it exits; without, rebooting in 3 s (panic=3)");
	describe("rd.emergency=poweroff", "if the boot stops: with /bin/sh in the image, a shell, then "
					  "powering off at once (rd.emergency=poweroff); without, "
					  "powering off at once (rd.emergency=poweroff)");
	describe("rd.shell=0", "if the boot stops: with /bin/sh in the image, waiting forever "
			       "(rd.shell=0); without, waiting forever");
}

static void test_action_words(void **state)
{
	assert_string_equal(failure_action_word(FAILURE_REBOOT), "reboot");
	assert_string_equal(failure_action_word(FAILURE_POWEROFF), "poweroff");
	assert_string_equal(failure_action_word(FAILURE_HALT), "halt");
	assert_null(failure_action_word(FAILURE_WAIT));
	assert_null(failure_action_word(FAILURE_SHELL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_zeroed_options_are_the_defaults),
		cmocka_unit_test(test_panic_reboots_without_a_shell),
		cmocka_unit_test(test_rd_emergency_wins),
		cmocka_unit_test(test_rd_shell_0),
		cmocka_unit_test(test_countdown),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_action_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
