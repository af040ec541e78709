/* PE32+ headers, as the PE/COFF specification lays them out: the MZ header points at the PE
 * signature; the COFF header, the optional header and the section table follow it. */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pe_file.h"
#include "util.h"

#define MZ_LFANEW 0x3c
#define COFF_SIZE 20
#define OPT_MAGIC_PE32PLUS 0x20b
#define OPT_IMAGE_BASE 24
#define OPT_SECTION_ALIGNMENT 32
#define OPT_MIN 40
#define SECTION_SIZE 40

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* The section table at table, n entries, all within the buffer (checked by the caller). */
static void read_sections(const uint8_t *table, size_t n, struct pe_file *pe)
{
	for (size_t i = 0; i < n; i++) {
		const uint8_t *s = table + i * SECTION_SIZE;
		struct pe_section *out = &pe->sections[i];

		memcpy(out->name, s, 8);
		out->name[8] = '\0';
		out->virtual_size = le32(s + 8);
		out->virtual_address = le32(s + 12);
		out->raw_size = le32(s + 16);
		out->raw_offset = le32(s + 20);
	}
	pe->n_sections = n;
}

int pe_parse(const uint8_t *buf, size_t len, struct pe_file *pe, char *why, size_t why_size)
{
	size_t pe_off, opt_off, opt_size, table_off, n;
	int r = -EINVAL;

	memset(pe, 0, sizeof(*pe));
	if (len < MZ_LFANEW + 4 || buf[0] != 'M' || buf[1] != 'Z') {
		set_why(why, why_size, "not a PE image: no MZ header");
		goto out;
	}
	pe_off = le32(buf + MZ_LFANEW);
	if (pe_off > len || len - pe_off < 4 + COFF_SIZE || memcmp(buf + pe_off, "PE\0\0", 4)) {
		set_why(why, why_size, "not a PE image: no PE signature where the MZ header points");
		goto out;
	}
	pe->machine = le16(buf + pe_off + 4);
	n = le16(buf + pe_off + 6);
	opt_size = le16(buf + pe_off + 20);
	opt_off = pe_off + 4 + COFF_SIZE;
	if (opt_size < OPT_MIN || opt_size > len - opt_off || le16(buf + opt_off) != OPT_MAGIC_PE32PLUS) {
		set_why(why, why_size, "not a PE32+ image (a 64-bit UEFI program)");
		goto out;
	}
	pe->image_base = le64(buf + opt_off + OPT_IMAGE_BASE);
	pe->section_alignment = le32(buf + opt_off + OPT_SECTION_ALIGNMENT);
	table_off = opt_off + opt_size;
	if (n > PE_SECTIONS_MAX || n * SECTION_SIZE > len - table_off) {
		set_why(why, why_size, "its section table (%zu sections) is cut short or too large", n);
		goto out;
	}
	if (pe->section_alignment == 0 || (pe->section_alignment & (pe->section_alignment - 1))) {
		set_why(why, why_size, "its section alignment %u is not a power of two",
			pe->section_alignment);
		goto out;
	}
	read_sections(buf + table_off, n, pe);
	r = 0;
out:
	return r;
}

enum arch pe_machine_arch(uint16_t machine)
{
	return machine == PE_MACHINE_X86_64 ? ARCH_X86_64
	       : machine == PE_MACHINE_ARM64 ? ARCH_AARCH64
					     : ARCH_INVALID;
}

uint64_t pe_end_address(const struct pe_file *pe)
{
	uint64_t end = 0, align = pe->section_alignment;

	for (size_t i = 0; i < pe->n_sections; i++) {
		const struct pe_section *s = &pe->sections[i];
		uint64_t size = s->virtual_size > s->raw_size ? s->virtual_size : s->raw_size;

		if ((uint64_t)s->virtual_address + size > end)
			end = (uint64_t)s->virtual_address + size;
	}
	return (end + align - 1) / align * align;
}

const struct pe_section *pe_find_section(const struct pe_file *pe, const char *name)
{
	const struct pe_section *found = NULL;

	for (size_t i = 0; i < pe->n_sections && !found; i++)
		if (streq(pe->sections[i].name, name))
			found = &pe->sections[i];
	return found;
}
