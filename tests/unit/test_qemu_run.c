/* host/qemu_run.c: how the guest's console tells a clean end from a failed boot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "qemu_run.h"

static void test_console_lines(void **state)
{
	assert_int_equal(qemu_console_line("[    5.195397] reboot: Power down"), QEMU_END_POWEROFF);
	assert_int_equal(qemu_console_line("[    9.1] reboot: Restarting system"), QEMU_END_FAILED);
	assert_int_equal(qemu_console_line("[    2.0] Kernel panic - not syncing: Attempted to kill init!"),
			 QEMU_END_FAILED);
	assert_int_equal(qemu_console_line("[    5.8] earlymount: no /bin/sh in the initramfs; waiting "
					   "forever (add a shell with earlymount initramfs --add)"),
			 QEMU_END_FAILED);
	assert_int_equal(qemu_console_line("[    5.8] earlymount: the boot stopped; starting /bin/sh"),
			 QEMU_END_FAILED);
	assert_int_equal(qemu_console_line("[    5.8] earlymount: starting /sbin/init"), QEMU_END_UNKNOWN);
	assert_int_equal(qemu_console_line(""), QEMU_END_UNKNOWN);
	assert_string_equal(qemu_console_device(ARCH_X86_64), "ttyS0");
	assert_string_equal(qemu_console_device(ARCH_AARCH64), "ttyAMA0");
	assert_null(qemu_console_device(ARCH_S390X));
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
