/* host/pe_file.c: the headers of PE32+ images, and where `earlymount uki` may add sections. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pe_file.h"
#include "util.h"

#define PE_OFF 0x80
#define OPT_SIZE 0xf0

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)v);
	put16(p + 2, (uint16_t)(v >> 16));
}

/* An image like Debian's x86-64 stub: two sections, the last one ending unaligned. */
static size_t make_image(uint8_t *buf, size_t size, uint16_t machine, uint16_t magic)
{
	uint8_t *coff = buf + PE_OFF + 4, *opt = coff + 20, *sec = opt + OPT_SIZE;

	memset(buf, 0, size);
	buf[0] = 'M';
	buf[1] = 'Z';
	put32(buf + 0x3c, PE_OFF);
	memcpy(buf + PE_OFF, "PE\0\0", 4);
	put16(coff, machine);
	put16(coff + 2, 2);
	put16(coff + 16, OPT_SIZE);
	put16(opt, magic);
	put32(opt + 24, 0x10000000); /* ImageBase, low half */
	put32(opt + 32, 0x1000);     /* SectionAlignment */
	memcpy(sec, ".text", 5);
	put32(sec + 8, 0xbff0);
	put32(sec + 12, 0x4000);
	put32(sec + 16, 0xc000);
	put32(sec + 20, 0x400);
	memcpy(sec + 40, ".sbat\0\0\0", 8);
	put32(sec + 48, 0xe2);
	put32(sec + 52, 0x19000);
	put32(sec + 56, 0x200);
	put32(sec + 60, 0x11000);
	return (size_t)(sec + 80 - buf);
}

static void test_parse(void **state)
{
	static uint8_t buf[4096];
	static struct pe_file pe;
	char why[160];
	size_t len = make_image(buf, sizeof(buf), PE_MACHINE_X86_64, 0x20b);

	assert_int_equal(pe_parse(buf, len, &pe, why, sizeof(why)), 0);
	assert_int_equal(pe_machine_arch(pe.machine), ARCH_X86_64);
	assert_int_equal(pe.image_base, 0x10000000);
	assert_int_equal(pe.n_sections, 2);
	assert_string_equal(pe.sections[1].name, ".sbat");
	assert_non_null(pe_find_section(&pe, ".sbat"));
	assert_null(pe_find_section(&pe, ".linux"));
	/* .sbat: 0x19000 + its raw size 0x200, aligned up */
	assert_int_equal(pe_end_address(&pe), 0x1a000);
	(void)state;
}

static void test_refused(void **state)
{
	static uint8_t buf[4096];
	static struct pe_file pe;
	char why[160];
	size_t len = make_image(buf, sizeof(buf), PE_MACHINE_ARM64, 0x10b);

	assert_int_equal(pe_parse(buf, len, &pe, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a PE32+ image (a 64-bit UEFI program)");
	len = make_image(buf, sizeof(buf), PE_MACHINE_ARM64, 0x20b);
	assert_int_equal(pe_parse(buf, len - 1, &pe, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "its section table (2 sections) is cut short or too large");
	assert_int_equal(pe_parse(buf, 0x40, &pe, why, sizeof(why)), -EINVAL);
	buf[0] = 'Z';
	assert_int_equal(pe_parse(buf, len, &pe, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a PE image: no MZ header");
	buf[0] = 'M';
	put32(buf + 0x3c, 0xfffffff0);
	assert_int_equal(pe_parse(buf, len, &pe, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a PE image: no PE signature where the MZ header points");
	assert_int_equal(pe_machine_arch(0x14c), ARCH_INVALID);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
